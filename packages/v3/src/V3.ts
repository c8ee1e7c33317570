/**
 * Every v3 service in one layer, and the application layer that wires the
 * transport and the application's client-credentials session from the
 * environment. An application that also reads legacy data uses
 * `ConnectedVehicle.layerConfig` of `@connected-vehicle/sdk` instead (one
 * transport for both).
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import type { Context } from "effect"
import type { HttpClient } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { ConfigurationError } from "@connected-vehicle/transport/ConfigurationError"
import * as Compatibility from "./Compatibility.ts"
import * as Connections from "./Connections.ts"
import * as Signals from "./Signals.ts"
import * as Subscriptions from "./Subscriptions.ts"
import { transformTransport } from "./internal/args.ts"
import * as Webhooks from "./Webhooks.ts"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"

/**
 * The services provided by {@link layer}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type * as V3 from "@connected-vehicle/v3/V3"
 *
 * declare const program: Effect.Effect<void, never, V3.Services>
 * ```
 * @since 0.1.0
 * @category models
 */
export type Services =
  | Compatibility.Compatibility
  | Context.Service.Identifier<(typeof resources)[keyof typeof resources]>

/**
 * The services of the `Resource` shape (`list`, `pages`, `stream`, `get`,
 * and a method per other endpoint of their table, `endpoints`), by their
 * name in the Promise client (`client.v3.signals`, `client.v3.connections`,
 * ...), which derives its members from this table.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as V3 from "@connected-vehicle/v3/V3"
 *
 * const firstWebhook = Effect.flatMap(V3.resources.webhooks, (webhooks) => webhooks.list({ pageSize: 1 }))
 * ```
 * @since 0.2.0
 * @category models
 */
export const resources = {
  signals: Signals.Signals,
  connections: Connections.Connections,
  subscriptions: Subscriptions.Subscriptions,
  webhooks: Webhooks.Webhooks
} as const

/**
 * Options of {@link layer} and {@link layerConfig}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpClient } from "effect/http"
 * import type * as V3 from "@connected-vehicle/v3/V3"
 *
 * const options: V3.Options = {
 *   compatibility: { timeToLive: "48 hours" },
 *   transformClient: HttpClient.tapRequest((request) => Effect.logDebug(request.url))
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly compatibility?: Compatibility.Options | undefined
  /** Transforms the HTTP client of every v3 service (after the transport's own pipeline). */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/**
 * Options of {@link layerConfig}.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import type * as V3 from "@connected-vehicle/v3/V3"
 *
 * const options: V3.ConfigOptions = { httpClient: NodeHttpClient.layerUndici }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface ConfigOptions extends Options {
  /** The HTTP client (default `UndiciHttpClient.layer()` of `@connected-vehicle/transport`, for Node; elsewhere give `FetchHttpClient.layer`). */
  readonly httpClient?: Layer.Layer<HttpClient.HttpClient> | undefined
}

/**
 * Signals, connections, subscriptions, webhooks and compatibility on a
 * transport and a credential.
 *
 * @example
 * ```ts
 * import { Layer, Redacted } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import * as Credentials from "@connected-vehicle/transport/Credentials"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 * import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
 * import * as V3 from "@connected-vehicle/v3/V3"
 *
 * const V3Live = V3.layer().pipe(
 *   Layer.provide(Credentials.layerStatic(Redacted.make("app-token"))),
 *   Layer.provide(Transport.layer),
 *   Layer.provide([TransportConfig.layerOrigin("http://127.0.0.1:8080"), FetchHttpClient.layer])
 * )
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<Services, never, Transport.Transport | Credentials> =>
  Layer.mergeAll(
    Signals.layer,
    Connections.layer,
    Subscriptions.layer,
    Webhooks.layer,
    Compatibility.layer(options?.compatibility)
  ).pipe(Layer.provide(transformTransport(options?.transformClient)))

/**
 * Everything an application needs, configured from the environment: the
 * roots and policies of `TransportConfig.layerConfig` (`CONNECTED_VEHICLE_ORIGIN`
 * or the five `CONNECTED_VEHICLE_*_URL`), the client id and secret of
 * `OAuthConfig.layerConfig` (`CONNECTED_VEHICLE_CLIENT_ID`,
 * `CONNECTED_VEHICLE_CLIENT_SECRET`), an in-memory token store, the
 * application's client-credentials session and `UndiciHttpClient.layer()`
 * (the transport package's client, for Node; or `options.httpClient`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Signals } from "@connected-vehicle/v3/Signals"
 * import * as V3 from "@connected-vehicle/v3/V3"
 *
 * const program = Effect.gen(function*() {
 *   const signals = yield* Signals
 *   return yield* signals.list({ vehicleId: "veh_1", userId: "usr_1" })
 * })
 *
 * // CONNECTED_VEHICLE_ORIGIN=... CONNECTED_VEHICLE_CLIENT_ID=... CONNECTED_VEHICLE_CLIENT_SECRET=... node app.ts
 * Effect.runPromise(program.pipe(Effect.provide(V3.layerConfig())))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (options?: ConfigOptions): Layer.Layer<Services, ConfigurationError> => {
  const TransportLive = Transport.layerConfig({ httpClient: options?.httpClient ?? UndiciHttpClient.layer() })
  const CredentialsLive = Session.layerApplication().pipe(
    Layer.provide([TokenStore.layerMemory, OAuthConfig.layerConfig, TransportLive])
  )
  return layer(options).pipe(Layer.provide([TransportLive, CredentialsLive]))
}

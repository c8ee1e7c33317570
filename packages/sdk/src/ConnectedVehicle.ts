/**
 * The whole SDK for an application in one layer: one transport, one token
 * store and OAuth configuration, the application's client-credentials
 * session behind the v3 services, and one user's authorization-code session
 * behind the legacy v2.0 reads. `@connected-vehicle/testing/Simulated` builds the
 * same on the simulator (loopback or in memory) for tests and demos.
 *
 * @since 0.1.0
 */
import { Config, Effect, Layer } from "effect"
import * as ConfigurationError from "@connected-vehicle/transport/ConfigurationError"
import type { HttpClient } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import type { WarningLevel } from "@connected-vehicle/legacy-v2/Deprecation"
import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as V3 from "@connected-vehicle/v3/V3"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"

/**
 * Everything the layers provide: the v3 services, the legacy `Vehicles`, and
 * the shared transport, token store and OAuth configuration (so that the
 * application can run `Session.login(userKey, ...)` after the consent
 * redirect, or call `Transport.client` itself).
 *
 * @example
 * ```ts
 * import type { Effect } from "effect"
 * import type { Services } from "@connected-vehicle/sdk/ConnectedVehicle"
 *
 * declare const program: Effect.Effect<void, never, Services>
 * ```
 * @since 0.1.0
 * @category models
 */
export type Services =
  | V3.Services
  | Vehicles.Vehicles
  | Transport.Transport
  | TransportConfig.TransportConfig
  | TokenStore.TokenStore
  | OAuthConfig.OAuthConfig

/**
 * Options shared by every layer of this module.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import type { Options } from "@connected-vehicle/sdk/ConnectedVehicle"
 *
 * const options: Options = { userKey: "user-42", legacy: { unitSystem: "imperial" }, httpClient: NodeHttpClient.layerUndici }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Token-store key of the user behind the legacy reads (default `"user"`). */
  readonly userKey?: string | undefined
  /** Token-store key of the application token (default `"application"`). */
  readonly applicationKey?: string | undefined
  readonly v3?: V3.Options | undefined
  readonly legacy?: Vehicles.Options | undefined
  /** Where tokens are kept (default: in memory). */
  readonly tokenStore?: Layer.Layer<TokenStore.TokenStore> | undefined
  /** The HTTP client (default `UndiciHttpClient.layer()` of `@connected-vehicle/transport`, for Node; elsewhere give `FetchHttpClient.layer`). */
  readonly httpClient?: Layer.Layer<HttpClient.HttpClient> | undefined
  /** Transforms the transport's HTTP client, for every call of every service. */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
  /** Waits before each attempt of every authenticated call, after its token is read: it is sent at once after it (`Transport.Options` `admit`). */
  readonly admit?: Transport.Admit | undefined
}

/**
 * The services on given transport configuration and OAuth configuration
 * layers: the building block of {@link layer}, {@link layerConfig} and
 * `Simulated.layer` (`@connected-vehicle/testing/Simulated`).
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
 * import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
 * import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
 *
 * const Live = ConnectedVehicle.layerWith(
 *   TransportConfig.layerOrigin("http://127.0.0.1:8080"),
 *   OAuthConfig.layer({ clientId: "id", clientSecret: Redacted.make("secret") })
 * )
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerWith = <E1, E2, R1, R2>(
  transportConfig: Layer.Layer<TransportConfig.TransportConfig, E1, R1>,
  oauthConfig: Layer.Layer<OAuthConfig.OAuthConfig, E2, R2>,
  options?: Options
): Layer.Layer<Services, E1 | E2, R1 | R2> => {
  const TransportLive = Transport.layerFrom(transportConfig, {
    transformClient: options?.transformClient,
    admit: options?.admit,
    httpClient: options?.httpClient ?? UndiciHttpClient.layer()
  })
  const Shared = Layer.mergeAll(options?.tokenStore ?? TokenStore.layerMemory, oauthConfig).pipe(
    Layer.provideMerge(TransportLive)
  )
  const V3Live = V3.layer(options?.v3).pipe(Layer.provide(Session.layerApplication({ key: options?.applicationKey })))
  const LegacyLive = Vehicles.layer(options?.legacy).pipe(Layer.provide(Session.layerUser(options?.userKey ?? "user")))
  return Layer.mergeAll(V3Live, LegacyLive).pipe(Layer.provideMerge(Shared))
}

/**
 * The whole SDK from explicit configuration: the roots and policies of the
 * transport, and the application's client id and secret.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import * as Session from "@connected-vehicle/auth/Session"
 * import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
 * import { Connections } from "@connected-vehicle/v3/Connections"
 * import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
 * import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
 *
 * const program = Effect.gen(function*() {
 *   const connections = yield* (yield* Connections).list({ pageSize: 5 })
 *   yield* Session.login("user", { code: "code-from-the-redirect", redirectUri: "https://app.example/callback" })
 *   const vehicles = yield* (yield* Vehicles).list()
 *   return [connections.meta.totalCount, vehicles.paging.count]
 * })
 *
 * const Live = ConnectedVehicle.layer({
 *   transport: { roots: TransportConfig.rootsFromOrigin("https://api.example.com") },
 *   oauth: { clientId: "id", clientSecret: Redacted.make("secret") }
 * })
 * Effect.runPromise(program.pipe(Effect.provide(Live)))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options & { readonly transport: TransportConfig.Options; readonly oauth: OAuthConfig.Options }
): Layer.Layer<Services> => layerWith(TransportConfig.layer(options.transport), OAuthConfig.layer(options.oauth), options)

/**
 * The SDK's configuration from the environment, the one `Config` value of
 * this package: the transport's (`TransportConfig.config`), the OAuth
 * client's (`OAuthConfig.config`) and the legacy reads' (`Vehicles.config`),
 * each under `CONNECTED_VEHICLE_` (see the repository README's table).
 * {@link layerConfig} reads it; read it yourself to combine it with the
 * application's settings, or nest it under a prefix of your own.
 *
 * @example
 * ```ts
 * import { Config, Effect, Layer } from "effect"
 * import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
 *
 * // MYAPP_CONNECTED_VEHICLE_ORIGIN, MYAPP_CONNECTED_VEHICLE_CLIENT_ID, ...
 * const Live = Layer.unwrap(Effect.map(Config.nested(ConnectedVehicle.config, "MYAPP"), (settings) =>
 *   ConnectedVehicle.layer(settings)))
 * ```
 * @since 0.2.0
 * @category configuration
 */
export const config: Config.Config<{
  readonly transport: TransportConfig.Options
  readonly oauth: OAuthConfig.Options
  readonly legacy: { readonly deprecationWarnings: WarningLevel }
}> = Config.all({ transport: TransportConfig.config, oauth: OAuthConfig.config, legacy: Vehicles.config })

/**
 * The whole SDK configured from the environment: {@link layer} of
 * {@link config}, the roots and policies of the transport
 * (`CONNECTED_VEHICLE_ORIGIN` or the five `CONNECTED_VEHICLE_*_URL`), the
 * OAuth client (`CONNECTED_VEHICLE_CLIENT_ID`,
 * `CONNECTED_VEHICLE_CLIENT_SECRET`) and the legacy reads'
 * `CONNECTED_VEHICLE_DEPRECATION_WARNINGS` (unless
 * `options.legacy.deprecationWarnings` is given).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Webhooks } from "@connected-vehicle/v3/Webhooks"
 * import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
 *
 * const program = Effect.gen(function*() {
 *   const webhooks = yield* Webhooks
 *   return yield* webhooks.list({ isEnabled: true })
 * })
 * // CONNECTED_VEHICLE_ORIGIN=... CONNECTED_VEHICLE_CLIENT_ID=... CONNECTED_VEHICLE_CLIENT_SECRET=... node app.ts
 * Effect.runPromise(program.pipe(Effect.provide(ConnectedVehicle.layerConfig())))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (options?: Options): Layer.Layer<Services, ConfigurationError.ConfigurationError> =>
  Layer.unwrap(Effect.mapError(
    Effect.map(config, ({ legacy, oauth, transport }) =>
      layer({
        ...options,
        transport,
        oauth,
        legacy: { ...options?.legacy, deprecationWarnings: options?.legacy?.deprecationWarnings ?? legacy.deprecationWarnings }
      })),
    ConfigurationError.fromConfigError
  ))

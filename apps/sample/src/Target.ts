/**
 * Where the CLI talks to: the embedded simulator (default: started in-process
 * on 127.0.0.1 with a free port) or another server given by `--target` /
 * environment variables (another simulator or a real deployment).
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer, Option } from "effect"
import type { Redacted } from "effect"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import type * as TokenStore from "@connected-vehicle/auth/TokenStore"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import type * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Compatibility from "@connected-vehicle/v3/Compatibility"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { SampleError } from "./SampleError.ts"

/**
 * The server the CLI talks to and the application credential it uses there.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Target } from "@connected-vehicle/sample/Target"
 *
 * const where = Effect.map(Target.asEffect(), (target) => target.label)
 * ```
 * @since 0.1.0
 */
export class Target extends Context.Service<Target, {
  /** `embedded simulator at http://127.0.0.1:PORT` or the target origin. */
  readonly label: string
  readonly embedded: boolean
  /** The token-store key of the user's tokens on this target. */
  readonly userKey: string
  /** The running embedded simulator (undefined for a remote target). */
  readonly simulator: Simulator.Simulator["Service"] | undefined
}>()("@connected-vehicle/sample/Target") {}

/**
 * What the command line says about the target (each part may come from an
 * environment variable instead).
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import type { Options } from "@connected-vehicle/sample/Target"
 *
 * const embedded: Options = { target: Option.none(), clientId: Option.none(), clientSecret: Option.none() }
 * ```
 * @since 0.1.0
 */
export interface Options {
  readonly target: Option.Option<string>
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted<string>>
}

/**
 * Per-call policies of the CLI: short timeouts, few retries, so that a failing
 * server gives a clear error quickly.
 *
 * @example
 * ```ts
 * import { policies } from "@connected-vehicle/sample/Target"
 *
 * policies.timeoutMillis // 15000
 * ```
 * @since 0.1.0
 */
export const policies = {
  timeoutMillis: 15_000,
  retry: { maxAttempts: 3, initialDelayMillis: 100, maxElapsedMillis: 5_000 }
} as const

/**
 * The per-root variables of `@connected-vehicle/transport`: any of them
 * selects a remote deployment with separate roots.
 *
 * @example
 * ```ts
 * import { perRootVariables } from "@connected-vehicle/sample/Target"
 *
 * perRootVariables.includes("CONNECTED_VEHICLE_LEGACY_URL") // true
 * ```
 * @since 0.1.0
 */
export const perRootVariables = [
  "CONNECTED_VEHICLE_BASE_URL",
  "CONNECTED_VEHICLE_MANAGEMENT_URL",
  "CONNECTED_VEHICLE_COMPAT_URL",
  "CONNECTED_VEHICLE_AUTH_URL",
  "CONNECTED_VEHICLE_LEGACY_URL"
] as const

const anyPerRootVariable = Config.all(perRootVariables.map((name) => Config.option(Config.String(name)))).pipe(
  Config.map((values) => values.some(Option.isSome))
)

/**
 * The user's token-store key on a target.
 *
 * @example
 * ```ts
 * import { userKey } from "@connected-vehicle/sample/Target"
 *
 * userKey("https://api.example.com") // "user@https://api.example.com"
 * ```
 * @since 0.1.0
 */
export const userKey = (label: string): string => `user@${label}`

// A remote target (by --target, or by the per-root environment variables):
// its label and transport configuration; undefined for the embedded simulator.
const remoteOf = (options: Options) =>
  Effect.map(anyPerRootVariable, (perRoot) => {
    if (Option.isSome(options.target)) {
      return { label: options.target.value, config: TransportConfig.layerOrigin(options.target.value, policies) }
    }
    return perRoot ? { label: "the roots of CONNECTED_VEHICLE_*_URL", config: TransportConfig.layerConfig } : undefined
  })

/**
 * The target and the whole SDK on it (`@connected-vehicle/sdk`, one transport):
 *
 * - `--target URL` (or `CONNECTED_VEHICLE_ORIGIN`): one origin serving everything;
 * - any of the per-root variables ({@link perRootVariables}): a real
 *   deployment with separate roots;
 * - otherwise the embedded simulator on 127.0.0.1, for the duration of the command.
 *
 * A remote target needs the client id and secret (`--client-id`,
 * `CONNECTED_VEHICLE_CLIENT_ID`, `CONNECTED_VEHICLE_CLIENT_SECRET` or
 * `--client-secret-file`) unless `credentials` is false (the public
 * compatibility listing): only `Target`, the transport and `Compatibility`
 * are then provided.
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import * as TokenStore from "@connected-vehicle/auth/TokenStore"
 * import * as Target from "@connected-vehicle/sample/Target"
 *
 * const Embedded = Target.layer(
 *   { target: Option.none(), clientId: Option.none(), clientSecret: Option.none() },
 *   () => TokenStore.layerMemory
 * )
 * ```
 * @since 0.1.0
 */
export const layer = (
  options: Options,
  remoteTokenStore: () => Layer.Layer<TokenStore.TokenStore>
): Layer.Layer<Target | ConnectedVehicle.Services, SampleError | Config.ConfigError> =>
  Layer.unwrap(Effect.gen(function*() {
    const remote = yield* remoteOf(options)
    if (remote === undefined) return embedded
    const { label, config } = remote
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(options.clientSecret)
    if (clientId === undefined || clientSecret === undefined) {
      return yield* new SampleError({
        reason:
          "A remote target needs the application's client id and secret: --client-id (or CONNECTED_VEHICLE_CLIENT_ID) and --client-secret-file (or CONNECTED_VEHICLE_CLIENT_SECRET)",
        usage: true
      })
    }
    return ConnectedVehicle.layerWith(config, OAuthConfig.layer({ clientId, clientSecret }), {
      httpClient: NodeHttpClient.layerUndici,
      tokenStore: remoteTokenStore(),
      userKey: userKey(label)
    }).pipe(Layer.merge(Layer.succeed(Target, { label, embedded: false, userKey: userKey(label), simulator: undefined })))
  }))

/**
 * The target, the transport and `Compatibility` only: no application
 * credential is needed (the compatibility listing is public).
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import * as Target from "@connected-vehicle/sample/Target"
 *
 * const Public = Target.layerPublic({ target: Option.none(), clientId: Option.none(), clientSecret: Option.none() })
 * ```
 * @since 0.1.0
 */
export const layerPublic = (
  options: Options
): Layer.Layer<Target | Compatibility.Compatibility | Transport.Transport, Config.ConfigError> =>
  Layer.unwrap(Effect.gen(function*() {
    const remote = yield* remoteOf(options)
    if (remote === undefined) return embedded
    const { label, config } = remote
    return Compatibility.layer().pipe(
      Layer.provideMerge(Transport.layer),
      Layer.provide([config, NodeHttpClient.layerUndici]),
      Layer.merge(Layer.succeed(Target, { label, embedded: false, userKey: userKey(label), simulator: undefined }))
    )
  }))

const embeddedKey = userKey("embedded simulator")

// The simulator is loaded by the SDK only when it is used: a remote target starts faster.
const embedded: Layer.Layer<Target | ConnectedVehicle.Services> = Layer.unwrap(Effect.gen(function*() {
  const { Simulator: Service } = yield* Effect.promise(() => import("@connected-vehicle/simulator/Simulator"))
  return Layer.effect(
    Target,
    Effect.map(Effect.service(Service), (simulator) => ({
      label: `embedded simulator at ${simulator.url}`,
      embedded: true,
      userKey: embeddedKey,
      simulator
    }))
  ).pipe(Layer.provideMerge(ConnectedVehicle.layerSimulator({
    loopback: true,
    httpClient: NodeHttpClient.layerUndici,
    transport: policies,
    userKey: embeddedKey,
    signIn: false
  })))
}))

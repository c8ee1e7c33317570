/**
 * Where the CLI talks to: the embedded simulator (default: started in-process
 * on 127.0.0.1 with a free port) or another server given by `--target` /
 * environment variables (another simulator or a real deployment).
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer, Option } from "effect"
import type { Redacted } from "effect"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import type * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Compatibility from "@connected-vehicle/v3/Compatibility"
import * as ConfigurationError from "@connected-vehicle/transport/ConfigurationError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as env from "./internal/env.ts"
import { SampleError } from "./SampleError.ts"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"

/**
 * The server the CLI talks to and the application credential it uses there.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Target } from "@connected-vehicle/sample/Target"
 *
 * const where = Effect.map(Effect.service(Target), (target) => target.label)
 * ```
 * @since 0.1.0
 * @category services
 */
export class Target extends Context.Service<Target, {
  /** `embedded simulator at http://127.0.0.1:PORT` or the target origin. */
  readonly label: string
  readonly embedded: boolean
  /** The token-store key of the user's tokens on this target for this client id (see {@link keysOf}). */
  readonly userKey: string
  /** The token-store key of the application token on this target for this client id (see {@link keysOf}). */
  readonly applicationKey: string
  /**
   * The user the consent flow asks for (`login_hint`): on the embedded
   * simulator a user with a vehicle whose make answers the service history;
   * undefined elsewhere (the user chooses in the browser).
   */
  readonly loginHint: string | undefined
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
 * @category models
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
 * policies.timeout // "15 seconds"
 * ```
 * @since 0.1.0
 * @category constants
 */
export const policies = {
  timeout: "15 seconds",
  retry: { maxAttempts: 3, initialDelay: "100 millis", maxElapsed: "5 seconds" }
} as const satisfies Omit<TransportConfig.Options, "roots">

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
 * @category constants
 */
export const perRootVariables: ReadonlyArray<string> = env.perRootNames.map((name) => `CONNECTED_VEHICLE_${name}`)

/**
 * Where a target is, for the token-store keys: the normalised URL of
 * `--target` (origin and path, no trailing slash), or the distinct roots of
 * a deployment with separate roots.
 *
 * @example
 * ```ts
 * import { identityOf } from "@connected-vehicle/sample/Target"
 * import { rootsFromOrigin } from "@connected-vehicle/transport/TransportConfig"
 *
 * identityOf(rootsFromOrigin("http://127.0.0.1:8080/")) // "http://127.0.0.1:8080"
 * ```
 * @since 0.1.0
 * @category utils
 */
export const identityOf = (roots: TransportConfig.Roots): string => {
  const normal = (url: string) => {
    const parsed = new URL(url)
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`
  }
  const one = TransportConfig.rootsFromOrigin(roots.authorization)
  const single = (Object.keys(one) as Array<keyof TransportConfig.Roots>).every((k) => normal(one[k]) === normal(roots[k]))
  if (single) return normal(roots.authorization)
  return [...new Set([roots.authorization, roots.base, roots.management, roots.compatibility, roots.legacy].map(normal))].join(" ")
}

/**
 * The token-store keys of a target and a client id: every cached token is
 * keyed by where it was issued and for which application, so that a token
 * is never sent to another server, nor used for another client id.
 *
 * @example
 * ```ts
 * import { keysOf } from "@connected-vehicle/sample/Target"
 *
 * keysOf("https://api.example.com", "my-app").userKey // "user@https://api.example.com?client_id=my-app"
 * ```
 * @since 0.1.0
 * @category utils
 */
export const keysOf = (identity: string, clientId: string): {
  readonly userKey: string
  readonly applicationKey: string
} => {
  const suffix = `${identity}?client_id=${encodeURIComponent(clientId)}`
  return { userKey: `user@${suffix}`, applicationKey: `application@${suffix}` }
}

/**
 * Whether a token-store key holds a user's tokens (the only ones kept in the
 * token file: the application token is fetched again by every command).
 *
 * @example
 * ```ts
 * import { isUserKey, keysOf } from "@connected-vehicle/sample/Target"
 *
 * isUserKey(keysOf("https://api.example.com", "my-app").userKey) // true
 * ```
 * @since 0.1.0
 * @category guards
 */
export const isUserKey = (key: string): boolean => key.startsWith("user@")

// A remote target (by --target, or by the per-root environment variables):
// its label and transport configuration; undefined for the embedded simulator.
const remoteOf = (options: Options) =>
  Effect.gen(function*() {
    if (Option.isSome(options.target)) {
      const config = TransportConfig.make({ ...policies, roots: TransportConfig.rootsFromOrigin(options.target.value) })
      return { label: options.target.value, config }
    }
    if (!(yield* env.config).separateRoots) return undefined
    const config = yield* Effect.provide(Effect.service(TransportConfig.TransportConfig), TransportConfig.layerConfig)
    return { label: "the roots of CONNECTED_VEHICLE_*_URL", config }
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
 *   { remote: () => TokenStore.layerMemory, embedded: () => TokenStore.layerMemory }
 * )
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options,
  tokenStore: {
    /** The store of a remote target (the token file). */
    readonly remote: () => Layer.Layer<TokenStore.TokenStore>
    /** The store of the embedded simulator (memory, or the token file when one is given). */
    readonly embedded: () => Layer.Layer<TokenStore.TokenStore>
  }
): Layer.Layer<Target | ConnectedVehicle.Services, SampleError | Config.ConfigError | ConfigurationError.ConfigurationError> =>
  Layer.unwrap(Effect.gen(function*() {
    const remote = yield* remoteOf(options)
    if (remote === undefined) return embedded(tokenStore.embedded())
    const { label, config } = remote
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(options.clientSecret)
    if (clientId === undefined || clientSecret === undefined) {
      return yield* new SampleError({
        reason:
          "A remote target needs the application's client id and secret: --client-id (or CONNECTED_VEHICLE_CLIENT_ID) and --client-secret-file (or CONNECTED_VEHICLE_CLIENT_SECRET). `pnpm simulator` prints them as a line of environment variables to paste into the shell",
        usage: true
      })
    }
    const keys = keysOf(identityOf(config.roots), clientId)
    return ConnectedVehicle.layerWith(Layer.succeed(TransportConfig.TransportConfig, config), OAuthConfig.layer({ clientId, clientSecret }), {
      tokenStore: tokenStore.remote(),
      // the legacy commands print their own deprecation notice
      legacy: { deprecationWarnings: "off" },
      ...keys
    }).pipe(Layer.merge(Layer.succeed(Target, { label, embedded: false, ...keys, loginHint: undefined, simulator: undefined })))
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
 * @category layers
 */
export const layerPublic = (
  options: Options
): Layer.Layer<Target | Compatibility.Compatibility | Transport.Transport, Config.ConfigError | ConfigurationError.ConfigurationError> =>
  Layer.unwrap(Effect.gen(function*() {
    const remote = yield* remoteOf(options)
    if (remote === undefined) return embedded(TokenStore.layerMemory)
    const { label, config } = remote
    const keys = keysOf(identityOf(config.roots), Option.getOrElse(options.clientId, () => ""))
    return Compatibility.layer().pipe(
      Layer.provideMerge(Transport.layerFrom(Layer.succeed(TransportConfig.TransportConfig, config), { httpClient: UndiciHttpClient.layer() })),
      Layer.merge(Layer.succeed(Target, { label, embedded: false, ...keys, loginHint: undefined, simulator: undefined }))
    )
  }))

/**
 * The user the embedded simulator signs in: the first one with a vehicle
 * whose make answers the legacy service history (so that every legacy read
 * can be shown), else the first user.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Simulator } from "@connected-vehicle/simulator/Simulator"
 * import { demoUser } from "@connected-vehicle/sample/Target"
 *
 * const user = Effect.map(Effect.service(Simulator), (simulator) => demoUser(simulator.data))
 * ```
 * @since 0.1.0
 * @category utils
 */
export const demoUser = (data: Simulator.SimulatorData): string | undefined =>
  (data.users.find((u) => data.vehiclesOf(u.id).some((id) => data.vehicle(id)?.supportsServiceHistory === true)) ??
    data.users[0])?.id

// The simulator is loaded only when it is used: a remote target starts faster.
// Its URL (a free port) is known once it listens: the keys are derived from it.
const embedded = (
  tokenStore: Layer.Layer<TokenStore.TokenStore>
): Layer.Layer<Target | ConnectedVehicle.Services> =>
  Layer.unwrap(Effect.gen(function*() {
    const Sim = yield* Effect.promise(() => import("@connected-vehicle/simulator/Simulator"))
    const Sdk = Layer.unwrap(Effect.map(Effect.service(Sim.Simulator), (simulator) => {
      const config = TransportConfig.make({ ...policies, roots: TransportConfig.rootsFromOrigin(simulator.url) })
      const keys = keysOf(identityOf(config.roots), simulator.clientId)
      return ConnectedVehicle.layerWith(
        Layer.succeed(TransportConfig.TransportConfig, config),
        OAuthConfig.layer({ clientId: simulator.clientId, clientSecret: simulator.clientSecret }),
        { tokenStore, legacy: { deprecationWarnings: "off" }, ...keys }
      ).pipe(Layer.merge(Layer.succeed(Target, {
        label: `embedded simulator at ${simulator.url}`,
        embedded: true,
        ...keys,
        loginHint: demoUser(simulator.data),
        simulator
      })))
    }))
    return Sdk.pipe(Layer.provideMerge(Sim.layer({ port: 0 })))
  }))

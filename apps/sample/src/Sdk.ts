/**
 * The SDK wired through Layers, the way an application does it: the target
 * (embedded simulator or remote) and `ConnectedVehicle` of
 * `@connected-vehicle/sdk` on it (one transport, the token store, the
 * application session behind the v3 services, the user session behind the
 * legacy reads).
 *
 * @since 0.1.0
 */
import { Effect, Layer, Option } from "effect"
import type { Config } from "effect"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import type * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import * as Authorize from "./Authorize.ts"
import { SampleError } from "./SampleError.ts"
import * as Target from "./Target.ts"
import * as TokenFile from "./TokenFile.ts"
import type { ConfigurationError } from "@connected-vehicle/transport/ConfigurationError"

/**
 * Everything a command can use.
 *
 * @example
 * ```ts
 * import type { Effect } from "effect"
 * import type { Services } from "@connected-vehicle/sample/Sdk"
 *
 * declare const command: Effect.Effect<void, never, Services>
 * ```
 * @since 0.1.0
 * @category models
 */
export type Services = Target.Target | ConnectedVehicle.Services

/**
 * Options of {@link layer}: the target and where user tokens are kept
 * (`--token-file`; for a remote target the default is
 * {@link TokenFile.defaultPath}, for the embedded simulator memory).
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import type { Options } from "@connected-vehicle/sample/Sdk"
 *
 * const options: Options = { target: Option.none(), clientId: Option.none(), clientSecret: Option.none(), tokenFile: Option.none() }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options extends Target.Options {
  readonly tokenFile: Option.Option<string>
}

/**
 * The whole SDK for one command.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import { Connections } from "@connected-vehicle/v3/Connections"
 * import * as Sdk from "@connected-vehicle/sample/Sdk"
 *
 * const program = Effect.gen(function*() {
 *   const connections = yield* Connections
 *   return yield* connections.list({ pageSize: 5 })
 * }).pipe(Effect.provide(Sdk.layer({
 *   target: Option.none(), clientId: Option.none(), clientSecret: Option.none(), tokenFile: Option.none()
 * })))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Services, SampleError | Config.ConfigError | ConfigurationError> =>
  Layer.unwrap(Effect.map(TokenFile.defaultPath, (defaultPath) =>
    Target.layer(options, {
      remote: () => TokenFile.layer(Option.getOrElse(options.tokenFile, () => defaultPath), { persist: Target.isUserKey }),
      embedded: () =>
        Option.isSome(options.tokenFile)
          ? TokenFile.layer(options.tokenFile.value, { persist: Target.isUserKey })
          : TokenStore.layerMemory
    })))

/**
 * Makes sure the user behind the legacy reads is signed in: on the embedded
 * simulator the consent flow runs first (following the redirect itself); on
 * a remote target the token stored by `login` must exist (it is refreshed
 * when it expires).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Sdk from "@connected-vehicle/sample/Sdk"
 *
 * const withUser = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.andThen(Sdk.ensureUser, effect)
 * ```
 * @since 0.1.0
 * @category sign-in
 */
export const ensureUser = Effect.gen(function*() {
  const target = yield* Target.Target
  if (target.embedded) {
    yield* Authorize.run({ key: target.userKey, port: 0, follow: true, loginHint: target.loginHint, onConsentUrl: () => Effect.void })
    return
  }
  const store = yield* TokenStore.TokenStore
  if (Option.isNone(yield* store.get(target.userKey))) {
    return yield* new SampleError({
      reason: `No user token for ${target.label}: run \`login --target ${target.label}\` first (or pass --token-file)`
    })
  }
})

/**
 * The SDK wired through Layers, the way an application does it: the target
 * (embedded simulator or remote), the transport, the OAuth configuration and
 * token store of `@connected-vehicle/auth`, the application session
 * (client-credentials token) behind the v3 services, and the user session
 * (authorization-code token) behind the legacy reads.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Option } from "effect"
import type { Config } from "effect"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import type * as Transport from "@connected-vehicle/transport/Transport"
import type * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as Compatibility from "@connected-vehicle/v3/Compatibility"
import * as Connections from "@connected-vehicle/v3/Connections"
import * as Signals from "@connected-vehicle/v3/Signals"
import * as Subscriptions from "@connected-vehicle/v3/Subscriptions"
import * as Webhooks from "@connected-vehicle/v3/Webhooks"
import * as Authorize from "./Authorize.ts"
import { SampleError } from "./SampleError.ts"
import * as Target from "./Target.ts"
import * as TokenFile from "./TokenFile.ts"

/**
 * Everything a command can use.
 *
 * @since 0.1.0
 */
export type Services =
  | Target.Target
  | Transport.Transport
  | TransportConfig.TransportConfig
  | OAuthConfig.OAuthConfig
  | TokenStore.TokenStore
  | Compatibility.Compatibility
  | Connections.Connections
  | Signals.Signals
  | Subscriptions.Subscriptions
  | Webhooks.Webhooks

/**
 * Options of {@link layer}: the target and where user tokens are kept for a
 * remote target (`--token-file`, default {@link TokenFile.defaultPath}).
 *
 * @since 0.1.0
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
 */
export const layer = (options: Options): Layer.Layer<Services, SampleError | Config.ConfigError> =>
  Layer.unwrap(Effect.gen(function*() {
    const target = yield* Target.Target
    const oauth = OAuthConfig.layer({ clientId: target.clientId, clientSecret: target.clientSecret })
    const store = target.embedded
      ? TokenStore.layerMemory
      : TokenFile.layer(Option.getOrElse(options.tokenFile, TokenFile.defaultPath))
    const auth = Layer.merge(oauth, store)
    const v3 = Layer.mergeAll(Connections.layer, Signals.layer, Subscriptions.layer, Webhooks.layer).pipe(
      Layer.provide(Session.layerApplication()),
      Layer.merge(Compatibility.layer())
    )
    return Layer.provideMerge(v3, auth)
  })).pipe(Layer.provideMerge(Target.layer(options)))

/**
 * The token-store key of the user's tokens on a target.
 *
 * @example
 * ```ts
 * import { userKey } from "@connected-vehicle/sample/Sdk"
 *
 * userKey("https://api.example.com") // "user@https://api.example.com"
 * ```
 * @since 0.1.0
 */
export const userKey = (label: string): string => `user@${label}`

/**
 * The user's credential for the legacy reads. On the embedded simulator the
 * consent flow runs first (following the redirect itself); on a remote target
 * the token stored by `login` is used (and refreshed when it expires).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Sdk from "@connected-vehicle/sample/Sdk"
 *
 * const withUser = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, Sdk.userCredentials)
 * ```
 * @since 0.1.0
 */
export const userCredentials: Layer.Layer<
  Credentials,
  SampleError | Effect.Error<ReturnType<typeof Authorize.run>>,
  Services
> = Layer.unwrap(Effect.gen(function*() {
  const target = yield* Target.Target
  const store = yield* TokenStore.TokenStore
  const key = userKey(target.label)
  if (target.embedded) {
    yield* Authorize.run({ key, port: 0, follow: true, onConsentUrl: () => Effect.void })
  } else if (Option.isNone(yield* store.get(key))) {
    return yield* new SampleError({
      reason: `No user token for ${target.label}: run \`login --target ${target.label}\` first (or pass --token-file)`
    })
  }
  return Session.layerUser(key)
}))

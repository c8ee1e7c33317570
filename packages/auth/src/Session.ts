/**
 * The transport's `Credentials` service backed by the {@link TokenStore}:
 * tokens are refreshed ahead of expiry, exactly once however many requests
 * find them stale at the same time (single flight), and once more when the
 * service answers 401 (the transport then replays the request once).
 *
 * - {@link layerUser}: a v2.0 user token obtained by the authorization-code
 *   flow, renewed with its refresh token.
 * - {@link layerApplication}: a v3 application token, renewed with the
 *   client-credentials grant.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Layer, Option, Redacted, Semaphore } from "effect"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import type * as Transport from "@connected-vehicle/transport/Transport"
import { CredentialsError } from "@connected-vehicle/transport/TransportError"
import { OAuthConfig } from "./OAuthConfig.ts"
import * as TokenExchange from "./TokenExchange.ts"
import type { Token } from "./TokenStore.ts"
import { TokenStore } from "./TokenStore.ts"

const toCredentialsError = (error: TokenExchange.TokenError): CredentialsError =>
  new CredentialsError({ reason: `${error._tag}: ${error.message}`, ...("status" in error ? { status: error.status } : {}) })

/**
 * Builds `Credentials` from a store key and a way to obtain a new token from
 * the current one.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { make } from "@connected-vehicle/auth/Session"
 * import * as TokenExchange from "@connected-vehicle/auth/TokenExchange"
 *
 * const credentials = make("app", () => TokenExchange.clientCredentials())
 * ```
 * @since 0.1.0
 */
export const make = <R>(
  key: string,
  renew: (current: Option.Option<Token>) => Effect.Effect<Token, TokenExchange.TokenError | CredentialsError, R>
): Effect.Effect<Credentials["Service"], never, TokenStore | OAuthConfig | R> =>
  Effect.gen(function*() {
    const store = yield* TokenStore
    const { refreshAheadMillis } = yield* OAuthConfig
    const services = yield* Effect.context<R>()
    const semaphore = yield* Semaphore.make(1)

    const usable = (token: Option.Option<Token>, now: number): token is Option.Some<Token> =>
      Option.isSome(token) && token.value.expiresAt - refreshAheadMillis > now

    const renewAndStore = (current: Option.Option<Token>) =>
      renew(current).pipe(
        Effect.mapError((e) => e._tag === "CredentialsError" ? e : toCredentialsError(e)),
        Effect.tap((next) => store.set(key, next)),
        Effect.tap(() => Effect.logDebug("token renewed").pipe(Effect.annotateLogs({ key }))),
        Effect.provideContext(services),
        Effect.withSpan("connected-vehicle.auth.renew", { attributes: { key } })
      )

    const token = Effect.gen(function*() {
      const current = yield* store.get(key)
      if (usable(current, yield* Clock.currentTimeMillis)) return current.value.accessToken
      return yield* semaphore.withPermits(1)(Effect.gen(function*() {
        const again = yield* store.get(key)
        if (usable(again, yield* Clock.currentTimeMillis)) return again.value.accessToken
        return (yield* renewAndStore(again)).accessToken
      }))
    })

    const refresh = (rejected: Redacted.Redacted<string>) =>
      semaphore.withPermits(1)(Effect.gen(function*() {
        const current = yield* store.get(key)
        if (Option.isSome(current) && Redacted.value(current.value.accessToken) !== Redacted.value(rejected)) {
          return true // another request already replaced the rejected token
        }
        yield* renewAndStore(current)
        return true
      }))

    return { token, refresh }
  })

/**
 * A user's session: the token set stored under `key` (put there after
 * {@link TokenExchange.exchangeCode}, see {@link login}), renewed with the
 * refresh-token grant.
 *
 * @example
 * ```ts
 * import { layerUser } from "@connected-vehicle/auth/Session"
 *
 * const CredentialsLive = layerUser("user-42")
 * ```
 * @since 0.1.0
 */
export const layerUser = (key: string): Layer.Layer<Credentials, never, TokenStore | OAuthConfig | Transport.Transport> =>
  Layer.effect(
    Credentials,
    make(key, (current) => {
      if (Option.isNone(current)) {
        return Effect.fail(new CredentialsError({ reason: `no token stored for ${key}: run the authorization-code flow` }))
      }
      const { refreshToken } = current.value
      if (refreshToken === undefined) {
        return Effect.fail(new CredentialsError({ reason: `the token of ${key} has no refresh token` }))
      }
      return TokenExchange.refresh(refreshToken)
    })
  )

/**
 * The application's v3 session: a client-credentials token stored under
 * `key` (default `"application"`), fetched again before it expires.
 *
 * @example
 * ```ts
 * import { layerApplication } from "@connected-vehicle/auth/Session"
 *
 * const CredentialsLive = layerApplication()
 * ```
 * @since 0.1.0
 */
export const layerApplication = (
  options?: { readonly key?: string | undefined; readonly scope?: string | undefined }
): Layer.Layer<Credentials, never, TokenStore | OAuthConfig | Transport.Transport> =>
  Layer.effect(
    Credentials,
    make(options?.key ?? "application", () => TokenExchange.clientCredentials({ scope: options?.scope }))
  )

/**
 * Exchanges an authorization code and stores the tokens under `key`.
 *
 * @example
 * ```ts
 * import { login } from "@connected-vehicle/auth/Session"
 *
 * const signIn = login("user-42", { code: "abc", redirectUri: "https://app.example/callback" })
 * ```
 * @since 0.1.0
 */
export const login = (
  key: string,
  input: { readonly code: string; readonly redirectUri: string }
): Effect.Effect<void, TokenExchange.TokenError, TokenStore | OAuthConfig | Transport.Transport> =>
  Effect.gen(function*() {
    const store = yield* TokenStore
    const token = yield* TokenExchange.exchangeCode(input)
    yield* store.set(key, token)
  })

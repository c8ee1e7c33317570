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
import { Clock, Deferred, Duration, Effect, Layer, Option, Redacted } from "effect"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import type * as Transport from "@connected-vehicle/transport/Transport"
import { ConnectedVehicleError, Credentials as NoCredential, isConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import { OAuthConfig } from "./OAuthConfig.ts"
import * as TokenExchange from "./TokenExchange.ts"
import type { Token, TokenStoreError } from "./TokenStore.ts"
import { TokenStore } from "./TokenStore.ts"

/** A failed call of the credential: a `Credentials` reason whose `cause` is what failed (a token request, the store). */
const toCredentialsError = (error: TokenExchange.TokenError | TokenStoreError): ConnectedVehicleError => {
  if (isConnectedVehicleError(error) && error.reason._tag === "Credentials") return error
  const status = isConnectedVehicleError(error) ? error.status : undefined
  const tag = isConnectedVehicleError(error) ? error.reason._tag : error._tag
  return noCredential(`${tag}: ${error.message}`, { ...(status === undefined ? {} : { status }), cause: error })
}

const noCredential = (description: string, options?: { readonly status?: number; readonly cause?: unknown }) =>
  new ConnectedVehicleError({ reason: new NoCredential({ description, ...options }) })

// The renewal in flight per store instance and key, shared by every layer built
// on that store: whoever finds the token stale while it runs awaits its outcome
// (success or failure) instead of asking the token endpoint again.
const flights = new WeakMap<TokenStore["Service"], Map<string, Deferred.Deferred<Token, ConnectedVehicleError>>>()

const flightsOf = (store: TokenStore["Service"]) => {
  let map = flights.get(store)
  if (map === undefined) {
    map = new Map()
    flights.set(store, map)
  }
  return map
}

/**
 * Builds `Credentials` from a store key and a way to obtain a new token from
 * the current one. Renewals are single flight per store and key, across every
 * `Credentials` built on the same `TokenStore`; one outcome (token or error)
 * is shared by all the callers waiting for it.
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
 * @category constructors
 */
export const make = <R>(
  key: string,
  renew: (current: Option.Option<Token>) => Effect.Effect<Token, TokenExchange.TokenError | TokenStoreError, R>
): Effect.Effect<Credentials["Service"], never, TokenStore | OAuthConfig | R> =>
  Effect.gen(function*() {
    const store = yield* TokenStore
    const refreshAheadMillis = Duration.toMillis((yield* OAuthConfig).refreshAhead)
    const services = yield* Effect.context<R>()
    const inFlight = flightsOf(store)

    // the refresh-ahead window, capped at half the token's lifetime so that a
    // short-lived token is not renewed on every call
    const usable = (token: Option.Option<Token>, now: number): boolean => {
      if (Option.isNone(token)) return false
      const { expiresAt, issuedAt } = token.value
      const ahead = issuedAt === undefined
        ? refreshAheadMillis
        : Math.min(refreshAheadMillis, Math.max(0, expiresAt - issuedAt) / 2)
      return expiresAt - ahead > now
    }

    const renewal = (stale: (current: Option.Option<Token>, now: number) => boolean): Effect.Effect<Token, ConnectedVehicleError> =>
      Effect.suspend(() => {
        const running = inFlight.get(key)
        if (running !== undefined) return Deferred.await(running)
        const deferred = Deferred.makeUnsafe<Token, ConnectedVehicleError>()
        inFlight.set(key, deferred)
        const run = Effect.gen(function*() {
          const current = yield* store.get(key)
          // another layer or process may have renewed since the caller looked
          if (Option.isSome(current) && !stale(current, yield* Clock.currentTimeMillis)) return current.value
          const next = yield* renew(current)
          yield* store.set(key, next)
          yield* Effect.logDebug("token renewed").pipe(Effect.annotateLogs({ key }))
          return next
        }).pipe(
          Effect.mapError(toCredentialsError),
          Effect.provideContext(services),
          Effect.withSpan("connected-vehicle.auth.renew", { attributes: { key } }),
          Effect.onExit((exit) =>
            Effect.sync(() => {
              inFlight.delete(key)
              Deferred.doneUnsafe(deferred, exit)
            })
          )
        )
        // detached: a caller that is interrupted stops waiting, the others still get the outcome
        return Effect.andThen(Effect.forkDetach(run), Deferred.await(deferred))
      })

    // on every call: a chain, not a generator (no generator object per call)
    const renewed = Effect.map(renewal((t, now) => !usable(t, now)), (next) => next.accessToken)
    const token = Effect.flatMap(Effect.mapError(store.get(key), toCredentialsError), (current) =>
      Effect.clockWith((clock) =>
        Option.isSome(current) && usable(current, clock.currentTimeMillisUnsafe())
          ? Effect.succeed(current.value.accessToken)
          : renewed
      ))

    const refresh = (rejected: Redacted.Redacted<string>) => {
      const isRejected = (t: Option.Option<Token>) =>
        Option.isNone(t) || Redacted.value(t.value.accessToken) === Redacted.value(rejected)
      // a renewal that was running for another reason may hand back the rejected token: renew once more
      return renewal(isRejected).pipe(
        Effect.flatMap((next) => isRejected(Option.some(next)) ? renewal(isRejected) : Effect.succeed(next)),
        Effect.as(true)
      )
    }

    return { token, refresh }
  })

/**
 * A user's session: the token set stored under `key` (put there by
 * {@link login}), renewed with the refresh-token grant. A refresh response
 * without a refresh token keeps the current one (RFC 6749 section 6); once
 * the refresh token has expired (60 days) the session fails with
 * `ConnectedVehicleError` with a `Credentials` reason without asking the token endpoint: sign the user in again.
 *
 * @example
 * ```ts
 * import { layerUser } from "@connected-vehicle/auth/Session"
 *
 * const CredentialsLive = layerUser("user-42")
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerUser = (key: string): Layer.Layer<Credentials, never, TokenStore | OAuthConfig | Transport.Transport> =>
  Layer.effect(
    Credentials,
    make(key, (current) =>
      Effect.gen(function*() {
        if (Option.isNone(current)) {
          return yield* noCredential(`no token stored for ${key}: run the authorization-code flow`)
        }
        const { refreshToken, refreshExpiresAt } = current.value
        if (refreshToken === undefined) {
          return yield* noCredential(`the token of ${key} has no refresh token: reauthenticate`)
        }
        if (refreshExpiresAt !== undefined && (yield* Clock.currentTimeMillis) >= refreshExpiresAt) {
          return yield* noCredential(`the refresh token of ${key} has expired: reauthenticate`)
        }
        const next = yield* TokenExchange.refresh(refreshToken)
        return next.refreshToken === undefined ? { ...next, refreshToken, refreshExpiresAt } : next
      }))
  )

/**
 * The application's v3 session: a client-credentials token stored under
 * `key` (default `"application"`), fetched again before it expires, from
 * `tokenUrl` (default `OAuthConfig.clientCredentialsUrl`, else
 * `{auth_url}/oauth/token`).
 *
 * @example
 * ```ts
 * import { layerApplication } from "@connected-vehicle/auth/Session"
 *
 * const CredentialsLive = layerApplication()
 * const Elsewhere = layerApplication({ tokenUrl: "https://auth.example/oauth2/token" })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerApplication = (
  options?: {
    readonly key?: string | undefined
    readonly scope?: string | undefined
    readonly tokenUrl?: string | undefined
  }
): Layer.Layer<Credentials, never, TokenStore | OAuthConfig | Transport.Transport> =>
  Layer.effect(
    Credentials,
    make(
      options?.key ?? "application",
      () => TokenExchange.clientCredentials({ scope: options?.scope, tokenUrl: options?.tokenUrl })
    )
  )

/**
 * Exchanges an authorization code, stores the tokens under `key` and returns
 * them (values `Redacted`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { login } from "@connected-vehicle/auth/Session"
 *
 * const signIn = login("user-42", { code: "abc", redirectUri: "https://app.example/callback" }).pipe(
 *   Effect.map((token) => new Date(token.expiresAt))
 * )
 * ```
 * @since 0.1.0
 * @category sign-in
 */
export const login = (
  key: string,
  input: { readonly code: string; readonly redirectUri: string }
): Effect.Effect<Token, TokenExchange.TokenError | TokenStoreError, TokenStore | OAuthConfig | Transport.Transport> =>
  Effect.gen(function*() {
    const store = yield* TokenStore
    const token = yield* TokenExchange.exchangeCode(input)
    yield* store.set(key, token)
    return token
  })

/**
 * The transport's `Credentials` service backed by the {@link TokenStore}:
 * tokens are refreshed ahead of expiry, exactly once however many requests
 * find them stale at the same time (single flight), and once more when the
 * service answers 401 (the transport then replays the request once). While
 * a token due for renewal is still valid, requests go on with it and the
 * renewal runs in the background; only a request that finds no token, or
 * one about to expire, waits for it.
 *
 * - {@link layerUser}: a v2.0 user token obtained by the authorization-code
 *   flow, renewed with its refresh token.
 * - {@link layerApplication}: a v3 application token, renewed with the
 *   client-credentials grant.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Layer, Option, Redacted, Scope } from "effect"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import type * as Transport from "@connected-vehicle/transport/Transport"
import type { ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import { defaultRefusalWindow, OAuthConfig } from "./OAuthConfig.ts"
import * as TokenExchange from "./TokenExchange.ts"
import { noCredential, toCredentialsError } from "./internal/failure.ts"
import { flightsOf, joinOrStart, outcomeBy, wasInterrupted } from "./internal/flight.ts"
import { isLocal } from "./internal/localRenewal.ts"
import { keyError } from "./internal/key.ts"
import { phaseOf } from "./internal/phase.ts"
import * as Refused from "./internal/refused.ts"
import * as Renewal from "./internal/renewal.ts"
import type { Token, TokenStoreError } from "./TokenStore.ts"
import { TokenStore } from "./TokenStore.ts"

/**
 * Builds `Credentials` from a store key and a way to obtain a new token from
 * the current one. A token due for renewal (see `OAuthConfig.refreshAhead`)
 * is still handed out at once while it is renewed in the background, until
 * `OAuthConfig.expiryMargin` before its expiry; a caller that finds no token,
 * or one past that point, waits for the renewal. Renewals are single flight
 * per store and key, across every `Credentials` built on the same
 * `TokenStore`; one outcome (token or error) is shared by all the callers
 * waiting for it. A caller told when its wait ends (`Credentials.tokenBy`,
 * `refreshBy`: the transport's attempt timeout) fails at once, with the token
 * endpoint's answer and what is left of the wait as `retryAfter`, when the
 * renewal's grant waits (that answer's `Retry-After`, or a backoff) until
 * then or later; the renewal goes on for the other callers. A background renewal that fails is logged (warning) and
 * started again by a later call (at most once a second while the token is
 * still handed out). Renewals run in the `Scope` of the caller of `make`
 * while it is open (the layers' scope: closing the layer waits for a
 * renewal already at the token endpoint to store its token, and interrupts
 * one still waiting for the store, or sleeping out the token endpoint's
 * `Retry-After`: the next renewal of the key sleeps out the rest of that
 * wait before it asks), else in detached fibers. A token
 * granted but not stored (the store's `set` failed: that call fails, not
 * retried) is kept in memory: later calls use it (and a renewal sends its
 * refresh token, never the stored one the grant used), each first storing
 * it again (inside the store's `renewal` when it has one, so that a
 * sign-out made meanwhile wins), until it is stored or the store holds a
 * newer token (or none: a sign-out). After storing a renewed token the
 * session reads the store once more (`peek`). If it holds none and the
 * store has a `renewal` (which does not store over a sign-out), a sign-out
 * (`remove`) was made meanwhile: the renewing call and every call waiting
 * for it fail with a `Credentials` reason (not retried) rather than send the
 * signed-out user's token. A store without `renewal` cannot tell a sign-out
 * from a read that lags behind its own write: the renewed token is used. A
 * valid token another than the renewal's is used instead of it only when it
 * is newer (issue time, else expiry), or was stored since the renewal
 * started (a sign-in) and is not one it would renew; an older one is a
 * lagging read, never used (its refresh token is not sent again). If that
 * read fails, the renewed token is used (a sign-out made meanwhile is seen
 * by the next call, which finds no token). If
 * the token endpoint refuses the kept token's refresh token, the older
 * stored token is refused with it (its refresh token was used by the grant
 * that was kept): sign the user in again. A 401 renews a token once: when
 * the token endpoint gives the rejected token back, the call fails with
 * its 401 (no replay), and so do later 401s for it for 10 seconds, without
 * a token request (then a 401 renews it again). A refusal of the client by the token endpoint
 * (`invalid_client`, `unauthorized_client`, a 401) fails every renewal of
 * the key for 10 seconds without a request.
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
): Effect.Effect<Credentials["Service"], never, TokenStore | OAuthConfig | R> => session(key, renew, false, false)

// `refreshGrant`: `renew` sends the current token's refresh token, so that an
// `invalid_grant` means that refresh token is dead (see `internal/refused.ts`);
// `interruptible`: `renew` may be interrupted (client credentials: nothing is lost)
const session = <R>(
  key: string,
  renew: (current: Option.Option<Token>) => Effect.Effect<Token, TokenExchange.TokenError | TokenStoreError, R>,
  refreshGrant: boolean,
  interruptible: boolean
): Effect.Effect<Credentials["Service"], never, TokenStore | OAuthConfig | R> =>
  Effect.gen(function*() {
    const store = yield* TokenStore
    const config = yield* OAuthConfig
    const state: Renewal.State<R> = {
      key,
      store,
      renew,
      refreshGrant,
      interruptible,
      phase: phaseOf(Duration.toMillis(config.refreshAhead), config.expiryMargin === undefined ? undefined : Duration.toMillis(config.expiryMargin)),
      refusalMillis: Duration.toMillis(config.refusalWindow ?? defaultRefusalWindow),
      flights: flightsOf(store),
      refused: Refused.refusedOf(store),
      services: yield* Effect.context<R>()
    }
    const scope = yield* Effect.serviceOption(Scope.Scope)
    const { retryAt, running } = state.flights
    const start = (isStale: Renewal.IsStale, background: boolean) => joinOrStart(running, key, (tell) => Renewal.renewOnce(state, isStale, background, tell), scope, isLocal(store.renewal))
    // the renewal in flight, else a new one; one interrupted (its layer closed) is started again.
    // A caller with a `deadline` fails once the renewal's grant waits past it (`outcomeBy`)
    const renewal = (isStale: Renewal.IsStale, deadline?: number): Effect.Effect<Token, ConnectedVehicleError> =>
      Effect.catchIf(Effect.flatMap(start(isStale, false), (flight) => outcomeBy(flight, deadline)), wasInterrupted, () => renewal(isStale, deadline))
    const stale = (token: Option.Option<Token>, now: number) => Option.isNone(token) || state.phase(token.value, now) !== "fresh"
    // stale-while-revalidate: a renewal in the background, unless one runs or
    // the last one failed less than a second ago
    const revalidate = (now: number) =>
      Effect.suspend(() => running.has(key) || now < (retryAt.get(key) ?? 0) ? Effect.void : Effect.asVoid(start(stale, true)))
    const renewed = (deadline: number | undefined) => Effect.map(renewal(stale, deadline), (next) => next.accessToken)
    const tokenBy = tokenOf(state, renewed, revalidate)
    const refreshBy = refreshOf(state, renewal)
    return { token: tokenBy(undefined), refresh: (rejected) => refreshBy(rejected), tokenBy, refreshBy }
  })

// `Credentials.tokenBy` (on every call: a chain, not a generator, so no generator
// object per call); `Credentials.token` is its effect without a deadline, built once
const tokenOf = <R>(
  state: Renewal.State<R>,
  renewed: (deadline: number | undefined) => Effect.Effect<Redacted.Redacted<string>, ConnectedVehicleError>,
  revalidate: (now: number) => Effect.Effect<void>
) => {
  const { flights: { kept }, key, phase, refused, store } = state
  const malformed = Effect.fail(noCredential(
    `the token store gave back a token of ${key} whose accessToken is not a Redacted value: a store must return what it was given (rebuild Redacted values when it reads serialized tokens)`
  ))
  const read = store.get(key, Renewal.peek)
  const failed = (error: TokenExchange.TokenError | TokenStoreError) => Effect.fail(toCredentialsError(error))
  return (deadline: number | undefined): Effect.Effect<Redacted.Redacted<string>, ConnectedVehicleError> => Effect.matchEffect(read, {
    onFailure: failed,
    onSuccess: (current) =>
      Effect.clockWith((clock) => {
        // a granted token not stored yet: the renewal's single flight stores it (or renews from it)
        if (Option.isNone(current) || (kept.size !== 0 && kept.has(key))) return renewed(deadline)
        // what a store gives back must be what it was given: a token whose
        // access token is not `Redacted` (serialized as a string, say) is the
        // store's fault, said as such rather than renewed on every call
        if (!Redacted.isRedacted(current.value.accessToken)) return malformed
        const now = clock.currentTimeMillisUnsafe()
        const phaseNow = phase(current.value, now)
        const accessToken = Effect.succeed(current.value.accessToken)
        // its refresh token refused: no renewal; the access token serves
        // until it expires or the service rejects it, then sign in again
        const refusal = refused.size === 0 ? undefined : Renewal.refusalOf(state, current.value)
        if (refusal !== undefined) {
          return phaseNow === "expired" || Refused.rejects(current.value, refusal) ? Effect.fail(Refused.signInAgain(key, refusal)) : accessToken
        }
        if (phaseNow === "expired") return renewed(deadline)
        return phaseNow === "fresh" ? accessToken : Effect.andThen(revalidate(now), accessToken)
      })
  })
}

// `Credentials.refreshBy`: the service rejected the access token `rejected`
const refreshOf = <R>(
  state: Renewal.State<R>,
  renewal: (isStale: Renewal.IsStale, deadline?: number) => Effect.Effect<Token, ConnectedVehicleError>
) =>
(rejected: Redacted.Redacted<string>, deadline?: number) => {
  const { flights: { reissued }, key, refused } = state
  const isRejected = (t: Option.Option<Token>) =>
    Option.isNone(t) || !Redacted.isRedacted(t.value.accessToken) || Redacted.value(t.value.accessToken) === Redacted.value(rejected)
  // the token endpoint gave the rejected token again when it was renewed for a 401 (less than
  // `refusalMillis` ago): not renewed again before then
  const wasReissued = (now: number) => {
    const entry = reissued.get(key)
    return entry !== undefined && now < entry.until && Refused.sameSecret(entry.token, rejected)
  }
  const toRenew: Renewal.IsStale = (t, now) => isRejected(t) && !wasReissued(now)
  // a renewal that was running for another reason may hand back the rejected token: renew once more,
  // unless the token endpoint gave it again; a renewal that ends with the rejected token is no
  // reason to replay (the call fails with its 401)
  return renewal(toRenew, deadline).pipe(
    Effect.flatMap((next) =>
      Effect.clockWith((clock) =>
        !isRejected(Option.some(next)) || wasReissued(clock.currentTimeMillisUnsafe()) ? Effect.succeed(next) : renewal(toRenew, deadline)
      )
    ),
    // its refresh token refused: the rejected access token is not sent again either
    Effect.tapError((error) =>
      Effect.sync(() => {
        const entry = refused.get(key)
        if (entry !== undefined && Refused.isSignInAgain(error)) Refused.remember(refused, key, { ...entry, rejected })
      })
    ),
    Effect.map((next) => !isRejected(Option.some(next)))
  )
}

/**
 * A user's session: the token set stored under `key` (put there by
 * {@link login}), renewed with the refresh-token grant. A refresh response
 * without a refresh token keeps the current one (RFC 6749 section 6); once
 * the refresh token has expired (60 days) the session fails with
 * `ConnectedVehicleError` with a `Credentials` reason without asking the token endpoint: sign the user in again.
 * So does it once the token endpoint refused the refresh token
 * (`invalid_grant`: revoked, or used by a rotation whose answer was lost),
 * until a new token is stored under `key` (by {@link login}, or by another
 * process): that refresh token is not sent again. If the store holds another
 * refresh token by then (another process renewed), that token is used. The
 * same holds once a refresh request failed after it may have used the
 * refresh token (a 5xx other than 503, a lost answer, a timeout): that call
 * gets the failure, later renewals a `Credentials` reason (sign in again,
 * that failure as `cause`) without a request.
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
    session(key, (current) =>
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
      }), true, false)
  )

/**
 * The application's v3 session: a client-credentials token stored under
 * `key` (default `"application"`), fetched again before it expires, from
 * `tokenUrl` (default `OAuthConfig.clientCredentialsUrl`, else
 * `{auth_url}/oauth/token`). Closing the layer interrupts a renewal in
 * flight and aborts its token request (a client-credentials token can be
 * asked for again; a user session's layer waits for it instead).
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
    session(
      options?.key ?? "application",
      () => TokenExchange.clientCredentials({ scope: options?.scope, tokenUrl: options?.tokenUrl }),
      false,
      true
    )
  )

/**
 * Exchanges an authorization code, stores the tokens under `key` and returns
 * them (values `Redacted`). A `key` that is not a store key (see
 * `TokenStore`: a non-empty string of at most 1024 characters, without
 * control characters or lone surrogates) is an `InvalidArgument` (`field: "key"`), before the
 * code is exchanged.
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
): Effect.Effect<Token, TokenExchange.TokenError | TokenStoreError, TokenStore | OAuthConfig | Transport.Transport> => {
  // (before the exchange: a code can be exchanged once)
  const invalidKey = keyError(key)
  if (invalidKey !== undefined) return Effect.fail(invalidKey)
  return Effect.gen(function*() {
    const store = yield* TokenStore
    const token = yield* TokenExchange.exchangeCode(input)
    yield* store.set(key, token)
    // a refusal of the key's former refresh token is over, and so is a wait the token endpoint asked for
    Refused.forget(store, key)
    const flights = flightsOf(store)
    flights.held.delete(key)
    flights.clientRefused.delete(key)
    flights.retryAt.delete(key)
    Refused.remember(flights.signIns, key, (flights.signIns.get(key) ?? 0) + 1)
    return token
  })
}

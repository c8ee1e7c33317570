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
import { Clock, Deferred, Duration, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import type * as Transport from "@connected-vehicle/transport/Transport"
import { ConnectedVehicleError, Credentials as NoCredential, isConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import { OAuthConfig } from "./OAuthConfig.ts"
import * as TokenExchange from "./TokenExchange.ts"
import { flightsOf, joinOrStart, wasInterrupted } from "./internal/flight.ts"
import { keyError } from "./internal/key.ts"
import { phaseOf } from "./internal/phase.ts"
import * as Refused from "./internal/refused.ts"
import type { Token, TokenStoreError } from "./TokenStore.ts"
import { TokenStore } from "./TokenStore.ts"

/**
 * A failed call of the credential: a `Credentials` reason whose `cause` is
 * what failed (a token request, the store), with its `status` and
 * `retryAfter`. `transient` (retried by the call's policy) when the store
 * failed before any token request was sent and its `TokenStoreError` is
 * `transient` (a failure after one is made final by {@link afterRequest}
 * first), or when the token request failed in a way that may pass and may be
 * sent again ({@link mayRepeat}).
 */
const toCredentialsError = (error: TokenExchange.TokenError | TokenStoreError, refreshGrant = false): ConnectedVehicleError => {
  if (isConnectedVehicleError(error) && error.reason._tag === "Credentials") return error
  const status = isConnectedVehicleError(error) ? error.status : undefined
  const retryAfter = isConnectedVehicleError(error) ? error.retryAfter : undefined
  const tag = isConnectedVehicleError(error) ? error.reason._tag : error._tag
  const transient = error._tag === "TokenStoreError" ? error.transient === true : mayRepeat(error, refreshGrant)
  return noCredential(`${tag}: ${error.message}`, {
    ...(status === undefined ? {} : { status }),
    ...(retryAfter === undefined ? {} : { retryAfter }),
    ...(transient ? { transient: true } : {}),
    cause: error
  })
}

/**
 * Whether a failed token request may be sent again by the call's retry: a
 * failure that may pass (`isRetryable`: no answer, a timeout, a 5xx, a 429).
 * A client-credentials request is safe to repeat. A refresh-token request is
 * repeated only after an answer that says it was not processed (429, 503):
 * after a lost answer or a 500 the service may have used the refresh token
 * (rotated it), and sending it again would be refused (`invalid_grant`).
 */
const mayRepeat = (error: TokenExchange.TokenError, refreshGrant: boolean): boolean =>
  isConnectedVehicleError(error) && error.isRetryable && (!refreshGrant || error.status === 429 || error.status === 503)

/**
 * A failure of the store once a token request may have been sent (in a
 * `renew` of its own, or storing the granted token): not `transient`, since
 * the call's retry would renew again and send a refresh token the grant
 * already used.
 */
const afterRequest = (stored: boolean) => (error: TokenExchange.TokenError | TokenStoreError): TokenExchange.TokenError =>
  error._tag !== "TokenStoreError" ? error : noCredential(
    stored
      ? `the token request succeeded, but storing its token failed (not retried: the grant's refresh token is used; the new token is kept in memory for the next call, and stored again): TokenStoreError: ${error.message}`
      : `TokenStoreError: ${error.message}`,
    { cause: error }
  )
const renewFailed = afterRequest(false)
const notStored = afterRequest(true)

const noCredential = (
  description: string,
  options?: { readonly status?: number; readonly retryAfter?: Duration.Duration; readonly cause?: unknown; readonly transient?: boolean }
) =>
  new ConnectedVehicleError({ reason: new NoCredential({ description, ...options }) })

// a failed renewal is started again in the background after this long (a
// caller that finds the token expired starts one at once)
const backgroundRetryMillis = 1_000

const peek = { peek: true } as const

const { older } = Refused

/**
 * Builds `Credentials` from a store key and a way to obtain a new token from
 * the current one. A token due for renewal (see `OAuthConfig.refreshAhead`)
 * is still handed out at once while it is renewed in the background, until
 * `OAuthConfig.expiryMargin` before its expiry; a caller that finds no token,
 * or one past that point, waits for the renewal. Renewals are single flight
 * per store and key, across every `Credentials` built on the same
 * `TokenStore`; one outcome (token or error) is shared by all the callers
 * waiting for it. A background renewal that fails is logged (warning) and
 * started again by a later call (at most once a second while the token is
 * still handed out). Renewals run in the `Scope` of the caller of `make`
 * while it is open (the layers' scope: closing the layer waits for a
 * renewal already at the token endpoint to store its token, and interrupts
 * one still waiting for the store), else in detached fibers. A token
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
 * that was kept): sign the user in again.
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
): Effect.Effect<Credentials["Service"], never, TokenStore | OAuthConfig | R> => session(key, renew, false)

// `refreshGrant`: `renew` sends the current token's refresh token, so that an
// `invalid_grant` means that refresh token is dead (see `internal/refused.ts`)
const session = <R>(
  key: string,
  renew: (current: Option.Option<Token>) => Effect.Effect<Token, TokenExchange.TokenError | TokenStoreError, R>,
  refreshGrant: boolean
): Effect.Effect<Credentials["Service"], never, TokenStore | OAuthConfig | R> =>
  Effect.gen(function*() {
    const store = yield* TokenStore
    const config = yield* OAuthConfig
    const phase = phaseOf(Duration.toMillis(config.refreshAhead), config.expiryMargin === undefined ? undefined : Duration.toMillis(config.expiryMargin))
    const services = yield* Effect.context<R>()
    const scope = yield* Effect.serviceOption(Scope.Scope)
    const { kept, retryAt, running } = flightsOf(store)
    const stale = (token: Option.Option<Token>, now: number) => Option.isNone(token) || phase(token.value, now) !== "fresh"
    const refused = Refused.refusedOf(store)
    // the refusal of the refresh token `token` holds, if any; a refusal of
    // another token is forgotten (a new token was stored since)
    const refusalOf = (token: Token) => {
      const entry = refused.get(key)
      if (entry === undefined || Refused.holds(token, entry)) return entry
      refused.delete(key)
      return undefined
    }

    // the token endpoint refused the refresh token of `sent`: what the store
    // holds now tells whether another process renewed meanwhile (its token is
    // used, never removed nor shadowed) or that refresh token is dead
    const onRefused = (sent: Token, error: ConnectedVehicleError) =>
      Effect.flatMap(Effect.exit(store.get(key, peek)), (read): Effect.Effect<Token, ConnectedVehicleError> => {
        // the kept token (never stored) was refused: it is dropped, and so is
        // every token not newer than it (the stored one it replaced: its grant used that refresh token)
        if (kept.get(key) === sent) {
          kept.delete(key)
          Refused.remember(refused, key, { refreshToken: sent.refreshToken!, rejected: undefined, cause: error, kept: sent })
          return Effect.fail(Refused.refusedNow(key, error))
        }
        // the store cannot be read: nothing to compare with, nothing remembered
        if (Exit.isFailure(read)) return Effect.fail(error)
        const now = read.value
        if (Option.isSome(now) && Refused.sameSecret(now.value.refreshToken, sent.refreshToken!)) {
          Refused.remember(refused, key, { refreshToken: sent.refreshToken!, rejected: undefined, cause: error })
          return Effect.fail(Refused.refusedNow(key, error))
        }
        // another process stored a token meanwhile: used while it is valid (due for renewal or not)
        return Effect.flatMap(Clock.currentTimeMillis, (millis) =>
          Option.isSome(now) && phase(now.value, millis) !== "expired" ? Effect.succeed(now.value) : Effect.fail(error))
      })
    const isRefusedRefresh = (current: Option.Option<Token>) => (error: TokenExchange.TokenError | TokenStoreError): error is ConnectedVehicleError =>
      refreshGrant && Option.isSome(current) && current.value.refreshToken !== undefined && Refused.isInvalidGrant(error)

    // `use` with the stored token as the fleet's one renewal of `key` when the
    // store coordinates renewals between processes (its `renewal`, told
    // which tokens this session would renew), else with what `get` reads
    // (a kept token is renewed under the fleet's lease, whatever the store holds)
    const leased = <A, E>(isStale: typeof stale, use: (current: Option.Option<Token>) => Effect.Effect<A, E, R>) =>
      store.renewal === undefined
        ? Effect.flatMap(store.get(key), use)
        : store.renewal(key, (token, now) => kept.has(key) || isStale(Option.some(token), now), use)

    // the kept token of `key` rather than `stored` while `stored` is older; dropped
    // once the store holds it, a newer one, or none (a sign-out is not undone)
    const latest = (stored: Option.Option<Token>): Option.Option<Token> => {
      const token = kept.get(key)
      if (token === undefined) return stored
      if (Option.isSome(stored) && older(stored.value, token)) return Option.some(token)
      kept.delete(key)
      return stored
    }

    // a kept token is stored again first, inside the store's `renewal` when it
    // has one (its `set` then does not store over a sign-out or a sign-in made
    // meanwhile): dropped once stored (or if the store holds it, a newer one,
    // or none), used from memory while the store fails
    const storeKept = Effect.suspend(() => {
      const token = kept.get(key)
      if (token === undefined) return Effect.void
      const restore = (stored: Option.Option<Token>) => {
        latest(stored)
        if (kept.get(key) !== token) return Effect.void
        return Effect.andThen(store.set(key, token), Effect.sync(() => kept.get(key) === token && kept.delete(key)))
      }
      return Effect.catch(
        store.renewal === undefined ? Effect.flatMap(store.get(key, peek), restore) : store.renewal(key, () => true, restore),
        (error) => Effect.logWarning("the renewed token is still not stored: it is used from memory", error)
      )
    })

    // what the store holds once the renewal stored `next` (renewed from
    // `from`): a token stored by a sign-in or another process is used while
    // valid if it is newer than `next`, or was stored since the renewal
    // started and is not one it would renew; any other is a read that lags
    // behind the store's writes (the token renewed from, say), never used.
    // Nothing stored: a sign-out made meanwhile when the store coordinates
    // renewals (its `renewal` stored nothing over it: `next` is not used
    // either), else a lagging read. Unreadable: `next` is used (a sign-out
    // made meanwhile is seen by the next call, which finds no token)
    const settled = (next: Token, from: Option.Option<Token>, isStale: typeof stale) =>
      Effect.flatMap(Effect.exit(store.get(key, peek)), (read): Effect.Effect<Token, ConnectedVehicleError> => {
        if (Exit.isFailure(read)) return Effect.succeed(next)
        if (Option.isNone(read.value)) {
          return store.renewal === undefined ? Effect.succeed(next) : Effect.fail(noCredential(
            `the token of ${key} was removed (a sign-out) while it was renewed: the renewed token is neither stored nor used; sign in again`
          ))
        }
        const stored = read.value.value
        if (Refused.sameSecret(stored.accessToken, next.accessToken)) return Effect.succeed(next)
        return Effect.map(Clock.currentTimeMillis, (millis) => {
          if (phase(stored, millis) === "expired") return next
          const since = Option.isSome(from) && older(from.value, stored) && !isStale(Option.some(stored), millis)
          return older(next, stored) || since ? stored : next
        })
      })

    // one renewal: `background` when no caller waits for it (its failure is logged)
    const renewOnce = (isStale: typeof stale, background: boolean) =>
      Effect.gen(function*() {
        yield* storeKept
        const held = kept.get(key)
        if (held !== undefined && !isStale(Option.some(held), yield* Clock.currentTimeMillis)) return held
        // a refresh token the token endpoint refused is not sent again (read
        // with `peek` first: no renewal follows, so no lease of a shared store is taken)
        if (refused.has(key)) {
          const peeked = yield* store.get(key, peek)
          if (Option.isNone(peeked)) refused.delete(key)
          const refusal = Option.isSome(peeked) ? refusalOf(peeked.value) : undefined
          if (refusal !== undefined) return yield* Refused.signInAgain(key, refusal)
        }
        return yield* leased(isStale, (stored) =>
          Effect.gen(function*() {
            const current = latest(stored)
            // another layer or process may have renewed since the caller looked
            if (Option.isSome(current) && !isStale(current, yield* Clock.currentTimeMillis)) return current.value
            // once asked, the token endpoint's answer is stored even if the layer
            // closes meanwhile (a refresh token may be used once: the new one
            // would be lost)
            // a store failure from here on is not transient (a token request may have been sent)
            const next = yield* Effect.uninterruptible(
              Effect.tap(
                Effect.mapError(renew(current), renewFailed),
                (next) =>
                  Effect.andThen(
                    Effect.tapError(store.set(key, next), () => Effect.sync(() => Refused.remember(kept, key, next))),
                    Effect.sync(() => {
                      retryAt.delete(key)
                      kept.delete(key)
                    })
                  ).pipe(Effect.mapError(notStored))
              )
            ).pipe(Effect.catchIf(isRefusedRefresh(current), (error) => onRefused(Option.getOrThrow(current), error)))
            yield* Effect.logDebug("token renewed")
            return yield* settled(next, current, isStale)
          }))
      }).pipe(
        Effect.mapError((error) => toCredentialsError(error, refreshGrant)),
        Effect.tapError((error) =>
          Effect.andThen(
            Effect.clockWith((clock) => Effect.sync(() => Refused.remember(retryAt, key, clock.currentTimeMillisUnsafe() + backgroundRetryMillis))),
            background ? Effect.logWarning("token renewal failed: the current token is used until it expires", error) : Effect.void
          )
        ),
        Effect.annotateLogs({ key }),
        Effect.provideContext(services),
        Effect.withSpan("connected-vehicle.auth.renew", { attributes: { key, background } })
      )
    const start = (isStale: typeof stale, background: boolean) => joinOrStart(running, key, renewOnce(isStale, background), scope)

    // the renewal in flight, else a new one; one interrupted (its layer closed) is started again
    const renewal = (isStale: typeof stale): Effect.Effect<Token, ConnectedVehicleError> =>
      Effect.catchIf(
        Effect.flatMap(start(isStale, false), Deferred.await),
        wasInterrupted,
        () => renewal(isStale)
      )

    // stale-while-revalidate: a renewal in the background, unless one runs or
    // the last one failed less than a second ago
    const revalidate = (now: number) =>
      Effect.suspend(() => running.has(key) || now < (retryAt.get(key) ?? 0) ? Effect.void : Effect.asVoid(start(stale, true)))

    // on every call: a chain, not a generator (no generator object per call)
    const renewed = Effect.map(renewal(stale), (next) => next.accessToken)
    const malformed = Effect.fail(noCredential(
      `the token store gave back a token of ${key} whose accessToken is not a Redacted value: a store must return what it was given (rebuild Redacted values when it reads serialized tokens)`
    ))
    const token = Effect.matchEffect(store.get(key, peek), {
      onFailure: (error) => Effect.fail(toCredentialsError(error)),
      onSuccess: (current) =>
        Effect.clockWith((clock) => {
          // a granted token not stored yet: the renewal's single flight stores it (or renews from it)
          if (Option.isNone(current) || (kept.size !== 0 && kept.has(key))) return renewed
          // what a store gives back must be what it was given: a token whose
          // access token is not `Redacted` (serialized as a string, say) is the
          // store's fault, said as such rather than renewed on every call
          if (!Redacted.isRedacted(current.value.accessToken)) return malformed
          const now = clock.currentTimeMillisUnsafe()
          const state = phase(current.value, now)
          const accessToken = Effect.succeed(current.value.accessToken)
          // its refresh token refused: no renewal; the access token serves
          // until it expires or the service rejects it, then sign in again
          const refusal = refused.size === 0 ? undefined : refusalOf(current.value)
          if (refusal !== undefined) {
            return state === "expired" || Refused.rejects(current.value, refusal) ? Effect.fail(Refused.signInAgain(key, refusal)) : accessToken
          }
          if (state === "expired") return renewed
          return state === "fresh" ? accessToken : Effect.andThen(revalidate(now), accessToken)
        })
    })

    const refresh = (rejected: Redacted.Redacted<string>) => {
      const isRejected = (t: Option.Option<Token>) =>
        Option.isNone(t) || !Redacted.isRedacted(t.value.accessToken) || Redacted.value(t.value.accessToken) === Redacted.value(rejected)
      // a renewal that was running for another reason may hand back the rejected token: renew once more
      return renewal(isRejected).pipe(
        Effect.flatMap((next) => isRejected(Option.some(next)) ? renewal(isRejected) : Effect.succeed(next)),
        // its refresh token refused: the rejected access token is not sent again either
        Effect.tapError((error) =>
          Effect.sync(() => {
            const entry = refused.get(key)
            if (entry !== undefined && Refused.isSignInAgain(error)) Refused.remember(refused, key, { ...entry, rejected })
          })
        ),
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
 * So does it once the token endpoint refused the refresh token
 * (`invalid_grant`: revoked, or used by a rotation whose answer was lost),
 * until a new token is stored under `key` (by {@link login}, or by another
 * process): that refresh token is not sent again. If the store holds another
 * refresh token by then (another process renewed), that token is used.
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
      }), true)
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
    // a refusal of the key's former refresh token is over
    Refused.forget(store, key)
    return token
  })
}

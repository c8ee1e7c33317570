/**
 * One renewal of a `Session`'s token: the store's `renewal` (or a read),
 * the token request, storing its token, and what the store holds after.
 *
 * @internal
 */
import { Clock, type Context, Duration, Effect, Exit, Option, Tracer } from "effect"
import { type ConnectedVehicleError, isConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import type * as TokenExchange from "../TokenExchange.ts"
import type { Token, TokenStore, TokenStoreError } from "../TokenStore.ts"
import { noCredential, notStored, renewFailed, toCredentialsError } from "./failure.ts"
import type { Flights } from "./flight.ts"
import * as Refused from "./refused.ts"
import { type GrantWait, GrantWaits, waiting } from "./wait.ts"

/**
 * Whether a token (none: `Option.none()`) is one to renew at `now`.
 *
 * @internal
 */
export type IsStale = (token: Option.Option<Token>, now: number) => boolean

/**
 * What a `Session` of `key` renews with.
 *
 * @internal
 */
export interface State<R> {
  readonly key: string
  readonly store: TokenStore["Service"]
  readonly renew: (current: Option.Option<Token>) => Effect.Effect<Token, TokenExchange.TokenError | TokenStoreError, R>
  /** `renew` sends the current token's refresh token: an `invalid_grant` means it is dead (see `refused.ts`) */
  readonly refreshGrant: boolean
  /**
   * the token request may be interrupted (its layer closing aborts it): a
   * grant whose answer can be asked for again (client credentials), not one
   * that uses a code or a rotating refresh token
   */
  readonly interruptible: boolean
  readonly phase: (token: Token, now: number) => "fresh" | "due" | "expired"
  /** how long a refusal (`clientRefused`, `reissued`) holds, in milliseconds (`OAuthConfig.refusalWindow`) */
  readonly refusalMillis: number
  readonly flights: Flights
  readonly refused: Map<string, Refused.Refused>
  readonly services: Context.Context<R>
}

/**
 * A read of what is stored now (no renewal follows).
 *
 * @internal
 */
export const peek = { peek: true } as const

// a failed renewal is started again in the background after this long (a
// caller that finds the token expired starts one at once)
const backgroundRetryMillis = 1_000

/**
 * The refusal of the refresh token of `token`, if one holds; a refusal of
 * another token is forgotten (a new token was stored since).
 *
 * @internal
 */
export const refusalOf = <R>({ key, refused }: State<R>, token: Token): Refused.Refused | undefined => {
  const entry = refused.get(key)
  if (entry === undefined || Refused.holds(token, entry)) return entry
  refused.delete(key)
  return undefined
}

// the kept token of `key` rather than `stored` while `stored` is older; dropped
// once the store holds it, a newer one, or none (a sign-out is not undone)
const latest = <R>({ flights: { kept }, key }: State<R>, stored: Option.Option<Token>): Option.Option<Token> => {
  const token = kept.get(key)
  if (token === undefined) return stored
  if (Option.isSome(stored) && Refused.older(stored.value, token)) return Option.some(token)
  kept.delete(key)
  return stored
}

// the token endpoint refused the refresh token of `sent`: what the store
// holds now tells whether another process renewed meanwhile (its token is
// used, never removed nor shadowed) or that refresh token is dead
const onRefused = <R>(state: State<R>, sent: Token, error: ConnectedVehicleError) => {
  const { flights: { kept }, key, refused, store } = state
  return Effect.flatMap(Effect.exit(store.get(key, peek)), (read): Effect.Effect<Token, ConnectedVehicleError> => {
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
      Option.isSome(now) && state.phase(now.value, millis) !== "expired" ? Effect.succeed(now.value) : Effect.fail(error))
  })
}

// `use` with the stored token as the fleet's one renewal of `key` when the
// store coordinates renewals between processes (its `renewal`, told
// which tokens this session would renew), else with what `get` reads
// (a kept token is renewed under the fleet's lease, whatever the store holds)
const leased = <A, E, R>(
  { flights: { kept }, key, store }: State<R>,
  isStale: IsStale,
  use: (current: Option.Option<Token>) => Effect.Effect<A, E, R>
) =>
  store.renewal === undefined
    ? Effect.flatMap(store.get(key), use)
    : store.renewal(key, (token, now) => kept.has(key) || isStale(Option.some(token), now), use)

// a kept token is stored again first, inside the store's `renewal` when it
// has one (its `set` then does not store over a sign-out or a sign-in made
// meanwhile): dropped once stored (or if the store holds it, a newer one,
// or none), used from memory while the store fails
const storeKept = <R>(state: State<R>) =>
  Effect.suspend(() => {
    const { flights: { kept }, key, store } = state
    const token = kept.get(key)
    if (token === undefined) return Effect.void
    const restore = (stored: Option.Option<Token>) => {
      latest(state, stored)
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
const settled = <R>({ key, phase, store }: State<R>, next: Token, from: Option.Option<Token>, isStale: IsStale) =>
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
      const since = Option.isSome(from) && Refused.older(from.value, stored) && !isStale(Option.some(stored), millis)
      return Refused.older(next, stored) || since ? stored : next
    })
  })

// the refresh token of `sent` may have been used by a token request that
// failed (`Refused.mayHaveUsed`): remembered as a refusal is (`spent`), so
// that no renewal sends it again until a new token is stored for the key;
// the caller gets that failure, as the later ones get it as `cause`
const spend = <R>({ flights: { kept }, key, refused }: State<R>, sent: Token, error: ConnectedVehicleError) => {
  const failure = toCredentialsError(error)
  const wasKept = kept.get(key) === sent
  if (wasKept) kept.delete(key)
  Refused.remember(refused, key, { refreshToken: sent.refreshToken!, rejected: undefined, cause: failure, spent: true, ...(wasKept ? { kept: sent } : {}) })
  return Effect.fail(failure)
}

// a refusal of the client itself: its credentials (`invalid_client`, or any
// 401 of the token endpoint) or its right to the grant (`unauthorized_client`)
const refusesClient = (error: unknown): error is ConnectedVehicleError =>
  isConnectedVehicleError(error) && (error.status === 401 ||
    (error.reason._tag === "OAuth" && (error.reason.error === "invalid_client" || error.reason.error === "unauthorized_client")))

// the token request from `current`, its token stored: once asked, the token
// endpoint's answer is stored even if the layer closes meanwhile (a refresh
// token may be used once: the new one would be lost), unless the grant is
// `interruptible` (client credentials: the request is aborted); a store
// failure from here on is not transient (a token request may have been sent)
const grant = <R>(state: State<R>, current: Option.Option<Token>) => {
  const { flights: { clientRefused, kept, reissued, retryAt }, interruptible, key, phase, refreshGrant, store } = state
  const sent = Option.isSome(current) && refreshGrant && current.value.refreshToken !== undefined ? current.value : undefined
  // the token endpoint gave again the access token of a token renewed before it was due (the service rejected it)
  const reissue = (next: Token, now: number) => {
    if (Option.isSome(current) && phase(current.value, now) === "fresh" && Refused.sameSecret(next.accessToken, current.value.accessToken)) {
      Refused.remember(reissued, key, { token: next.accessToken, until: now + state.refusalMillis })
    } else reissued.delete(key)
  }
  const granted = Effect.tap(
    Effect.mapError(state.renew(current), renewFailed),
    (next) =>
      Effect.andThen(
        Effect.tapError(store.set(key, next), () => Effect.sync(() => Refused.remember(kept, key, next))),
        Effect.clockWith((clock) =>
          Effect.sync(() => {
            retryAt.delete(key)
            kept.delete(key)
            reissue(next, clock.currentTimeMillisUnsafe())
          })
        )
      ).pipe(Effect.mapError(notStored))
  )
  return (interruptible ? granted : Effect.uninterruptible(granted)).pipe(
    Effect.catchIf(
      (error): error is ConnectedVehicleError => sent !== undefined && Refused.isInvalidGrant(error),
      (error) => onRefused(state, sent!, error)
    ),
    Effect.catchIf(
      (error): error is ConnectedVehicleError => sent !== undefined && Refused.mayHaveUsed(error),
      (error) => spend(state, sent!, error)
    ),
    // shared by the renewals of the key for a while (the error given is the one remembered)
    Effect.catchIf(refusesClient, (error) =>
      Effect.clockWith((clock) => {
        const failure = toCredentialsError(error)
        Refused.remember(clientRefused, key, { until: clock.currentTimeMillisUnsafe() + state.refusalMillis, error: failure })
        return Effect.fail(failure)
      }))
  )
}

// the failures of renewals held (no request sent), and until when
const heldErrors = new WeakMap<ConnectedVehicleError, number>()

/** The failure of a renewal held by a `Retry-After` (`held`): no request was sent, what is left of the wait. */
const heldError = (held: { readonly until: number; readonly error: ConnectedVehicleError }, now: number): ConnectedVehicleError => {
  const error = noCredential(
    `no token request sent: the token endpoint asked to wait (Retry-After) until ${new Date(held.until).toISOString()}; its answer was ${held.error.message}`,
    {
      ...(held.error.status === undefined ? {} : { status: held.error.status }),
      retryAfter: Duration.millis(held.until - now),
      cause: held.error
    }
  )
  heldErrors.set(error, held.until)
  return error
}

// the token endpoint refused the client (`refusesClient`) less than
// `refusalMillis` ago: the renewal fails at once with that refusal, no
// request (a user session without a token sends none: its own error says so)
const refusedUntil = <R>(state: State<R>, current: Option.Option<Token>, now: number): Effect.Effect<void, ConnectedVehicleError> => {
  const { flights: { clientRefused }, key } = state
  const refusal = clientRefused.get(key)
  if (refusal === undefined || (state.refreshGrant && Option.isNone(current))) return Effect.void
  if (now >= refusal.until) return Effect.sync(() => clientRefused.get(key) === refusal && clientRefused.delete(key))
  const error = noCredential(
    `no token request sent: the token endpoint refused the client less than ${Duration.format(Duration.millis(state.refusalMillis))} ago (${refusal.error.message}); no token request for ${key} before ${new Date(refusal.until).toISOString()}`,
    { ...(refusal.error.status === undefined ? {} : { status: refusal.error.status }), cause: refusal.error }
  )
  heldErrors.set(error, refusal.until)
  return Effect.fail(error)
}

// the token endpoint asked for a wait (`Retry-After`) that is not over: no
// request before it ends (a user session without a token sends none: its own
// error says so). A renewal fails at once (no request), unless the wait is the
// one a grant was sleeping out to ask again when its renewal was interrupted
// (`resume`): the rest of it is waited out first, told to the callers as the
// grant's own waits are (those who cannot wait that long fail at once: `wait.ts`)
// (`true` when a sign-in, `login`, ended that wait: its token is the one to use)
const heldUntil = <R>(state: State<R>, current: Option.Option<Token>, now: number): Effect.Effect<boolean, ConnectedVehicleError> => {
  const { flights: { held }, key, refreshGrant } = state
  const hold = held.get(key)
  if (hold === undefined || (refreshGrant && Option.isNone(current))) return Effect.succeed(false)
  const over = Effect.sync(() => (held.get(key) === hold && held.delete(key), false))
  if (now >= hold.until) return over
  if (hold.resume !== true) return Effect.fail(heldError(hold, now))
  return Effect.flatMap(
    waiting(hold.until, hold.error, Effect.interruptible(sleepOut(held, key, hold))),
    (signedIn) => signedIn ? Effect.succeed(true) : over
  )
}

// the rest of a held wait, in steps of at most 100 ms: a sign-in (`login`
// removes the hold) ends it (`true`)
const sleepOut = (held: Flights["held"], key: string, hold: Hold): Effect.Effect<boolean> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    held.get(key) !== hold
      ? Effect.succeed(true)
      : now >= hold.until
      ? Effect.succeed(false)
      : Effect.andThen(Effect.sleep(Math.min(100, hold.until - now)), Effect.suspend(() => sleepOut(held, key, hold))))

type Hold = Flights["held"] extends Map<string, infer H> ? H : never

// a renewal interrupted (its layer closed) while its grant slept out the token
// endpoint's `Retry-After` (`wait`, the last wait it told) to ask again: the
// rest of that wait is held for the next renewal of the key (`resume`), so that
// no token request is sent before it ends (unless a sign-in was made since)
const holdInterrupted = <R>({ flights, key }: State<R>, wait: GrantWait | undefined, signIns: number) =>
  Effect.clockWith((clock) =>
    Effect.sync(() => {
      if (wait === undefined || wait.error.retryAfter === undefined || Duration.toMillis(wait.error.retryAfter) <= 0) return
      if (clock.currentTimeMillisUnsafe() >= wait.until || (flights.signIns.get(key) ?? 0) !== signIns) return
      Refused.remember(flights.held, key, { until: wait.until, error: wait.error, resume: true })
    })
  )

// the renewal's span, unless the tracer is Effect's default one (no backend):
// none then, as the transport's calls make none, so that the token request
// carries the caller's trace context, if any, else none
const traced = (key: string, background: boolean) => <A, E>(renewal: Effect.Effect<A, E>) =>
  Effect.withFiber((fiber) =>
    fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
      ? renewal
      : Effect.withSpan(renewal, "connected-vehicle.auth.renew", { attributes: { key, background } })
  )

/**
 * One renewal of the token of `state.key`: `background` when no caller
 * waits for it (its failure is logged); `tell` is told the waits of its
 * grant (see `wait.ts`).
 *
 * @internal
 */
export const renewOnce = <R>(
  state: State<R>,
  isStale: IsStale,
  background: boolean,
  tell: (wait: GrantWait | undefined) => void
): Effect.Effect<Token, ConnectedVehicleError> => {
  const { flights: { kept, retryAt }, key, refused, store } = state
  // a sign-in (`login`) during this renewal makes its `Retry-After` the former token's, not the key's
  // (counted when the renewal runs: the effect is built once, with its layer)
  let signIns = 0
  // the last wait of its grant told (kept when it ends: an interruption ends it first)
  let told: GrantWait | undefined
  const telling = (wait: GrantWait | undefined) => {
    if (wait !== undefined) told = wait
    tell(wait)
  }
  return Effect.gen(function*() {
    signIns = state.flights.signIns.get(key) ?? 0
    yield* storeKept(state)
    const held = kept.get(key)
    if (held !== undefined && !isStale(Option.some(held), yield* Clock.currentTimeMillis)) return held
    // a refresh token the token endpoint refused is not sent again (read
    // with `peek` first: no renewal follows, so no lease of a shared store is taken)
    if (refused.has(key)) {
      const peeked = yield* store.get(key, peek)
      if (Option.isNone(peeked)) refused.delete(key)
      const refusal = Option.isSome(peeked) ? refusalOf(state, peeked.value) : undefined
      if (refusal !== undefined) return yield* Refused.signInAgain(key, refusal)
    }
    return yield* leased(state, isStale, (stored) =>
      Effect.gen(function*() {
        const current = latest(state, stored)
        // another layer or process may have renewed since the caller looked
        const now = yield* Clock.currentTimeMillis
        if (Option.isSome(current) && !isStale(current, now)) return current.value
        if (yield* heldUntil(state, current, now)) {
          // a sign-in ended the wait: its token, not a grant of the refresh token from before it
          const signedIn = latest(state, yield* state.store.get(key, peek))
          if (Option.isSome(signedIn)) return signedIn.value
        }
        yield* refusedUntil(state, current, now)
        const next = yield* grant(state, current)
        yield* Effect.logDebug("token renewed")
        return yield* settled(state, next, current, isStale)
      }))
  }).pipe(
    Effect.tap(() =>
      Effect.sync(() => {
        state.flights.held.delete(key)
        state.flights.clientRefused.delete(key)
      })
    ),
    Effect.mapError(toCredentialsError),
    Effect.tapError((error) =>
      Effect.andThen(
        Effect.clockWith((clock) =>
          Effect.sync(() => {
            const now = clock.currentTimeMillisUnsafe()
            // held, or the client refused: no background renewal before that ends (nor a warning a second)
            const heldUntil = heldErrors.get(error)
            const refused = state.flights.clientRefused.get(key)?.until ?? 0
            Refused.remember(retryAt, key, Math.max(now + backgroundRetryMillis, heldUntil ?? 0, refused))
            // the token endpoint asked for a wait: no renewal asks it again before then
            if (heldUntil !== undefined || error.retryAfter === undefined || (state.flights.signIns.get(key) ?? 0) !== signIns) return
            const wait = Duration.toMillis(error.retryAfter)
            if (wait > 0) Refused.remember(state.flights.held, key, { until: now + wait, error })
          })
        ),
        background ? Effect.logWarning("token renewal failed: the current token is used until it expires", error) : Effect.void
      )
    ),
    Effect.onInterrupt(() => holdInterrupted(state, told, signIns)),
    Effect.annotateLogs({ key }),
    // inside the session's services, so that it wins over another renewal's they hold (a session built in one)
    Effect.provideService(GrantWaits, telling),
    Effect.provideContext(state.services),
    traced(key, background)
  )
}

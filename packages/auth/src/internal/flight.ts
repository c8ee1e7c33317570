/**
 * The renewals in flight per store instance and key, shared by every
 * `Session` built on that store: whoever needs one while it runs awaits its
 * outcome (success or failure) instead of asking the token endpoint again.
 *
 * @internal
 */
import { Clock, Deferred, Effect, Exit, type Fiber, Option, type Redacted, type Scope } from "effect"
import type { ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { Token, TokenStore } from "../TokenStore.ts"
import { lateError, noCredential } from "./failure.ts"
import type { GrantWait } from "./wait.ts"

/**
 * A renewal in flight: its outcome, and the wait its grant is in between two
 * token requests (`wait`, told by the grant: see `wait.ts`), if any.
 *
 * @internal
 */
export interface Flight {
  readonly outcome: Deferred.Deferred<Token, ConnectedVehicleError>
  wait: GrantWait | undefined
  /** completed, and replaced, whenever `wait` changes */
  changed: Deferred.Deferred<void>
  /** the callers awaiting its outcome, and whether any did (see {@link outcomeBy}) */
  waiters: number
  awaited: boolean
  /** whether it may be stopped when none awaits it (not while it holds another process's lease: see {@link joinOrStart}) */
  readonly stoppable: boolean
  fiber: Fiber.Fiber<Token, ConnectedVehicleError> | undefined
}

/**
 * Stops the renewal of `flight` when its grant waits between two token
 * requests and every caller that awaited it has gone (each failed at once:
 * none could wait that long): no token request is sent that nobody waits
 * for, and no timer keeps the process alive. The rest of a `Retry-After`
 * wait is held for the next renewal of the key (see `renewal.ts`).
 */
const stopIfUnawaited = (flight: Flight): void => {
  if (flight.stoppable && flight.waiters === 0 && flight.awaited && flight.wait !== undefined) flight.fiber?.interruptUnsafe()
}

/**
 * The session state of a store, by key.
 *
 * @internal
 */
export interface Flights {
  /** the renewal in flight */
  readonly running: Map<string, Flight>
  /** when a renewal that failed may be started again in the background */
  readonly retryAt: Map<string, number>
  /**
   * a renewal whose token request was answered with a `Retry-After`: its
   * failure, given to every renewal asked for before that time (no request);
   * `resume` when the renewal was interrupted while its grant slept out that
   * wait to ask again: the next renewal waits out the rest, then asks
   */
  readonly held: Map<string, { readonly until: number; readonly error: ConnectedVehicleError; readonly resume?: boolean }>
  /**
   * the token endpoint refused the client itself (`invalid_client`,
   * `unauthorized_client`, or a 401) at a renewal of the key: that refusal,
   * given to every renewal of the key asked for before `until` (no request;
   * see `renewal.ts`)
   */
  readonly clientRefused: Map<string, { readonly until: number; readonly error: ConnectedVehicleError }>
  /**
   * an access token the service rejected (401) that the renewal it caused
   * got again from the token endpoint: until `until`, a 401 for it is the
   * caller's (no other token request for it, no replay with it); after it,
   * a 401 renews it again
   */
  readonly reissued: Map<string, { readonly token: Redacted.Redacted<string>; readonly until: number }>
  /** how many sign-ins (`login`) stored a token for the key (a renewal's `Retry-After` from before one is not held) */
  readonly signIns: Map<string, number>
  /**
   * a granted token whose `set` failed: used (and its refresh token renewed
   * from) instead of the older stored one until it is stored, or the store
   * holds a newer one (bounded as the refusals are: see `refused.ts`)
   */
  readonly kept: Map<string, Token>
}

const flights = new WeakMap<TokenStore["Service"], Flights>()

/**
 * The flights of `store`.
 *
 * @internal
 */
export const flightsOf = (store: TokenStore["Service"]): Flights => {
  let state = flights.get(store)
  if (state === undefined) {
    state = {
      running: new Map(),
      retryAt: new Map(),
      held: new Map(),
      clientRefused: new Map(),
      reissued: new Map(),
      signIns: new Map(),
      kept: new Map()
    }
    flights.set(store, state)
  }
  return state
}

// the failures of renewals that were interrupted (their layer closed while
// they waited for the store): a caller that waited for one starts another
const interrupted = new WeakSet<ConnectedVehicleError>()

/**
 * Whether `error` is the failure of a renewal that was interrupted.
 *
 * @internal
 */
export const wasInterrupted = (error: ConnectedVehicleError): boolean => interrupted.has(error)

/**
 * The renewal of `key` in flight, else `run` started as it in its own fiber
 * (told how to tell the flight its grant's waits: see `wait.ts`),
 * so that a caller that is interrupted stops waiting while the others still
 * get the outcome: in `scope` while it is open (a `Credentials` used after
 * its layer closed renews in a detached fiber). The look-up, the
 * registration and the fork are one uninterruptible step (a renewal
 * registered is always started). Its outcome completes the flight's
 * `outcome`; the waits of its grant are its `wait`. Not `stoppable` when
 * its store coordinates renewals across processes (`renewal`): its lease
 * keeps the other processes from asking the token endpoint during a
 * `Retry-After` it sleeps out, and the hold of the rest of that wait is this
 * process's only.
 *
 * @internal
 */
export const joinOrStart = (
  running: Flights["running"],
  key: string,
  run: (tell: (wait: GrantWait | undefined) => void) => Effect.Effect<Token, ConnectedVehicleError>,
  scope: Option.Option<Scope.Scope>,
  stoppable: boolean
): Effect.Effect<Flight> =>
  Effect.uninterruptible(Effect.suspend(() => {
    const inFlight = running.get(key)
    if (inFlight !== undefined) return Effect.succeed(inFlight)
    const flight: Flight = { outcome: Deferred.makeUnsafe(), wait: undefined, changed: Deferred.makeUnsafe(), waiters: 0, awaited: false, stoppable, fiber: undefined }
    running.set(key, flight)
    const done = (exit: Exit.Exit<Token, ConnectedVehicleError>) => {
      if (running.get(key) === flight) running.delete(key)
      if (!Exit.hasInterrupts(exit)) return Deferred.doneUnsafe(flight.outcome, exit)
      const error = noCredential(`the renewal of ${key} was interrupted (its layer was closed, or no caller waited for it any more)`)
      interrupted.add(error)
      Deferred.doneUnsafe(flight.outcome, Exit.fail(error))
    }
    const told = run((wait) => {
      const changed = flight.changed
      flight.wait = wait
      flight.changed = Deferred.makeUnsafe()
      Deferred.doneUnsafe(changed, Exit.void)
      stopIfUnawaited(flight)
    })
    const fiber = Option.isSome(scope) && scope.value.state._tag !== "Closed" ? Effect.forkIn(told, scope.value) : Effect.forkDetach(told)
    return Effect.map(fiber, (fiber) => {
      flight.fiber = fiber
      fiber.addObserver(done)
      return flight
    })
  }))

/**
 * Fails once the grant of `flight` waits until `deadline` or later (at
 * once if it does already): what is left of that wait, with the token
 * endpoint's failure it waits after. Never succeeds.
 */
const lateBy = (flight: Flight, deadline: number): Effect.Effect<never, ConnectedVehicleError> =>
  Effect.suspend(() => {
    const { changed, wait } = flight
    if (wait !== undefined && wait.until >= deadline) return Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.fail(lateError(wait, now)))
    return Effect.flatMap(Deferred.await(changed), () => lateBy(flight, deadline))
  })

/**
 * The outcome of `flight` for a caller that needs it by `deadline` (an
 * instant of the fiber's `Clock`; none: whenever it comes). A caller whose
 * deadline comes before the grant's wait ends fails then with that wait
 * (see {@link lateBy}), as soon as the grant starts it; the renewal goes on
 * for the others (no second token request: it is still the one in flight),
 * and stops in that wait once none is left ({@link stopIfUnawaited}).
 *
 * @internal
 */
export const outcomeBy = (flight: Flight, deadline: number | undefined): Effect.Effect<Token, ConnectedVehicleError> =>
  Effect.suspend(() => {
    flight.waiters++
    flight.awaited = true
    const outcome = deadline === undefined ? Deferred.await(flight.outcome) : Effect.raceFirst(Deferred.await(flight.outcome), lateBy(flight, deadline))
    return Effect.ensuring(
      outcome,
      Effect.sync(() => {
        flight.waiters--
        stopIfUnawaited(flight)
      })
    )
  })

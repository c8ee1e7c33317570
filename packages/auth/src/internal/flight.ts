/**
 * The renewals in flight per store instance and key, shared by every
 * `Session` built on that store: whoever needs one while it runs awaits its
 * outcome (success or failure) instead of asking the token endpoint again.
 *
 * @internal
 */
import { Deferred, Effect, Exit, Option, type Scope } from "effect"
import type { ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { Token, TokenStore } from "../TokenStore.ts"
import { noCredential } from "./failure.ts"

/**
 * The session state of a store, by key.
 *
 * @internal
 */
export interface Flights {
  /** the renewal in flight */
  readonly running: Map<string, Deferred.Deferred<Token, ConnectedVehicleError>>
  /** when a renewal that failed may be started again in the background */
  readonly retryAt: Map<string, number>
  /**
   * a renewal whose token request was answered with a `Retry-After`: its
   * failure, given to every renewal asked for before that time (no request)
   */
  readonly held: Map<string, { readonly until: number; readonly error: ConnectedVehicleError }>
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
    state = { running: new Map(), retryAt: new Map(), held: new Map(), signIns: new Map(), kept: new Map() }
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
 * The renewal of `key` in flight, else `run` started as it in its own fiber,
 * so that a caller that is interrupted stops waiting while the others still
 * get the outcome: in `scope` while it is open (a `Credentials` used after
 * its layer closed renews in a detached fiber). The look-up, the
 * registration and the fork are one uninterruptible step (a renewal
 * registered is always started). Its outcome completes the deferred it
 * returns.
 *
 * @internal
 */
export const joinOrStart = (
  running: Flights["running"],
  key: string,
  run: Effect.Effect<Token, ConnectedVehicleError>,
  scope: Option.Option<Scope.Scope>
): Effect.Effect<Deferred.Deferred<Token, ConnectedVehicleError>> =>
  Effect.uninterruptible(Effect.suspend(() => {
    const inFlight = running.get(key)
    if (inFlight !== undefined) return Effect.succeed(inFlight)
    const deferred = Deferred.makeUnsafe<Token, ConnectedVehicleError>()
    running.set(key, deferred)
    const done = (exit: Exit.Exit<Token, ConnectedVehicleError>) => {
      if (running.get(key) === deferred) running.delete(key)
      if (!Exit.hasInterrupts(exit)) return Deferred.doneUnsafe(deferred, exit)
      const error = noCredential(`the renewal of ${key} was interrupted (its layer was closed)`)
      interrupted.add(error)
      Deferred.doneUnsafe(deferred, Exit.fail(error))
    }
    const fiber = Option.isSome(scope) && scope.value.state._tag !== "Closed" ? Effect.forkIn(run, scope.value) : Effect.forkDetach(run)
    return Effect.map(fiber, (fiber) => {
      fiber.addObserver(done)
      return deferred
    })
  }))

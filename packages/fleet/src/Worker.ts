/**
 * Workers: fibers that take events from the queue and run the application's
 * handler, at least once per event. A failed handler is retried after the
 * queue's `retrySchedule`; after `maxAttempts` runs the event moves to the
 * dead letters with its cause. Any number of workers in any number of
 * processes share one queue (on Postgres); an event whose worker died is
 * taken again once its lock expires, so handlers must be idempotent.
 *
 * @since 0.1.0
 */
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { Cause, Effect, Exit, Layer, Metric, Option } from "effect"
import { DeadLetters } from "./DeadLetters.ts"
import { EventQueue, type Taken } from "./EventQueue.ts"
import { Configuration, FleetError } from "./FleetError.ts"
import { deadLettered, eventsHandled, handlerRetries, handlersRunning } from "./FleetMetrics.ts"

/**
 * What a worker runs.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Options } from "@connected-vehicle/fleet/Worker"
 *
 * const options: Options<never, never> = {
 *   handler: (event) => Effect.log(`${event.eventType} ${event.eventId}`),
 *   concurrency: 4
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options<E, R> {
  /** Runs for each event, at least once; must be idempotent. */
  readonly handler: (event: DeliveredEvent, taken: Taken) => Effect.Effect<unknown, E, R>
  /** Events handled at once by this worker (default 1). */
  readonly concurrency?: number | undefined
}

/**
 * Fails with this fiber's own interruption when it was interrupted: a
 * `catchCause` that caught it does not end the fiber, entering an
 * interruptible region does.
 */
const interruptionPoint: Effect.Effect<void> = Effect.uninterruptible(Effect.interruptible(Effect.void))

/**
 * The handler's run on one taken event: a failure on the last attempt is
 * written to the dead letters (and the event completed); before it, it is
 * counted and handed back to the queue for a retry. A handler that ends in
 * an interruption of its own (it joined an interrupted fiber, say) failed
 * too; only the worker's own interruption releases the event untouched.
 */
const attempt = <E, R>(
  options: Options<E, R>,
  maxAttempts: number,
  deadLetters: DeadLetters["Service"],
  unwritten: Unwritten,
  event: DeliveredEvent,
  taken: Taken
): Effect.Effect<void, E | FleetError, R> =>
  Effect.suspend(() => options.handler(event, taken)).pipe(
    Effect.tap(() => Metric.update(eventsHandled, 1)),
    Effect.catchCause((cause): Effect.Effect<void, E | FleetError> => {
      if (!Cause.hasInterruptsOnly(cause)) return failed(maxAttempts, deadLetters, unwritten, event, taken, cause, Cause.pretty(cause))
      return Effect.andThen(
        interruptionPoint, // the worker's shutdown: the event is released for another worker
        failed(maxAttempts, deadLetters, unwritten, event, taken, Cause.die(new HandlerInterrupted()), `${interrupted}\n${Cause.pretty(cause)}`)
      )
    }),
    Effect.ensuring(Metric.modify(handlersRunning, -1)),
    (running) => Effect.andThen(Metric.modify(handlersRunning, 1), running)
  )

const interrupted = "the handler was interrupted (an interruption of its own, not the worker's shutdown)"

/** What a handler ending in an interruption of its own fails with: a failed attempt. */
class HandlerInterrupted extends Error {
  constructor() {
    super(interrupted)
    this.name = "HandlerInterrupted"
  }
}

/**
 * The causes of the dead letters this process could not write (the store
 * failed), by queue id: the next take of the event, over `maxAttempts`,
 * writes its real cause. At most `unwrittenLimit`, the oldest forgotten.
 */
type Unwritten = Map<string, { readonly attempts: number; readonly cause: string }>
const unwrittenLimit = 1_000
const unwrittenByStore = new WeakMap<DeadLetters["Service"], Unwritten>()
const unwrittenOf = (deadLetters: DeadLetters["Service"]): Unwritten => {
  let unwritten = unwrittenByStore.get(deadLetters)
  if (unwritten === undefined) unwrittenByStore.set(deadLetters, unwritten = new Map())
  return unwritten
}

const failed = <E>(
  maxAttempts: number,
  deadLetters: DeadLetters["Service"],
  unwritten: Unwritten,
  event: DeliveredEvent,
  taken: Taken,
  cause: Cause.Cause<E>,
  described: string
): Effect.Effect<void, E | FleetError> => {
  if (taken.attempts >= maxAttempts) {
    return deadLetters.add({ event, attempts: taken.attempts, cause: described }).pipe(
      Effect.tap(() => Metric.update(deadLettered, 1)),
      Effect.tap(() => Effect.logWarning("webhook event moved to the dead letters", cause)),
      Effect.tapError(() =>
        Effect.sync(() => {
          unwritten.delete(taken.id)
          unwritten.set(taken.id, { attempts: taken.attempts, cause: described })
          if (unwritten.size > unwrittenLimit) unwritten.delete(unwritten.keys().next().value!)
        })
      )
    )
  }
  return Metric.update(handlerRetries, 1).pipe(
    Effect.andThen(Effect.logInfo(`webhook event handler failed (attempt ${taken.attempts} of ${maxAttempts})`, cause)),
    Effect.andThen(Effect.failCause(cause))
  )
}

/**
 * An event taken more than `maxAttempts` times: its last runs ended without
 * an outcome (their worker died, or lost its lock, as with a poison event
 * that crashes its process), or its dead letter was not written, or the
 * event not completed after it. It goes to the dead letters without running
 * the handler again, with its real cause when it is known (a letter written
 * already is kept; a cause this process failed to write is written now).
 */
const noOutcome = (deadLetters: DeadLetters["Service"], unwritten: Unwritten, event: DeliveredEvent, taken: Taken) =>
  Effect.gen(function*() {
    const known = unwritten.get(taken.id)
    if (known === undefined && Option.isSome(yield* deadLetters.get(event.eventId))) return // written; its completion failed
    yield* deadLetters.add(known === undefined
      ? {
        event,
        attempts: taken.attempts - 1,
        cause: `no outcome: the worker running attempt ${taken.attempts - 1} stopped before the handler ended (it died, or lost its lock)`
      }
      : { event, ...known })
    unwritten.delete(taken.id)
    yield* Metric.update(deadLettered, 1)
    yield* Effect.logWarning(known === undefined
      ? "webhook event moved to the dead letters: its last attempt had no outcome"
      : "webhook event moved to the dead letters (its letter could not be written at its last attempt)")
  })

/**
 * One event: take it, run the handler (in a span `fleet.Worker.handle`, with
 * the event's id and type and the attempt); on the last attempt a failure is
 * written to the dead letters (and the event completed), before it a failure
 * is counted and handed back to the queue for a retry. An event whose
 * attempts ran out without an outcome (its workers died) goes to the dead
 * letters without another run.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Worker from "@connected-vehicle/fleet/Worker"
 *
 * const handleOne = Worker.handleOne({ handler: (event) => Effect.log(event.eventId) })
 * ```
 * @since 0.1.0
 * @category combinators
 */
export const handleOne = <E, R>(
  options: Options<E, R>
): Effect.Effect<void, E | FleetError, R | EventQueue | DeadLetters> =>
  Effect.gen(function*() {
    const queue = yield* EventQueue
    const deadLetters = yield* DeadLetters
    const unwritten = unwrittenOf(deadLetters)
    yield* queue.take((event, taken) =>
      (taken.attempts > queue.maxAttempts
        ? noOutcome(deadLetters, unwritten, event, taken)
        : attempt(options, queue.maxAttempts, deadLetters, unwritten, event, taken)).pipe(
          Effect.annotateLogs({ eventId: event.eventId, attempt: taken.attempts }),
          Effect.withSpan("fleet.Worker.handle", {
            attributes: { "fleet.event_id": event.eventId, "fleet.event_type": event.eventType, "fleet.attempt": taken.attempts }
          })
        )
    )
  })

/** A store that failed (unreachable, say): a pause before the next take, not a hot loop. */
const storeFailed = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.some((reason) =>
    Cause.isFailReason(reason) && reason.error instanceof FleetError &&
    (reason.error.reason._tag === "QueueUnavailable" || reason.error.reason._tag === "DeadLetterStore")
  )

const concurrencyOf = (options: Options<unknown, unknown>): Effect.Effect<number, FleetError> => {
  const concurrency = options.concurrency ?? 1
  return Number.isInteger(concurrency) && concurrency >= 1 ? Effect.succeed(concurrency) : Effect.fail(
    new FleetError({ reason: new Configuration({ description: `concurrency: expected a positive integer, got ${String(concurrency)}` }) })
  )
}

/**
 * One take loop: a failing handler or store is logged and the loop goes on;
 * it ends only with the worker's interruption (logged, as any end would be).
 */
const loopOf = <E, R>(options: Options<E, R>): Effect.Effect<never, never, R | EventQueue | DeadLetters> =>
  handleOne(options).pipe(
    Effect.catchCause((cause) => {
      if (Cause.hasInterruptsOnly(cause)) {
        // not the worker's interruption (that fails the interruption point): the store's take was interrupted
        return Effect.andThen(
          interruptionPoint,
          Effect.andThen(Effect.logWarning("taking an event was interrupted; the worker goes on", cause), Effect.sleep("1 second"))
        )
      }
      return storeFailed(cause)
        ? Effect.andThen(Effect.logWarning("the event queue or the dead letters failed", cause), Effect.sleep("1 second"))
        : Effect.void // a handler failure: logged above, retried by the queue
    }),
    Effect.forever,
    Effect.onExit((exit) =>
      Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause)
        ? Effect.logError("webhook worker stopped unexpectedly", exit.cause)
        : Effect.logDebug("webhook worker stopped: interrupted")
    )
  ) as Effect.Effect<never, never, R | EventQueue | DeadLetters>

/**
 * Runs `concurrency` take loops until interrupted. A failing handler (one
 * ending in an interruption of its own included) or an unreachable store
 * never stops them (the failure is logged and the loop goes on). A
 * `concurrency` that is not a positive integer fails at once with
 * `FleetError` `Configuration` naming it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Worker from "@connected-vehicle/fleet/Worker"
 *
 * const forever = Worker.run({ handler: (event) => Effect.log(event.eventId), concurrency: 2 })
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const run = <E, R>(options: Options<E, R>): Effect.Effect<never, FleetError, R | EventQueue | DeadLetters> =>
  Effect.flatMap(concurrencyOf(options), (concurrency) =>
    Effect.forEach(
      Array.from({ length: concurrency }, (_, i) => i),
      (fiber) => Effect.annotateLogs(loopOf(options), { worker: fiber }),
      { concurrency: "unbounded", discard: true }
    ).pipe(Effect.andThen(Effect.never)))

/**
 * {@link run} in the background for the layer's lifetime; its options are
 * checked when the layer is built.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Worker from "@connected-vehicle/fleet/Worker"
 *
 * const Workers = Worker.layer({ handler: (event) => Effect.log(event.eventId), concurrency: 4 })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = <E, R>(options: Options<E, R>): Layer.Layer<never, FleetError, R | EventQueue | DeadLetters> =>
  Layer.effectDiscard(Effect.andThen(concurrencyOf(options), Effect.forkScoped(run(options))))

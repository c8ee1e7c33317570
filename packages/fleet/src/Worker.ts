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
import { Cause, Effect, Layer, Metric } from "effect"
import { DeadLetters } from "./DeadLetters.ts"
import { EventQueue, type Taken } from "./EventQueue.ts"
import { FleetError } from "./FleetError.ts"
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
 * The handler's run on one taken event: a failure on the last attempt is
 * written to the dead letters (and the event completed); before it, it is
 * counted and handed back to the queue for a retry.
 */
const attempt = <E, R>(
  options: Options<E, R>,
  maxAttempts: number,
  deadLetters: DeadLetters["Service"],
  event: DeliveredEvent,
  taken: Taken
): Effect.Effect<void, E | FleetError, R> =>
  Effect.suspend(() => options.handler(event, taken)).pipe(
    Effect.tap(() => Metric.update(eventsHandled, 1)),
    Effect.catchCause((cause): Effect.Effect<void, E | FleetError> => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
      if (taken.attempts >= maxAttempts) {
        return deadLetters.add({ event, attempts: taken.attempts, cause: Cause.pretty(cause) }).pipe(
          Effect.tap(() => Metric.update(deadLettered, 1)),
          Effect.tap(() => Effect.logWarning("webhook event moved to the dead letters", cause))
        )
      }
      return Metric.update(handlerRetries, 1).pipe(
        Effect.andThen(Effect.logInfo(`webhook event handler failed (attempt ${taken.attempts} of ${maxAttempts})`, cause)),
        Effect.andThen(Effect.failCause(cause))
      )
    }),
    Effect.ensuring(Metric.modify(handlersRunning, -1)),
    (running) => Effect.andThen(Metric.modify(handlersRunning, 1), running)
  )

/**
 * An event taken more than `maxAttempts` times: its last runs ended without
 * an outcome (their worker died, or lost its lock), as a poison event that
 * crashes its process does. It goes to the dead letters without running the
 * handler again.
 */
const noOutcome = (deadLetters: DeadLetters["Service"], event: DeliveredEvent, taken: Taken) =>
  deadLetters.add({
    event,
    attempts: taken.attempts - 1,
    cause: `no outcome: the worker running attempt ${taken.attempts - 1} stopped before the handler ended (it died, or lost its lock)`
  }).pipe(
    Effect.tap(() => Metric.update(deadLettered, 1)),
    Effect.tap(() => Effect.logWarning("webhook event moved to the dead letters: its last attempt had no outcome"))
  )

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
    yield* queue.take((event, taken) =>
      (taken.attempts > queue.maxAttempts
        ? noOutcome(deadLetters, event, taken)
        : attempt(options, queue.maxAttempts, deadLetters, event, taken)).pipe(
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

/**
 * Runs `concurrency` take loops until interrupted. A failing handler or an
 * unreachable store never stops them (the failure is logged and the loop
 * goes on).
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
export const run = <E, R>(options: Options<E, R>): Effect.Effect<never, never, R | EventQueue | DeadLetters> => {
  const loop = handleOne(options).pipe(
    Effect.catchCause((cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
      return storeFailed(cause)
        ? Effect.andThen(Effect.logWarning("the event queue or the dead letters failed", cause), Effect.sleep("1 second"))
        : Effect.void // a handler failure: logged above, retried by the queue
    }),
    Effect.forever
  ) as Effect.Effect<never, never, R | EventQueue | DeadLetters>
  return Effect.forEach(
    Array.from({ length: Math.max(1, options.concurrency ?? 1) }, (_, i) => i),
    (fiber) => Effect.annotateLogs(loop, { worker: fiber }),
    { concurrency: "unbounded", discard: true }
  ).pipe(Effect.andThen(Effect.never))
}

/**
 * {@link run} in the background for the layer's lifetime.
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
export const layer = <E, R>(options: Options<E, R>): Layer.Layer<never, never, R | EventQueue | DeadLetters> =>
  Layer.effectDiscard(Effect.forkScoped(run(options)))

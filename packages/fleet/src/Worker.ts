/**
 * Workers: fibers that take events from the queue and run the application's
 * handler, at least once per event. A failed handler is retried after the
 * queue's `retrySchedule`; after `maxAttempts` runs the event moves to the
 * dead letters with its cause. Any number of workers in any number of
 * processes share one queue (on Postgres); an event whose worker died is
 * taken again once its lock expires, so handlers must be idempotent. Each
 * run of the handler has a fiber of its own and `handlerTimeout` at most.
 *
 * An event whose previous attempt had no outcome (its worker died, or lost
 * its lock: it may be what crashed its process) is a suspect: the workers of
 * its queue in this process run it alone (no other handler of theirs runs
 * meanwhile), and only an attempt with no outcome made alone counts toward
 * `maxAttempts`, so a poison event takes no event beside it to the dead
 * letters. No event is taken more than twice `maxAttempts` times.
 *
 * @since 0.1.0
 */
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { Cause, type Duration, Effect, Exit, Fiber, Layer, Metric, Option } from "effect"
import { DeadLetters } from "./DeadLetters.ts"
import { EventQueue, type Taken } from "./EventQueue.ts"
import { Configuration, FleetError } from "./FleetError.ts"
import { deadLettered, eventsHandled, handlerRetries, handlersRunning } from "./FleetMetrics.ts"
import { type Marks, marksOf, review } from "./internal/attemptMarks.ts"
import { millis } from "./internal/options.ts"
import { type Gate, gatedTake, gateOf, solo, type Ticket } from "./internal/solo.ts"

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
  /**
   * How long one run of the handler may take (default 5 minutes): a handler
   * running longer is interrupted and its attempt failed (retried, or a dead
   * letter on the last one). A finite positive duration, else `run` fails
   * with `FleetError` `Configuration` naming it.
   */
  readonly handlerTimeout?: Duration.Input | undefined
}

/** Options checked: the concurrency, and the handler's timeout in milliseconds. */
interface Checked<E, R> {
  readonly handler: Options<E, R>["handler"]
  readonly concurrency: number
  readonly handlerTimeout: number
}

/**
 * The handler's run on one taken event, in a fiber of its own (whatever the
 * handler does to its fiber, interrupting it included, cannot touch the
 * worker's loop): its exit, or `undefined` when it ran over `timeout` (it is
 * then interrupted). The worker's own interruption interrupts the handler
 * and waits for it, then ends this with that interruption (the queue
 * releases the event); a failure of the handler's cleanup then is logged.
 */
const runHandler = <A, E, R>(handler: Effect.Effect<A, E, R>, timeout: number): Effect.Effect<Exit.Exit<A, E> | undefined, never, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkChild(handler, { uninterruptible: false }), (fiber) =>
      restore(Effect.timeoutOption(Fiber.await(fiber), timeout)).pipe(
        Effect.onInterrupt(() =>
          Effect.flatMap(Effect.andThen(Fiber.interrupt(fiber), Fiber.await(fiber)), (exit) =>
            Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause)
              ? Effect.logWarning("the worker stopped; the event is released; the handler's cleanup failed", exit.cause)
              : Effect.void)
        ),
        Effect.flatMap(Option.match({
          onSome: Effect.succeed,
          onNone: () => Effect.as(Fiber.interrupt(fiber), undefined)
        }))
      ))
  )

/** What handling one queue's events needs: the options, the stores, the marks of past attempts, this process's gate. */
interface Context<E, R> {
  readonly options: Checked<E, R>
  readonly maxAttempts: number
  readonly deadLetters: DeadLetters["Service"]
  readonly unwritten: Unwritten
  readonly marks: Marks
  readonly gate: Gate
}

/** A store write whose failure only costs precision (an attempt read as one without outcome): logged, not failed. */
const bestEffort = (write: Effect.Effect<void, FleetError>): Effect.Effect<void> =>
  Effect.catch(write, (error) => Effect.logWarning("the marks of an event's attempts could not be written", error))

/**
 * The handler's run on one taken event, the `counted`-th attempt toward
 * `maxAttempts`: a failure (an interruption of its own, or running over
 * `handlerTimeout`, included) is marked; on the last attempt it is written
 * to the dead letters (and the event completed), before it, it is counted
 * and handed back to the queue for a retry. Only the worker's own
 * interruption releases the event untouched.
 */
const attempt = <E, R>(
  context: Context<E, R>,
  event: DeliveredEvent,
  taken: Taken,
  counted: number
): Effect.Effect<void, E | FleetError, R> =>
  runHandler(Effect.suspend(() => context.options.handler(event, taken)), context.options.handlerTimeout).pipe(
    Effect.flatMap((exit): Effect.Effect<void, E | FleetError> => {
      const fail = (cause: Cause.Cause<E>, described: string) =>
        Effect.andThen(
          bestEffort(context.marks.mark(taken.id, taken.attempts, "failed")),
          failed(context, event, taken, counted, cause, described)
        )
      if (exit === undefined) {
        const error = new HandlerTimedOut(context.options.handlerTimeout)
        return fail(Cause.die(error), error.message)
      }
      if (Exit.isSuccess(exit)) {
        return Effect.andThen(Metric.update(eventsHandled, 1), taken.attempts > 1 ? bestEffort(context.marks.clear(taken.id)) : Effect.void)
      }
      return Cause.hasInterruptsOnly(exit.cause)
        ? fail(Cause.die(new HandlerInterrupted()), `${interrupted}\n${Cause.pretty(exit.cause)}`)
        : fail(exit.cause, Cause.pretty(exit.cause))
    }),
    Effect.ensuring(Metric.modify(handlersRunning, -1)),
    (running) => Effect.andThen(Metric.modify(handlersRunning, 1), running)
  )

/** What a handler running over `handlerTimeout` fails with: a failed attempt. */
class HandlerTimedOut extends Error {
  constructor(timeout: number) {
    super(`the handler ran over handlerTimeout (${timeout} ms) and was interrupted`)
    this.name = "HandlerTimedOut"
  }
}

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

const failed = <E, R>(
  { deadLetters, marks, maxAttempts, unwritten }: Context<unknown, R>,
  event: DeliveredEvent,
  taken: Taken,
  counted: number,
  cause: Cause.Cause<E>,
  text: string
): Effect.Effect<void, E | FleetError> => {
  const described = writable(text)
  if (counted >= maxAttempts) {
    return deadLetters.add({ event, attempts: taken.attempts, cause: described }).pipe(
      Effect.tap(() => Metric.update(deadLettered, 1)),
      Effect.tap(() => bestEffort(marks.clear(taken.id))),
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
    Effect.andThen(Effect.logInfo(`webhook event handler failed (attempt ${counted} of ${maxAttempts}${counted === taken.attempts ? "" : `, taken ${taken.attempts} times`})`, cause)),
    // the queue writes the cause as the event's last failure: text Postgres can keep
    Effect.andThen(Effect.failCause(Cause.pretty(cause).includes("\u0000") ? Cause.die(new HandlerFailed(described)) : cause))
  )
}

/** A handler's failure as text Postgres can keep: a NUL is written `\u0000`. */
const writable = (text: string): string => text.replaceAll("\u0000", "\\u0000")

/** What the queue gets for a handler's failure whose text holds a NUL: the same text, the NUL escaped. */
class HandlerFailed extends Error {
  constructor(described: string) {
    super(described)
    this.name = "HandlerFailed"
  }
}

/**
 * An event whose attempts ran out before this take: its last attempts had
 * no outcome while it ran alone (as a poison event that crashes its process
 * does), or it was taken as often as any event may be (`cap`: beside other
 * events, its workers died), or its dead letter was not written, or the
 * event not completed after it. It goes to the dead letters without running
 * the handler again, with its real cause when it is known (a letter written
 * already is kept; a cause this process failed to write is written now).
 */
const settle = <R>(
  { deadLetters, marks, maxAttempts, unwritten }: Context<unknown, R>,
  event: DeliveredEvent,
  taken: Taken,
  past: ReturnType<typeof review>,
  cap: number
) =>
  Effect.gen(function*() {
    const known = unwritten.get(taken.id)
    if (known === undefined && Option.isSome(yield* deadLetters.get(event.eventId))) return // written; its completion failed
    const last = taken.attempts - 1
    const cause = known?.cause ?? (past.counted < maxAttempts
      ? `no outcome: taken ${last} times, the most an event is (${cap}: twice maxAttempts), ${past.counted} of them counted ` +
        `(failed, or died alone); the others stopped before the handler ended while other events ran beside it ` +
        `(their worker died, or lost its lock)`
      : past.lastHadOutcome
      ? `the handler failed attempt ${last}, its last; its cause was not kept (the process running it could not write its dead letter)`
      : `no outcome, alone: the worker running attempt ${last} stopped before the handler ended while the event ran alone ` +
        `(it died, or lost its lock); ${past.aloneDeaths} of its attempts ended so`)
    yield* deadLetters.add({ event, attempts: known?.attempts ?? last, cause })
    unwritten.delete(taken.id)
    yield* bestEffort(marks.clear(taken.id))
    yield* Metric.update(deadLettered, 1)
    yield* Effect.logWarning(known === undefined
      ? `webhook event moved to the dead letters: ${cause}`
      : "webhook event moved to the dead letters (its letter could not be written at its last attempt)")
  })

/**
 * One taken event: its first attempt runs at once; a retry reads the marks
 * of its past attempts: when they used up `maxAttempts` (or the event was
 * taken twice that often) it is settled without a run, when the last one had
 * no outcome it runs alone (marked so first), else at once.
 */
const handleTaken = <E, R>(context: Context<E, R>, event: DeliveredEvent, taken: Taken, ticket: Ticket) => {
  if (taken.attempts === 1) return attempt(context, event, taken, 1)
  return Effect.matchEffect(context.marks.read(taken.id), {
    // the marks unreadable (the store failing): the attempt runs at once, every take of the store counted
    // (as before there were marks): the event goes on to its dead letter, the events behind it keep flowing
    onFailure: (error) =>
      Effect.andThen(
        Effect.logWarning("the marks of a retried event's attempts could not be read: every take counted", error),
        attempt(context, event, taken, taken.attempts)
      ),
    onSuccess: (history): Effect.Effect<void, E | FleetError, R> => {
      const past = review(history, taken.attempts)
      const cap = 2 * context.maxAttempts
      if (past.counted >= context.maxAttempts || taken.attempts > cap) return settle(context, event, taken, past, cap)
      if (past.lastHadOutcome) return attempt(context, event, taken, past.counted + 1)
      return solo(
        context.gate,
        ticket,
        Effect.andThen(bestEffort(context.marks.mark(taken.id, taken.attempts, "alone")), attempt(context, event, taken, past.counted + 1))
      )
    }
  })
}

/**
 * One event: take it, run the handler (in a span `fleet.Worker.handle`, with
 * the event's id and type and the attempt); on the last attempt a failure is
 * written to the dead letters (and the event completed), before it a failure
 * is counted and handed back to the queue for a retry. An event whose
 * previous attempt had no outcome runs alone among this process's workers
 * of the queue (see the module); one whose attempts ran out without an
 * outcome (it died alone `maxAttempts` times, or was taken twice
 * `maxAttempts` times) goes to the dead letters without another run. The
 * handler runs in a fiber of its own, for `handlerTimeout` at most; options
 * as {@link run} checks them.
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
): Effect.Effect<void, E | FleetError, R | EventQueue | DeadLetters> => Effect.flatMap(check(options), handleChecked)

const handleChecked = <E, R>(options: Checked<E, R>): Effect.Effect<void, E | FleetError, R | EventQueue | DeadLetters> =>
  Effect.gen(function*() {
    const queue = yield* EventQueue
    const deadLetters = yield* DeadLetters
    const context: Context<E, R> = {
      options,
      maxAttempts: queue.maxAttempts,
      deadLetters,
      unwritten: unwrittenOf(deadLetters),
      marks: marksOf(queue),
      gate: gateOf(queue)
    }
    const exit = yield* gatedTake(context.gate, (enter, ticket) =>
      queue.take((event, taken) =>
        Effect.andThen(enter, handleTaken(context, event, taken, ticket)).pipe(
          Effect.annotateLogs({ eventId: event.eventId, attempt: taken.attempts }),
          Effect.withSpan("fleet.Worker.handle", {
            attributes: { "fleet.event_id": event.eventId, "fleet.event_type": event.eventType, "fleet.attempt": taken.attempts }
          })
        )
      ))
    // `undefined`: the take stepped aside for a suspect (its event, if any, released uncounted)
    if (exit !== undefined) return yield* exit
  })

/** A store that failed (unreachable, say): a pause before the next take, not a hot loop. */
const storeFailed = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.some((reason) =>
    Cause.isFailReason(reason) && reason.error instanceof FleetError &&
    (reason.error.reason._tag === "QueueUnavailable" || reason.error.reason._tag === "DeadLetterStore")
  )

const check = <E, R>(options: Options<E, R>): Effect.Effect<Checked<E, R>, FleetError> => {
  const concurrency = options.concurrency ?? 1
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    return Effect.fail(
      new FleetError({ reason: new Configuration({ description: `concurrency: expected a positive integer, got ${String(concurrency)}` }) })
    )
  }
  return Effect.map(millis("handlerTimeout", options.handlerTimeout, "5 minutes"), (handlerTimeout) => ({
    handler: options.handler,
    concurrency,
    handlerTimeout
  }))
}

/**
 * Fails with this fiber's own interruption when it was interrupted: a
 * `catchCause` that caught it does not end the fiber, entering an
 * interruptible region does. Handlers run in fibers of their own, so only
 * the worker's shutdown interrupts a loop's fiber.
 */
const interruptionPoint: Effect.Effect<void> = Effect.uninterruptible(Effect.interruptible(Effect.void))

/**
 * One take loop: a failing handler or store is logged and the loop goes on;
 * it ends only with the worker's interruption (logged, as any end would be).
 */
const loopOf = <E, R>(options: Checked<E, R>): Effect.Effect<never, never, R | EventQueue | DeadLetters> =>
  handleChecked(options).pipe(
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
 * `concurrency` that is not a positive integer, or a `handlerTimeout` that
 * is not a finite positive duration, fails at once with `FleetError`
 * `Configuration` naming it.
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
  Effect.flatMap(check(options), (checked) =>
    Effect.forEach(
      Array.from({ length: checked.concurrency }, (_, i) => i),
      (fiber) => Effect.annotateLogs(loopOf(checked), { worker: fiber }),
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
  Layer.effectDiscard(Effect.andThen(check(options), Effect.forkScoped(run(options))))

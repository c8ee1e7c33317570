/**
 * The queue of delivered webhook events: `effect/persistence`'s
 * `PersistedQueue`, keyed by `eventId`, so the same event offered by any
 * number of receivers any number of times is stored once. Its store is a
 * layer: in memory (one process) or SQL (`PersistedQueue.layerStoreSql`, on
 * Postgres: every receiver and worker of a deployment shares it).
 *
 * A finished event's row is kept for the queue's `retention` (default 1
 * hour), then removed by the cleanup `Ingestion`'s layers run: within the
 * retention an id offered again is a no-op, after it the id is new.
 *
 * @since 0.1.0
 */
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { UnknownEvent, VehicleErrorEvent, VehicleStateEvent } from "@connected-vehicle/schema/WebhookEvent"
import { Clock, Context, Duration, Effect, Layer, Metric, Schedule, Schema } from "effect"
import { PersistedQueue } from "effect/persistence"
import { Configuration, FleetError, QueueUnavailable } from "./FleetError.ts"
import { eventLag, eventsOffered, eventsTaken, queueDepth } from "./FleetMetrics.ts"
import { cleanupIntervalMillis, retentionMillis } from "./internal/retention.ts"
import { queueIdOf } from "./internal/queueId.ts"

/**
 * The events a queue holds: every delivered kind (`VEHICLE_STATE`,
 * `VEHICLE_ERROR`, kinds this SDK does not know), stored as their JSON wire
 * form.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { QueuedEvent } from "@connected-vehicle/fleet/EventQueue"
 *
 * const isQueued = Schema.is(QueuedEvent)
 * ```
 * @since 0.1.0
 * @category schemas
 */
export const QueuedEvent = Schema.Union([
  VehicleStateEvent,
  VehicleErrorEvent,
  UnknownEvent
])

/**
 * What the queue stores for each event: the event, and when a receiver
 * stored it (`receivedAt`, epoch milliseconds on that receiver's clock), from
 * which a worker measures the event's lag. An element stored as a bare event
 * (no `receivedAt`) is read too.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { QueuedElement } from "@connected-vehicle/fleet/EventQueue"
 *
 * const isElement = Schema.is(QueuedElement)
 * ```
 * @since 0.1.0
 * @category schemas
 */
export const QueuedElement = Schema.Union([
  Schema.Struct({ event: QueuedEvent, receivedAt: Schema.Number }),
  QueuedEvent
])

/**
 * Options of {@link make}: the queue's name, how many times a worker runs
 * the handler of one event before it is a dead letter, and the delay before
 * each retry.
 *
 * @example
 * ```ts
 * import { Schedule } from "effect"
 * import type { Options } from "@connected-vehicle/fleet/EventQueue"
 *
 * const options: Options = { maxAttempts: 3, retrySchedule: Schedule.exponential("100 millis") }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The queue's name in its store (default `"connected-vehicle-events"`). */
  readonly name?: string | undefined
  /**
   * Handler runs per event before it becomes a dead letter (default 5): a
   * positive integer, else `make` fails with `FleetError` `Configuration`.
   * A run counts when it failed, or when it had no outcome (its worker
   * died) while the event ran alone; a run with no outcome beside other
   * events does not (the event then runs alone), but no event is taken
   * more than twice `maxAttempts` times.
   */
  readonly maxAttempts?: number | undefined
  /**
   * The delay before retry n (its input is the attempt number; default
   * exponential from 1 second, at most 5 minutes). The SQL store rounds
   * delays up to whole seconds.
   */
  readonly retrySchedule?: Schedule.Schedule<any, number> | undefined
  /**
   * Keep `FleetMetrics.queueDepth` (events stored and not finished): exact
   * only when this process is the only one offering to and taking from the
   * queue, as embedded (`Ingestion.layerMemory` turns it on; default false).
   * It remembers the ids the store remembers: pending ones, and finished
   * ones for the `retention`.
   */
  readonly countDepth?: boolean | undefined
  /**
   * How long a finished event (completed, or moved to the dead letters) is
   * kept in the store, and so how long the same id offered again is a no-op
   * (default 1 hour; `Duration.infinity`: forever). `Ingestion`'s layers run
   * the cleanup (`PersistedQueue.layerCleanup`) every quarter of it (from 1
   * second to 15 minutes), so a finished event is removed between
   * `retention` and `retention` plus that interval after it finished.
   * Pending events, retries included, are never removed.
   */
  readonly retention?: Duration.Input | undefined
}

/**
 * An event taken from the queue, and which attempt this is (1-based; a
 * worker that died mid-handler used one).
 *
 * @example
 * ```ts
 * import type { Taken } from "@connected-vehicle/fleet/EventQueue"
 *
 * const isRetry = (taken: Taken) => taken.attempts > 1
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Taken {
  readonly id: string
  readonly attempts: number
  /** When a receiver stored the event (epoch milliseconds, its clock); absent for an element stored without it. */
  readonly receivedAt?: number | undefined
}

/**
 * The queue's operations.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { EventQueue } from "@connected-vehicle/fleet/EventQueue"
 *
 * const takeOne = Effect.gen(function*() {
 *   const queue = yield* EventQueue
 *   return yield* queue.take((event) => Effect.succeed(event.eventId))
 * })
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly name: string
  readonly maxAttempts: number
  /**
   * Stores the event under `id` (default its `eventId`; one over 255
   * characters, which a SQL store cannot keep, as `sha256:<hex>` of it) with
   * the time of its receipt, in a span `fleet.EventQueue.offer`; succeeds once the store has
   * it (on SQL: committed). An `id` already stored is a no-op.
   */
  readonly offer: (event: DeliveredEvent, options?: { readonly id?: string | undefined }) => Effect.Effect<void, FleetError>
  /**
   * Waits for an event, runs `f`: its success completes the event, its
   * failure schedules a retry (`retrySchedule`), its interruption releases it.
   */
  readonly take: <A, E, R>(
    f: (event: DeliveredEvent, taken: Taken) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | FleetError, R>
}

/**
 * The event queue of a deployment.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { EventQueue } from "@connected-vehicle/fleet/EventQueue"
 *
 * const name = Effect.map(EventQueue, (queue) => queue.name)
 * ```
 * @since 0.1.0
 * @category services
 */
export class EventQueue extends Context.Service<EventQueue, Service>()("@connected-vehicle/fleet/EventQueue") {}

/**
 * The queue's default name in its store.
 *
 * @example
 * ```ts
 * import { defaultName } from "@connected-vehicle/fleet/EventQueue"
 *
 * console.log(defaultName) // "connected-vehicle-events"
 * ```
 * @since 0.1.0
 * @category constants
 */
export const defaultName = "connected-vehicle-events"

const defaultRetrySchedule: Schedule.Schedule<any, number> = Schedule.min([
  Schedule.exponential("1 second"),
  Schedule.spaced("5 minutes")
])

/**
 * Takes left to the store beyond twice `maxAttempts` (the most a worker
 * takes an event: attempts with no outcome beside other events do not
 * count toward `maxAttempts`): a dead letter not written.
 */
const storeSlack = 2

const queueError = (operation: string) => (cause: unknown) =>
  new FleetError({
    reason: new QueueUnavailable({
      description: `the event queue failed to ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause
    })
  })

/** Counts a take and, for an event's first one, records its lag: from its receipt to now. */
const measure = (taken: Taken) =>
  Effect.gen(function*() {
    yield* Metric.update(eventsTaken, 1)
    if (taken.attempts !== 1 || taken.receivedAt === undefined) return
    const now = yield* Clock.currentTimeMillis
    yield* Metric.update(eventLag, Duration.millis(Math.max(0, now - taken.receivedAt)))
  })

/**
 * The ids behind `queueDepth` when one process alone offers and takes: the
 * pending ones, and the finished ones until surely cleaned up from the store
 * (`forgetAfter` milliseconds after they finished). An id offered while
 * either holds it is a duplicate the store ignores; an id taken that was not
 * pending (offered again while the store may have forgotten it) is not
 * counted down, as it was not counted up.
 */
const depthOf = (forgetAfter: number) => {
  const pending = new Set<string>()
  const finished = new Map<string, number>() // in the order they finished
  const forget = (now: number) => {
    for (const [id, at] of finished) {
      if (now - at < forgetAfter) return
      finished.delete(id)
    }
  }
  return {
    /** Whether this offer counts one more pending event. */
    offered: (id: string, now: number): boolean => {
      forget(now)
      if (pending.has(id) || finished.has(id)) return false
      pending.add(id)
      return true
    },
    /** Whether this finish counts one pending event less. */
    finished: (id: string, now: number): boolean => {
      finished.delete(id)
      finished.set(id, now)
      return pending.delete(id)
    }
  }
}

/**
 * The queue on the `PersistedQueueFactory` in context (whose store decides
 * where events are kept).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { PersistedQueue } from "effect/persistence"
 * import * as EventQueue from "@connected-vehicle/fleet/EventQueue"
 *
 * const Queue = EventQueue.layer({ maxAttempts: 3 }).pipe(
 *   Layer.provide(PersistedQueue.layer),
 *   Layer.provide(PersistedQueue.layerStoreMemory)
 * )
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<Service, FleetError, PersistedQueue.PersistedQueueFactory> =>
  Effect.gen(function*() {
    const name = options?.name ?? defaultName
    const maxAttempts = options?.maxAttempts ?? 5
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
      return yield* new FleetError({
        reason: new Configuration({ description: `maxAttempts: expected a positive integer, got ${String(maxAttempts)}` })
      })
    }
    const queue = yield* PersistedQueue.make({
      name,
      schema: QueuedElement,
      maxAttempts: 2 * maxAttempts + storeSlack,
      retrySchedule: options?.retrySchedule ?? defaultRetrySchedule
    })
    const retention = yield* Effect.orElseSucceed(retentionMillis(options?.retention), () => Infinity)
    const depth = options?.countDepth === true ? depthOf(retention + 2 * cleanupIntervalMillis(retention)) : undefined
    return EventQueue.of({
      name,
      maxAttempts,
      offer: (event, offerOptions) => {
        const id = queueIdOf(offerOptions?.id ?? event.eventId)
        return Effect.flatMap(Clock.currentTimeMillis, (receivedAt) =>
          queue.offer({ event, receivedAt }, { id }).pipe(
            Effect.mapError(queueError(`store event ${event.eventId}`)),
            Effect.tap(() => Metric.update(eventsOffered, 1)),
            Effect.tap(() => depth?.offered(id, receivedAt) === true ? Metric.modify(queueDepth, 1) : Effect.void)
          )).pipe(
          Effect.withSpan("fleet.EventQueue.offer", { attributes: { "fleet.event_id": event.eventId, "fleet.queue_id": id } })
        )
      },
      take: (f) =>
        queue.take((element, { attempts, id }) => {
          const taken: Taken = "receivedAt" in element ? { id, attempts, receivedAt: element.receivedAt } : { id, attempts }
          return Effect.andThen(measure(taken), f("receivedAt" in element ? element.event : element, taken)).pipe(
            Effect.tap(() =>
              depth === undefined ? Effect.void : Effect.flatMap(Clock.currentTimeMillis, (now) =>
                depth.finished(id, now) ? Metric.modify(queueDepth, -1) : Effect.void)
            )
          )
        }).pipe(
          Effect.mapError((error) => error instanceof PersistedQueue.PersistedQueueError ? queueError("take an event")(error) : error)
        )
    })
  })

/**
 * {@link make} as a layer.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { PersistedQueue } from "effect/persistence"
 * import * as EventQueue from "@connected-vehicle/fleet/EventQueue"
 *
 * const InMemory = EventQueue.layer().pipe(Layer.provide(PersistedQueue.layer), Layer.provide(PersistedQueue.layerStoreMemory))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<EventQueue, FleetError, PersistedQueue.PersistedQueueFactory> =>
  Layer.effect(EventQueue, make(options))

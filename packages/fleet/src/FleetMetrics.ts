/**
 * The Effect metrics of the fleet: events offered, taken, handled, retried
 * and dead-lettered, their lag, handlers running now, events applied and
 * polls, and the shards this runner holds. Every metric is this process's
 * own: a deployment's figures are the sum (or, for the lag, the merge) over
 * its processes, which an exporter tells apart by its resource attributes. Read them with `Metric.value`, or
 * export them (and the spans) with `@effect/opentelemetry`.
 *
 * @since 0.1.0
 */
import { Metric } from "effect"
import { ClusterMetrics } from "effect/cluster"

/**
 * Events stored by this process's receivers (duplicates included: the queue
 * stores each `eventId` once).
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { eventsOffered } from "@connected-vehicle/fleet/FleetMetrics"
 *
 * const offered = Effect.map(Metric.value(eventsOffered), (state) => state.count)
 * ```
 * @since 0.1.0
 * @category metrics
 */
export const eventsOffered = Metric.counter("fleet_events_offered", {
  description: "webhook events offered to the durable queue",
  incremental: true
})

/**
 * Events taken from the queue by this process's workers: one per handler
 * run started, retries included (an event taken again after its worker died
 * counts again).
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { eventsTaken } from "@connected-vehicle/fleet/FleetMetrics"
 *
 * const taken = Effect.map(Metric.value(eventsTaken), (state) => state.count)
 * ```
 * @since 0.1.0
 * @category metrics
 */
export const eventsTaken = Metric.counter("fleet_events_taken", {
  description: "events taken from the durable queue by a worker (retries included)",
  incremental: true
})

/**
 * The lag of each event: the time from its receipt (when a receiver stored
 * it in the queue) to its first take by a worker of this process, a
 * histogram in milliseconds (`Metric.timer`, buckets from 1 ms to about 9
 * hours). Retries are not measured again. Across machines the two ends are
 * read on two clocks: keep them synchronised (NTP).
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { eventLag } from "@connected-vehicle/fleet/FleetMetrics"
 *
 * const worst = Effect.map(Metric.value(eventLag), (state) => state.max) // milliseconds
 * ```
 * @since 0.1.0
 * @category metrics
 */
export const eventLag = Metric.timer("fleet_event_lag", {
  description: "time from an event's receipt to its first take by a worker",
  boundaries: Metric.exponentialBoundaries({ start: 1, factor: 2, count: 26 })
})

/**
 * Events stored in the queue and not finished (neither handled nor a dead
 * letter): waiting, being handled, or waiting for a retry. Kept only by a
 * queue with `countDepth` (the embedded `Ingestion.layerMemory`), where this
 * process is the only one offering and taking, so the count is exact; on
 * Postgres it is not kept (the queue's table layout is not a public API of
 * `PersistedQueue`, and no process sees every offer and every completion):
 * there the lag ({@link eventLag}) and the rates of {@link eventsOffered}
 * and {@link eventsTaken} show a backlog.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { queueDepth } from "@connected-vehicle/fleet/FleetMetrics"
 *
 * const waiting = Effect.map(Metric.value(queueDepth), (state) => state.value)
 * ```
 * @since 0.1.0
 * @category metrics
 */
export const queueDepth = Metric.gauge("fleet_queue_depth", {
  description: "events stored and not finished (embedded queue only)"
})

/**
 * Events whose handler succeeded in this process.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { eventsHandled } from "@connected-vehicle/fleet/FleetMetrics"
 *
 * const handled = Effect.map(Metric.value(eventsHandled), (state) => state.count)
 * ```
 * @since 0.1.0
 * @category metrics
 */
export const eventsHandled = Metric.counter("fleet_events_handled", {
  description: "webhook events whose handler succeeded",
  incremental: true
})

/**
 * Handler failures that will be retried.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { handlerRetries } from "@connected-vehicle/fleet/FleetMetrics"
 *
 * const retries = Effect.map(Metric.value(handlerRetries), (state) => state.count)
 * ```
 * @since 0.1.0
 * @category metrics
 */
export const handlerRetries = Metric.counter("fleet_handler_retries", {
  description: "failed handler runs scheduled for a retry",
  incremental: true
})

/**
 * Events moved to the dead letters by this process.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { deadLettered } from "@connected-vehicle/fleet/FleetMetrics"
 *
 * const dead = Effect.map(Metric.value(deadLettered), (state) => state.count)
 * ```
 * @since 0.1.0
 * @category metrics
 */
export const deadLettered = Metric.counter("fleet_dead_lettered", {
  description: "events moved to the dead letters after their last attempt",
  incremental: true
})

/**
 * Handlers running now in this process.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { handlersRunning } from "@connected-vehicle/fleet/FleetMetrics"
 *
 * const running = Effect.map(Metric.value(handlersRunning), (state) => state.value)
 * ```
 * @since 0.1.0
 * @category metrics
 */
export const handlersRunning = Metric.gauge("fleet_handlers_running", {
  description: "event handlers running now"
})

/**
 * Events a vehicle entity applied for a worker of this process (the
 * `FleetState` changed, or at least recorded the event).
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { eventsApplied } from "@connected-vehicle/fleet/FleetMetrics"
 *
 * const applied = Effect.map(Metric.value(eventsApplied), (state) => state.count)
 * ```
 * @since 0.1.0
 * @category metrics
 */
export const eventsApplied = Metric.counter("fleet_events_applied", {
  description: "webhook events applied to the fleet state",
  incremental: true
})

/**
 * Events sent again to their vehicle entity (at least once delivery) and
 * found applied already: nothing changed.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { eventsAlreadyApplied } from "@connected-vehicle/fleet/FleetMetrics"
 *
 * const duplicates = Effect.map(Metric.value(eventsAlreadyApplied), (state) => state.count)
 * ```
 * @since 0.1.0
 * @category metrics
 */
export const eventsAlreadyApplied = Metric.counter("fleet_events_already_applied", {
  description: "webhook events found applied already",
  incremental: true
})

/**
 * Polls of idle vehicles by the entities running in this process.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { vehiclePolls } from "@connected-vehicle/fleet/FleetMetrics"
 *
 * const polls = Effect.map(Metric.value(vehiclePolls), (state) => state.count)
 * ```
 * @since 0.1.0
 * @category metrics
 */
export const vehiclePolls = Metric.counter("fleet_vehicle_polls", {
  description: "polls of idle vehicles' signals",
  incremental: true
})

/**
 * The shards this runner holds now: `effect/cluster`'s own gauge
 * (`effect_cluster_shards`, a `bigint`), one value per process.
 *
 * @example
 * ```ts
 * import { Effect, Metric } from "effect"
 * import { shards } from "@connected-vehicle/fleet/FleetMetrics"
 *
 * const held = Effect.map(Metric.value(shards), (state) => Number(state.value))
 * ```
 * @since 0.1.0
 * @category metrics
 */
export const shards = ClusterMetrics.shards

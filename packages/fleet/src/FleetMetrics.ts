/**
 * The Effect metrics of the fleet: events offered, handled, retried and
 * dead-lettered, and handlers running now. Read them with `Metric.value`, or
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

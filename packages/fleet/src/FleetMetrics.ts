/**
 * The Effect metrics of the fleet: events offered, handled, retried and
 * dead-lettered, and handlers running now. Read them with `Metric.value`, or
 * export them (and the spans) with `@effect/opentelemetry`.
 *
 * @since 0.1.0
 */
import { Metric } from "effect"

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

/**
 * The one error of this package: what failed is its `reason`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * What failed:
 *
 * - `Configuration`: the environment (or `ConfigProvider`) has an invalid value
 * - `DatabaseUnavailable`: Postgres could not be reached or refused a statement
 * - `QueueUnavailable`: the event queue's store failed (an offer is then not durable)
 * - `DeadLetterStore`: the dead-letter store failed
 * - `DeadLetterNotFound`: no dead letter has that `eventId`
 * - `Cluster`: this process's cluster runner could not start (its port taken, say)
 * - `RedisUnavailable`: Redis could not be reached, refused a command or did not answer in time
 *
 * @example
 * ```ts
 * import type { Reason } from "@connected-vehicle/fleet/FleetError"
 *
 * const retryable = (reason: Reason) => reason === "DatabaseUnavailable" || reason === "QueueUnavailable"
 * ```
 * @since 0.1.0
 * @category models
 */
export type Reason = typeof FleetError.fields.reason.Type

/**
 * A failure of the fleet package, with its `reason`, a `description` and the
 * underlying `cause` (a `SqlError`, a `PersistedQueueError`, a `RedisError`, a `ConfigError`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { FleetError } from "@connected-vehicle/fleet/FleetError"
 *
 * const missing = Effect.fail(new FleetError({ reason: "DeadLetterNotFound", description: "no dead letter for evt_1" }))
 * ```
 * @since 0.1.0
 * @category errors
 */
export class FleetError extends Schema.TaggedError<FleetError>()("FleetError", {
  reason: Schema.Literals([
    "Configuration",
    "DatabaseUnavailable",
    "QueueUnavailable",
    "DeadLetterStore",
    "DeadLetterNotFound",
    "Cluster",
    "RedisUnavailable"
  ]),
  description: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {
  override get message() {
    return `${this.reason}: ${this.description}`
  }
}

/**
 * The one error of this package: a `FleetError` whose `reason` says what
 * failed, modelled on Effect's `AiError`: `Configuration`,
 * `DatabaseUnavailable`, `QueueUnavailable`, `DeadLetterStore`,
 * `DeadLetterNotFound`, `Cluster` or `RedisUnavailable`. Every reason has a
 * `description`, the underlying `cause` where there is one (a `SqlError`, a
 * `PersistedQueueError`, a `RedisError`, a `ConfigError`) and `isRetryable`
 * (an unavailable store is; a configuration or a missing dead letter is not).
 *
 * Match a reason with `Effect.catchReason("FleetError", "DeadLetterNotFound", ...)`,
 * or test `error.reason._tag === "DeadLetterNotFound"`.
 *
 * @since 0.1.0
 */
import { type Config, Predicate, Schema, SchemaIssue } from "effect"
import * as ConfigurationError from "@connected-vehicle/transport/ConfigurationError"

const described = {
  description: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}

/**
 * The environment (or `ConfigProvider`), or an option given in code, has an
 * invalid value. `variables` names the environment variables at fault when
 * known. Not retryable.
 *
 * @example
 * ```ts
 * import { Configuration } from "@connected-vehicle/fleet/FleetError"
 *
 * new Configuration({ description: "FLEET_STORAGE=memory, but DATABASE_URL set as well", variables: ["FLEET_STORAGE", "DATABASE_URL"] })
 * ```
 * @since 0.1.0
 * @category reasons
 */
export class Configuration extends Schema.TaggedError<Configuration>()("Configuration", {
  ...described,
  variables: Schema.optionalKey(Schema.Array(Schema.String))
}) {
  /**
   * The reason of an Effect `ConfigError` (its message after `context`, when
   * given), naming the variables its schema issues point at.
   */
  static fromConfigError(error: Config.ConfigError, context?: string): Configuration {
    // each issue's path as the environment variable read there (`["FLEET", "POLL_INTERVAL"]`: `FLEET_POLL_INTERVAL`)
    const variables = Schema.isSchemaError(error.cause)
      ? [...new Set(SchemaIssue.makeFormatterStandardSchemaV1()(error.cause.issue).issues.flatMap(({ path }) => {
        const keys = (path ?? []).map((segment) => typeof segment === "object" && segment !== null ? segment.key : segment)
        const end = keys.findIndex((key) => typeof key !== "string") // an array's index ends the name
        const names = end === -1 ? keys : keys.slice(0, end)
        return names.length > 0 ? [names.join("_")] : []
      }))]
      : []
    const message = ConfigurationError.fromConfigError(error).description
    return new Configuration({
      description: context === undefined ? message : `${context}: ${message}`,
      cause: error,
      ...(variables.length > 0 ? { variables } : {})
    })
  }
  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return this.description
  }
}

/**
 * Postgres could not be reached or refused a statement. Retryable.
 *
 * @example
 * ```ts
 * import type { DatabaseUnavailable } from "@connected-vehicle/fleet/FleetError"
 *
 * const why = (reason: DatabaseUnavailable) => reason.description
 * ```
 * @since 0.1.0
 * @category reasons
 */
export class DatabaseUnavailable extends Schema.TaggedError<DatabaseUnavailable>()("DatabaseUnavailable", described) {
  get isRetryable(): boolean {
    return true
  }
  override get message(): string {
    return this.description
  }
}

/**
 * The event queue's store failed (an offer is then not durable). Retryable.
 *
 * @example
 * ```ts
 * import type { QueueUnavailable } from "@connected-vehicle/fleet/FleetError"
 *
 * const why = (reason: QueueUnavailable) => reason.description
 * ```
 * @since 0.1.0
 * @category reasons
 */
export class QueueUnavailable extends Schema.TaggedError<QueueUnavailable>()("QueueUnavailable", described) {
  get isRetryable(): boolean {
    return true
  }
  override get message(): string {
    return this.description
  }
}

/**
 * The dead-letter store failed. Retryable.
 *
 * @example
 * ```ts
 * import type { DeadLetterStore } from "@connected-vehicle/fleet/FleetError"
 *
 * const why = (reason: DeadLetterStore) => reason.description
 * ```
 * @since 0.1.0
 * @category reasons
 */
export class DeadLetterStore extends Schema.TaggedError<DeadLetterStore>()("DeadLetterStore", described) {
  get isRetryable(): boolean {
    return true
  }
  override get message(): string {
    return this.description
  }
}

/**
 * No dead letter of `eventId` awaits a replay. Not retryable.
 *
 * @example
 * ```ts
 * import { DeadLetterNotFound } from "@connected-vehicle/fleet/FleetError"
 *
 * new DeadLetterNotFound({ eventId: "evt_1" }).description // "no dead letter of event evt_1 awaits a replay"
 * ```
 * @since 0.1.0
 * @category reasons
 */
export class DeadLetterNotFound extends Schema.TaggedError<DeadLetterNotFound>()("DeadLetterNotFound", {
  eventId: Schema.String
}) {
  get description(): string {
    return `no dead letter of event ${this.eventId} awaits a replay`
  }
  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return this.description
  }
}

/**
 * This process's cluster runner could not start (its port taken, say). Not
 * retryable as such: its `cause` says why.
 *
 * @example
 * ```ts
 * import type { Cluster } from "@connected-vehicle/fleet/FleetError"
 *
 * const why = (reason: Cluster) => reason.description
 * ```
 * @since 0.1.0
 * @category reasons
 */
export class Cluster extends Schema.TaggedError<Cluster>()("Cluster", described) {
  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return this.description
  }
}

/**
 * Redis could not be reached, refused a command or did not answer in time.
 * Retryable.
 *
 * @example
 * ```ts
 * import type { RedisUnavailable } from "@connected-vehicle/fleet/FleetError"
 *
 * const why = (reason: RedisUnavailable) => reason.description
 * ```
 * @since 0.1.0
 * @category reasons
 */
export class RedisUnavailable extends Schema.TaggedError<RedisUnavailable>()("RedisUnavailable", described) {
  get isRetryable(): boolean {
    return true
  }
  override get message(): string {
    return this.description
  }
}

/**
 * Every reason of a {@link FleetError}.
 *
 * @example
 * ```ts
 * import type { Reason } from "@connected-vehicle/fleet/FleetError"
 *
 * const storeDown = (reason: Reason) => reason._tag === "DatabaseUnavailable" || reason._tag === "QueueUnavailable"
 * ```
 * @since 0.1.0
 * @category models
 */
export type Reason =
  | Configuration
  | DatabaseUnavailable
  | QueueUnavailable
  | DeadLetterStore
  | DeadLetterNotFound
  | Cluster
  | RedisUnavailable

/**
 * Schema of {@link Reason}.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Reason } from "@connected-vehicle/fleet/FleetError"
 *
 * const isReason = Schema.is(Reason)
 * ```
 * @since 0.1.0
 * @category schemas
 */
export const Reason = Schema.Union([
  Configuration,
  DatabaseUnavailable,
  QueueUnavailable,
  DeadLetterStore,
  DeadLetterNotFound,
  Cluster,
  RedisUnavailable
])

/**
 * The tag of every {@link Reason}.
 *
 * @example
 * ```ts
 * import type { ReasonTag } from "@connected-vehicle/fleet/FleetError"
 *
 * const tag: ReasonTag = "DeadLetterNotFound"
 * ```
 * @since 0.1.0
 * @category models
 */
export type ReasonTag = Reason["_tag"]

/**
 * A failure of the fleet package. `reason` says what failed;
 * `description` and `isRetryable` are the reason's, and `cause` is the
 * reason itself (whose own `cause` is the underlying error). Match a reason
 * with `Effect.catchReason`:
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { DeadLetterNotFound, FleetError } from "@connected-vehicle/fleet/FleetError"
 *
 * const replay = Effect.fail(new FleetError({ reason: new DeadLetterNotFound({ eventId: "evt_1" }) }))
 * const handled = replay.pipe(
 *   Effect.catchReason("FleetError", "DeadLetterNotFound", (reason) => Effect.succeed(`nothing to replay for ${reason.eventId}`))
 * )
 * ```
 * @since 0.1.0
 * @category errors
 */
export class FleetError extends Schema.TaggedError<FleetError>()("FleetError", {
  reason: Reason
}) {
  /** The reason itself (its own `cause` is the underlying error). */
  override get cause(): Reason {
    return this.reason
  }
  /** What failed, in words (the reason's). */
  get description(): string {
    return this.reason.description
  }
  /** Whether another attempt may succeed (decided by the reason). */
  get isRetryable(): boolean {
    return this.reason.isRetryable
  }
  override get message(): string {
    return `${this.reason._tag}: ${this.reason.message}`
  }
}

/**
 * Whether a value is a {@link FleetError}.
 *
 * @example
 * ```ts
 * import { isFleetError } from "@connected-vehicle/fleet/FleetError"
 *
 * isFleetError(new Error("x")) // false
 * ```
 * @since 0.1.0
 * @category guards
 */
export const isFleetError = (u: unknown): u is FleetError => Predicate.isTagged(u, "FleetError") && u instanceof FleetError

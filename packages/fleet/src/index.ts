/**
 * Run the connected-vehicle SDK across many processes: durable webhook
 * ingestion and the fleet's state on `effect/cluster`, in memory or on
 * Postgres; request limits and one application token shared through Redis.
 *
 * @since 0.1.0
 */
/**
 * The Postgres database of a fleet deployment: the `SqlClient` on it.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { Database } from "@connected-vehicle/fleet"
 *
 * const Sql = Database.layer({ url: Redacted.make("postgres://fleet@db.internal/fleet") })
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Database from "./Database.ts"
/**
 * Events whose handler kept failing, with their cause: listed and replayed;
 * in memory or in a SQL table.
 *
 * @example
 * ```ts
 * import { DeadLetters } from "@connected-vehicle/fleet"
 *
 * const OnPostgres = DeadLetters.layerSql()
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as DeadLetters from "./DeadLetters.ts"
/**
 * A webhook receiver (`@connected-vehicle/webhooks`) that answers 200 once
 * the event is stored in the `EventQueue`.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { DurableReceiver } from "@connected-vehicle/fleet"
 *
 * const Route = DurableReceiver.layerRoute({ secret: Redacted.make(process.env.WEBHOOK_SECRET ?? "") })
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as DurableReceiver from "./DurableReceiver.ts"
/**
 * The queue of delivered events: `PersistedQueue`, keyed by `eventId`.
 *
 * @example
 * ```ts
 * import { EventQueue } from "@connected-vehicle/fleet"
 *
 * const name = EventQueue.defaultName
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as EventQueue from "./EventQueue.ts"
/**
 * The fleet state on `effect/cluster`: the vehicle entities and their
 * state, on one in-process runner or on many runners sharing Postgres.
 *
 * @example
 * ```ts
 * import { FleetCluster } from "@connected-vehicle/fleet"
 *
 * const FromEnvironment = FleetCluster.layerConfig()
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as FleetCluster from "./FleetCluster.ts"
/**
 * The environment of a fleet process, one `Config` value: `DATABASE_URL`,
 * `REDIS_URL`, `FLEET_STORAGE` and the cluster's `FLEET_*` settings.
 *
 * @example
 * ```ts
 * import { FleetConfig } from "@connected-vehicle/fleet"
 *
 * const settings = FleetConfig.read
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as FleetConfig from "./FleetConfig.ts"
/**
 * The one error of this package, whose `reason` (`Configuration`,
 * `DatabaseUnavailable`, `DeadLetterNotFound`, ...) says what failed.
 *
 * @example
 * ```ts
 * import { FleetError } from "@connected-vehicle/fleet"
 *
 * const explain = (error: FleetError.FleetError) => `${error.reason._tag}: ${error.description}`
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as FleetError from "./FleetError.ts"
/**
 * The Effect metrics of ingestion: offered, handled, retried, dead-lettered,
 * running.
 *
 * @example
 * ```ts
 * import { FleetMetrics } from "@connected-vehicle/fleet"
 *
 * const offered = FleetMetrics.eventsOffered
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as FleetMetrics from "./FleetMetrics.ts"
/**
 * The latest value of each (vehicle, signal), newest by `oemUpdatedAt`:
 * reads and a `Stream` of changes; in memory or in SQL tables.
 *
 * @example
 * ```ts
 * import { FleetState } from "@connected-vehicle/fleet"
 *
 * const signals = FleetState.latest("veh_1")
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as FleetState from "./FleetState.ts"
/**
 * Durable ingestion wired: the queue and the dead letters in memory or on
 * Postgres (`DATABASE_URL`), and `replay`.
 *
 * @example
 * ```ts
 * import { Ingestion } from "@connected-vehicle/fleet"
 *
 * const FromEnvironment = Ingestion.layerConfig()
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Ingestion from "./Ingestion.ts"
/**
 * The SDK of one process with the shared limits and the one token, on
 * `REDIS_URL` or in memory.
 *
 * @example
 * ```ts
 * import { SharedAccess } from "@connected-vehicle/fleet"
 *
 * const InMemory = SharedAccess.makeMemory()
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as SharedAccess from "./SharedAccess.ts"
/**
 * Per-vehicle and per-application request limits shared by every process
 * (`RateLimiter` in Redis), and a 429's `retry-after` respected by all.
 *
 * @example
 * ```ts
 * import { SharedLimits } from "@connected-vehicle/fleet"
 *
 * const Limits = SharedLimits.layerConfig({ perVehicle: { limit: 5, window: "1 second" } })
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as SharedLimits from "./SharedLimits.ts"
/**
 * The Redis of a fleet deployment: `effect/persistence`'s `Redis` on it.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { SharedRedis } from "@connected-vehicle/fleet"
 *
 * const RedisLive = SharedRedis.layer({ url: Redacted.make("redis://cache.internal:6379") })
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as SharedRedis from "./SharedRedis.ts"
/**
 * One application token for the fleet: a `TokenStore` in Redis with a
 * renewal lease.
 *
 * @example
 * ```ts
 * import { SharedToken } from "@connected-vehicle/fleet"
 *
 * const Store = SharedToken.layerConfig()
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as SharedToken from "./SharedToken.ts"
/**
 * A vehicle as an `effect/cluster` entity: applies its events once, polls
 * when idle; the `Worker` handler that feeds it.
 *
 * @example
 * ```ts
 * import { VehicleEntity, Worker } from "@connected-vehicle/fleet"
 *
 * const Workers = Worker.layer({ handler: VehicleEntity.handler })
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as VehicleEntity from "./VehicleEntity.ts"
/**
 * Workers: take events, run the handler at least once, retry, dead-letter.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Worker } from "@connected-vehicle/fleet"
 *
 * const Workers = Worker.layer({ handler: (event) => Effect.log(event.eventId) })
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Worker from "./Worker.ts"

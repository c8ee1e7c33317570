/**
 * Durable ingestion, wired: the `EventQueue` and the `DeadLetters` on one
 * store, in memory (the embedded default: one process) or on Postgres (every
 * receiver and worker of a deployment shares them), chosen by
 * `DATABASE_URL`; and `replay`, which offers a dead letter's event again.
 * Each layer also runs the queue's cleanup: a finished event is removed
 * once its `retention` passed (`EventQueue.Options`, `FLEET_QUEUE_RETENTION`
 * for `layerConfig`; several processes running it is harmless).
 *
 * @since 0.1.0
 */
import { type Duration, Effect, Layer, Option } from "effect"
import { PersistedQueue } from "effect/persistence"
import type { SqlClient } from "effect/sql"
import * as Database from "./Database.ts"
import * as DeadLetters from "./DeadLetters.ts"
import * as EventQueue from "./EventQueue.ts"
import * as FleetConfig from "./FleetConfig.ts"
import { DatabaseUnavailable, DeadLetterNotFound, FleetError } from "./FleetError.ts"
import { makeSqlMarks, register } from "./internal/attemptMarks.ts"
import { cleanupIntervalMillis, retentionMillis } from "./internal/retention.ts"
import { queueIdOf } from "./internal/queueId.ts"

/**
 * What ingestion provides: the queue and the dead letters.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Services } from "@connected-vehicle/fleet/Ingestion"
 * import { EventQueue } from "@connected-vehicle/fleet/EventQueue"
 *
 * const name: Effect.Effect<string, never, Services> = Effect.map(EventQueue, (queue) => queue.name)
 * ```
 * @since 0.1.0
 * @category models
 */
export type Services = EventQueue.EventQueue | DeadLetters.DeadLetters

/**
 * How the SQL store polls and locks: a worker that takes an event locks it
 * and refreshes the lock every `lockRefreshInterval`; an event whose lock is
 * older than `lockExpiration` (its worker died) is taken again.
 *
 * @example
 * ```ts
 * import type { SqlOptions } from "@connected-vehicle/fleet/Ingestion"
 *
 * const options: SqlOptions = { pollInterval: "500 millis", lockRefreshInterval: "10 seconds", lockExpiration: "30 seconds" }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface SqlOptions extends EventQueue.Options {
  /** How often an idle worker looks for events (default 1 second). */
  readonly pollInterval?: Duration.Input | undefined
  /** How often a running handler's lock is refreshed (default 30 seconds). */
  readonly lockRefreshInterval?: Duration.Input | undefined
  /** After how long without a refresh an event is taken again (default 2 minutes). */
  readonly lockExpiration?: Duration.Input | undefined
  /** The queue's table (default `effect_queue`). */
  readonly queueTable?: string | undefined
  /** The dead letters' table (default `fleet_dead_letters`). */
  readonly deadLetterTable?: string | undefined
  /**
   * The table of the marks of events' past attempts (default
   * `fleet_attempts`): which failed, which ran alone; read by retries only,
   * and removed when the event finishes.
   */
  readonly attemptTable?: string | undefined
}

/**
 * Everything in this process's memory: the embedded default. Events survive
 * neither a restart nor a crash. The queue keeps `FleetMetrics.queueDepth`
 * (`countDepth`).
 *
 * @example
 * ```ts
 * import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
 *
 * const Embedded = Ingestion.layerMemory({ maxAttempts: 3 })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (options?: EventQueue.Options): Layer.Layer<Services, FleetError> =>
  Layer.merge(
    EventQueue.layer({ countDepth: true, ...options }).pipe(Layer.provide(factory(PersistedQueue.layerStoreMemory, options))),
    DeadLetters.layerMemory
  )

/**
 * The queue factory on `store`, with the store's cleanup of the events
 * finished more than `retention` ago (none for an infinite one).
 */
const factory = <E, R>(
  store: Layer.Layer<PersistedQueue.PersistedQueueStore, E, R>,
  options: EventQueue.Options | undefined
): Layer.Layer<PersistedQueue.PersistedQueueFactory, E | FleetError, R> => {
  const cleanup = Layer.unwrap(Effect.map(retentionMillis(options?.retention), (retention) =>
    retention === Infinity
      ? Layer.empty
      : PersistedQueue.layerCleanup({ timeToLive: retention, interval: cleanupIntervalMillis(retention) })))
  return Layer.merge(PersistedQueue.layer, cleanup).pipe(Layer.provide(store))
}

const sqlStore = (options: SqlOptions | undefined) =>
  Layer.effect(
    PersistedQueue.PersistedQueueStore,
    PersistedQueue.makeStoreSql({
      tableName: options?.queueTable,
      pollInterval: options?.pollInterval,
      lockRefreshInterval: options?.lockRefreshInterval,
      lockExpiration: options?.lockExpiration
    }).pipe(
      Effect.mapError((cause) =>
        new FleetError({ reason: new DatabaseUnavailable({ description: `cannot set up the event queue's table: ${cause.message}`, cause }) })
      )
    )
  )

/**
 * The queue (`PersistedQueue`'s SQL store) and the dead letters on the
 * `SqlClient` in context.
 *
 * @example
 * ```ts
 * import { Layer, Redacted } from "effect"
 * import * as Database from "@connected-vehicle/fleet/Database"
 * import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
 *
 * const OnPostgres = Ingestion.layerSql({ lockExpiration: "30 seconds" }).pipe(
 *   Layer.provide(Database.layer({ url: Redacted.make("postgres://fleet@db.internal/fleet") }))
 * )
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerSql = (options?: SqlOptions): Layer.Layer<Services, FleetError, SqlClient.SqlClient> =>
  Layer.merge(
    Layer.effect(
      EventQueue.EventQueue,
      Effect.tap(EventQueue.make(options), (queue) =>
        Effect.map(makeSqlMarks(options?.attemptTable ?? "fleet_attempts", queue.name), (marks) => register(queue, marks)))
    ).pipe(Layer.provide(factory(sqlStore(options), options))),
    DeadLetters.layerSql({ table: options?.deadLetterTable })
  )

/**
 * {@link layerSql} on its own connection pool to Postgres at `url`.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
 *
 * const OnPostgres = Ingestion.layerPostgres({ url: Redacted.make("postgres://fleet@db.internal/fleet") })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerPostgres = (
  options: SqlOptions & Database.Options
): Layer.Layer<Services, FleetError> => layerSql(options).pipe(Layer.provide(Database.layer(options)))

/**
 * {@link layerPostgres} when `DATABASE_URL` is set (`FleetConfig`),
 * {@link layerMemory} otherwise (with a warning, unless `FLEET_STORAGE=memory`):
 * scaling out is a change of environment, not of code. The queue's
 * `retention` is `FLEET_QUEUE_RETENTION`'s (`options` override it).
 *
 * @example
 * ```ts
 * import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
 *
 * const FromEnvironment = Ingestion.layerConfig({ maxAttempts: 5 })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (options?: SqlOptions): Layer.Layer<Services, FleetError> =>
  Layer.unwrap(Effect.gen(function*() {
    const settings = yield* FleetConfig.read
    const merged: SqlOptions = { retention: settings.queueRetention, ...options }
    if (Option.isSome(settings.databaseUrl)) return layerPostgres({ ...merged, url: settings.databaseUrl.value })
    yield* FleetConfig.warnMemory(settings, "DATABASE_URL", "the event queue and the dead letters are")
    return layerMemory(merged)
  }))

/**
 * Offers a dead letter's event to the queue again (a fresh set of attempts)
 * and marks the letter replayed; answers the queue id of the replay
 * (`<eventId>:replay:<n>`, or `sha256:<hex>` of it when over 255 characters). Replaying twice at once, or again after a
 * failure between the two steps, stores the replay once.
 * `DeadLetterNotFound` when no letter of `eventId` awaits a replay.
 *
 * @example
 * ```ts
 * import { DateTime, Effect } from "effect"
 * import { DeadLetters } from "@connected-vehicle/fleet/DeadLetters"
 * import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
 *
 * // every letter awaiting a replay when it starts, 100 at a time (`list` answers at most its
 * // `limit`, default 100, oldest failure first); one whose replay fails again meanwhile comes
 * // back with a later `failedAt`: it waits for the next run
 * const replayAll = Effect.gen(function*() {
 *   const letters = yield* DeadLetters
 *   const started = yield* DateTime.now
 *   const ids: Array<string> = []
 *   while (true) {
 *     const page = yield* letters.list({ limit: 100 })
 *     const due = page.filter((letter) => DateTime.isLessThanOrEqualTo(letter.failedAt, started))
 *     if (due.length === 0) return ids
 *     for (const letter of due) ids.push(yield* Ingestion.replay(letter.eventId))
 *   }
 * })
 * ```
 * @since 0.1.0
 * @category replay
 */
export const replay = (eventId: string): Effect.Effect<string, FleetError, Services> =>
  Effect.gen(function*() {
    const deadLetters = yield* DeadLetters.DeadLetters
    const queue = yield* EventQueue.EventQueue
    const letter = yield* deadLetters.get(eventId)
    if (Option.isNone(letter)) {
      return yield* new FleetError({ reason: new DeadLetterNotFound({ eventId }) })
    }
    const id = queueIdOf(`${eventId}:replay:${letter.value.replays + 1}`)
    yield* queue.offer(letter.value.event, { id })
    yield* deadLetters.markReplayed(eventId)
    return id
  })

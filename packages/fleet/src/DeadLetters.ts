/**
 * Events whose handler kept failing: kept with their cause, listed, and
 * replayed (offered to the queue again, see `Ingestion.replay`). In memory
 * (one process) or in a SQL table (`fleet_dead_letters` on Postgres).
 *
 * @since 0.1.0
 */
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { Context, type DateTime, Effect, Layer, type Option } from "effect"
import type { SqlClient } from "effect/sql"
import { makeMemoryStore, makeSqlStore } from "./internal/deadLetterStores.ts"
import type { FleetError } from "./FleetError.ts"

/**
 * A dead letter: the event, how many times its handler ran, the last
 * failure's cause (rendered with `Cause.pretty`), when, and how many times it
 * was replayed before.
 *
 * @example
 * ```ts
 * import type { DeadLetter } from "@connected-vehicle/fleet/DeadLetters"
 *
 * const line = (letter: DeadLetter) => `${letter.eventId} after ${letter.attempts} attempts: ${letter.cause}`
 * ```
 * @since 0.1.0
 * @category models
 */
export interface DeadLetter {
  readonly eventId: string
  readonly event: DeliveredEvent
  readonly attempts: number
  readonly cause: string
  readonly failedAt: DateTime.Utc
  readonly replays: number
}

/**
 * The dead-letter store's operations. `list` and `get` see the letters
 * awaiting a replay; a replayed letter comes back (its `replays` counted) if
 * the event fails again. Nothing is ever deleted: a replayed letter is kept
 * (in memory for the life of the process; on SQL a row whose `status` is
 * `replayed`), so the store only grows (see the package README for removing
 * old ones).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { DeadLetters } from "@connected-vehicle/fleet/DeadLetters"
 *
 * const count = Effect.gen(function*() {
 *   const letters = yield* DeadLetters
 *   return (yield* letters.list()).length
 * })
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Keeps an event that failed its last attempt (again awaiting a replay if it was replayed). */
  readonly add: (letter: {
    readonly event: DeliveredEvent
    readonly attempts: number
    readonly cause: string
  }) => Effect.Effect<void, FleetError>
  /** The letters awaiting a replay, oldest failure first (at most `limit`, default 100). */
  readonly list: (options?: { readonly limit?: number | undefined }) => Effect.Effect<ReadonlyArray<DeadLetter>, FleetError>
  /** The letter of `eventId` awaiting a replay, if any. */
  readonly get: (eventId: string) => Effect.Effect<Option.Option<DeadLetter>, FleetError>
  /**
   * Marks the letter of `eventId` replayed and answers its replay count;
   * `DeadLetterNotFound` when none awaits a replay.
   */
  readonly markReplayed: (eventId: string) => Effect.Effect<number, FleetError>
}

/**
 * The dead-letter store of a deployment.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { DeadLetters } from "@connected-vehicle/fleet/DeadLetters"
 *
 * const oldest = Effect.flatMap(DeadLetters, (letters) => letters.list({ limit: 1 }))
 * ```
 * @since 0.1.0
 * @category services
 */
export class DeadLetters extends Context.Service<DeadLetters, Service>()("@connected-vehicle/fleet/DeadLetters") {}

/**
 * A store in this process's memory (the embedded default).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as DeadLetters from "@connected-vehicle/fleet/DeadLetters"
 *
 * const letters = Effect.runSync(DeadLetters.makeMemory)
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory: Effect.Effect<Service> = makeMemoryStore

/**
 * {@link makeMemory} as a layer.
 *
 * @example
 * ```ts
 * import * as DeadLetters from "@connected-vehicle/fleet/DeadLetters"
 *
 * const InMemory = DeadLetters.layerMemory
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<DeadLetters> = Layer.effect(DeadLetters, makeMemory)

/**
 * The default table of {@link makeSql}.
 *
 * @example
 * ```ts
 * import { defaultTable } from "@connected-vehicle/fleet/DeadLetters"
 *
 * console.log(defaultTable) // "fleet_dead_letters"
 * ```
 * @since 0.1.0
 * @category constants
 */
export const defaultTable = "fleet_dead_letters"

/**
 * A store in a SQL table (Postgres), created if missing: `event_id` (primary
 * key), `event` (the JSON wire form), `attempts`, `cause`, `failed_at`,
 * `replays`, `status` (`dead` or `replayed`).
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import * as Database from "@connected-vehicle/fleet/Database"
 * import * as DeadLetters from "@connected-vehicle/fleet/DeadLetters"
 *
 * const letters = DeadLetters.makeSql().pipe(
 *   Effect.provide(Database.layer({ url: Redacted.make("postgres://fleet@db.internal/fleet") }))
 * )
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = (options?: { readonly table?: string | undefined }): Effect.Effect<Service, FleetError, SqlClient.SqlClient> =>
  makeSqlStore(options?.table ?? defaultTable)

/**
 * {@link makeSql} as a layer.
 *
 * @example
 * ```ts
 * import { Layer, Redacted } from "effect"
 * import * as Database from "@connected-vehicle/fleet/Database"
 * import * as DeadLetters from "@connected-vehicle/fleet/DeadLetters"
 *
 * const OnPostgres = DeadLetters.layerSql().pipe(
 *   Layer.provide(Database.layer({ url: Redacted.make("postgres://fleet@db.internal/fleet") }))
 * )
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerSql = (options?: { readonly table?: string | undefined }): Layer.Layer<DeadLetters, FleetError, SqlClient.SqlClient> =>
  Layer.effect(DeadLetters, makeSql(options))

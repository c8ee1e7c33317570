/**
 * The two dead-letter stores: a map in memory, a SQL table.
 *
 * @internal
 */
import { parse } from "@connected-vehicle/schema/Json"
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { DateTime, Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type { DeadLetter, Service } from "../DeadLetters.ts"
import { QueuedEvent } from "../EventQueue.ts"
import { DeadLetterNotFound, DeadLetterStore, FleetError } from "../FleetError.ts"
import { createTable } from "./sqlTable.ts"

const notFound = (eventId: string) => new FleetError({ reason: new DeadLetterNotFound({ eventId }) })

const storeError = (operation: string) => (cause: unknown) =>
  new FleetError({
    reason: new DeadLetterStore({
      description: `the dead-letter store failed to ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause
    })
  })

const defaultLimit = 100

/** @internal */
export const makeMemoryStore: Effect.Effect<Service> = Effect.sync(() => {
  const letters = new Map<string, { letter: DeadLetter; dead: boolean }>()
  const awaiting = (eventId: string) => {
    const entry = letters.get(eventId)
    return entry !== undefined && entry.dead ? Option.some(entry.letter) : Option.none()
  }
  return {
    add: ({ attempts, cause, event }) =>
      Effect.map(DateTime.now, (failedAt) => {
        const replays = letters.get(event.eventId)?.letter.replays ?? 0
        letters.set(event.eventId, { letter: { eventId: event.eventId, event, attempts, cause, failedAt, replays }, dead: true })
      }),
    list: (options) =>
      Effect.sync(() =>
        [...letters.values()]
          .filter((entry) => entry.dead)
          .map((entry) => entry.letter)
          .sort((a, b) => DateTime.toEpochMillis(a.failedAt) - DateTime.toEpochMillis(b.failedAt))
          .slice(0, options?.limit ?? defaultLimit)
      ),
    get: (eventId) => Effect.sync(() => awaiting(eventId)),
    markReplayed: (eventId) =>
      Effect.suspend(() => {
        const entry = letters.get(eventId)
        if (entry === undefined || !entry.dead) return Effect.fail(notFound(eventId))
        const replays = entry.letter.replays + 1
        letters.set(eventId, { letter: { ...entry.letter, replays }, dead: false })
        return Effect.succeed(replays)
      })
  }
})

const encodeEvent = Schema.encodeUnknownEffect(Schema.toCodecJson(QueuedEvent))
const decodeEvent = Schema.decodeUnknownEffect(Schema.toCodecJson(QueuedEvent))

interface Row {
  readonly event_id: string
  readonly event: string
  readonly attempts: number
  readonly cause: string
  readonly failed_at: Date | string
  readonly replays: number
}

const fromRow = (row: Row): Effect.Effect<DeadLetter, FleetError> =>
  Effect.try({ try: () => parse(row.event), catch: storeError(`read the event of ${row.event_id}`) }).pipe(
    Effect.flatMap((json) => Effect.mapError(decodeEvent(json), storeError(`decode the event of ${row.event_id}`))),
    Effect.map((event: DeliveredEvent) => ({
      eventId: row.event_id,
      event,
      attempts: Number(row.attempts),
      cause: row.cause,
      failedAt: DateTime.makeUnsafe(row.failed_at),
      replays: Number(row.replays)
    }))
  )

/** @internal */
export const makeSqlStore = (table: string): Effect.Effect<Service, FleetError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient.SqlClient).withoutTransforms()
    const t = sql(table)
    yield* createTable(
      sql,
      table,
      sql`event_id TEXT PRIMARY KEY,
        event TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        cause TEXT NOT NULL,
        failed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        replays INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'dead'`
    ).pipe(Effect.mapError(storeError(`create table ${table}`)))
    const select = sql`SELECT event_id, event, attempts, cause, failed_at, replays FROM ${t}`
    return {
      add: ({ attempts, cause, event }) =>
        Effect.gen(function*() {
          const json = JSON.stringify(yield* encodeEvent(event))
          yield* sql`INSERT INTO ${t} (event_id, event, attempts, cause) VALUES (${event.eventId}, ${json}, ${attempts}, ${cause.replaceAll("\u0000", "\\u0000")})
            ON CONFLICT (event_id) DO UPDATE SET event = EXCLUDED.event, attempts = EXCLUDED.attempts,
              cause = EXCLUDED.cause, failed_at = now(), status = 'dead'`
        }).pipe(Effect.mapError(storeError(`add the dead letter of ${event.eventId}`))),
      list: (options) =>
        sql<Row>`${select} WHERE status = 'dead' ORDER BY failed_at, event_id LIMIT ${options?.limit ?? defaultLimit}`.pipe(
          Effect.mapError(storeError("list the dead letters")),
          Effect.flatMap((rows) => Effect.forEach(rows, fromRow))
        ),
      get: (eventId) =>
        sql<Row>`${select} WHERE status = 'dead' AND event_id = ${eventId}`.pipe(
          Effect.mapError(storeError(`read the dead letter of ${eventId}`)),
          Effect.flatMap((rows) => rows.length === 0 ? Effect.succeedNone : Effect.asSome(fromRow(rows[0]!)))
        ),
      markReplayed: (eventId) =>
        sql<{ readonly replays: number }>`UPDATE ${t} SET status = 'replayed', replays = replays + 1
          WHERE event_id = ${eventId} AND status = 'dead' RETURNING replays`.pipe(
          Effect.mapError(storeError(`mark the dead letter of ${eventId} replayed`)),
          Effect.flatMap((rows) => rows.length === 0 ? Effect.fail(notFound(eventId)) : Effect.succeed(Number(rows[0]!.replays)))
        )
    }
  })

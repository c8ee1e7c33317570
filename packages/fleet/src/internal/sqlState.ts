/**
 * The fleet state in two SQL tables (Postgres): the latest values, and the
 * applied events, written in one transaction.
 *
 * @internal
 */
import { DateTime, Effect, PubSub, type Scope, Stream } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { Input, Service, SignalState } from "../FleetState.ts"
import { DatabaseUnavailable, FleetError } from "../FleetError.ts"
import { newestByCode } from "./memoryState.ts"
import { forkCleanup } from "./retention.ts"

const storeError = (operation: string) => (cause: unknown) =>
  new FleetError({
    reason: new DatabaseUnavailable({
      description: `the fleet state failed to ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause
    })
  })

interface Row {
  readonly vehicle_id: string
  readonly code: string
  readonly name: string
  readonly signal_group: string
  readonly body: string
  readonly oem_updated_at: string
  readonly event_id: string
  readonly updated_at: string
}

const fromRow = (row: Row): SignalState => ({
  vehicleId: row.vehicle_id,
  code: row.code,
  name: row.name,
  group: row.signal_group,
  body: JSON.parse(row.body),
  oemUpdatedAt: DateTime.makeUnsafe(row.oem_updated_at),
  eventId: row.event_id,
  updatedAt: DateTime.makeUnsafe(row.updated_at)
})

/** @internal */
export interface Tables {
  readonly state: string
  readonly applied: string
  readonly changesCapacity: number
  /** How long an applied event's id is kept (milliseconds, `Infinity`: forever). */
  readonly appliedRetention: number
}

/** The index of `table` on `column`: its name (`<table>_<column>`) and its name qualified by the table's schema. */
const indexOf = (table: string, column: string) => {
  const dot = table.lastIndexOf(".")
  const name = `${table.slice(dot + 1)}_${column}`
  const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`
  // an index name itself takes no schema: a schema-qualified table's index is in that schema
  return { name, qualified: dot === -1 ? quote(name) : `${quote(table.slice(0, dot))}.${quote(name)}` }
}

/** Whether `relation` (as `to_regclass` reads it) exists. */
const exists = (sql: SqlClient.SqlClient, relation: string) =>
  Effect.map(sql<{ readonly found: boolean }>`SELECT to_regclass(${relation}) IS NOT NULL AS found`, (rows) => rows[0]?.found === true)

/**
 * The index of an existing table (one an earlier release made without it),
 * built without locking the table against the applies of the processes
 * already running: `CREATE INDEX CONCURRENTLY`, outside any transaction. An
 * invalid index of the same name (a build interrupted by a crash, not one
 * another process is building) is dropped first. Two processes starting at once may both try: the one that loses
 * fails, harmlessly (the other builds it).
 */
const createIndexConcurrently = (sql: SqlClient.SqlClient, table: string, column: string) => {
  const { name, qualified } = indexOf(table, column)
  // an index another process is building is invalid too until it is done: left
  // to it (a role without pg_read_all_stats does not see another role's
  // build: it drops and builds the index again, harmlessly)
  return Effect.flatMap(
    sql<{ readonly valid: boolean; readonly building: boolean }>`SELECT i.indisvalid AS valid,
        EXISTS (SELECT 1 FROM pg_stat_progress_create_index p WHERE p.index_relid = i.indexrelid) AS building
      FROM pg_index i WHERE i.indexrelid = to_regclass(${qualified})`,
    (rows): Effect.Effect<unknown, SqlError.SqlError> => {
      if (rows[0]?.valid === true || rows[0]?.building === true) return Effect.void
      const create = sql`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${sql(name)} ON ${sql(table)} (${sql(column)})`
      return rows.length === 0 ? create : Effect.andThen(sql`DROP INDEX CONCURRENTLY IF EXISTS ${sql.literal(qualified)}`, create)
    }
  )
}

/** The indexes of the state tables: on `updated_at` (changes since T) and on `applied_at` (the prune). */
const indexes = (tables: Tables) => [[tables.state, "updated_at"], [tables.applied, "applied_at"]] as const

/**
 * Creates the tables that do not exist, with their indexes (on an empty
 * table, at once): the tables that existed before, whose missing indexes are
 * built afterwards by {@link createIndexConcurrently}.
 */
const createTables = (sql: SqlClient.SqlClient, tables: Tables) => {
  const state = sql(tables.state)
  const applied = sql(tables.applied)
  // two processes starting at once would race on CREATE TABLE: serialise them on an advisory lock
  return sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(hashtext(${tables.state}))`
    const existing = new Set<string>()
    for (const table of [tables.state, tables.applied]) {
      if (yield* exists(sql, table)) existing.add(table)
    }
    yield* sql`CREATE TABLE IF NOT EXISTS ${state} (
      vehicle_id TEXT NOT NULL,
      code TEXT NOT NULL,
      name TEXT NOT NULL,
      signal_group TEXT NOT NULL,
      body JSONB NOT NULL,
      oem_updated_at TIMESTAMPTZ NOT NULL,
      event_id TEXT NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (vehicle_id, code)
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS ${applied} (
      event_id TEXT PRIMARY KEY,
      vehicle_id TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`
    for (const [table, column] of indexes(tables)) {
      if (!existing.has(table)) yield* sql`CREATE INDEX IF NOT EXISTS ${sql(indexOf(table, column).name)} ON ${sql(table)} (${sql(column)})`
    }
    return existing
  })).pipe(Effect.mapError(storeError(`create tables ${tables.state} and ${tables.applied}`)))
}

/**
 * The missing indexes of tables an earlier release made, built in the
 * background (the start does not wait; reads and the prune work meanwhile,
 * more slowly); a failure is logged.
 */
const completeIndexes = (sql: SqlClient.SqlClient, tables: Tables, existing: ReadonlySet<string>) =>
  Effect.forEach(indexes(tables).filter(([table]) => existing.has(table)), ([table, column]) =>
    createIndexConcurrently(sql, table, column).pipe(
      Effect.catchCause((cause) => Effect.logWarning(`the fleet state could not build the index on ${table} (${column}); it works without it, more slowly`, cause))
    ), { discard: true })

// timestamps and the body read as text: one format whatever the driver's parsers
const columns = (sql: SqlClient.SqlClient) =>
  sql`vehicle_id, code, name, signal_group, body::text AS body, event_id,
    to_json(oem_updated_at)#>>'{}' AS oem_updated_at, to_json(updated_at)#>>'{}' AS updated_at`

/** Rows deleted per statement of the prune: short transactions, however large the backlog. */
const pruneBatch = 10_000

/** Deletes the applied events older than `retention` milliseconds (the database's clock), a batch at a time. */
const pruneApplied = (sql: SqlClient.SqlClient, table: string, retention: number) => {
  const applied = sql(table)
  const batch = sql<{ readonly n: string }>`WITH gone AS (
      DELETE FROM ${applied} WHERE event_id IN (
        SELECT event_id FROM ${applied} WHERE applied_at < now() - ${retention}::double precision * interval '1 millisecond'
        LIMIT ${pruneBatch})
      RETURNING 1)
    SELECT count(*) AS n FROM gone`
  const loop: Effect.Effect<void, unknown> = Effect.flatMap(batch, (rows) => Number(rows[0]?.n ?? 0) < pruneBatch ? Effect.void : loop)
  return loop.pipe(Effect.mapError(storeError(`delete the applied events older than the retention from ${table}`)))
}

/** Writes the newest reading of each code of `input` where it is newer than the stored one: the changed rows. */
const upsert = (sql: SqlClient.SqlClient, table: string, { eventId, readings, vehicleId }: Input) => {
  const newest = newestByCode(readings)
  if (newest.length === 0) return Effect.succeed([])
  const state = sql(table)
  const json = JSON.stringify(newest.map((reading) => ({
    code: reading.code,
    name: reading.name,
    signal_group: reading.group,
    body: reading.body,
    oem_updated_at: DateTime.formatIso(reading.oemUpdatedAt)
  })))
  // the newest by oem_updated_at wins, then the greater event_id (by bytes, whatever the database's collation):
  // an older reading leaves the row as it is, and events applied in any order leave the same row
  return Effect.map(
    sql<Row>`INSERT INTO ${state} (vehicle_id, code, name, signal_group, body, oem_updated_at, event_id)
      SELECT ${vehicleId}, r.code, r.name, r.signal_group, r.body, r.oem_updated_at, ${eventId}
      FROM jsonb_to_recordset(${json}::jsonb)
        AS r(code TEXT, name TEXT, signal_group TEXT, body JSONB, oem_updated_at TIMESTAMPTZ)
      ON CONFLICT (vehicle_id, code) DO UPDATE SET name = EXCLUDED.name, signal_group = EXCLUDED.signal_group,
        body = EXCLUDED.body, oem_updated_at = EXCLUDED.oem_updated_at, event_id = EXCLUDED.event_id,
        updated_at = clock_timestamp()
      WHERE EXCLUDED.oem_updated_at > ${state}.oem_updated_at OR (EXCLUDED.oem_updated_at = ${state}.oem_updated_at
        AND EXCLUDED.event_id COLLATE "C" > ${state}.event_id COLLATE "C")
      RETURNING ${columns(sql)}`,
    (rows) => rows.map(fromRow)
  )
}

/** @internal */
export const makeSqlState = (tables: Tables): Effect.Effect<Service, FleetError, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient.SqlClient).withoutTransforms()
    const existing = yield* createTables(sql, tables)
    if (existing.size > 0) yield* Effect.forkScoped(completeIndexes(sql, tables, existing))
    yield* forkCleanup(tables.appliedRetention, tables.applied, pruneApplied(sql, tables.applied, tables.appliedRetention))
    const state = sql(tables.state)
    const applied = sql(tables.applied)
    const changes = yield* PubSub.sliding<SignalState>(Math.max(1, tables.changesCapacity))
    return {
      apply: (input) =>
        sql.withTransaction(Effect.gen(function*() {
          const fresh = yield* sql`INSERT INTO ${applied} (event_id, vehicle_id) VALUES (${input.eventId}, ${input.vehicleId})
            ON CONFLICT (event_id) DO NOTHING RETURNING event_id`
          return fresh.length === 0 ? undefined : yield* upsert(sql, tables.state, input)
        })).pipe(
          Effect.mapError(storeError(`apply event ${input.eventId} to vehicle ${input.vehicleId}`)),
          Effect.map((rows) => rows === undefined ? { applied: false, changes: [] } : { applied: true, changes: rows }),
          Effect.tap((result) => PubSub.publishAll(changes, result.changes))
        ),
      applyPoll: (input) =>
        upsert(sql, tables.state, input).pipe(
          Effect.mapError(storeError(`apply poll ${input.eventId} to vehicle ${input.vehicleId}`)),
          Effect.map((rows) => ({ applied: true, changes: rows })),
          Effect.tap((result) => PubSub.publishAll(changes, result.changes))
        ),
      latest: (vehicleId) =>
        sql<Row>`SELECT ${columns(sql)} FROM ${state} WHERE vehicle_id = ${vehicleId} ORDER BY code`.pipe(
          Effect.map((rows) => rows.map(fromRow)),
          Effect.mapError(storeError(`read the signals of vehicle ${vehicleId}`))
        ),
      changedSince: (since, options) =>
        sql<{ readonly vehicle_id: string }>`SELECT DISTINCT vehicle_id FROM ${state}
          WHERE updated_at >= ${DateTime.formatIso(since)}::timestamptz
          ${options?.signal === undefined ? sql.literal("") : sql`AND code = ${options.signal}`}
          ORDER BY vehicle_id`.pipe(
          Effect.map((rows) => rows.map((row) => row.vehicle_id)),
          Effect.mapError(storeError("list the vehicles changed since a time"))
        ),
      changes: Stream.fromPubSub(changes)
    }
  })

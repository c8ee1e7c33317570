/**
 * A table of the fleet's own on Postgres, created when missing.
 *
 * @internal
 */
import { Effect } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"

/**
 * Creates `table` with `columns` (a fragment: `sql\`id TEXT NOT NULL, ...\``)
 * when it is missing; two processes starting at once would race on
 * `CREATE TABLE`, so they are serialised on an advisory lock of the table's
 * name.
 *
 * @internal
 */
export const createTable = (
  sql: SqlClient.SqlClient,
  table: string,
  columns: Statement.Fragment
): Effect.Effect<void, SqlError.SqlError> =>
  sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(hashtext(${table}))`
    yield* sql`CREATE TABLE IF NOT EXISTS ${sql(table)} (${columns})`
  }))

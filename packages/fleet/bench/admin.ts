/**
 * A plain SQL client for the bench's own queries (creating tables, counting
 * rows): `@effect/sql-pg`'s client, from Promise code.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Exit, Redacted, Scope } from "effect"
import { Reactivity } from "effect/reactivity"

/** A client on `url`: `query` runs one statement, `close` ends the pool. */
export interface Admin {
  readonly query: <A extends object>(text: string) => Promise<ReadonlyArray<A>>
  readonly close: () => Promise<void>
}

/** Connects (one connection) to `url`. */
export const admin = async (url: string): Promise<Admin> => {
  const scope = Effect.runSync(Scope.make())
  const sql = await Effect.runPromise(Scope.provide(PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer)), scope))
  return {
    query: <A extends object>(text: string) => Effect.runPromise(sql.unsafe<A>(text)),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** How many rows `table` of `url` holds `where`. */
export const count = async (db: Admin, table: string, where = "TRUE"): Promise<number> => {
  const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`)
  return Number(row!.n)
}

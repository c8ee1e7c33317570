/**
 * What the fleet tests share: a database of their own on the project's
 * Postgres (see `globalSetup.ts`), queries on it, a free port.
 */
import { execFileSync } from "node:child_process"
import { createServer } from "node:net"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import * as Database from "@connected-vehicle/fleet/Database"

let databases = 0

/** Creates a database named after `prefix` on the shared server and answers its URL. */
export const freshDatabase = (prefix: string): Redacted.Redacted<string> => {
  const name = `${prefix}_${process.pid}_${++databases}`
  const admin = inject("databaseUrl")
  execFileSync("psql", [admin, "-v", "ON_ERROR_STOP=1", "-qc", `CREATE DATABASE "${name}"`], { stdio: ["ignore", "pipe", "pipe"] })
  return Redacted.make(admin.replace(/\/postgres$/, `/${name}`))
}

/** Rows of a query on `url`, through a short-lived client. */
export const query = <A extends object>(url: Redacted.Redacted<string>, text: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(text)).pipe(
    Effect.provide(Database.layer({ url, maxConnections: 1 })),
    Effect.orDie
  )

/** A free TCP port on 127.0.0.1. */
export const freePort = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as { port: number }).port
    server.close(() => resume(Effect.succeed(port)))
  })
})

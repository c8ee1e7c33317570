import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "@connected-vehicle/fleet/Database"
import { freshDatabase } from "./utils.ts"

describe("Database", () => {
  it.live("layer: a SqlClient on the test Postgres", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ readonly answer: number }>`SELECT 1 + 1 AS answer`
      assert.strictEqual(rows[0]?.answer, 2)
    }).pipe(Effect.provide(Database.layer({ url: freshDatabase("database") }))))

  it.effect("a malformed URL is a Configuration error naming the variable, with no part of the URL (its password) in it", () =>
    Effect.gen(function*() {
      for (const url of ["postgres://u:s3cret@[bad:5432/db", "mysql://u:s3cret@db.internal/db"]) {
        const error = yield* Effect.flip(Effect.asVoid(SqlClient.SqlClient.pipe(Effect.provide(Database.layer({ url: Redacted.make(url) })))))
        assert.strictEqual(error.reason._tag, "Configuration", url)
        assert.include(error.message, "DATABASE_URL")
        assert.notInclude(JSON.stringify(error), "s3cret")
      }
      // port 0 parses, and no server listens there
      const portZero = yield* Effect.flip(Effect.asVoid(SqlClient.SqlClient.pipe(
        Effect.provide(Database.layer({ url: Redacted.make("postgres://u:s3cret@127.0.0.1:0/db") }))
      )))
      assert.strictEqual(portZero.reason._tag, "Configuration")
      assert.include(portZero.message, "the Postgres URL (DATABASE_URL, or the url option) has port 0 (a port is 1-65535)")
      assert.notInclude(JSON.stringify(portZero), "s3cret")
    }))

  it.live("an unreachable server is a DatabaseUnavailable FleetError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.asVoid(SqlClient.SqlClient.pipe(
        Effect.provide(Database.layer({ url: Redacted.make("postgres://postgres@127.0.0.1:1/none") }))
      )))
      assert.strictEqual(error.reason._tag, "DatabaseUnavailable")
    }))
})

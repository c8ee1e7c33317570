import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "@connected-vehicle/fleet/Database"
import { freshDatabase } from "./utils.ts"

describe("Database", () => {
  it.effect("DATABASE_URL is read as a Redacted URL, absent means in memory", () =>
    Effect.gen(function*() {
      const set = yield* Database.readConfig.pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { DATABASE_URL: "postgres://u:secret@h/db" } })))
      )
      assert.isTrue(Option.isSome(set) && Redacted.isRedacted(set.value))
      assert.notInclude(String(set), "secret")
      const unset = yield* Database.readConfig.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: {} }))))
      assert.isTrue(Option.isNone(unset))
    }))

  it.live("layer: a SqlClient on the test Postgres", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ readonly answer: number }>`SELECT 1 + 1 AS answer`
      assert.strictEqual(rows[0]?.answer, 2)
    }).pipe(Effect.provide(Database.layer({ url: freshDatabase("database") }))))

  it.live("an unreachable server is a DatabaseUnavailable FleetError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.asVoid(SqlClient.SqlClient.pipe(
        Effect.provide(Database.layer({ url: Redacted.make("postgres://postgres@127.0.0.1:1/none") }))
      )))
      assert.strictEqual(error.reason, "DatabaseUnavailable")
    }))
})

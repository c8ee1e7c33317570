import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { createConnection } from "node:net"
import { Effect, Exit, Redacted, Scope } from "effect"
import * as PostgresServer from "@connected-vehicle/testing/PostgresServer"
import * as RedisServer from "@connected-vehicle/testing/RedisServer"

const psql = (url: Redacted.Redacted<string>, query: string) =>
  execFileSync("psql", [Redacted.value(url), "-tAc", query], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

/** Sends one inline Redis command and answers the first reply line. */
const redis = (port: number, command: string) =>
  Effect.callback<string>((resume) => {
    const socket = createConnection({ host: "127.0.0.1", port }, () => socket.write(`${command}\r\n`))
    socket.once("data", (chunk) => {
      socket.destroy()
      resume(Effect.succeed(chunk.toString("utf8").trim()))
    })
    socket.once("error", (error) => resume(Effect.succeed(String(error))))
  })

describe("PostgresServer", () => {
  it.live("starts a cluster on 127.0.0.1, creates databases, and is gone with its scope", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const server = yield* Scope.provide(PostgresServer.make(), scope)
      assert.strictEqual(psql(server.url, "select 1 + 1"), "2")
      const other = yield* server.createDatabase("fleet_test")
      assert.match(Redacted.value(other), /\/fleet_test$/)
      assert.strictEqual(psql(other, "select current_database()"), "fleet_test")
      const refused = yield* Effect.exit(server.createDatabase("no; drop"))
      assert.isTrue(Exit.isFailure(refused))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(existsSync(server.dataDirectory))
      assert.throws(() => psql(server.url, "select 1"))
    }), 60_000)

  it.effect("a missing installation is a BinaryMissing error naming the package", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.scoped(PostgresServer.make({ binDirectory: "/nonexistent/bin" })))
      assert.strictEqual(error.reason, "BinaryMissing")
      assert.include(error.message, "apt-get install -y postgresql")
    }))
})

describe("RedisServer", () => {
  it.live("starts on 127.0.0.1 and stops with its scope", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const server = yield* Scope.provide(RedisServer.make(), scope)
      assert.strictEqual(Redacted.value(server.url), `redis://127.0.0.1:${server.port}`)
      assert.strictEqual(yield* redis(server.port, "PING"), "+PONG")
      yield* Scope.close(scope, Exit.void)
      assert.include(yield* redis(server.port, "PING"), "ECONNREFUSED")
    }), 30_000)

  it.effect("a missing installation is a BinaryMissing error naming the package", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.scoped(RedisServer.make({ binary: "/nonexistent/redis-server" })))
      assert.strictEqual(error.reason, "BinaryMissing")
      assert.include(error.message, "apt-get install -y redis-server")
    }))
})

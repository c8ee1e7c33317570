import { assert, describe, it } from "@effect/vitest"
import { execFileSync, spawn } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { createConnection } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Redacted, Schedule, Scope } from "effect"
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

/** Whether a Postgres on 127.0.0.1:`port` answers a query. */
const answers = (port: number) => {
  try {
    return psql(Redacted.make(`postgres://postgres@127.0.0.1:${port}/postgres`), "select 1") === "1"
  } catch {
    return false
  }
}

/**
 * `test/processes/servers.ts` started with its own temporary directory
 * (`TMPDIR`), sent `signal` once its servers run: how it ended, its ports,
 * and what is left in the directory.
 */
const interrupted = (signal: NodeJS.Signals, servers: "both" | "redis") =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const dir = mkdtempSync(join(tmpdir(), "cv-interrupted-"))
      chmodSync(dir, 0o755) // as root, Postgres runs as the postgres user, who must reach its directory in there
      return dir
    }),
    (dir) =>
      Effect.callback<{ readonly ports: { readonly postgres?: number; readonly redis: number }; readonly ended: string }>((resume) => {
        const child = spawn(process.execPath, [join(import.meta.dirname, "processes", "servers.ts")], {
          env: { ...process.env, TMPDIR: dir, SERVERS: servers },
          stdio: ["ignore", "pipe", "inherit"]
        })
        let ports: { readonly postgres?: number; readonly redis: number } | undefined
        child.stdout.once("data", (chunk: Buffer) => {
          ports = JSON.parse(chunk.toString())
          child.kill(signal)
        })
        child.once("exit", (code, killedBy) => resume(Effect.succeed({ ports: ports!, ended: killedBy ?? `exit ${code}` })))
        return Effect.sync(() => child.kill("SIGKILL"))
      }).pipe(
        Effect.flatMap(({ ended, ports }) =>
          Effect.gen(function*() {
            // Postgres stopped before the process ended (`pg_ctl stop -w`); Redis was sent SIGKILL: closed a moment later
            const postgresUp = ports.postgres !== undefined && answers(ports.postgres)
            const redisReply = yield* redis(ports.redis, "PING").pipe(
              Effect.repeat({ until: (reply) => reply.includes("ECONNREFUSED"), schedule: Schedule.spaced("50 millis"), times: 40 })
            )
            return { ended, ports, postgresUp, redisReply, left: readdirSync(dir) }
          })
        )
      ),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

describe("start() in a process interrupted before stop()", () => {
  it.live("SIGINT: Postgres and Redis stopped, their directories deleted, the process ended by the signal", () =>
    Effect.gen(function*() {
      const { ended, left, ports, postgresUp, redisReply } = yield* interrupted("SIGINT", "both")
      assert.isNumber(ports.postgres)
      assert.strictEqual(ended, "SIGINT")
      assert.isFalse(postgresUp)
      assert.include(redisReply, "ECONNREFUSED")
      assert.deepStrictEqual(left, [])
    }), 60_000)

  it.live("SIGTERM: Redis stopped, its directory deleted, the process ended by the signal", () =>
    Effect.gen(function*() {
      const { ended, left, redisReply } = yield* interrupted("SIGTERM", "redis")
      assert.strictEqual(ended, "SIGTERM")
      assert.include(redisReply, "ECONNREFUSED")
      assert.deepStrictEqual(left, [])
    }), 30_000)

  it.live("stop() removes the handlers it added", () =>
    Effect.gen(function*() {
      const before = ["exit", "SIGINT", "SIGTERM"].map((event) => process.listenerCount(event))
      const server = yield* Effect.promise(() => RedisServer.start())
      assert.deepStrictEqual(["exit", "SIGINT", "SIGTERM"].map((event) => process.listenerCount(event)), before.map((n) => n + 1))
      yield* Effect.promise(() => server.stop())
      assert.deepStrictEqual(["exit", "SIGINT", "SIGTERM"].map((event) => process.listenerCount(event)), before)
    }), 30_000)
})

/**
 * `fleet` scaled out by the environment alone: with `DATABASE_URL` and
 * `REDIS_URL` of a real Postgres and Redis (Debian's `postgresql` and
 * `redis-server`, started here on 127.0.0.1 by `@connected-vehicle/testing`)
 * the same command keeps its queue, dead letters, cluster and state in
 * Postgres and its limits and token in Redis.
 */
import { assert, describe, it } from "@effect/vitest"
import * as PostgresServer from "@connected-vehicle/testing/PostgresServer"
import * as RedisServer from "@connected-vehicle/testing/RedisServer"
import { createServer } from "node:net"
import { afterAll, beforeAll } from "vitest"
import { runJson } from "./cli.ts"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

let postgres: Awaited<ReturnType<typeof PostgresServer.start>>
let redis: Awaited<ReturnType<typeof RedisServer.start>>
beforeAll(async () => {
  ;[postgres, redis] = await Promise.all([PostgresServer.start(), RedisServer.start()])
}, 60_000)
afterAll(async () => {
  await Promise.all([postgres?.stop(), redis?.stop()])
})

describe("fleet on Postgres and Redis", () => {
  it("DATABASE_URL and REDIS_URL: the same burst applied through Postgres, the state equal to the ground truth", async () => {
    const env = {
      DATABASE_URL: await postgres.createDatabase("sample_fleet"),
      REDIS_URL: redis.url,
      FLEET_RUNNER_HOST: "127.0.0.1",
      FLEET_RUNNER_PORT: String(await freePort())
    }
    const { json, run } = await runJson(["fleet", "--events", "200", "--vehicles", "10", "--seed", "4"], { env })
    assert.strictEqual(run.code, 0, run.stderr)
    assert.strictEqual(json.stores, "postgres")
    assert.strictEqual(json.sharedAccess, "redis")
    assert.strictEqual(json.received, json.burst.attempts)
    assert.strictEqual(json.stored, 201)
    assert.strictEqual(json.applied, 200)
    assert.deepStrictEqual(json.deadLetters.map((l: any) => l.eventId), ["evt_sample_poison_1"])
    assert.isTrue(json.matchesTruth)
    assert.notInclude(run.stdout + run.stderr, env.DATABASE_URL)
  }, 180_000)
})

/**
 * A process that starts a Postgres (unless `SERVERS=redis`) and a Redis
 * through `start()` and never stops them itself: it prints their ports as
 * JSON and waits, so the test can interrupt it (SIGINT, SIGTERM).
 */
import * as PostgresServer from "@connected-vehicle/testing/PostgresServer"
import * as RedisServer from "@connected-vehicle/testing/RedisServer"

const postgres = process.env.SERVERS === "redis" ? undefined : await PostgresServer.start()
const redis = await RedisServer.start()
process.stdout.write(`${JSON.stringify({ postgres: postgres?.port, redis: redis.port })}\n`)
setInterval(() => {}, 60_000)

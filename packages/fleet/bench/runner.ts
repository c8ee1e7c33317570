/**
 * Bench child process: one fleet node on Postgres (`DATABASE_URL`): a
 * cluster runner of the vehicle entities (`FleetCluster.layerPostgres`,
 * listening on 127.0.0.1:`BENCH_RUNNER_PORT`) and, once it reads a line on
 * stdin, `Worker.run` applying the queue's events through
 * `VehicleEntity.handler` (`BENCH_RUNNER_CONCURRENCY` take loops). Prints
 * `ready` once the shards it holds (`BENCH_RUNNERS` runners started
 * together) no longer change. No polling (an in-memory simulator stands in
 * for the SDK). Reads `BENCH_POOL`.
 */
import { Effect, Layer, Redacted } from "effect"
import { Sharding, ShardId } from "effect/cluster"
import * as FleetCluster from "@connected-vehicle/fleet/FleetCluster"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import * as VehicleEntity from "@connected-vehicle/fleet/VehicleEntity"
import * as Worker from "@connected-vehicle/fleet/Worker"
import * as Database from "@connected-vehicle/fleet/Database"
import * as Simulated from "@connected-vehicle/testing/Simulated"

const env = (name: string, fallback = "") => process.env[name] ?? fallback
const shardsPerGroup = 300

const Pool = Database.layer({ url: Redacted.make(env("DATABASE_URL")), maxConnections: Number(env("BENCH_POOL", "10")) })
const Node = Layer.merge(
  FleetCluster.layerSql({
    runnerAddress: { host: "127.0.0.1", port: Number(env("BENCH_RUNNER_PORT")) },
    shardingConfig: { shardsPerGroup, refreshAssignmentsInterval: "500 millis" }
  }).pipe(Layer.provide(Simulated.layer({ signIn: false }))),
  Ingestion.layerSql({ pollInterval: "100 millis" })
).pipe(Layer.provide(Pool))

/** The shards held, once unchanged for 2 s (polled every 250 ms). */
const settled = Effect.gen(function*() {
  const sharding = yield* Sharding.Sharding
  const held = () => Array.from({ length: shardsPerGroup }, (_, i) => ShardId.make("default", i + 1)).filter(sharding.hasShardId).length
  let last = -1
  let stable = 0
  while (stable < 8) {
    yield* Effect.sleep("250 millis")
    const now = held()
    stable = now === last && now > 0 ? stable + 1 : 0
    last = now
  }
  return last
})

const program = Effect.gen(function*() {
  const services = yield* Layer.build(Node)
  const shards = yield* Effect.provideContext(settled, services)
  process.stdout.write(`ready ${shards}\n`)
  yield* Effect.callback<void>((resume) => {
    process.stdin.once("data", () => resume(Effect.void))
  })
  return yield* Effect.provideContext(
    Worker.run({ handler: VehicleEntity.handler, concurrency: Number(env("BENCH_RUNNER_CONCURRENCY", "32")) }),
    services
  )
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})

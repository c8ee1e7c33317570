/**
 * A runner process of the fleet state: the vehicle entities on Postgres
 * (`DATABASE_URL`), listening on 127.0.0.1:`FLEET_RUNNER_PORT`, with the
 * test's short shard lock settings. It prints `shards <n>` (the shards it
 * holds) every 200 ms until it is killed (the test sends SIGKILL).
 */
import { Effect, Layer, Redacted, Schedule } from "effect"
import { Sharding, ShardId } from "effect/cluster"
import * as FleetCluster from "@connected-vehicle/fleet/FleetCluster"
import * as Simulated from "@connected-vehicle/testing/Simulated"

const shardsPerGroup = Number(process.env.SHARDS_PER_GROUP ?? "60")

const Runner = FleetCluster.layerPostgres({
  url: Redacted.make(process.env.DATABASE_URL ?? ""),
  maxConnections: 6,
  runnerAddress: { host: "127.0.0.1", port: Number(process.env.FLEET_RUNNER_PORT) },
  shardingConfig: {
    shardsPerGroup,
    shardLockRefreshInterval: "1 second",
    shardLockExpiration: "6 seconds",
    refreshAssignmentsInterval: "500 millis",
    entityMessagePollInterval: "200 millis",
    entityReplyPollInterval: "50 millis",
    runnerHealthCheckInterval: "1 second"
  }
}).pipe(Layer.provide(Simulated.layer({ signIn: false })))

const report = Effect.gen(function*() {
  const sharding = yield* Sharding.Sharding
  const held = Array.from({ length: shardsPerGroup }, (_, i) => ShardId.make("default", i + 1)).filter(sharding.hasShardId)
  yield* Effect.sync(() => process.stdout.write(`shards ${held.length}\n`))
}).pipe(Effect.repeat(Schedule.spaced("200 millis")))

Effect.runFork(Layer.launch(Layer.effectDiscard(Effect.forkScoped(report)).pipe(Layer.provide(Runner))))

/**
 * A receiver process of a fleet: a `DurableReceiver` on 127.0.0.1 (a free
 * port) and a `Worker` applying the events through `VehicleEntity.handler`,
 * on Postgres (`DATABASE_URL`), a cluster client (not a runner: the vehicle
 * entities run in the runner processes). The handler refuses the event ids
 * of `POISON` (comma-separated), so they become dead letters. Deliveries are
 * signed with `WEBHOOK_SECRET`. It prints `listening <port>`, then runs
 * until it is killed (the test sends SIGKILL).
 */
import { NodeClusterSocket, NodeHttpServer } from "@effect/platform-node"
import { createServer } from "node:http"
import { Effect, Layer, Option, Redacted, Schedule } from "effect"
import { RunnerAddress } from "effect/cluster"
import * as Database from "@connected-vehicle/fleet/Database"
import * as DurableReceiver from "@connected-vehicle/fleet/DurableReceiver"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import * as VehicleEntity from "@connected-vehicle/fleet/VehicleEntity"
import * as Worker from "@connected-vehicle/fleet/Worker"
import { exitWithParent } from "../children.ts"

const env = (name: string) => process.env[name] ?? ""
const poison = new Set(env("POISON").split(",").filter((id) => id !== ""))

const Pool = Database.layer({ url: Redacted.make(env("DATABASE_URL")), maxConnections: 16 })

const Queue = Ingestion.layerSql({
  maxAttempts: 3,
  retrySchedule: Schedule.spaced("100 millis"),
  pollInterval: "100 millis",
  lockRefreshInterval: "1 second",
  lockExpiration: "5 seconds"
})

/** A client of the runners' cluster: it sends the vehicles' messages, runs no entity. */
const ClusterClient = NodeClusterSocket.layer({
  clientOnly: true,
  storage: "sql",
  shardingConfig: {
    runnerAddress: Option.some(RunnerAddress.make("127.0.0.1", 0)),
    shardsPerGroup: Number(process.env.SHARDS_PER_GROUP ?? "60"),
    refreshAssignmentsInterval: "500 millis",
    entityMessagePollInterval: "200 millis",
    entityReplyPollInterval: "50 millis"
  }
})

const Workers = Worker.layer({
  concurrency: Number(process.env.WORKER_CONCURRENCY ?? "32"),
  handler: (event) =>
    poison.has(event.eventId)
      ? Effect.fail(new Error(`poison event ${event.eventId} refused`))
      : VehicleEntity.handler(event)
})

const Receiver = Layer.effectDiscard(Effect.gen(function*() {
  const receiver = yield* DurableReceiver.make({ secret: Redacted.make(env("WEBHOOK_SECRET")) })
  const server = yield* NodeHttpServer.make(() => createServer(), { port: 0, host: "127.0.0.1", gracefulShutdownTimeout: 0 })
  yield* server.serve(receiver.httpEffect)
  const port = server.address._tag === "UnixPathAddress" ? 0 : server.address.port
  yield* Effect.sync(() => process.stdout.write(`listening ${port}\n`))
}))

const Services = Layer.mergeAll(Queue, ClusterClient).pipe(Layer.provide(Pool))

exitWithParent()
Effect.runFork(Layer.launch(Layer.mergeAll(Receiver, Workers).pipe(Layer.provide(Services))))

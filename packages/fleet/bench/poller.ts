/**
 * Bench child process: one cluster runner on Postgres (`DATABASE_URL`,
 * 127.0.0.1:`BENCH_RUNNER_PORT`) whose vehicle entities poll the signals
 * `odometer-traveleddistance` and `climate-exteriortemperature` every
 * `BENCH_POLL_INTERVAL_MS` through the SDK (`ConnectedVehicle`, v3) on the
 * simulator at `SIM_URL` (`CLIENT_ID`, `CLIENT_SECRET`), the request limits
 * (10 per vehicle, `BENCH_POLL_APP_LIMIT` for the application, per second)
 * and the application token shared on Redis (`REDIS_URL`,
 * `SharedAccess.layerSdk`). Prints `ready`; on a line on stdin, starts
 * keeping every vehicle of `TARGETS` (JSON, `VehicleEntity.track`) and
 * prints `tracked`; on every further line, `polls <n>`: its polls so far
 * (`FleetMetrics.vehiclePolls`).
 */
import { createInterface } from "node:readline"
import { Effect, Layer, Metric, Redacted } from "effect"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as FleetCluster from "@connected-vehicle/fleet/FleetCluster"
import * as FleetMetrics from "@connected-vehicle/fleet/FleetMetrics"
import * as SharedAccess from "@connected-vehicle/fleet/SharedAccess"
import * as VehicleEntity from "@connected-vehicle/fleet/VehicleEntity"

const env = (name: string, fallback = "") => process.env[name] ?? fallback
const targets: ReadonlyArray<{ vehicleId: string; userId: string }> = JSON.parse(env("TARGETS", "[]"))

const Sdk = SharedAccess.layerSdk((shared) =>
  ConnectedVehicle.layerWith(
    TransportConfig.layerOrigin(env("SIM_URL")),
    OAuthConfig.layer({ clientId: env("CLIENT_ID"), clientSecret: Redacted.make(env("CLIENT_SECRET")) }),
    shared
  ), {
  prefix: "bench",
  perVehicle: { limit: 10, window: "1 second" },
  perApplication: { limit: Number(env("BENCH_POLL_APP_LIMIT", "100000")), window: "1 second" }
})

const Runner = FleetCluster.layerPostgres({
  url: Redacted.make(env("DATABASE_URL")),
  maxConnections: Number(env("BENCH_POOL", "10")),
  runnerAddress: { host: "127.0.0.1", port: Number(env("BENCH_RUNNER_PORT")) },
  pollInterval: Number(env("BENCH_POLL_INTERVAL_MS", "1000")),
  pollSignals: ["odometer-traveleddistance", "climate-exteriortemperature"]
}).pipe(Layer.provide(Sdk))

const program = Effect.gen(function*() {
  const services = yield* Layer.build(Runner)
  process.stdout.write("ready\n")
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
  yield* Effect.promise(() => lines.next())
  yield* Effect.provideContext(Effect.forEach(targets, VehicleEntity.track, { concurrency: 16, discard: true }), services)
  process.stdout.write("tracked\n")
  while (!(yield* Effect.promise(() => lines.next())).done) {
    process.stdout.write(`polls ${(yield* Metric.value(FleetMetrics.vehiclePolls)).count}\n`)
  }
  return yield* Effect.never
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})

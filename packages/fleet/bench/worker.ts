/**
 * Bench child process: `Worker.run` with a trivial handler on
 * `Ingestion.layerPostgres`. Prints `ready` once its services are built,
 * starts taking events when it reads a line on stdin. Reads `DATABASE_URL`,
 * `BENCH_WORKER_CONCURRENCY` and `BENCH_POOL`.
 */
import { Effect, Layer, Redacted } from "effect"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import * as Worker from "@connected-vehicle/fleet/Worker"

const program = Effect.gen(function*() {
  const services = yield* Layer.build(Ingestion.layerPostgres({
    url: Redacted.make(process.env["DATABASE_URL"] ?? ""),
    maxConnections: Number(process.env["BENCH_POOL"] ?? 10),
    pollInterval: "100 millis"
  }))
  process.stdout.write("ready\n")
  yield* Effect.callback<void>((resume) => {
    process.stdin.once("data", () => resume(Effect.void))
  })
  return yield* Effect.provideContext(
    Worker.run({ handler: () => Effect.void, concurrency: Number(process.env["BENCH_WORKER_CONCURRENCY"] ?? 8) }),
    services
  )
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})

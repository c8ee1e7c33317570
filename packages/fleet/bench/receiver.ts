/**
 * Bench child process: the fleet's `DurableReceiver` on `Ingestion.layerPostgres`,
 * served by `NodeHttpServer` on 127.0.0.1 (a free port). Prints
 * `ready <url>` once it listens. Reads `DATABASE_URL`, `WEBHOOK_SECRET` and
 * `BENCH_POOL` (connections in its pool).
 */
import { NodeHttpServer } from "@effect/platform-node"
import { createServer } from "node:http"
import { Effect, Layer, Redacted } from "effect"
import * as DurableReceiver from "@connected-vehicle/fleet/DurableReceiver"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"

const program = Effect.gen(function*() {
  const services = yield* Layer.build(Ingestion.layerPostgres({
    url: Redacted.make(process.env["DATABASE_URL"] ?? ""),
    maxConnections: Number(process.env["BENCH_POOL"] ?? 10)
  }))
  const receiver = yield* Effect.provideContext(
    DurableReceiver.make({ secret: Redacted.make(process.env["WEBHOOK_SECRET"] ?? "") }),
    services
  )
  const server = yield* NodeHttpServer.make(() => createServer(), { port: 0, host: "127.0.0.1", gracefulShutdownTimeout: 0 })
  yield* server.serve(receiver.httpEffect)
  const port = server.address._tag === "UnixPathAddress" ? 0 : server.address.port
  process.stdout.write(`ready http://127.0.0.1:${port}/webhooks\n`)
  return yield* Effect.never
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})

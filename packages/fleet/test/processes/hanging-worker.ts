/**
 * A worker process whose handler never ends: it prints `taken <eventId>
 * <attempt>` and waits to be killed (SIGKILL), or stopped (SIGTERM, through
 * `NodeRuntime.runMain`: the handler is interrupted, prints `interrupted
 * <eventId>`, and the process ends). Reads `DATABASE_URL`.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import * as Worker from "@connected-vehicle/fleet/Worker"

const Queue = Ingestion.layerPostgres({
  url: Redacted.make(process.env.DATABASE_URL ?? ""),
  pollInterval: "100 millis",
  lockRefreshInterval: "500 millis",
  lockExpiration: "2 seconds"
})

const Hanging = Worker.layer({
  handler: (event, taken) =>
    Effect.sync(() => process.stdout.write(`taken ${event.eventId} ${taken.attempts}\n`)).pipe(
      Effect.andThen(Effect.never),
      Effect.onInterrupt(() => Effect.sync(() => process.stdout.write(`interrupted ${event.eventId}\n`)))
    )
})

NodeRuntime.runMain(Layer.launch(Hanging.pipe(Layer.provide(Queue))))

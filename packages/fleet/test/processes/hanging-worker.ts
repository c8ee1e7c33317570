/**
 * A worker process whose handler never ends: it prints `taken <eventId>
 * <attempt>` and waits to be killed (the test sends SIGKILL). Reads
 * `DATABASE_URL`.
 */
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
    Effect.sync(() => process.stdout.write(`taken ${event.eventId} ${taken.attempts}\n`)).pipe(Effect.andThen(Effect.never))
})

Effect.runFork(Layer.launch(Hanging.pipe(Layer.provide(Queue))))

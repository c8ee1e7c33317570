/**
 * A worker process on Postgres (`DATABASE_URL`; `MAX_ATTEMPTS`, concurrency
 * 8, the test's short lock settings) whose handler crashes the process
 * outright (SIGKILL to itself, 200 ms in) on the event `POISON`, and takes 1
 * second on any other. It prints `start <eventId> <attempt>`, then
 * `handled <eventId> <attempt>` or `crash <eventId> <attempt>`.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Redacted, Schedule } from "effect"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import * as Worker from "@connected-vehicle/fleet/Worker"
import { exitWithParent } from "../children.ts"

exitWithParent()
const say = (line: string) => Effect.sync(() => process.stdout.write(`${line}\n`))

const Queue = Ingestion.layerPostgres({
  url: Redacted.make(process.env.DATABASE_URL ?? ""),
  maxConnections: 4,
  maxAttempts: Number(process.env.MAX_ATTEMPTS ?? "2"),
  retrySchedule: Schedule.spaced("100 millis"),
  pollInterval: "100 millis",
  lockRefreshInterval: "500 millis",
  lockExpiration: "2 seconds"
})

const Workers = Worker.layer({
  concurrency: 8,
  handler: (event, taken) =>
    Effect.gen(function*() {
      yield* say(`start ${event.eventId} ${taken.attempts}`)
      if (event.eventId === process.env.POISON) {
        yield* Effect.sleep("200 millis")
        yield* say(`crash ${event.eventId} ${taken.attempts}`)
        process.kill(process.pid, "SIGKILL")
        return yield* Effect.never
      }
      yield* Effect.sleep("1 second")
      yield* say(`handled ${event.eventId} ${taken.attempts}`)
    })
})

NodeRuntime.runMain(Layer.launch(Workers.pipe(Layer.provide(Queue))))

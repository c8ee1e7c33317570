/** `fleet`: a burst of the embedded simulator's webhooks through `@connected-vehicle/fleet`, embedded. */
import { Console, Effect, Option, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import * as Report from "../../Report.ts"
import { SampleError } from "../../SampleError.ts"
import { output, withSdk } from "./shared.ts"

const count = (name: string, description: string, fallback: number, minimum: number, maximum: number) =>
  Flag.Int(name).pipe(
    Flag.withDescription(`${description} (${minimum} to ${maximum}, default ${fallback})`),
    Flag.withDefault(fallback),
    Flag.withSchema(Schema.Number.check(Schema.isBetween({ minimum, maximum })))
  )

/** Progress on stderr: redrawn in place on a terminal, elsewhere each new state on a line of its own. */
const progressOn = () => {
  const tty = process.stderr.isTTY === true
  let last = ""
  return {
    line: (text: string) =>
      Effect.sync(() => {
        if (tty) process.stderr.write(`\r\x1b[2K${text}`)
        else if (text !== last) process.stderr.write(`${text}\n`)
        last = text
      }),
    end: Effect.sync(() => {
      if (tty && last !== "") process.stderr.write("\n")
    })
  }
}

export const fleet = Command.make("fleet", {
  events: count("events", "Distinct events of the burst", 500, 1, 20_000),
  vehicles: count("vehicles", "Vehicles they are spread over (the embedded simulator has 40 connected vehicles)", 20, 1, 40),
  rate: count("rate", "Deliveries started per second", 1_000, 1, 10_000),
  poison: count("poison", "Extra events the sample's handler refuses on purpose: they end as dead letters", 1, 0, 100),
  show: count("show", "Vehicles whose latest signals are shown", 3, 0, 40),
  seed: Flag.Int("seed").pipe(Flag.withDescription("Seed of the burst (default the simulator's)"), Flag.optional)
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      const target = yield* M.Target.Target
      if (target.simulator === undefined) {
        return yield* new SampleError({
          reason: "`fleet` runs on the embedded simulator only (its burst is delivered to a receiver in this process): drop --target",
          usage: true
        })
      }
      const Fleet = yield* Effect.promise(() => import("../../Fleet.ts"))
      const progress = progressOn()
      const summary = yield* Fleet.run(target.simulator, { ...input, seed: Option.getOrUndefined(input.seed) }, progress.line).pipe(
        Effect.ensuring(progress.end)
      )
      yield* output(flags.json, summary, () => Fleet.renderSummary(summary))
      if (!summary.matchesTruth) {
        yield* Console.error("The fleet state differs from the burst's ground truth")
        return yield* Effect.fail(new Report.Reported(1))
      }
    })
  )).pipe(
    Command.withDescription(
      "Durable webhook ingestion and fleet state (@connected-vehicle/fleet) embedded in this process: a burst of the simulator's deliveries received, stored, applied by the vehicle entities; then the counts, dead letters and a few vehicles' latest signals (DATABASE_URL: on Postgres)"
    ),
    Command.withExamples([
      { command: "sample fleet", description: "500 events for 20 vehicles, in memory" },
      { command: "sample fleet --events 2000 --vehicles 40 --json", description: "A larger burst, the summary as JSON" }
    ])
  )

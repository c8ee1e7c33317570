/**
 * Options given in code, checked: a value that is not what it should be is
 * a `FleetError` `Configuration` naming the option, never a defect.
 */
import { Duration, Effect, Option } from "effect"
import { Configuration, FleetError } from "../FleetError.ts"

/**
 * The shortest interval between a vehicle entity's polls (`pollInterval`,
 * `FLEET_POLL_INTERVAL`): 1 second. Each poll reads the service and schedules
 * the next; a shorter interval (`1 nanos`) would poll without pause.
 */
export const MIN_POLL_INTERVAL: Duration.Duration = Duration.seconds(1)

/**
 * The shortest retention (the queue's `retention`, `appliedRetention`,
 * `clusterRetention` and their `FLEET_*_RETENTION`): 1 second. A shorter one
 * forgets an event's id before a duplicate of it can be told apart, and its
 * cleanup runs every second anyway.
 */
export const MIN_RETENTION: Duration.Duration = Duration.seconds(1)

/**
 * What is wrong with a duration that must be at least `min`, finite unless
 * `infinite` allows `Infinity`; undefined when nothing is. The one rule of a
 * floor, for the environment (`FleetConfig`) and for the options given in code.
 */
export const durationIssue = (duration: Duration.Duration, min: Duration.Duration, infinite: boolean): string | undefined =>
  Duration.isGreaterThanOrEqualTo(duration, min) && (infinite || Duration.isFinite(duration))
    ? undefined
    : `expected a ${infinite ? "" : "finite "}duration of at least ${Duration.format(min)}${infinite ? " (or Infinity)" : ""}, got ${
      Duration.format(duration)
    }`

/**
 * The milliseconds of the duration option `name` (`fallback` when absent),
 * at least `min` and finite: see {@link durationIssue}.
 */
export const atLeast = (
  name: string,
  input: Duration.Input | undefined,
  fallback: Duration.Input,
  min: Duration.Duration
): Effect.Effect<number, FleetError> => {
  const duration = Duration.fromInput(input ?? fallback)
  const issue = Option.isSome(duration) ? durationIssue(duration.value, min, false) : `expected a duration, got ${String(input)}`
  return issue === undefined
    ? Effect.succeed(Duration.toMillis(Option.getOrThrow(duration)))
    : Effect.fail(new FleetError({ reason: new Configuration({ description: `${name}: ${issue}` }) }))
}

/**
 * The milliseconds of the duration option `name` (`fallback` when absent):
 * finite, and positive (or zero when `zero` says so).
 */
export const millis = (
  name: string,
  input: Duration.Input | undefined,
  fallback: Duration.Input,
  zero: "zero allowed" | "positive" = "positive"
): Effect.Effect<number, FleetError> => {
  const duration = Duration.fromInput(input ?? fallback)
  if (Option.isSome(duration) && Duration.isFinite(duration.value)) {
    const value = Duration.toMillis(duration.value)
    if (value > 0 || (value === 0 && zero === "zero allowed")) return Effect.succeed(value)
  }
  return Effect.fail(
    new FleetError({
      reason: new Configuration({
        description: `${name}: expected a finite ${zero === "positive" ? "positive" : "non-negative"} duration, got ${String(input)}`
      })
    })
  )
}

/** The option `name` (`fallback` when absent): an integer, `min` at least. */
export const count = (name: string, input: number | undefined, fallback: number, min = 1): Effect.Effect<number, FleetError> => {
  const value = input ?? fallback
  return Number.isSafeInteger(value) && value >= min ? Effect.succeed(value) : Effect.fail(
    new FleetError({ reason: new Configuration({ description: `${name}: expected an integer of at least ${min}, got ${String(input)}` }) })
  )
}

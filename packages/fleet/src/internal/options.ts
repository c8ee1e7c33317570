/**
 * Options given in code, checked: a value that is not what it should be is
 * a `FleetError` `Configuration` naming the option, never a defect.
 */
import { Duration, Effect, Option } from "effect"
import { Configuration, FleetError } from "../FleetError.ts"

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

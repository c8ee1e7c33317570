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

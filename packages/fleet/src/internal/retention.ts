/**
 * How long the queue keeps a finished event (and so its id): the retention,
 * and how often the cleanup that removes older ones runs.
 */
import { Duration, Effect, Option } from "effect"
import type { FleetError } from "../FleetError.ts"
import { millis } from "./options.ts"

/** The retention when none is given: 1 hour. */
export const defaultRetention: Duration.Duration = Duration.hours(1)

/**
 * The retention in milliseconds, `Infinity` for an infinite one (kept
 * forever, no cleanup); anything else not finite and positive is a
 * `Configuration` error naming `retention`.
 */
export const retentionMillis = (input: Duration.Input | undefined): Effect.Effect<number, FleetError> => {
  const parsed = Duration.fromInput(input ?? defaultRetention)
  return Option.isSome(parsed) && Duration.isFinite(parsed.value) === false && Duration.toMillis(parsed.value) > 0
    ? Effect.succeed(Infinity)
    : millis("retention", input, defaultRetention)
}

/** How often the cleanup runs: a quarter of the retention, from 1 second to 15 minutes. */
export const cleanupIntervalMillis = (retention: number): number => Math.min(15 * 60_000, Math.max(1_000, retention / 4))

/**
 * How long a store keeps what it must remember for a while (the queue a
 * finished event, the fleet state an applied event's id, the cluster a
 * processed message): the retention,
 * and how often the cleanup that removes older ones runs.
 */
import { Duration, Effect, Option, Schedule, type Scope } from "effect"
import type { FleetError } from "../FleetError.ts"
import { atLeast, MIN_RETENTION } from "./options.ts"

/** The queue's retention when none is given: 1 hour. */
export const defaultRetention: Duration.Duration = Duration.hours(1)

/** The applied events' retention when none is given: 7 days. */
export const defaultAppliedRetention: Duration.Duration = Duration.days(7)

/**
 * The retention in milliseconds, `Infinity` for an infinite one (kept
 * forever, no cleanup); anything else under {@link MIN_RETENTION} (1 second)
 * is a `Configuration` error naming the option `name`.
 */
export const retentionMillis = (
  input: Duration.Input | undefined,
  name = "retention",
  fallback: Duration.Duration = defaultRetention
): Effect.Effect<number, FleetError> => {
  const parsed = Duration.fromInput(input ?? fallback)
  return Option.isSome(parsed) && Duration.isFinite(parsed.value) === false && Duration.toMillis(parsed.value) > 0
    ? Effect.succeed(Infinity)
    : atLeast(name, input, fallback, MIN_RETENTION)
}

/** How often the cleanup runs: a quarter of the retention, from 1 second to 15 minutes. */
export const cleanupIntervalMillis = (retention: number): number => Math.min(15 * 60_000, Math.max(1_000, retention / 4))

/** The cluster's processed messages' retention when none is given: 1 hour, as the queue's. */
export const defaultClusterRetention: Duration.Duration = Duration.hours(1)

/**
 * Runs `cleanup` now and then every {@link cleanupIntervalMillis} in a fiber
 * of the scope (none for an infinite retention); a failure is logged and
 * the next run tries again.
 */
export const forkCleanup = <E>(
  retention: number,
  name: string,
  cleanup: Effect.Effect<unknown, E>
): Effect.Effect<void, never, Scope.Scope> =>
  retention === Infinity ? Effect.void : cleanup.pipe(
    Effect.catchCause((cause) => Effect.logWarning(`the cleanup of ${name} failed; next run in ${cleanupIntervalMillis(retention)} ms`, cause)),
    Effect.repeat(Schedule.spaced(cleanupIntervalMillis(retention))),
    Effect.interruptible,
    Effect.forkScoped,
    Effect.asVoid
  )

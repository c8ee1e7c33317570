/**
 * @internal
 */
import { Effect, LogLevel, References } from "effect"
import type { Fiber } from "effect"

/**
 * How the SDK emits a message.
 *
 * @internal
 */
export interface SdkLog {
  readonly log: (
    level: LogLevel.Severity,
    message: string,
    annotations: Readonly<Record<string, unknown>>
  ) => Effect.Effect<void>
}

/**
 * The SDK's logging at `configured` (`TransportConfig.logLevel`): a
 * configured level wins over the fiber's `MinimumLogLevel` (its messages are
 * emitted under that level, to the application's loggers); without one, the
 * fiber's level decides, as for any log line.
 *
 * @internal
 */
export const make = (configured: LogLevel.LogLevel | undefined): SdkLog => ({
  log: configured === undefined
    ? (level, message, annotations) => Effect.annotateLogs(Effect.logWithLevel(level)(message), annotations)
    : (level, message, annotations) =>
      Effect.provideService(
        Effect.annotateLogs(Effect.logWithLevel(level)(message), annotations),
        References.MinimumLogLevel,
        configured
      )
})

/**
 * Whether a line at `level` is logged in this fiber: the configured level
 * (`TransportConfig.logLevel`), else the fiber's `MinimumLogLevel`, read at
 * run time so that a level provided around a call applies to it.
 *
 * @internal
 */
export const enabledIn = (fiber: Fiber.Fiber<unknown, unknown>, configured: LogLevel.LogLevel | undefined, level: LogLevel.Severity): boolean => {
  const threshold = configured ?? fiber.getRef(References.MinimumLogLevel)
  return threshold !== "None" && LogLevel.isGreaterThanOrEqualTo(level, threshold)
}

/**
 * Checks of the receiver's and the stores' options: a bad one throws an
 * `InvalidArgument` naming it when the receiver or store is made, as a bad
 * secret does.
 *
 * @internal
 */
import { Duration, Option } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"

const shown = (value: unknown): string =>
  typeof value === "string" ? JSON.stringify(value) : typeof value === "number" ? String(value) : typeof value

const invalid = (field: string, expected: string, value: unknown) =>
  new InvalidArgument({ field, message: `${field}: Expected ${expected}; got ${shown(value)}` })

/** Whether `value` is a byte limit: a positive safe integer (not `NaN`, not `Infinity`, not a string). */
export const isByteCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 1

/** The `InvalidArgument` of a value that is not a byte limit. */
export const invalidByteCount = (field: string, value: unknown): InvalidArgument =>
  invalid(field, "a positive whole number of bytes", value)

/** A byte limit: `fallback` when `undefined`, else a positive safe integer, or an `InvalidArgument` is thrown. */
export const byteCount = (field: string, value: unknown, fallback: number): number => {
  if (value === undefined) return fallback
  if (!isByteCount(value)) throw invalidByteCount(field, value)
  return value
}

/** A count: `fallback` when `undefined`, else a finite number of at least 1 (rounded down), or an `InvalidArgument` is thrown. */
export const count = (field: string, value: unknown, fallback: number): number => {
  if (value === undefined) return fallback
  if (typeof value !== "number" || !Number.isFinite(value) || value < 1) {
    throw invalid(field, "a finite number of at least 1", value)
  }
  return Math.floor(value)
}

/**
 * The longest timer delay Node and browsers keep: 2^31 - 1 milliseconds
 * (about 24.8 days); a longer one fires at once (after 1 ms).
 */
export const maxTimerMillis = 2 ** 31 - 1

/**
 * The longest span a store keeps an event: 100 years, so that the time an
 * event's mark expires (now plus it) stays an exact whole number of
 * milliseconds and its time windows a handful.
 */
export const maxStoreMillis = Duration.toMillis(Duration.days(36_500))

/**
 * A duration in milliseconds: `fallback` when `undefined`, else a positive,
 * finite `Duration` input of at most `max` milliseconds, or an
 * `InvalidArgument` is thrown.
 */
export const millis = (field: string, input: unknown, fallback: Duration.Duration, max: number): number => {
  if (input === undefined) return Duration.toMillis(fallback)
  let decoded: Option.Option<Duration.Duration> = Option.none()
  try {
    // `Duration.fromInput(NaN)` is zero: refused below with every other non-positive duration
    decoded = Duration.fromInput(input as Duration.Input)
  } catch {
    // not a duration input
  }
  const ms = Option.isSome(decoded) && !(typeof input === "number" && Number.isNaN(input))
    ? Duration.toMillis(decoded.value)
    : Number.NaN
  if (!Number.isFinite(ms) || ms <= 0 || ms > max) {
    throw invalid(field, `a positive, finite duration of at most ${Duration.format(Duration.millis(max))}`, input)
  }
  return ms
}

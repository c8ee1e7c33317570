/**
 * The `Retry-After` response header (RFC 9110 §10.2.3): delay-seconds (a
 * non-negative integer) or an HTTP date in one of the three formats of
 * §5.6.7. Anything else (`-1`, `1.5`, free text) is ignored. An HTTP date
 * is measured from the response's `Date`, when it has a valid one
 * ({@link fromHeaders}). A delay over
 * {@link maxDelay} (2^31 − 1 ms, about 24.8 days: the longest `setTimeout`
 * waits as asked) is that maximum.
 *
 * @since 0.1.0
 */
import { DateTime, Duration, Result } from "effect"
import { Headers } from "effect/http"

/**
 * The longest delay a `Retry-After` gives: 2^31 − 1 milliseconds (about
 * 24.8 days), the longest delay `setTimeout` waits as asked (it fires at
 * once for a longer one). A longer `Retry-After` (`999999999` seconds, a
 * 400-digit value, a date years ahead) is this maximum.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { maxDelay, parse } from "@connected-vehicle/transport/RetryAfter"
 *
 * Duration.toMillis(maxDelay) // 2147483647
 * Duration.equals(parse("999999999", 0)!, maxDelay) // true
 * ```
 * @since 0.2.0
 * @category constants
 */
export const maxDelay: Duration.Duration = Duration.millis(2 ** 31 - 1)

/**
 * The delay a `Retry-After` value asks for, a `Duration` from `now` (epoch
 * milliseconds), at most {@link maxDelay}; a date in the past gives zero; an
 * invalid value gives `undefined`.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { parse } from "@connected-vehicle/transport/RetryAfter"
 *
 * parse("7", 0) // Duration.seconds(7)
 * parse("Thu, 01 Jan 1970 00:02:00 GMT", 0) // Duration.minutes(2), as 120000 millis
 * parse("-1", 0) // undefined
 * parse("999999999", 0) // maxDelay: 2147483647 millis, not 999999999000
 * const waitMillis = Duration.toMillis(parse("7", 0) ?? Duration.zero) // 7000
 * ```
 * @since 0.1.0
 * @category parsing
 */
export const parse = (value: string, now: number): Duration.Duration | undefined => {
  const parsed = Headers.parseRetryAfter(value)
  if (Result.isFailure(parsed)) return undefined
  const after = parsed.success
  const delay = after._tag === "Duration"
    ? after.duration
    : Duration.millis(Math.max(0, DateTime.toEpochMillis(after.dateTime) - now))
  return Duration.min(delay, maxDelay)
}

/**
 * The values of a `retry-after` header sent more than once (joined with
 * ", " in `Headers`): split at each comma, a day name (`Sat`, `Sunday`) kept
 * with the date it starts (an HTTP date has a comma of its own).
 */
const valuesOf = (header: string): ReadonlyArray<string> => {
  if (!header.includes(",")) return [header]
  const parts = header.split(",")
  const out: Array<string> = []
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!.trim()
    if (dayName.test(part) && i + 1 < parts.length) out.push(`${part}, ${parts[++i]!.trim()}`)
    else out.push(part)
  }
  return out
}

// the day name an IMF-fixdate (`Sat`) or an RFC 850 date (`Saturday`) starts with
const dayName = /^(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*$/i

/** The epoch milliseconds of a response's `Date` (an HTTP date), if it sent a valid one. */
const dateOf = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const parsed = Headers.parseHttpDate(value)
  return Result.isSuccess(parsed) ? DateTime.toEpochMillis(parsed.success) : undefined
}

/**
 * The delay of the `retry-after` header of a response's headers, if any and
 * valid, at most {@link maxDelay}. An HTTP date is measured from the
 * response's own `Date` when it sent a valid one (the server's clock: a
 * local clock that is off does not change the wait), else from `now`. A
 * header sent more than once (its values joined with ", ") gives the
 * longest valid delay among its values.
 *
 * @example
 * ```ts
 * import { fromHeaders } from "@connected-vehicle/transport/RetryAfter"
 *
 * fromHeaders({ "retry-after": "2" }, Date.now()) // Duration.seconds(2)
 * fromHeaders({ "retry-after": "2, 3" }, Date.now()) // Duration.seconds(3)
 * fromHeaders({
 *   "retry-after": "Sat, 28 Nov 2026 05:00:30 GMT",
 *   date: "Sat, 28 Nov 2026 05:00:00 GMT"
 * }, 0) // Duration.seconds(30), whatever `now`
 * ```
 * @since 0.1.0
 * @category parsing
 */
export const fromHeaders = (headers: Readonly<Record<string, string | undefined>>, now: number): Duration.Duration | undefined => {
  const header = headers["retry-after"]
  if (header === undefined) return undefined
  const from = dateOf(headers["date"]) ?? now
  let longest: Duration.Duration | undefined = undefined
  for (const value of valuesOf(header)) {
    const delay = parse(value, from)
    if (delay !== undefined && (longest === undefined || Duration.isGreaterThan(delay, longest))) longest = delay
  }
  return longest
}

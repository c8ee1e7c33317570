/**
 * The `Retry-After` response header (RFC 9110 §10.2.3): delay-seconds (a
 * non-negative integer) or an HTTP date in one of the three formats of
 * §5.6.7. Anything else (`-1`, `1.5`, free text) is ignored.
 *
 * @since 0.1.0
 */
import { DateTime, Duration, Result } from "effect"
import { Headers } from "effect/http"

/**
 * The delay a `Retry-After` value asks for, in milliseconds from `now`
 * (epoch milliseconds); a date in the past gives 0; an invalid value gives
 * `undefined`.
 *
 * @example
 * ```ts
 * import { parse } from "@connected-vehicle/transport/RetryAfter"
 *
 * parse("7", 0) // 7000
 * parse("Thu, 01 Jan 1970 00:02:00 GMT", 0) // 120000
 * parse("-1", 0) // undefined
 * ```
 * @since 0.1.0
 * @category parsing
 */
export const parse = (value: string, now: number): number | undefined => {
  const parsed = Headers.parseRetryAfter(value)
  if (Result.isFailure(parsed)) return undefined
  const after = parsed.success
  return after._tag === "Duration"
    ? Duration.toMillis(after.duration)
    : Math.max(0, DateTime.toEpochMillis(after.dateTime) - now)
}

/**
 * The delay of the `retry-after` header of a response's headers, if any and valid.
 *
 * @example
 * ```ts
 * import { fromHeaders } from "@connected-vehicle/transport/RetryAfter"
 *
 * fromHeaders({ "retry-after": "2" }, Date.now()) // 2000
 * ```
 * @since 0.1.0
 * @category parsing
 */
export const fromHeaders = (headers: Readonly<Record<string, string | undefined>>, now: number): number | undefined => {
  const value = headers["retry-after"]
  return value === undefined ? undefined : parse(value, now)
}

/**
 * Request limits and usage counters of a simulator. The spec (sections 7 and
 * 8) names a per-vehicle request limit (a legacy batch's entries each count
 * against it) and the `RATE_LIMIT` error type, but shows neither the numbers
 * nor the status; the simulator answers what a client would expect: `429`
 * with the section 7 envelope (type `RATE_LIMIT`, code
 * {@link VEHICLE_RATE_LIMITED} or {@link APPLICATION_RATE_LIMITED}, resolution
 * `RETRY_LATER`) and `retry-after` in seconds until the window frees.
 *
 * Limits are fixed windows on the simulator's `Clock` (window `n` covers
 * `[n * window, (n + 1) * window)`), so a `TestClock` moves them. They are off
 * unless configured (`SimulatorOptions.rateLimit`, `Simulator.setRateLimits`
 * or `PUT /_simulator/rate-limits`); the counters always run.
 *
 * @since 0.2.0
 */
import { Duration, Schema } from "effect"
import { quoted } from "./internal/oauthText.ts"

/**
 * One limit: at most `limit` requests in each fixed window of `window`.
 *
 * @example
 * ```ts
 * import type { WindowLimit } from "@connected-vehicle/simulator/RateLimit"
 *
 * const tenPerSecond: WindowLimit = { limit: 10, window: "1 second" }
 * ```
 * @since 0.2.0
 * @category models
 */
export interface WindowLimit {
  /** Requests allowed per window (a positive integer). */
  readonly limit: number
  /** The window's length (whole milliseconds, at least 1 ms, at most {@link MAX_WINDOW}, a day). */
  readonly window: Duration.Input
}

/**
 * The request limits of a simulator (each off when absent).
 *
 * - `perVehicle`: every request whose path names a known vehicle
 *   (`/v3/vehicles/{id}/...`, `/v2.0/vehicles/{id}/...`) counts against that
 *   vehicle; a legacy batch counts once per entry (refused whole when its
 *   entries do not fit in what is left of the window).
 * - `perApplication`: every request carrying a valid bearer token (an
 *   application or user token of the simulator's one client) counts once.
 *
 * Only requests with a valid bearer token are counted or limited.
 *
 * @example
 * ```ts
 * import { layer } from "@connected-vehicle/simulator/Simulator"
 *
 * layer({ rateLimit: { perVehicle: { limit: 5, window: "1 second" }, perApplication: { limit: 100, window: "1 second" } } })
 * ```
 * @since 0.2.0
 * @category models
 */
export interface RateLimitOptions {
  readonly perVehicle?: WindowLimit | undefined
  readonly perApplication?: WindowLimit | undefined
}

/**
 * The `code` of a 429 refused by the per-vehicle limit.
 *
 * @example
 * ```ts
 * import { VEHICLE_RATE_LIMITED } from "@connected-vehicle/simulator/RateLimit"
 *
 * const byVehicle = (code: string) => code === VEHICLE_RATE_LIMITED
 * ```
 * @since 0.2.0
 * @category constants
 */
export const VEHICLE_RATE_LIMITED = "VEHICLE_RATE_LIMITED"

/**
 * The `code` of a 429 refused by the per-application limit.
 *
 * @example
 * ```ts
 * import { APPLICATION_RATE_LIMITED } from "@connected-vehicle/simulator/RateLimit"
 *
 * const byApplication = (code: string) => code === APPLICATION_RATE_LIMITED
 * ```
 * @since 0.2.0
 * @category constants
 */
export const APPLICATION_RATE_LIMITED = "APPLICATION_RATE_LIMITED"

/**
 * The window `maxInWindow` is measured over when no limit of that kind is
 * configured (1 second).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { DEFAULT_COUNT_WINDOW } from "@connected-vehicle/simulator/RateLimit"
 *
 * Duration.toMillis(DEFAULT_COUNT_WINDOW) // 1000
 * ```
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_COUNT_WINDOW: Duration.Duration = Duration.seconds(1)

/**
 * The longest window of a limit: a day (so a `retry-after` is at most 86400
 * seconds). A longer one is refused (`RateLimitConfigError`, a 400 from
 * `PUT /_simulator/rate-limits`, an `InvalidArgument` from the layers).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { MAX_WINDOW } from "@connected-vehicle/simulator/RateLimit"
 *
 * Duration.toMillis(MAX_WINDOW) // 86400000
 * ```
 * @since 0.3.0
 * @category constants
 */
export const MAX_WINDOW: Duration.Duration = Duration.days(1)

const MAX_WINDOW_MILLIS = Duration.toMillis(MAX_WINDOW)

/**
 * Requests counted for one vehicle or for the application: `accepted` (served),
 * `limited` (answered 429, whichever limit refused it), and the most accepted
 * in any one window since the limits were last changed or the counters reset
 * (`UsageSnapshot.vehicleWindow` or `applicationWindow` long), to assert that
 * a limit was never exceeded.
 *
 * @example
 * ```ts
 * import type { Counted } from "@connected-vehicle/simulator/RateLimit"
 *
 * const withinLimit = (c: Counted, limit: number) => c.maxInWindow <= limit
 * ```
 * @since 0.2.0
 * @category models
 */
export interface Counted {
  readonly accepted: number
  readonly limited: number
  readonly maxInWindow: number
}

/**
 * The counters of one vehicle (see {@link Counted}).
 *
 * @example
 * ```ts
 * import type { VehicleUsage } from "@connected-vehicle/simulator/RateLimit"
 *
 * const total = (v: VehicleUsage) => v.accepted + v.limited
 * ```
 * @since 0.2.0
 * @category models
 */
export interface VehicleUsage extends Counted {
  readonly vehicleId: string
}

/**
 * Successful token grants (`POST /oauth/token` answered 200), by grant type.
 *
 * @example
 * ```ts
 * import type { TokenGrants } from "@connected-vehicle/simulator/RateLimit"
 *
 * const refreshes = (g: TokenGrants) => g.refreshToken
 * ```
 * @since 0.2.0
 * @category models
 */
export interface TokenGrants {
  readonly total: number
  readonly authorizationCode: number
  readonly refreshToken: number
  readonly clientCredentials: number
}

/**
 * A limit as configured, its window a `Duration` (whole milliseconds).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { ResolvedLimit } from "@connected-vehicle/simulator/RateLimit"
 *
 * const perSecond = (l: ResolvedLimit) => l.limit / Duration.toSeconds(l.window)
 * ```
 * @since 0.2.0
 * @category models
 */
export interface ResolvedLimit {
  readonly limit: number
  readonly window: Duration.Duration
}

/**
 * What a test reads (`Simulator.usage`, `GET /_simulator/usage`): the limits
 * in force, the counters of every vehicle that had a request (in dataset
 * order), of the application, and of the token endpoint.
 *
 * @example
 * ```ts
 * import type { UsageSnapshot } from "@connected-vehicle/simulator/RateLimit"
 *
 * const noVehicleOver = (u: UsageSnapshot, limit: number) => u.vehicles.every((v) => v.maxInWindow <= limit)
 * ```
 * @since 0.2.0
 * @category models
 */
export interface UsageSnapshot {
  readonly limits: {
    readonly perVehicle: ResolvedLimit | null
    readonly perApplication: ResolvedLimit | null
  }
  /** The window of the vehicles' `maxInWindow`. */
  readonly vehicleWindow: Duration.Duration
  /** The window of the application's `maxInWindow`. */
  readonly applicationWindow: Duration.Duration
  readonly vehicles: ReadonlyArray<VehicleUsage>
  readonly application: Counted
  readonly tokenGrants: TokenGrants
  /** Every `POST /oauth/token` that reached the simulator, refused ones included. */
  readonly tokenRequests: number
}

/**
 * Rate-limit options the simulator refuses (a limit that is not a positive
 * integer, a window shorter than 1 ms, longer than {@link MAX_WINDOW}, not
 * whole milliseconds, `"1.5 millis"`, or not a duration).
 *
 * @example
 * ```ts
 * import { RateLimitConfigError } from "@connected-vehicle/simulator/RateLimit"
 *
 * new RateLimitConfigError({ detail: "perVehicle.limit must be a positive integer" }).message
 * ```
 * @since 0.2.0
 * @category errors
 */
export class RateLimitConfigError extends Schema.TaggedError<RateLimitConfigError>()("RateLimitConfigError", {
  detail: Schema.String
}) {
  override get message() {
    return this.detail
  }
}

const resolve = (name: string, input: WindowLimit | undefined): ResolvedLimit | null | RateLimitConfigError => {
  if (input === undefined) return null
  if (!Number.isSafeInteger(input.limit) || input.limit < 1) {
    return new RateLimitConfigError({ detail: `${name}.limit must be a positive integer, got ${String(input.limit)}` })
  }
  let millis: number
  try {
    millis = Duration.toMillis(Duration.fromInputUnsafe(input.window))
  } catch {
    millis = Number.NaN
  }
  if (!Number.isInteger(millis) || millis < 1 || millis > MAX_WINDOW_MILLIS) {
    return new RateLimitConfigError({
      detail: `${name}.window must be a duration of whole milliseconds, at least 1 ms and at most a day, ${MAX_WINDOW_MILLIS} ms (e.g. "1 second" or 1000), got ${quoted(String(input.window))}`
    })
  }
  return { limit: input.limit, window: Duration.millis(millis) }
}

/**
 * Checks rate-limit options: each limit with its window as a `Duration`, or
 * the error naming what is wrong.
 *
 * @example
 * ```ts
 * import { resolveLimits } from "@connected-vehicle/simulator/RateLimit"
 *
 * resolveLimits({ perVehicle: { limit: 5, window: "2 seconds" } })
 * // { perVehicle: { limit: 5, window: Duration.millis(2000) }, perApplication: null }
 * ```
 * @since 0.2.0
 * @category constructors
 */
export const resolveLimits = (
  options: RateLimitOptions | undefined
): UsageSnapshot["limits"] | RateLimitConfigError => {
  const perVehicle = resolve("perVehicle", options?.perVehicle)
  if (perVehicle instanceof RateLimitConfigError) return perVehicle
  const perApplication = resolve("perApplication", options?.perApplication)
  if (perApplication instanceof RateLimitConfigError) return perApplication
  return { perVehicle, perApplication }
}

/**
 * The request limits and usage counters of one simulator (see `RateLimit`):
 * fixed windows on the simulator's clock, one counter set per vehicle of the
 * dataset (so memory is bounded by the dataset) and one for the application.
 *
 * @internal
 */
import { Duration, Effect } from "effect"
import type { Dataset } from "../Data.ts"
import type { Counted, RateLimitOptions, ResolvedLimit, TokenGrants, UsageSnapshot } from "../RateLimit.ts"
import {
  APPLICATION_RATE_LIMITED,
  DEFAULT_COUNT_WINDOW,
  RateLimitConfigError,
  resolveLimits,
  VEHICLE_RATE_LIMITED
} from "../RateLimit.ts"

const DEFAULT_WINDOW_MILLIS = Duration.toMillis(DEFAULT_COUNT_WINDOW)

/** The counters of one vehicle or of the application, and its current window. */
class Counter {
  accepted = 0
  limited = 0
  maxInWindow = 0
  windowStart = Number.NEGATIVE_INFINITY
  inWindow = 0

  /** Starts afresh: no current window, and `maxInWindow` measures the windows from now on. */
  restart(): void {
    this.windowStart = Number.NEGATIVE_INFINITY
    this.inWindow = 0
    this.maxInWindow = 0
  }

  /** Moves to the window of `now`. */
  roll(now: number, windowMillis: number): void {
    const start = Math.floor(now / windowMillis) * windowMillis
    if (start !== this.windowStart) {
      this.windowStart = start
      this.inWindow = 0
    }
  }

  accept(cost: number): void {
    this.accepted += cost
    this.inWindow += cost
    if (this.inWindow > this.maxInWindow) this.maxInWindow = this.inWindow
  }

  view(): Counted {
    return { accepted: this.accepted, limited: this.limited, maxInWindow: this.maxInWindow }
  }
}

/** A request refused by a limit: which one, and the seconds until its window frees. */
export interface Limited {
  readonly code: typeof VEHICLE_RATE_LIMITED | typeof APPLICATION_RATE_LIMITED
  readonly retryAfterSeconds: number
  readonly detail: string
}

/** What a request counts against: a vehicle (its dataset index, -1 for none) with a cost, and the application. */
export interface Charge {
  readonly vehicleIndex: number
  readonly cost: number
  readonly application: boolean
}

const grantKeys = {
  authorization_code: "authorizationCode",
  refresh_token: "refreshToken",
  client_credentials: "clientCredentials"
} as const

/** A limit with its window in milliseconds (the form the counters use). */
interface MillisLimit {
  readonly limit: number
  readonly windowMillis: number
}

interface MillisLimits {
  readonly perVehicle: MillisLimit | null
  readonly perApplication: MillisLimit | null
}

const millisLimit = (limit: ResolvedLimit | null): MillisLimit | null =>
  limit === null ? null : { limit: limit.limit, windowMillis: Duration.toMillis(limit.window) }

const millisLimits = (limits: UsageSnapshot["limits"]): MillisLimits => ({
  perVehicle: millisLimit(limits.perVehicle),
  perApplication: millisLimit(limits.perApplication)
})

/** The limits and counters of one simulator. */
export class Usage {
  private readonly now: () => number
  private readonly data: Dataset
  private resolved: UsageSnapshot["limits"]
  private limits: MillisLimits
  private vehicles = new Map<number, Counter>()
  private application = new Counter()
  private grants = { authorizationCode: 0, refreshToken: 0, clientCredentials: 0 }
  private tokenRequests = 0

  constructor(now: () => number, data: Dataset, limits: UsageSnapshot["limits"]) {
    this.now = now
    this.data = data
    this.resolved = limits
    this.limits = millisLimits(limits)
  }

  /**
   * Replaces the limits; every window starts afresh (empty, and `maxInWindow`
   * back to 0: it measures the windows of the new limits only). The totals stay.
   */
  setLimits(limits: UsageSnapshot["limits"]): void {
    this.resolved = limits
    this.limits = millisLimits(limits)
    for (const counter of this.vehicles.values()) counter.restart()
    this.application.restart()
  }

  currentLimits(): UsageSnapshot["limits"] {
    return this.resolved
  }

  private vehicleWindow() {
    return this.limits.perVehicle?.windowMillis ?? DEFAULT_WINDOW_MILLIS
  }

  private applicationWindow() {
    return this.limits.perApplication?.windowMillis ?? DEFAULT_WINDOW_MILLIS
  }

  private vehicle(index: number): Counter {
    let counter = this.vehicles.get(index)
    if (counter === undefined) {
      counter = new Counter()
      this.vehicles.set(index, counter)
    }
    return counter
  }

  /** The refusal a charge would get now, or undefined when it fits (nothing is counted). */
  decide(charge: Charge): Limited | undefined {
    const now = this.now()
    const app = this.limits.perApplication
    if (charge.application && app !== null) {
      this.application.roll(now, app.windowMillis)
      if (this.application.inWindow + 1 > app.limit) return refusal(APPLICATION_RATE_LIMITED, app, this.application, now)
    }
    const perVehicle = this.limits.perVehicle
    if (charge.vehicleIndex >= 0 && perVehicle !== null) {
      const counter = this.vehicle(charge.vehicleIndex)
      counter.roll(now, perVehicle.windowMillis)
      if (counter.inWindow + charge.cost > perVehicle.limit) {
        return refusal(VEHICLE_RATE_LIMITED, perVehicle, counter, now, this.data.vehicle(charge.vehicleIndex).id, charge.cost)
      }
    }
    return undefined
  }

  /** Counts a charge, accepted or refused as `decide` said. */
  commit(charge: Charge, limited: Limited | undefined): void {
    const now = this.now()
    if (charge.application) {
      if (limited === undefined) {
        this.application.roll(now, this.applicationWindow())
        this.application.accept(1)
      } else {
        this.application.limited += 1
      }
    }
    if (charge.vehicleIndex >= 0) {
      const counter = this.vehicle(charge.vehicleIndex)
      if (limited === undefined) {
        counter.roll(now, this.vehicleWindow())
        counter.accept(charge.cost)
      } else {
        counter.limited += charge.cost
      }
    }
  }

  /** Decides and counts a charge: the refusal, or undefined when accepted. */
  admit(charge: Charge): Limited | undefined {
    const limited = this.decide(charge)
    this.commit(charge, limited)
    return limited
  }

  /** Counts a `POST /oauth/token` that reached the simulator. */
  tokenRequest(): void {
    this.tokenRequests++
  }

  /** Counts a successful token grant. */
  granted(grantType: keyof typeof grantKeys): void {
    this.grants[grantKeys[grantType]]++
  }

  snapshot(): UsageSnapshot {
    const indexes = [...this.vehicles.keys()].sort((a, b) => a - b)
    const vehicles = []
    for (const index of indexes) {
      const counter = this.vehicles.get(index)!
      if (counter.accepted + counter.limited === 0) continue
      vehicles.push({ vehicleId: this.data.vehicle(index).id, ...counter.view() })
    }
    const tokenGrants: TokenGrants = {
      total: this.grants.authorizationCode + this.grants.refreshToken + this.grants.clientCredentials,
      ...this.grants
    }
    return {
      limits: this.resolved,
      vehicleWindow: Duration.millis(this.vehicleWindow()),
      applicationWindow: Duration.millis(this.applicationWindow()),
      vehicles,
      application: this.application.view(),
      tokenGrants,
      tokenRequests: this.tokenRequests
    }
  }

  /** Zeroes every counter (the limits stay). */
  reset(): void {
    this.vehicles = new Map()
    this.application = new Counter()
    this.grants = { authorizationCode: 0, refreshToken: 0, clientCredentials: 0 }
    this.tokenRequests = 0
  }
}

const refusal = (
  code: Limited["code"],
  limit: MillisLimit,
  counter: Counter,
  now: number,
  vehicleId?: string,
  cost = 1
): Limited => {
  const retryAfterSeconds = Math.max(1, Math.ceil((counter.windowStart + limit.windowMillis - now) / 1000))
  const what = vehicleId === undefined ? "the application" : `vehicle ${vehicleId}`
  const over = cost > limit.limit ? ` (this request costs ${cost}, more than the whole limit)` : ""
  return {
    code,
    retryAfterSeconds,
    detail: `Request limit of ${what} reached: ${limit.limit} per ${limit.windowMillis} ms${over}; retry after ${retryAfterSeconds} s`
  }
}

/** The usage of a simulator with its configured limits (a defect names bad options: layers do not fail). */
export const makeUsage = (now: () => number, data: Dataset, options: RateLimitOptions | undefined) =>
  Effect.suspend(() => {
    const limits = resolveLimits(options)
    return limits instanceof RateLimitConfigError ? Effect.die(limits) : Effect.succeed(new Usage(now, data, limits))
  })

/** Replaces the limits of a running simulator, or fails naming what is wrong. */
export const setRateLimits = (usage: Usage, options: RateLimitOptions): Effect.Effect<void, RateLimitConfigError> =>
  Effect.suspend(() => {
    const limits = resolveLimits(options)
    return limits instanceof RateLimitConfigError ? Effect.fail(limits) : Effect.sync(() => usage.setLimits(limits))
  })

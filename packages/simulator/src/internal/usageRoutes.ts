/**
 * The control routes of request limits and usage counters (under
 * `/_simulator`, loopback only): `GET` / `DELETE /_simulator/usage`, `GET` /
 * `PUT /_simulator/rate-limits`.
 *
 * @internal
 */
import { Duration, Effect, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import type { HttpServerRequest } from "effect/http"
import { envelope } from "../Env.ts"
import { RateLimitConfigError, resolveLimits } from "../RateLimit.ts"
import type { ResolvedLimit, UsageSnapshot, WindowLimit } from "../RateLimit.ts"
import { cutDetail } from "./controlBody.ts"
import { exactly } from "./deliveryRoutes.ts"
import { envelopeResponse } from "./responses.ts"
import type { Usage } from "./usage.ts"

const Limit = Schema.Struct({
  limit: Schema.Number,
  /** Milliseconds, or a duration such as "1 second". */
  window: Schema.Union([Schema.Number, Schema.String])
})

const LimitsBody = Schema.Struct({
  perVehicle: Schema.optionalKey(Schema.NullOr(Limit)),
  perApplication: Schema.optionalKey(Schema.NullOr(Limit))
})

/**
 * The JSON of the control routes: JSON has no duration, so each window is a
 * number of milliseconds, its name saying so (`windowMillis`,
 * `vehicleWindowMillis`, `applicationWindowMillis`); a `PUT` takes such a
 * number back as `window`.
 */
const limitJson = (limit: ResolvedLimit | null) =>
  limit === null ? null : { limit: limit.limit, windowMillis: Duration.toMillis(limit.window) }

const limitsJson = (limits: UsageSnapshot["limits"]) => ({
  perVehicle: limitJson(limits.perVehicle),
  perApplication: limitJson(limits.perApplication)
})

const snapshotJson = ({ applicationWindow, limits, vehicleWindow, ...counters }: UsageSnapshot) => ({
  limits: limitsJson(limits),
  vehicleWindowMillis: Duration.toMillis(vehicleWindow),
  applicationWindowMillis: Duration.toMillis(applicationWindow),
  ...counters
})

const expected = "{perVehicle?: {limit, window}, perApplication?: {limit, window}} (window in ms or e.g. \"1 second\")"

const putLimits = (usage: Usage, request: HttpServerRequest.HttpServerRequest) =>
  request.json.pipe(
    Effect.mapError(() => new RateLimitConfigError({ detail: `The body must be JSON: ${expected}` })),
    Effect.flatMap((body) =>
      Effect.mapError(
        Schema.decodeUnknownEffect(LimitsBody)(body, exactly),
        (error) => new RateLimitConfigError({ detail: `Expected ${expected}: ${cutDetail(error.message)}` })
      )
    ),
    Effect.flatMap((body) => {
      // a string that is no duration is refused by `resolveLimits`
      const limitOf = (l: typeof Limit.Type | null | undefined): WindowLimit | undefined =>
        l == null ? undefined : { limit: l.limit, window: l.window as Duration.Input }
      const resolved = resolveLimits({ perVehicle: limitOf(body.perVehicle), perApplication: limitOf(body.perApplication) })
      if (resolved instanceof RateLimitConfigError) return Effect.fail(resolved)
      usage.setLimits(resolved)
      return Effect.succeed(HttpServerResponse.jsonUnsafe({ limits: limitsJson(resolved) }))
    }),
    Effect.catch((error) => Effect.succeed(envelopeResponse(400, envelope(400, error.detail))))
  )

/** The answer of a usage route, or undefined for another path. */
export const control = (
  usage: Usage,
  request: HttpServerRequest.HttpServerRequest,
  path: string
): Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined => {
  switch (`${request.method} ${path}`) {
    case "GET /_simulator/usage":
      return Effect.sync(() => HttpServerResponse.jsonUnsafe(snapshotJson(usage.snapshot())))
    case "DELETE /_simulator/usage":
      return Effect.sync(() => {
        usage.reset()
        return HttpServerResponse.empty({ status: 204 })
      })
    case "GET /_simulator/rate-limits":
      return Effect.sync(() => HttpServerResponse.jsonUnsafe({ limits: limitsJson(usage.currentLimits()) }))
    case "PUT /_simulator/rate-limits":
      return putLimits(usage, request)
    default:
      return undefined
  }
}

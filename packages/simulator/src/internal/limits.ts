/**
 * The request limits as the middleware applies them: what a request counts
 * against (the vehicle its path names, the application of its bearer token)
 * and the 429 of a refused one. The legacy batch is charged by its handler
 * (one per entry); the fast path charges the requests it answers itself.
 *
 * @internal
 */
import { Duration } from "effect"
import type { HttpServerResponse } from "effect/http"
import type { Env } from "../Env.ts"
import { envelope } from "../Env.ts"
import { MAX_WINDOW } from "../RateLimit.ts"
import { envelopeResponse } from "./responses.ts"
import type { Charge, Limited } from "./usage.ts"

const vehiclePath = /^\/v(?:3|2\.0)\/vehicles\/([^/]+)(?:\/|$)/
const batchPath = /^\/v2\.0\/vehicles\/[^/]+\/batch$/

/** Whether a request is the legacy batch (charged by its handler, per entry). */
export const isBatch = (method: string, path: string) => method === "POST" && batchPath.test(path)

/** The dataset index of the vehicle a (route) path names, or -1. */
export const vehicleOfPath = (env: Env["Service"], path: string): number => {
  const match = vehiclePath.exec(path)
  return match === null ? -1 : env.data.vehicleIndex(match[1]!)
}

const MAX_RETRY_SECONDS = Duration.toSeconds(MAX_WINDOW)

/** `Retry-After` delta-seconds (RFC 9110 section 10.2.3): a whole number from 1 to a window's longest, in decimal digits. */
export const retryAfterValue = (seconds: number): string =>
  Number.isFinite(seconds) ? String(Math.min(MAX_RETRY_SECONDS, Math.max(1, Math.ceil(seconds)))) : String(MAX_RETRY_SECONDS)

/** The 429 of a refused request: the envelope (type `RATE_LIMIT`) and `retry-after`. */
export const limitedResponse = (limited: Limited): HttpServerResponse.HttpServerResponse =>
  envelopeResponse(
    429,
    envelope(429, limited.detail, { code: limited.code, resolution: "RETRY_LATER" }),
    { "retry-after": retryAfterValue(limited.retryAfterSeconds) }
  )

/**
 * Charges a request that passed the bearer check (`authenticated`: it
 * carried a valid token): the refusal, or undefined when it goes on.
 */
export const admitRequest = (
  env: Env["Service"],
  method: string,
  path: string,
  authenticated: boolean
): Limited | undefined => {
  if (!authenticated || isBatch(method, path)) return undefined
  const charge: Charge = { vehicleIndex: vehicleOfPath(env, path), cost: 1, application: true }
  return env.usage.admit(charge)
}

/** The fast path's charge: true when the request fits (and is counted), false to let the full path refuse it. */
export const fastCharge = (env: Env["Service"], vehicleIndex: number): boolean => {
  const charge: Charge = { vehicleIndex, cost: 1, application: true }
  if (env.usage.decide(charge) !== undefined) return false
  env.usage.commit(charge, undefined)
  return true
}

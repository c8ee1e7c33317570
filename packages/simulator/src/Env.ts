/**
 * Services shared by the handlers and the outer middleware, and the error
 * responses they build.
 *
 * @since 0.1.0
 */
import {
  BadRequestResponse,
  ConflictResponse,
  ForbiddenResponse,
  NotFoundResponse,
  OAuthBadRequest,
  OAuthUnauthorized,
  UnauthorizedResponse
} from "@connected-vehicle/schema/Api"
import type { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
import { makeEnvelope } from "@connected-vehicle/schema/ServiceError"
import { Context, Effect } from "effect"
import type { Dataset } from "./Data.ts"
import type { Grant, State } from "./State.ts"

/**
 * The dataset, the state and the client credential of one simulator.
 *
 * @since 0.1.0
 */
export class Env extends Context.Service<Env, {
  readonly data: Dataset
  readonly state: State
  readonly clientId: string
  readonly clientSecret: string
}>()("@connected-vehicle/simulator/Env") {}

/**
 * The grant of the request's bearer token, resolved by the outer middleware
 * (undefined on endpoints that take no credential).
 *
 * @since 0.1.0
 */
export class CurrentGrant extends Context.Service<CurrentGrant, Grant | undefined>()(
  "@connected-vehicle/simulator/CurrentGrant"
) {}

/**
 * The error envelope of a status (section 7 codes and titles).
 *
 * @since 0.1.0
 */
export const envelope = (
  status: number,
  detail: string,
  options?: Parameters<typeof makeEnvelope>[2]
): ErrorEnvelope => {
  const type = status === 400 || status === 415 || status === 413 || status === 405
    ? "VALIDATION"
    : status === 401 || status === 403
    ? "AUTHENTICATION"
    : status === 404
    ? "RESOURCE_NOT_FOUND"
    : status === 429
    ? "RATE_LIMIT"
    : status === 402
    ? "BILLING"
    : status === 502 || status === 504
    ? "UPSTREAM"
    : status === 409
    ? "VEHICLE_STATE"
    : "SERVER"
  const defaults: Record<number, { code: string; title: string }> = {
    402: { code: "PAYMENT_REQUIRED", title: "Billing Limit Reached" },
    405: { code: "METHOD_NOT_ALLOWED", title: "Method Not Allowed" },
    409: { code: "VEHICLE_STATE", title: "Vehicle State Conflict" },
    413: { code: "PAYLOAD_TOO_LARGE", title: "Payload Too Large" },
    415: { code: "UNSUPPORTED_MEDIA_TYPE", title: "Unsupported Media Type" },
    502: { code: "UPSTREAM_ERROR", title: "Upstream Error" },
    503: { code: "SERVICE_UNAVAILABLE", title: "Service Unavailable" },
    504: { code: "UPSTREAM_TIMEOUT", title: "Upstream Timeout" }
  }
  const fallback = defaults[status] ?? (status >= 500 && status !== 500
    ? { code: `HTTP_${status}`, title: "Server Error" }
    : undefined)
  return makeEnvelope(type, detail, { status, ...fallback, ...options })
}

/** @since 0.1.0 */
export const badRequest = (detail: string) => Effect.fail(new BadRequestResponse(envelope(400, detail)))
/** @since 0.1.0 */
export const unauthorized = (detail: string) => Effect.fail(new UnauthorizedResponse(envelope(401, detail)))
/** @since 0.1.0 */
export const forbidden = (detail: string) => Effect.fail(new ForbiddenResponse(envelope(403, detail)))
/** @since 0.1.0 */
export const notFound = (detail: string) => Effect.fail(new NotFoundResponse(envelope(404, detail)))
/**
 * The COMPATIBILITY envelope (409, `statusOfType`).
 *
 * @since 0.1.0
 */
export const compatibilityEnvelope = (detail: string): ErrorEnvelope =>
  makeEnvelope("COMPATIBILITY", detail, { code: "MAKE_NOT_COMPATIBLE", title: "Not Compatible" })
/** @since 0.1.0 */
export const incompatible = (detail: string) => Effect.fail(new ConflictResponse(compatibilityEnvelope(detail)))
/** @since 0.1.0 */
export const oauthError = (error: string, description: string) =>
  Effect.fail(new OAuthBadRequest({ error, error_description: description }))
/** @since 0.1.0 */
export const oauthUnauthorized = (description: string) =>
  Effect.fail(new OAuthUnauthorized({ error: "invalid_client", error_description: description }))

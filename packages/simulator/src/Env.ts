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
import { errorOfStatus, makeEnvelope } from "@connected-vehicle/schema/ServiceError"
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
 * Most paths one legacy batch may request.
 *
 * @since 0.1.0
 */
export const MAX_BATCH_REQUESTS = 50

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
 * The request id of the current request (the `x-request-id` response header),
 * set by the outer middleware.
 *
 * @since 0.1.0
 */
export class CurrentRequestId extends Context.Service<CurrentRequestId, string>()(
  "@connected-vehicle/simulator/CurrentRequestId"
) {}

/**
 * The error envelope of a status: type, code and title from the schema's
 * `errorOfStatus` (section 7, then the project's choices).
 *
 * @since 0.1.0
 */
export const envelope = (
  status: number,
  detail: string,
  options?: Parameters<typeof makeEnvelope>[2]
): ErrorEnvelope => {
  const { code, title, type } = errorOfStatus(status)
  return makeEnvelope(type, detail, { status, code, title, ...options })
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

/**
 * The error responses of the contract: the section 7 envelope, one class per
 * status so that a server can tell which status to send and a client which
 * body to expect; and the OAuth-style errors of the authorization server.
 * Also the pieces every group shares (common errors, paging, bearer header).
 *
 * @internal
 */
import { Schema } from "effect"
import { OAuthErrorBody } from "../../OAuth.ts"
import { PageNumber, PageSize } from "../../Pagination.ts"
import { ErrorEnvelope } from "../../ServiceError.ts"
import { queryInteger } from "./document.ts"

/**
 * 400 with the error envelope.
 *
 * @example
 * ```ts
 * import { BadRequestResponse } from "@connected-vehicle/schema/Api"
 *
 * const isBadRequestResponse = (u: unknown): u is BadRequestResponse => u instanceof BadRequestResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class BadRequestResponse extends Schema.Class<BadRequestResponse>("BadRequestResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 400 }
) {}

/**
 * 401 with the error envelope.
 *
 * @example
 * ```ts
 * import { UnauthorizedResponse } from "@connected-vehicle/schema/Api"
 *
 * const isUnauthorizedResponse = (u: unknown): u is UnauthorizedResponse => u instanceof UnauthorizedResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class UnauthorizedResponse extends Schema.Class<UnauthorizedResponse>("UnauthorizedResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 401 }
) {}

/**
 * 403 with the error envelope.
 *
 * @example
 * ```ts
 * import { ForbiddenResponse } from "@connected-vehicle/schema/Api"
 *
 * const isForbiddenResponse = (u: unknown): u is ForbiddenResponse => u instanceof ForbiddenResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class ForbiddenResponse extends Schema.Class<ForbiddenResponse>("ForbiddenResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 403 }
) {}

/**
 * 404 with the error envelope.
 *
 * @example
 * ```ts
 * import { NotFoundResponse } from "@connected-vehicle/schema/Api"
 *
 * const isNotFoundResponse = (u: unknown): u is NotFoundResponse => u instanceof NotFoundResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class NotFoundResponse extends Schema.Class<NotFoundResponse>("NotFoundResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 404 }
) {}

/**
 * 409 with the error envelope (COMPATIBILITY, VEHICLE_STATE: status not shown by the spec).
 *
 * @example
 * ```ts
 * import { ConflictResponse } from "@connected-vehicle/schema/Api"
 *
 * const isConflictResponse = (u: unknown): u is ConflictResponse => u instanceof ConflictResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class ConflictResponse extends Schema.Class<ConflictResponse>("ConflictResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 409 }
) {}

/**
 * 429 with the error envelope (RATE_LIMIT: status not shown by the spec).
 *
 * @example
 * ```ts
 * import { RateLimitedResponse } from "@connected-vehicle/schema/Api"
 *
 * const isRateLimitedResponse = (u: unknown): u is RateLimitedResponse => u instanceof RateLimitedResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class RateLimitedResponse extends Schema.Class<RateLimitedResponse>("RateLimitedResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 429 }
) {}

/**
 * 415 with the error envelope: a body of another content type than the
 * endpoint's (`UNSUPPORTED_MEDIA_TYPE`, status not shown by the spec).
 *
 * @example
 * ```ts
 * import { UnsupportedMediaTypeResponse } from "@connected-vehicle/schema/Api"
 *
 * const isUnsupportedMediaTypeResponse = (u: unknown): u is UnsupportedMediaTypeResponse => u instanceof UnsupportedMediaTypeResponse
 * ```
 * @category responses
 * @since 0.2.0
 */
export class UnsupportedMediaTypeResponse extends Schema.Class<UnsupportedMediaTypeResponse>("UnsupportedMediaTypeResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 415 }
) {}

/**
 * 500 with the error envelope.
 *
 * @example
 * ```ts
 * import { ServerErrorResponse } from "@connected-vehicle/schema/Api"
 *
 * const isServerErrorResponse = (u: unknown): u is ServerErrorResponse => u instanceof ServerErrorResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class ServerErrorResponse extends Schema.Class<ServerErrorResponse>("ServerErrorResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 500 }
) {}

/**
 * OAuth-style error of the authorization server, 400.
 *
 * @example
 * ```ts
 * import { OAuthBadRequest } from "@connected-vehicle/schema/Api"
 *
 * const isOAuthBadRequest = (u: unknown): u is OAuthBadRequest => u instanceof OAuthBadRequest
 * ```
 * @category responses
 * @since 0.1.0
 */
export class OAuthBadRequest extends Schema.Class<OAuthBadRequest>("OAuthBadRequest")(
  OAuthErrorBody.fields,
  { httpApiStatus: 400 }
) {}

/**
 * OAuth-style error of the authorization server, 401 (bad client credential).
 *
 * @example
 * ```ts
 * import { OAuthUnauthorized } from "@connected-vehicle/schema/Api"
 *
 * const isOAuthUnauthorized = (u: unknown): u is OAuthUnauthorized => u instanceof OAuthUnauthorized
 * ```
 * @category responses
 * @since 0.1.0
 */
export class OAuthUnauthorized extends Schema.Class<OAuthUnauthorized>("OAuthUnauthorized")(
  OAuthErrorBody.fields,
  { httpApiStatus: 401 }
) {}

/**
 * OAuth-style error of the authorization server, 415: a token request whose
 * body is not `application/x-www-form-urlencoded` (`invalid_request`).
 *
 * @example
 * ```ts
 * import { OAuthUnsupportedMediaType } from "@connected-vehicle/schema/Api"
 *
 * const isOAuthUnsupportedMediaType = (u: unknown): u is OAuthUnsupportedMediaType => u instanceof OAuthUnsupportedMediaType
 * ```
 * @category responses
 * @since 0.2.0
 */
export class OAuthUnsupportedMediaType extends Schema.Class<OAuthUnsupportedMediaType>("OAuthUnsupportedMediaType")(
  OAuthErrorBody.fields,
  { httpApiStatus: 415 }
) {}

/**
 * OAuth-style error of the authorization server, 500: an unexpected failure
 * (`server_error`, RFC 6749 section 4.1.2.1).
 *
 * @example
 * ```ts
 * import { OAuthServerError } from "@connected-vehicle/schema/Api"
 *
 * const isOAuthServerError = (u: unknown): u is OAuthServerError => u instanceof OAuthServerError
 * ```
 * @category responses
 * @since 0.3.0
 */
export class OAuthServerError extends Schema.Class<OAuthServerError>("OAuthServerError")(
  OAuthErrorBody.fields,
  { httpApiStatus: 500 }
) {}

/** @internal */
export const commonErrors = [
  BadRequestResponse,
  UnauthorizedResponse,
  ForbiddenResponse,
  NotFoundResponse,
  RateLimitedResponse,
  ServerErrorResponse
] as const

/** @internal */
export const paging = {
  page: Schema.optionalKey(PageNumber),
  pageSize: Schema.optionalKey(PageSize)
}

/**
 * {@link paging} as an endpoint's query sends it: the same decoding, and the
 * limits and defaults in the OpenAPI parameters (section 8).
 *
 * @internal
 */
export const queryPaging = {
  page: Schema.optionalKey(queryInteger(PageNumber, { description: "Page number, an integer >= 1", default: 1 })),
  pageSize: Schema.optionalKey(queryInteger(PageSize, { description: "Page size, an integer 1..100", default: 10 }))
}

/**
 * A query parameter of an endpoint that answers every query with 200 (the
 * spec lists no 400 for it): `typed` when the value is one (decoded first),
 * else any string, or several when the parameter is repeated.
 *
 * @internal
 */
export const lenientQueryValue = <const Typed extends ReadonlyArray<Schema.Top>>(description: string, ...typed: Typed) =>
  Schema.optionalKey(Schema.Union([...typed, Schema.String, Schema.Array(Schema.String)]).annotate({ description }))

/** @internal */
export const bearer = { authorization: Schema.optionalKey(Schema.String) }

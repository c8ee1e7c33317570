/**
 * The error envelope of section 7 (the body of every non-2xx answer) and the
 * type, code and title of each status. `ServiceReason` turns an envelope into
 * the reason of a failed call.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { openEnum } from "./Common.ts"
import { ResolutionType } from "./Signal.ts"

/**
 * The ten error types of section 7 (open: a new type decodes as `UnknownEnumValue`).
 *
 * @example
 * ```ts
 * import { ErrorTypeValues } from "@connected-vehicle/schema/ServiceError"
 *
 * const known = (u: string): boolean => (ErrorTypeValues as ReadonlyArray<string>).includes(u)
 * ```
 * @category constants
 * @since 0.1.0
 */
export const ErrorTypeValues = [
  "AUTHENTICATION",
  "BILLING",
  "COMPATIBILITY",
  "CONNECTED_SERVICES_ACCOUNT",
  "RATE_LIMIT",
  "RESOURCE_NOT_FOUND",
  "SERVER",
  "UPSTREAM",
  "VALIDATION",
  "VEHICLE_STATE"
] as const

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ErrorType } from "@connected-vehicle/schema/ServiceError"
 *
 * const isErrorType = Schema.is(ErrorType)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ErrorType = openEnum("ErrorType", ErrorTypeValues)

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ErrorType } from "@connected-vehicle/schema/ServiceError"
 *
 * const isErrorType: (u: unknown) => u is ErrorType = Schema.is(ErrorType)
 * ```
 * @category models
 * @since 0.1.0
 */
export type ErrorType = typeof ErrorType.Type

/**
 * One item of `errors`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ErrorItem } from "@connected-vehicle/schema/ServiceError"
 *
 * const isErrorItem = Schema.is(ErrorItem)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ErrorItem = Schema.Struct({
  status: Schema.String,
  type: ErrorType,
  code: Schema.String,
  title: Schema.String,
  detail: Schema.String,
  resolution: Schema.optionalKey(Schema.Struct({ type: ResolutionType })),
  suggestedUserMessage: Schema.optionalKey(Schema.String),
  links: Schema.optionalKey(Schema.Struct({ about: Schema.optionalKey(Schema.String) })),
  meta: Schema.optionalKey(Schema.Struct({
    debug: Schema.optionalKey(Schema.Struct({
      applicationId: Schema.optionalKey(Schema.String),
      requestId: Schema.optionalKey(Schema.String),
      origin: Schema.optionalKey(Schema.String)
    }))
  }))
}).annotate({ identifier: "ErrorItem" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ErrorItem } from "@connected-vehicle/schema/ServiceError"
 *
 * const isErrorItem: (u: unknown) => u is ErrorItem = Schema.is(ErrorItem)
 * ```
 * @category models
 * @since 0.1.0
 */
export type ErrorItem = typeof ErrorItem.Type

/**
 * The body of every non-2xx response: `errors` with at least one item.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
 *
 * Schema.decodeUnknownSync(ErrorEnvelope)({
 *   errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail: "No such vehicle" }]
 * })
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ErrorEnvelope = Schema.Struct({
  errors: Schema.NonEmptyArray(ErrorItem)
}).annotate({ identifier: "ErrorEnvelope" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
 *
 * const isErrorEnvelope: (u: unknown) => u is ErrorEnvelope = Schema.is(ErrorEnvelope)
 * ```
 * @category models
 * @since 0.1.0
 */
export type ErrorEnvelope = typeof ErrorEnvelope.Type

/**
 * The HTTP status this service uses for each error type. Section 7 shows 400,
 * 401/403, 404 and 500; the others are not shown and are this project's choice.
 *
 * @example
 * ```ts
 * import { statusOfType } from "@connected-vehicle/schema/ServiceError"
 *
 * statusOfType.RATE_LIMIT // 429
 * ```
 * @category constants
 * @since 0.1.0
 */
export const statusOfType: Readonly<Record<(typeof ErrorTypeValues)[number], number>> = {
  AUTHENTICATION: 401,
  BILLING: 402,
  COMPATIBILITY: 409,
  CONNECTED_SERVICES_ACCOUNT: 409,
  RATE_LIMIT: 429,
  RESOURCE_NOT_FOUND: 404,
  SERVER: 500,
  UPSTREAM: 502,
  VALIDATION: 400,
  VEHICLE_STATE: 409
}

/**
 * Builds a one-item envelope. The standard errors of section 7 fill `code` and
 * `title` themselves.
 *
 * @example
 * ```ts
 * import { makeEnvelope } from "@connected-vehicle/schema/ServiceError"
 *
 * makeEnvelope("RESOURCE_NOT_FOUND", "No vehicle with id abc")
 * ```
 * @category constructors
 * @since 0.1.0
 */
export const makeEnvelope = (
  type: (typeof ErrorTypeValues)[number],
  detail: string,
  options?: {
    readonly status?: number
    readonly code?: string
    readonly title?: string
    readonly resolution?: typeof ResolutionType.Type
    readonly suggestedUserMessage?: string
    readonly requestId?: string
  }
): ErrorEnvelope => {
  const status = options?.status ?? statusOfType[type]
  const standard = standardErrors[status]
  const item: ErrorItem = {
    status: String(status),
    type,
    code: options?.code ?? standard?.code ?? type,
    title: options?.title ?? standard?.title ?? type.charAt(0) + type.slice(1).toLowerCase().replace(/_/g, " "),
    detail,
    ...(options?.resolution === undefined ? {} : { resolution: { type: options.resolution } }),
    ...(options?.suggestedUserMessage === undefined ? {} : { suggestedUserMessage: options.suggestedUserMessage }),
    ...(options?.requestId === undefined ? {} : { meta: { debug: { requestId: options.requestId } } })
  }
  return { errors: [item] }
}

/**
 * Codes and titles of the standard errors of section 7, by status.
 *
 * @example
 * ```ts
 * import { standardErrors } from "@connected-vehicle/schema/ServiceError"
 *
 * standardErrors[404]?.code // "NOT_FOUND"
 * ```
 * @category constants
 * @since 0.1.0
 */
export const standardErrors: Readonly<Record<number, { readonly code: string; readonly title: string }>> = {
  400: { code: "BAD_REQUEST", title: "Bad Request" },
  401: { code: "UNAUTHORIZED", title: "Unauthorized" },
  403: { code: "FORBIDDEN", title: "Forbidden" },
  404: { code: "NOT_FOUND", title: "Not Found" },
  429: { code: "RATE_LIMITED", title: "Too Many Requests" },
  500: { code: "the service", title: "the service Server Error" }
}

/**
 * Type, code and title of the envelope for any HTTP error status: the
 * standard errors of section 7, {@link statusOfType} for the types the spec
 * shows no status for, and the project's choice for the rest (other 4xx are
 * VALIDATION, other 5xx SERVER, each with its own code and title).
 *
 * @example
 * ```ts
 * import { errorOfStatus } from "@connected-vehicle/schema/ServiceError"
 *
 * errorOfStatus(431) // { type: "VALIDATION", code: "REQUEST_HEADER_FIELDS_TOO_LARGE", title: "Request Header Fields Too Large" }
 * ```
 * @category utils
 * @since 0.1.0
 */
export const errorOfStatus = (status: number): {
  readonly type: (typeof ErrorTypeValues)[number]
  readonly code: string
  readonly title: string
} => {
  const known = statusErrors[status]
  if (known !== undefined) return known
  const standard = standardErrors[status]
  const type = status === 401 || status === 403
    ? "AUTHENTICATION"
    : ErrorTypeValues.find((t) => statusOfType[t] === status && t !== "VEHICLE_STATE" && t !== "CONNECTED_SERVICES_ACCOUNT") ??
      (status >= 500 ? "SERVER" : "VALIDATION")
  return standard === undefined
    ? { type, code: `HTTP_${status}`, title: status >= 500 ? "Server Error" : "Client Error" }
    : { type, ...standard }
}

const statusErrors: Readonly<Record<number, ReturnType<typeof errorOfStatus>>> = {
  402: { type: "BILLING", code: "PAYMENT_REQUIRED", title: "Billing Limit Reached" },
  405: { type: "VALIDATION", code: "METHOD_NOT_ALLOWED", title: "Method Not Allowed" },
  408: { type: "VALIDATION", code: "REQUEST_TIMEOUT", title: "Request Timeout" },
  409: { type: "VEHICLE_STATE", code: "VEHICLE_STATE", title: "Vehicle State Conflict" },
  413: { type: "VALIDATION", code: "PAYLOAD_TOO_LARGE", title: "Payload Too Large" },
  415: { type: "VALIDATION", code: "UNSUPPORTED_MEDIA_TYPE", title: "Unsupported Media Type" },
  431: { type: "VALIDATION", code: "REQUEST_HEADER_FIELDS_TOO_LARGE", title: "Request Header Fields Too Large" },
  502: { type: "UPSTREAM", code: "UPSTREAM_ERROR", title: "Upstream Error" },
  503: { type: "SERVER", code: "SERVICE_UNAVAILABLE", title: "Service Unavailable" },
  504: { type: "UPSTREAM", code: "UPSTREAM_TIMEOUT", title: "Upstream Timeout" }
}

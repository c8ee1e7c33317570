/**
 * The error envelope of section 7 and one tagged error class per error type.
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
 * Fields every service error carries: a readable `message` (`<status> <code>: <detail>`),
 * the first envelope item flattened, plus
 * the HTTP context (status, request id, method, URL without credentials) and
 * every item of the envelope.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ServiceErrorFields } from "@connected-vehicle/schema/ServiceError"
 *
 * const ErrorFields = Schema.Struct(ServiceErrorFields)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ServiceErrorFields = {
  message: Schema.String,
  status: Schema.Int,
  type: ErrorType,
  code: Schema.String,
  title: Schema.String,
  detail: Schema.String,
  resolution: Schema.optionalKey(ResolutionType),
  suggestedUserMessage: Schema.optionalKey(Schema.String),
  about: Schema.optionalKey(Schema.String),
  requestId: Schema.optionalKey(Schema.String),
  method: Schema.optionalKey(Schema.String),
  url: Schema.optionalKey(Schema.String),
  errors: Schema.Array(ErrorItem)
}


/**
 * `AUTHENTICATION`: token missing, invalid or without permission (401/403).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { AuthenticationError } from "@connected-vehicle/schema/ServiceError"
 *
 * const onAuth = (e: AuthenticationError) => Effect.logWarning(e.message)
 * ```
 * @category errors
 * @since 0.1.0
 */
export class AuthenticationError extends Schema.TaggedError<AuthenticationError>()("AuthenticationError", ServiceErrorFields) {}

/**
 * `BILLING`.
 *
 * @example
 * ```ts
 * import { BillingError } from "@connected-vehicle/schema/ServiceError"
 *
 * const isBillingError = (u: unknown): u is BillingError => u instanceof BillingError
 * ```
 * @category errors
 * @since 0.1.0
 */
export class BillingError extends Schema.TaggedError<BillingError>()("BillingError", ServiceErrorFields) {}

/**
 * `COMPATIBILITY`: the vehicle does not support the request.
 *
 * @example
 * ```ts
 * import { CompatibilityError } from "@connected-vehicle/schema/ServiceError"
 *
 * const isCompatibilityError = (u: unknown): u is CompatibilityError => u instanceof CompatibilityError
 * ```
 * @category errors
 * @since 0.1.0
 */
export class CompatibilityError extends Schema.TaggedError<CompatibilityError>()("CompatibilityError", ServiceErrorFields) {}

/**
 * `CONNECTED_SERVICES_ACCOUNT`.
 *
 * @example
 * ```ts
 * import { ConnectedServicesAccountError } from "@connected-vehicle/schema/ServiceError"
 *
 * const isConnectedServicesAccountError = (u: unknown): u is ConnectedServicesAccountError => u instanceof ConnectedServicesAccountError
 * ```
 * @category errors
 * @since 0.1.0
 */
export class ConnectedServicesAccountError extends Schema.TaggedError<ConnectedServicesAccountError>()("ConnectedServicesAccountError", ServiceErrorFields) {}

/**
 * `RATE_LIMIT`: carries the parsed `Retry-After` delay when the service sent one.
 *
 * @example
 * ```ts
 * import { RateLimitError } from "@connected-vehicle/schema/ServiceError"
 *
 * const isRateLimitError = (u: unknown): u is RateLimitError => u instanceof RateLimitError
 * ```
 * @category errors
 * @since 0.1.0
 */
export class RateLimitError extends Schema.TaggedError<RateLimitError>()("RateLimitError", {
  ...ServiceErrorFields,
  retryAfterMillis: Schema.optionalKey(Schema.Number)
}) {}

/**
 * `RESOURCE_NOT_FOUND`.
 *
 * @example
 * ```ts
 * import { ResourceNotFoundError } from "@connected-vehicle/schema/ServiceError"
 *
 * const isResourceNotFoundError = (u: unknown): u is ResourceNotFoundError => u instanceof ResourceNotFoundError
 * ```
 * @category errors
 * @since 0.1.0
 */
export class ResourceNotFoundError extends Schema.TaggedError<ResourceNotFoundError>()("ResourceNotFoundError", ServiceErrorFields) {}

/**
 * `SERVER`: unexpected server failure (retried with backoff by the transport).
 *
 * @example
 * ```ts
 * import { ServerError } from "@connected-vehicle/schema/ServiceError"
 *
 * const isServerError = (u: unknown): u is ServerError => u instanceof ServerError
 * ```
 * @category errors
 * @since 0.1.0
 */
export class ServerError extends Schema.TaggedError<ServerError>()("ServerError", ServiceErrorFields) {}

/**
 * `UPSTREAM`: the vehicle maker's systems failed.
 *
 * @example
 * ```ts
 * import { UpstreamError } from "@connected-vehicle/schema/ServiceError"
 *
 * const isUpstreamError = (u: unknown): u is UpstreamError => u instanceof UpstreamError
 * ```
 * @category errors
 * @since 0.1.0
 */
export class UpstreamError extends Schema.TaggedError<UpstreamError>()("UpstreamError", ServiceErrorFields) {}

/**
 * `VALIDATION`: the request was malformed (400).
 *
 * @example
 * ```ts
 * import { ValidationError } from "@connected-vehicle/schema/ServiceError"
 *
 * const isValidationError = (u: unknown): u is ValidationError => u instanceof ValidationError
 * ```
 * @category errors
 * @since 0.1.0
 */
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", ServiceErrorFields) {}

/**
 * `VEHICLE_STATE`: the vehicle cannot answer now (asleep, out of range...).
 *
 * @example
 * ```ts
 * import { VehicleStateError } from "@connected-vehicle/schema/ServiceError"
 *
 * const isVehicleStateError = (u: unknown): u is VehicleStateError => u instanceof VehicleStateError
 * ```
 * @category errors
 * @since 0.1.0
 */
export class VehicleStateError extends Schema.TaggedError<VehicleStateError>()("VehicleStateError", ServiceErrorFields) {}

/**
 * An error type this SDK does not know yet (the envelope's `type` is kept).
 *
 * @example
 * ```ts
 * import { UnrecognizedServiceError } from "@connected-vehicle/schema/ServiceError"
 *
 * const isUnrecognizedServiceError = (u: unknown): u is UnrecognizedServiceError => u instanceof UnrecognizedServiceError
 * ```
 * @category errors
 * @since 0.1.0
 */
export class UnrecognizedServiceError extends Schema.TaggedError<UnrecognizedServiceError>()("UnrecognizedServiceError", ServiceErrorFields) {}

/**
 * Every error the service can answer with, as a tagged union.
 *
 * @example
 * ```ts
 * import type { ServiceError } from "@connected-vehicle/schema/ServiceError"
 *
 * const describe = (error: ServiceError): string => `${error._tag}: ${error.message}`
 * ```
 * @category models
 * @since 0.1.0
 */
export type ServiceError =
  | AuthenticationError
  | BillingError
  | CompatibilityError
  | ConnectedServicesAccountError
  | RateLimitError
  | ResourceNotFoundError
  | ServerError
  | UpstreamError
  | ValidationError
  | VehicleStateError
  | UnrecognizedServiceError

/**
 * Schema of the union (for logging, persistence or RPC).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ServiceError } from "@connected-vehicle/schema/ServiceError"
 *
 * const isServiceError = Schema.is(ServiceError)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ServiceError = Schema.Union([
  AuthenticationError,
  BillingError,
  CompatibilityError,
  ConnectedServicesAccountError,
  RateLimitError,
  ResourceNotFoundError,
  ServerError,
  UpstreamError,
  ValidationError,
  VehicleStateError,
  UnrecognizedServiceError
])

/**
 * Context of the HTTP exchange an envelope came from.
 *
 * @example
 * ```ts
 * import type { ErrorContext } from "@connected-vehicle/schema/ServiceError"
 *
 * const context: ErrorContext = { status: 404, requestId: "req_1", method: "GET", url: "/vehicles/veh_1" }
 * ```
 * @category models
 * @since 0.1.0
 */
export interface ErrorContext {
  readonly status: number
  readonly requestId?: string | undefined
  readonly method?: string | undefined
  readonly url?: string | undefined
  readonly retryAfterMillis?: number | undefined
}

/**
 * Builds the tagged error of an envelope, chosen by the `type` of its first item.
 *
 * @example
 * ```ts
 * import { fromEnvelope } from "@connected-vehicle/schema/ServiceError"
 *
 * const error = fromEnvelope({
 *   errors: [{ status: "401", type: "AUTHENTICATION", code: "UNAUTHORIZED", title: "Unauthorized", detail: "bad token" }]
 * }, { status: 401 })
 * error._tag // "AuthenticationError"
 * ```
 * @category constructors
 * @since 0.1.0
 */
export const fromEnvelope = (envelope: ErrorEnvelope, context: ErrorContext): ServiceError => {
  const [first] = envelope.errors
  const optional = <K extends string, V>(key: K, value: V | undefined) =>
    (value === undefined ? {} : { [key]: value }) as { readonly [P in K]?: V }
  const fields = {
    message: `${context.status} ${first.code}: ${first.detail}`,
    status: context.status,
    type: first.type,
    code: first.code,
    title: first.title,
    detail: first.detail,
    errors: envelope.errors,
    ...optional("resolution", first.resolution?.type),
    ...optional("suggestedUserMessage", first.suggestedUserMessage),
    ...optional("about", first.links?.about),
    ...optional("requestId", context.requestId ?? first.meta?.debug?.requestId),
    ...optional("method", context.method),
    ...optional("url", context.url)
  }
  switch (first.type) {
    case "AUTHENTICATION":
      return new AuthenticationError(fields)
    case "BILLING":
      return new BillingError(fields)
    case "COMPATIBILITY":
      return new CompatibilityError(fields)
    case "CONNECTED_SERVICES_ACCOUNT":
      return new ConnectedServicesAccountError(fields)
    case "RATE_LIMIT":
      return new RateLimitError({ ...fields, ...optional("retryAfterMillis", context.retryAfterMillis) })
    case "RESOURCE_NOT_FOUND":
      return new ResourceNotFoundError(fields)
    case "SERVER":
      return new ServerError(fields)
    case "UPSTREAM":
      return new UpstreamError(fields)
    case "VALIDATION":
      return new ValidationError(fields)
    case "VEHICLE_STATE":
      return new VehicleStateError(fields)
    default:
      return new UnrecognizedServiceError(fields)
  }
}

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

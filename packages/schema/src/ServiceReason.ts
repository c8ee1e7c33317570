/**
 * The reasons an error envelope of section 7 becomes (one tagged class per
 * error type): the `reason` of a failed call's `ConnectedVehicleError`
 * (`@connected-vehicle/transport/ConnectedVehicleError`) when the service
 * answered. Each carries `isRetryable`, the status, the request id, the
 * method and the URL.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import type { Duration } from "effect"
import { boundedMessage } from "./Message.ts"
import { ResolutionType } from "./Signal.ts"
import { ErrorItem, errorOfStatus, ErrorType } from "./ServiceError.ts"
import type { ErrorEnvelope } from "./ServiceError.ts"

/**
 * Fields every service reason carries: a readable `message`
 * (`<status> <code>: <detail>`, escaped and at most 2,048 characters by
 * `boundedMessage` of `@connected-vehicle/schema/Message` when `fromEnvelope`
 * or `fromStatus` makes it), the first envelope item flattened, plus the
 * HTTP context (status, request id, method, URL without credentials, the
 * delay of the response's `Retry-After` when it sent a valid one) and every
 * item of the envelope.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ServiceErrorFields } from "@connected-vehicle/schema/ServiceReason"
 *
 * const Fields = Schema.Struct(ServiceErrorFields)
 * ```
 * @since 0.1.0
 * @category models
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
  retryAfter: Schema.optionalKey(Schema.Duration),
  errors: Schema.Array(ErrorItem)
}

/**
 * Whether an answer with this status is worth another attempt: a 429 (the
 * transport's rate-limit policy decides how long to wait), a 408 (the
 * request did not arrive in time: a proxy's or a load balancer's, as the
 * service lists none) and a 500, 502, 503 or 504, whatever the body says
 * (the statuses of Effect's `HttpClient.isTransientResponse`).
 *
 * @example
 * ```ts
 * import { isRetryableStatus } from "@connected-vehicle/schema/ServiceReason"
 *
 * isRetryableStatus(503) // true
 * isRetryableStatus(408) // true
 * isRetryableStatus(404) // false
 * ```
 * @since 0.2.0
 * @category predicates
 */
export const isRetryableStatus = (status: number | undefined): boolean =>
  status === 429 || status === 408 || status === 500 || status === 502 || status === 503 || status === 504

/**
 * `AUTHENTICATION` with a 401: the token is missing, invalid or expired.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Authentication } from "@connected-vehicle/schema/ServiceReason"
 *
 * const onAuth = (reason: Authentication) => Effect.logWarning(reason.message)
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class Authentication extends Schema.TaggedError<Authentication>()("Authentication", ServiceErrorFields) {
  get isRetryable(): boolean {
    return isRetryableStatus(this.status)
  }
}

/**
 * `AUTHENTICATION` with a 403: the token lacks a permission.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { PermissionDenied } from "@connected-vehicle/schema/ServiceReason"
 *
 * const askForScope = (reason: PermissionDenied) => Effect.logWarning(`permission missing: ${reason.detail}`)
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class PermissionDenied extends Schema.TaggedError<PermissionDenied>()("PermissionDenied", ServiceErrorFields) {
  get isRetryable(): boolean {
    return isRetryableStatus(this.status)
  }
}

/**
 * `BILLING`: the account's billing limit is reached.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Billing } from "@connected-vehicle/schema/ServiceReason"
 *
 * const onBilling = (reason: Billing) => Effect.logError(`billing limit reached: ${reason.code}`)
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class Billing extends Schema.TaggedError<Billing>()("Billing", ServiceErrorFields) {
  get isRetryable(): boolean {
    return isRetryableStatus(this.status)
  }
}

/**
 * `COMPATIBILITY`: the vehicle does not support the request.
 *
 * @example
 * ```ts
 * import type { Compatibility } from "@connected-vehicle/schema/ServiceReason"
 *
 * const unsupported = (reason: Compatibility) => `not supported by this vehicle: ${reason.detail}`
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class Compatibility extends Schema.TaggedError<Compatibility>()("Compatibility", ServiceErrorFields) {
  get isRetryable(): boolean {
    return isRetryableStatus(this.status)
  }
}

/**
 * `CONNECTED_SERVICES_ACCOUNT`: the owner's account with the maker needs attention.
 *
 * @example
 * ```ts
 * import type { ConnectedServicesAccount } from "@connected-vehicle/schema/ServiceReason"
 *
 * const ownerAction = (reason: ConnectedServicesAccount) => reason.suggestedUserMessage ?? reason.detail
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class ConnectedServicesAccount
  extends Schema.TaggedError<ConnectedServicesAccount>()("ConnectedServicesAccount", ServiceErrorFields)
{
  get isRetryable(): boolean {
    return isRetryableStatus(this.status)
  }
}

/**
 * A 429 (whatever the body's type): too many requests. `retryAfter` is the
 * `Retry-After` the service sent, if any. Always retryable; after a 429 the
 * transport waits only as its rate-limit policy allows.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { RateLimit } from "@connected-vehicle/schema/ServiceReason"
 *
 * const waitFor = (reason: RateLimit) => reason.retryAfter ?? Duration.seconds(1)
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class RateLimit extends Schema.TaggedError<RateLimit>()("RateLimit", ServiceErrorFields) {
  get isRetryable(): boolean {
    return true
  }
}

/**
 * `RESOURCE_NOT_FOUND`: no such vehicle, connection, webhook...
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { NotFound } from "@connected-vehicle/schema/ServiceReason"
 *
 * const isNotFound = Schema.is(NotFound)
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", ServiceErrorFields) {
  get isRetryable(): boolean {
    return isRetryableStatus(this.status)
  }
}

/**
 * `SERVER`: the service failed (retryable for a 500, 502, 503 or 504).
 *
 * @example
 * ```ts
 * import type { Server } from "@connected-vehicle/schema/ServiceReason"
 *
 * const shouldRetry = (reason: Server) => reason.isRetryable // true for a 500, 502, 503 or 504
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class Server extends Schema.TaggedError<Server>()("Server", ServiceErrorFields) {
  get isRetryable(): boolean {
    return isRetryableStatus(this.status)
  }
}

/**
 * `UPSTREAM`: the vehicle maker's systems failed (retryable for a 502 or 504...).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Upstream } from "@connected-vehicle/schema/ServiceReason"
 *
 * const onUpstream = (reason: Upstream) => Effect.logWarning(`maker systems failed (${reason.status})`)
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class Upstream extends Schema.TaggedError<Upstream>()("Upstream", ServiceErrorFields) {
  get isRetryable(): boolean {
    return isRetryableStatus(this.status)
  }
}

/**
 * `VALIDATION`: the service refused the request as malformed.
 *
 * @example
 * ```ts
 * import type { Validation } from "@connected-vehicle/schema/ServiceReason"
 *
 * const fieldErrors = (reason: Validation) => reason.errors.map((item) => item.detail)
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class Validation extends Schema.TaggedError<Validation>()("Validation", ServiceErrorFields) {
  get isRetryable(): boolean {
    return isRetryableStatus(this.status)
  }
}

/**
 * `VEHICLE_STATE`: the vehicle cannot answer now (asleep, out of range...).
 *
 * @example
 * ```ts
 * import type { VehicleState } from "@connected-vehicle/schema/ServiceReason"
 *
 * const tryLater = (reason: VehicleState) => `vehicle unavailable: ${reason.code}`
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class VehicleState extends Schema.TaggedError<VehicleState>()("VehicleState", ServiceErrorFields) {
  get isRetryable(): boolean {
    return isRetryableStatus(this.status)
  }
}

/**
 * An error type this SDK does not know yet (the envelope's `type` is kept).
 *
 * @example
 * ```ts
 * import type { Unrecognized } from "@connected-vehicle/schema/ServiceReason"
 *
 * const unknownType = (reason: Unrecognized) => reason.type
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class Unrecognized extends Schema.TaggedError<Unrecognized>()("Unrecognized", ServiceErrorFields) {
  get isRetryable(): boolean {
    return isRetryableStatus(this.status)
  }
}

/**
 * Every reason the service can answer with (an error envelope), as a tagged
 * union: the `reason` of a `ConnectedVehicleError`
 * (`@connected-vehicle/transport/ConnectedVehicleError`) that the service
 * answered.
 *
 * @example
 * ```ts
 * import type { ServiceReason } from "@connected-vehicle/schema/ServiceReason"
 *
 * const signInAgain = (reason: ServiceReason) => reason._tag === "Authentication"
 * ```
 * @since 0.2.0
 * @category models
 */
export type ServiceReason =
  | Authentication
  | PermissionDenied
  | Billing
  | Compatibility
  | ConnectedServicesAccount
  | RateLimit
  | NotFound
  | Server
  | Upstream
  | Validation
  | VehicleState
  | Unrecognized

/**
 * Schema of {@link ServiceReason} (for logging, persistence or RPC).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ServiceReason } from "@connected-vehicle/schema/ServiceReason"
 *
 * const isServiceReason = Schema.is(ServiceReason)
 * ```
 * @since 0.2.0
 * @category schemas
 */
export const ServiceReason = Schema.Union([
  Authentication,
  PermissionDenied,
  Billing,
  Compatibility,
  ConnectedServicesAccount,
  RateLimit,
  NotFound,
  Server,
  Upstream,
  Validation,
  VehicleState,
  Unrecognized
])

/**
 * Context of the HTTP exchange an envelope came from (`retryAfter`: the
 * delay of its `Retry-After`, kept by every reason).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { ErrorContext } from "@connected-vehicle/schema/ServiceReason"
 *
 * const context: ErrorContext = { status: 429, method: "GET", url: "https://api.example.test/v3/vehicles", retryAfter: Duration.seconds(2) }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface ErrorContext {
  readonly status: number
  readonly requestId?: string | undefined
  readonly method?: string | undefined
  readonly url?: string | undefined
  readonly retryAfter?: Duration.Duration | undefined
}

/**
 * The reason of an envelope, chosen by the `type` of its first item (an
 * `AUTHENTICATION` with a 403 is `PermissionDenied`) and by the status: a
 * 429 is `RateLimit` whatever the type. Its `message` is `<status> <code>:
 * <detail>` by `boundedMessage` (escaped, at most 2,048 characters); its
 * fields keep the item's text.
 *
 * @example
 * ```ts
 * import { fromEnvelope } from "@connected-vehicle/schema/ServiceReason"
 *
 * const reason = fromEnvelope({
 *   errors: [{ status: "401", type: "AUTHENTICATION", code: "UNAUTHORIZED", title: "Unauthorized", detail: "bad token" }]
 * }, { status: 401 })
 * reason._tag // "Authentication"
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const fromEnvelope = (envelope: ErrorEnvelope, context: ErrorContext): ServiceReason => {
  const [first] = envelope.errors
  const optional = <K extends string, V>(key: K, value: V | undefined) =>
    (value === undefined ? {} : { [key]: value }) as { readonly [P in K]?: V }
  const fields = {
    message: boundedMessage(`${context.status} ${first.code}: ${first.detail}`),
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
    ...optional("url", context.url),
    ...optional("retryAfter", context.retryAfter)
  }
  return ofType(fields)
}

type Fields = Omit<ConstructorParameters<typeof Authentication>[0], "_tag">

/** The reason of `fields` by its type and status (a 429 is `RateLimit` whatever the type). */
const ofType = (fields: Fields): ServiceReason => {
  if (fields.status === 429 || fields.type === "RATE_LIMIT") return new RateLimit(fields)
  switch (fields.type) {
    case "AUTHENTICATION":
      return fields.status === 403 ? new PermissionDenied(fields) : new Authentication(fields)
    case "BILLING":
      return new Billing(fields)
    case "COMPATIBILITY":
      return new Compatibility(fields)
    case "CONNECTED_SERVICES_ACCOUNT":
      return new ConnectedServicesAccount(fields)
    case "RESOURCE_NOT_FOUND":
      return new NotFound(fields)
    case "SERVER":
      return new Server(fields)
    case "UPSTREAM":
      return new Upstream(fields)
    case "VALIDATION":
      return new Validation(fields)
    case "VEHICLE_STATE":
      return new VehicleState(fields)
    default:
      return new Unrecognized(fields)
  }
}

/**
 * The reason of an error status whose body is not the envelope (a gateway's
 * HTML page, an empty or plain-text body, JSON of another shape, a body that
 * could not be read): the one the service's envelope for that status would
 * give (`errorOfStatus` of `@connected-vehicle/schema/ServiceError`): a 400
 * is `Validation`, a 401 `Authentication`, a 402 `Billing`, a 403
 * `PermissionDenied`, a 404 `NotFound`, a 409 `VehicleState`, a 429
 * `RateLimit`, a 502 or 504 `Upstream`, any other 5xx `Server`; 405, 408,
 * 413, 415 and 431 are `Validation`. `detail` says what the body was
 * (`note`: never the body itself) and `errors` is empty: no envelope came.
 * `undefined` for a status below 400 and for a 4xx the service gives no
 * meaning (a 418, a 422...): only an envelope could say what it means.
 *
 * @example
 * ```ts
 * import { fromStatus } from "@connected-vehicle/schema/ServiceReason"
 *
 * const reason = fromStatus({ status: 401 }, "the body is not JSON")
 * reason?._tag // "Authentication"
 * reason?.detail // "Unauthorized (no error envelope: the body is not JSON)"
 * fromStatus({ status: 418 }, "the body is not JSON") // undefined
 * ```
 * @since 0.2.0
 * @category constructors
 */
export const fromStatus = (context: ErrorContext, note: string): ServiceReason | undefined => {
  const { status } = context
  if (status < 400) return undefined
  const { code, title, type } = errorOfStatus(status)
  // `HTTP_<status>`: a status of no meaning to the service (any 5xx is still a server failure)
  if (status < 500 && code === `HTTP_${status}`) return undefined
  const detail = `${title} (no error envelope: ${note})`
  return ofType({
    message: boundedMessage(`${status} ${code}: ${detail}`),
    status,
    type,
    code,
    title,
    detail,
    errors: [],
    ...(context.requestId === undefined ? {} : { requestId: context.requestId }),
    ...(context.method === undefined ? {} : { method: context.method }),
    ...(context.url === undefined ? {} : { url: context.url }),
    ...(context.retryAfter === undefined ? {} : { retryAfter: context.retryAfter })
  })
}

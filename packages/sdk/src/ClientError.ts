/**
 * The errors of the Promise client (`@connected-vehicle/sdk/Client`): one
 * base class, {@link ConnectedVehicleError}, and one subclass per reason,
 * named after it (`RateLimitError` for the reason `RateLimit`...), for
 * `instanceof`. The reasons are those of the Effect SDK's
 * `ConnectedVehicleError` (`@connected-vehicle/transport/ConnectedVehicleError`),
 * plus `InvalidArgument`, `NotConnected` and `Abort`. Every error carries
 * `reason`, `status`, `requestId`, `isRetryable` and `retryAfter` (in
 * milliseconds, the unit of `setTimeout`) when known, and the Effect error it
 * was built from as `cause`.
 *
 * A failed token request is reported as what happened to it (unreachable: `ConnectionError` or `TimeoutError`;
 * a wrong client secret: `AuthenticationError`; 429: `RateLimitError`; 5xx: `ServerError`), other refusals
 * (`invalid_grant`) as `CredentialsError`; `sent: false` when neither it nor the call's request was written. No secret shown.
 *
 * @since 0.1.0
 */
import { Cause, Option } from "effect"
import type { ErrorItem } from "@connected-vehicle/schema/ServiceError"
import { classify } from "./internal/errorTable.ts"
import type { ClientErrorFields, ClientReason } from "./internal/errorTable.ts"

/**
 * Fields of a {@link ConnectedVehicleError}.
 *
 * @example
 * ```ts
 * import type { ErrorFields } from "@connected-vehicle/sdk/ClientError"
 *
 * const fields: ErrorFields = { message: "404 NOT_FOUND: No such webhook", status: 404, type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND" }
 * ```
 * @since 0.1.0
 * @category models
 */
export type ErrorFields = ClientErrorFields

/**
 * The reason of a client error: a reason of the Effect SDK's
 * `ConnectedVehicleError` (`"RateLimit"`, `"NotFound"`, `"Timeout"`...), or
 * `"InvalidArgument"`, `"NotConnected"`, `"Abort"`, and `"Unknown"` for an
 * unexpected failure.
 *
 * @example
 * ```ts
 * import type { Reason } from "@connected-vehicle/sdk/ClientError"
 *
 * const offline = (reason: Reason) => reason === "Connection" || reason === "Timeout"
 * ```
 * @since 0.2.0
 * @category models
 */
export type Reason = ClientReason

/**
 * The base class of every error the Promise client throws (its `reason` is
 * `"Unknown"` for an unexpected failure; every other error is an instance of
 * the subclass of its reason).
 *
 * @example
 * ```ts
 * import { ConnectedVehicleError } from "@connected-vehicle/sdk/ClientError"
 *
 * const describe = (error: unknown) =>
 *   error instanceof ConnectedVehicleError ? `${error.reason} ${error.status ?? ""} ${error.requestId ?? ""}` : String(error)
 * ```
 * @since 0.1.0
 * @category errors
 */
export class ConnectedVehicleError extends Error {
  /** What happened: the reason's tag. */
  readonly reason: Reason
  /** The HTTP status, when a response (or its headers) arrived. */
  readonly status: number | undefined
  /** The request id of the response, for the service's support. */
  readonly requestId: string | undefined
  /** Whether another attempt may succeed (the SDK already retried as its policy allows). */
  readonly isRetryable: boolean
  /** The `Retry-After` the service sent with an error status (a 429, a 503...), in milliseconds. */
  readonly retryAfter: number | undefined
  /** The error type of the service's envelope (`RESOURCE_NOT_FOUND`, ...), or `OAUTH`. */
  readonly type: string | undefined
  /** The envelope's `code` (`NOT_FOUND`, ...) or the OAuth `error` (`invalid_grant`, ...). */
  readonly code: string | undefined
  readonly title: string | undefined
  readonly detail: string | undefined
  /** `resolution.type` of the envelope (`RETRY_LATER`, `REAUTHENTICATE`, ...). */
  readonly resolution: string | undefined
  readonly suggestedUserMessage: string | undefined
  /** `links.about` of the envelope, the documentation of the error, when the service sent it. */
  readonly about: string | undefined
  /** Every item of the service's error envelope, as sent (the first gives `type`, `code`...), when an envelope came. */
  readonly errors: ReadonlyArray<ErrorItem> | undefined
  /** Where a refused redirect pointed (`UnexpectedStatus`). */
  readonly location: string | undefined
  /** The per-attempt timeout that ran out (`Timeout`), in milliseconds. */
  readonly timeout: number | undefined
  /** The argument refused (`InvalidArgument`). */
  readonly field: string | undefined
  /** The vehicle without a connection (`NotConnected`). */
  readonly vehicleId: string | undefined
  /** The method and the URL (without user info) of the request that failed, when one was sent. */
  readonly method: string | undefined
  readonly url: string | undefined
  /** `false` when no attempt wrote anything of the request (`Connection`: a connection never made; `Timeout`: one that ran out while connecting); else `undefined`. */
  readonly sent: boolean | undefined

  constructor(fields: ErrorFields, reason: Reason = "Unknown") {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause })
    this.reason = reason
    this.status = fields.status
    this.requestId = fields.requestId
    this.isRetryable = fields.isRetryable ?? false
    this.retryAfter = fields.retryAfter
    this.type = fields.type
    this.code = fields.code
    this.title = fields.title
    this.detail = fields.detail
    this.resolution = fields.resolution
    this.suggestedUserMessage = fields.suggestedUserMessage
    this.about = fields.about
    this.errors = fields.errors
    this.location = fields.location
    this.timeout = fields.timeout
    this.field = fields.field
    this.vehicleId = fields.vehicleId
    this.method = fields.method
    this.url = fields.url
    this.sent = fields.sent
  }

  /** Its name, message and fields (never its `cause`), for `JSON.stringify` and loggers. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, ...Object.fromEntries(Object.entries(this)) }
  }

  override get name(): string {
    return this.constructor.name
  }
}

/** Written out: inferred, the declarations would copy `Error`'s statics (`@types/node`'s V8 ones) into each class. */
interface ReasonClass<R extends Reason> {
  new(fields: ErrorFields): ConnectedVehicleError & { readonly reason: R }
}
/** A base class per reason: its `reason` is fixed (each is extended once, by `<reason>Error`). */
const reasonClass = <const R extends Reason>(reason: R): ReasonClass<R> =>
  class extends ConnectedVehicleError {
    declare readonly reason: R
    constructor(fields: ErrorFields) {
      super(fields, reason)
    }
  }

/**
 * 401: the token is missing, invalid or expired (also a token endpoint that refused the client: a wrong secret).
 * @example
 * ```ts
 * import { AuthenticationError } from "@connected-vehicle/sdk/ClientError"
 * const isAuthentication = (error: unknown) => error instanceof AuthenticationError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class AuthenticationError extends reasonClass("Authentication") {}

/**
 * 403: the token lacks a permission.
 * @example
 * ```ts
 * import { PermissionDeniedError } from "@connected-vehicle/sdk/ClientError"
 * const isPermissionDenied = (error: unknown) => error instanceof PermissionDeniedError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class PermissionDeniedError extends reasonClass("PermissionDenied") {}

/**
 * `BILLING`: the account's billing limit is reached.
 * @example
 * ```ts
 * import { BillingError } from "@connected-vehicle/sdk/ClientError"
 * const isBilling = (error: unknown) => error instanceof BillingError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class BillingError extends reasonClass("Billing") {}

/**
 * `COMPATIBILITY`: the vehicle does not support the request.
 * @example
 * ```ts
 * import { CompatibilityError } from "@connected-vehicle/sdk/ClientError"
 * const isCompatibility = (error: unknown) => error instanceof CompatibilityError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class CompatibilityError extends reasonClass("Compatibility") {}

/**
 * `CONNECTED_SERVICES_ACCOUNT`: the owner's account with the maker needs attention.
 * @example
 * ```ts
 * import { ConnectedServicesAccountError } from "@connected-vehicle/sdk/ClientError"
 * const isConnectedServicesAccount = (error: unknown) => error instanceof ConnectedServicesAccountError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class ConnectedServicesAccountError extends reasonClass("ConnectedServicesAccount") {}

/**
 * 429: too many requests; `retryAfter` is the `Retry-After` in milliseconds.
 * @example
 * ```ts
 * import { RateLimitError } from "@connected-vehicle/sdk/ClientError"
 * const isRateLimit = (error: unknown) => error instanceof RateLimitError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class RateLimitError extends reasonClass("RateLimit") {}

/**
 * `RESOURCE_NOT_FOUND` (404): no such vehicle, connection, webhook...
 * @example
 * ```ts
 * import { NotFoundError } from "@connected-vehicle/sdk/ClientError"
 * const isNotFound = (error: unknown) => error instanceof NotFoundError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class NotFoundError extends reasonClass("NotFound") {}

/**
 * `SERVER` (5xx, once the retries are spent), or a token endpoint that failed.
 * @example
 * ```ts
 * import { ServerError } from "@connected-vehicle/sdk/ClientError"
 * const isServer = (error: unknown) => error instanceof ServerError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class ServerError extends reasonClass("Server") {}

/**
 * `UPSTREAM`: the vehicle maker's systems failed.
 * @example
 * ```ts
 * import { UpstreamError } from "@connected-vehicle/sdk/ClientError"
 * const isUpstream = (error: unknown) => error instanceof UpstreamError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class UpstreamError extends reasonClass("Upstream") {}

/**
 * `VALIDATION` (400): the service refused the request as malformed.
 * @example
 * ```ts
 * import { ValidationError } from "@connected-vehicle/sdk/ClientError"
 * const isValidation = (error: unknown) => error instanceof ValidationError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class ValidationError extends reasonClass("Validation") {}

/**
 * `VEHICLE_STATE`: the vehicle cannot answer now (asleep, out of range...).
 * @example
 * ```ts
 * import { VehicleStateError } from "@connected-vehicle/sdk/ClientError"
 * const isVehicleState = (error: unknown) => error instanceof VehicleStateError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class VehicleStateError extends reasonClass("VehicleState") {}

/**
 * An error type of the service that this SDK does not know yet (see `type`).
 * @example
 * ```ts
 * import { UnrecognizedError } from "@connected-vehicle/sdk/ClientError"
 * const isUnrecognized = (error: unknown) => error instanceof UnrecognizedError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class UnrecognizedError extends reasonClass("Unrecognized") {}

/**
 * No complete response within the timeout (per attempt), retries spent; `timeout` in milliseconds; `sent: false` when it ran out while connecting.
 * @example
 * ```ts
 * import { TimeoutError } from "@connected-vehicle/sdk/ClientError"
 * const safeToSendAgain = (error: unknown) => error instanceof TimeoutError && error.sent === false
 * ```
 * @since 0.2.0
 * @category errors
 */
export class TimeoutError extends reasonClass("Timeout") {}

/**
 * The connection failed (refused, reset, dropped), once the retries are spent; `sent: false` when nothing of the request was written.
 * @example
 * ```ts
 * import { ConnectionError } from "@connected-vehicle/sdk/ClientError"
 * const safeToSendAgain = (error: unknown) => error instanceof ConnectionError && error.sent === false
 * ```
 * @since 0.2.0
 * @category errors
 */
export class ConnectionError extends reasonClass("Connection") {}

/**
 * An error status whose body is not the service's error envelope.
 * @example
 * ```ts
 * import { MalformedBodyError } from "@connected-vehicle/sdk/ClientError"
 * const isMalformedBody = (error: unknown) => error instanceof MalformedBodyError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class MalformedBodyError extends reasonClass("MalformedBody") {}

/**
 * A status the endpoint does not declare, or a redirect (`location`): the service never redirects.
 * @example
 * ```ts
 * import { UnexpectedStatusError } from "@connected-vehicle/sdk/ClientError"
 * const isUnexpectedStatus = (error: unknown) => error instanceof UnexpectedStatusError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class UnexpectedStatusError extends reasonClass("UnexpectedStatus") {}

/**
 * A successful response that does not match the contract, a batch without an entry for a requested path, or a value the client could not convert.
 * @example
 * ```ts
 * import { InvalidResponseError } from "@connected-vehicle/sdk/ClientError"
 * const isInvalidResponse = (error: unknown) => error instanceof InvalidResponseError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class InvalidResponseError extends reasonClass("InvalidResponse") {}

/**
 * The request could not be built (a configured root that is not a URL...): nothing was sent.
 * @example
 * ```ts
 * import { InvalidRequestError } from "@connected-vehicle/sdk/ClientError"
 * const isInvalidRequest = (error: unknown) => error instanceof InvalidRequestError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class InvalidRequestError extends reasonClass("InvalidRequest") {}

/**
 * No token could be had: not signed in, refresh token expired or refused (`invalid_grant`), token store failed.
 * @example
 * ```ts
 * import { CredentialsError } from "@connected-vehicle/sdk/ClientError"
 * const isCredentials = (error: unknown) => error instanceof CredentialsError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class CredentialsError extends reasonClass("Credentials") {}

/**
 * An OAuth error of the authorization server (`code` is its `error`).
 * @example
 * ```ts
 * import { OAuthError } from "@connected-vehicle/sdk/ClientError"
 * const isOAuth = (error: unknown) => error instanceof OAuthError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class OAuthError extends reasonClass("OAuth") {}

/**
 * An argument (or an option of the client) refused before anything was sent; `field` names it.
 * @example
 * ```ts
 * import { InvalidArgumentError } from "@connected-vehicle/sdk/ClientError"
 * const isInvalidArgument = (error: unknown) => error instanceof InvalidArgumentError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class InvalidArgumentError extends reasonClass("InvalidArgument") {}

/**
 * A migrated read without `userId` found no connection for the vehicle; `vehicleId` names it.
 * @example
 * ```ts
 * import { NotConnectedError } from "@connected-vehicle/sdk/ClientError"
 * const isNotConnected = (error: unknown) => error instanceof NotConnectedError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class NotConnectedError extends reasonClass("NotConnected") {}

/**
 * The call was cancelled: its `AbortSignal` fired or the client was closed (`cause` is the signal's reason).
 * @example
 * ```ts
 * import { AbortError } from "@connected-vehicle/sdk/ClientError"
 * const isAbort = (error: unknown) => error instanceof AbortError
 * ```
 * @since 0.2.0
 * @category errors
 */
export class AbortError extends reasonClass("Abort") {}

/** The class of every reason but `Unknown` (the base class): the one table. */
const classes: { readonly [R in Exclude<Reason, "Unknown">]: new(fields: ErrorFields) => ConnectedVehicleError } = {
  Authentication: AuthenticationError,
  PermissionDenied: PermissionDeniedError,
  Billing: BillingError,
  Compatibility: CompatibilityError,
  ConnectedServicesAccount: ConnectedServicesAccountError,
  RateLimit: RateLimitError,
  NotFound: NotFoundError,
  Server: ServerError,
  Upstream: UpstreamError,
  Validation: ValidationError,
  VehicleState: VehicleStateError,
  Unrecognized: UnrecognizedError,
  Timeout: TimeoutError,
  Connection: ConnectionError,
  MalformedBody: MalformedBodyError,
  UnexpectedStatus: UnexpectedStatusError,
  InvalidResponse: InvalidResponseError,
  InvalidRequest: InvalidRequestError,
  Credentials: CredentialsError,
  OAuth: OAuthError,
  InvalidArgument: InvalidArgumentError,
  NotConnected: NotConnectedError,
  Abort: AbortError
}

/**
 * The client error of an error of the Effect SDK (its reason decides the class).
 *
 * @example
 * ```ts
 * import { ConnectedVehicleError as CallError } from "@connected-vehicle/transport/ConnectedVehicleError"
 * import { fromEffectError, NotFoundError } from "@connected-vehicle/sdk/ClientError"
 * import { fromEnvelope } from "@connected-vehicle/schema/ServiceReason"
 * import { makeEnvelope } from "@connected-vehicle/schema/ServiceError"
 *
 * const reason = fromEnvelope(makeEnvelope("RESOURCE_NOT_FOUND", "No such webhook"), { status: 404 })
 * fromEffectError(new CallError({ reason })) instanceof NotFoundError // true
 * ```
 * @since 0.1.0
 * @category conversions
 */
export const fromEffectError = (error: unknown): ConnectedVehicleError => {
  if (error instanceof ConnectedVehicleError) return error
  const { fields, reason } = classify(error)
  return reason === "Unknown" ? new ConnectedVehicleError(fields) : new classes[reason](fields)
}

/**
 * The client error of a failed run: the first failure, an {@link AbortError}
 * when the run was only interrupted (`reason`: the signal's), else the defect.
 *
 * @example
 * ```ts
 * import { Cause } from "effect"
 * import { AbortError, fromCause } from "@connected-vehicle/sdk/ClientError"
 *
 * fromCause(Cause.interrupt(), "stopped") instanceof AbortError // true
 * ```
 * @since 0.1.0
 * @category conversions
 */
export const fromCause = (cause: Cause.Cause<unknown>, reason?: unknown): ConnectedVehicleError => {
  const failure = Cause.findErrorOption(cause)
  if (Option.isSome(failure)) return fromEffectError(failure.value)
  if (Cause.hasInterruptsOnly(cause)) {
    return new AbortError({ message: "The call was aborted", ...(reason === undefined ? {} : { cause: reason }) })
  }
  return fromEffectError(Cause.squash(cause))
}

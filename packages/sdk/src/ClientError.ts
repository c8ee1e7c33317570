/**
 * The errors of the Promise client (`@connected-vehicle/sdk/Client`): plain
 * classes for `instanceof`, each carrying `status`, `type`, `code` and
 * `requestId` when known, and the Effect error it was built from as `cause`.
 *
 * | class | when | from |
 * | --- | --- | --- |
 * | `ApiError` | the service answered with an error status | `ServiceError`, `MalformedErrorBody`, `UnexpectedStatus`, `OAuthError` |
 * | `BadRequestError` | 400 | |
 * | `AuthenticationError` | 401 (and 403) | |
 * | `PermissionDeniedError` | 403 (also an `AuthenticationError`) | |
 * | `NotFoundError` | 404 | |
 * | `ConflictError` | 409 (vehicle state, compatibility) | |
 * | `RateLimitError` | 429, with `retryAfterMillis` | |
 * | `ServerError` | 5xx, after the retries | |
 * | `TimeoutError` | no complete response within the timeout | `RequestTimeout` |
 * | `ConnectionError` | refused, reset, dropped | `TransportFailure` |
 * | `ResponseValidationError` | a 2xx body that is not what the contract says (or that the client could not convert) | `ResponseDecodeError`, `MissingBatchEntry` |
 * | `InvalidArgumentError` | bad input, nothing sent | `InvalidArgument`, `InvalidRequest` |
 * | `CredentialsError` | no token (user not signed in, refresh token expired or refused, token store failed) | `CredentialsError`, `TokenStoreError`, `MissingRedirectUri` |
 * | `NotConnectedError` | a migrated read's vehicle has no connection (no user to read it for) | `NotConnected` |
 * | `AbortError` | the call's `AbortSignal` fired, or the client was closed | interruption |
 *
 * A token request that failed is reported as what happened to it, not as a
 * `CredentialsError`: the token endpoint unreachable is a `ConnectionError`
 * (refused, reset) or a `TimeoutError`; its 401 / `invalid_client` (a wrong
 * client id or secret) an `AuthenticationError`; its 429 a `RateLimitError`;
 * its 5xx a `ServerError`. Their `cause` is the Effect `CredentialsError`
 * (whose own `cause` is the token request's error) and `tag` that error's
 * tag (`TransportFailure`, `RequestTimeout`, `OAuthError`, ...). Other
 * refusals of the token endpoint (`invalid_grant`: the user must sign in
 * again) stay a `CredentialsError` with the endpoint's `status` and `code`.
 *
 * No error carries a secret: the Effect errors they wrap hold none (URLs
 * without credentials, no header values), and the client's secret and the
 * tokens stay `Redacted`.
 *
 * @since 0.1.0
 */
import { Cause, Option } from "effect"
import { classify } from "./internal/errorTable.ts"
import type { Fields, Kind } from "./internal/errorTable.ts"

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
export interface ErrorFields {
  readonly message: string
  readonly status?: number | undefined
  readonly type?: string | undefined
  readonly code?: string | undefined
  readonly requestId?: string | undefined
  /** The `_tag` of the Effect error it was built from. */
  readonly tag?: string | undefined
  readonly cause?: unknown
}

/**
 * The base class of every error the Promise client throws.
 *
 * @example
 * ```ts
 * import { ConnectedVehicleError } from "@connected-vehicle/sdk/ClientError"
 *
 * const describe = (error: unknown) =>
 *   error instanceof ConnectedVehicleError ? `${error.name} ${error.status ?? ""} ${error.requestId ?? ""}` : String(error)
 * ```
 * @since 0.1.0
 * @category errors
 */
export class ConnectedVehicleError extends Error {
  /** The HTTP status, when a response (or its headers) arrived. */
  readonly status: number | undefined
  /** The error type of the service's envelope (`RESOURCE_NOT_FOUND`, `RATE_LIMIT`, ...), or of the OAuth body. */
  readonly type: string | undefined
  /** The envelope's `code` (`NOT_FOUND`, ...) or the OAuth `error` (`invalid_grant`, ...). */
  readonly code: string | undefined
  /** The request id of the response, for the service's support. */
  readonly requestId: string | undefined
  /** The `_tag` of the Effect error it was built from (`ResourceNotFoundError`, `RequestTimeout`, ...). */
  readonly tag: string | undefined

  constructor(fields: ErrorFields) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause })
    this.status = fields.status
    this.type = fields.type
    this.code = fields.code
    this.requestId = fields.requestId
    this.tag = fields.tag
  }

  override get name(): string {
    return this.constructor.name
  }
}

/**
 * Fields of an {@link ApiError}: those of the service's error envelope.
 *
 * @example
 * ```ts
 * import { type ApiErrorFields, NotFoundError } from "@connected-vehicle/sdk/ClientError"
 *
 * const fields: ApiErrorFields = { message: "404 NOT_FOUND: No such webhook", status: 404, title: "Not found", detail: "No such webhook" }
 * const error = new NotFoundError(fields)
 * ```
 * @since 0.1.0
 * @category models
 */
export interface ApiErrorFields extends ErrorFields {
  readonly status: number
  readonly title?: string | undefined
  readonly detail?: string | undefined
  readonly resolution?: string | undefined
  readonly suggestedUserMessage?: string | undefined
}

/**
 * The service answered with an error status. Subclasses by status:
 * {@link BadRequestError}, {@link AuthenticationError},
 * {@link PermissionDeniedError}, {@link NotFoundError}, {@link ConflictError},
 * {@link RateLimitError}, {@link ServerError}; other statuses are an
 * `ApiError` (see `type` for the service's error type).
 *
 * @example
 * ```ts
 * import { ApiError } from "@connected-vehicle/sdk/ClientError"
 *
 * const reauthenticate = (error: unknown) => error instanceof ApiError && error.resolution === "REAUTHENTICATE"
 * ```
 * @since 0.1.0
 * @category errors
 */
export class ApiError extends ConnectedVehicleError {
  declare readonly status: number
  readonly title: string | undefined
  readonly detail: string | undefined
  /** `resolution.type` of the envelope (`RETRY_LATER`, `REAUTHENTICATE`, ...). */
  readonly resolution: string | undefined
  readonly suggestedUserMessage: string | undefined

  constructor(fields: ApiErrorFields) {
    super(fields)
    this.title = fields.title
    this.detail = fields.detail
    this.resolution = fields.resolution
    this.suggestedUserMessage = fields.suggestedUserMessage
  }
}

/**
 * 400: the service refused the request as malformed (`VALIDATION`).
 *
 * @example
 * ```ts
 * import { BadRequestError } from "@connected-vehicle/sdk/ClientError"
 *
 * const isBadRequest = (error: unknown) => error instanceof BadRequestError
 * ```
 * @since 0.1.0
 * @category errors
 */
export class BadRequestError extends ApiError {}

/**
 * 401 (and, as {@link PermissionDeniedError}, 403): the token is missing,
 * invalid or lacks a permission (`AUTHENTICATION`).
 *
 * @example
 * ```ts
 * import { AuthenticationError } from "@connected-vehicle/sdk/ClientError"
 *
 * const mustSignInAgain = (error: unknown) => error instanceof AuthenticationError
 * ```
 * @since 0.1.0
 * @category errors
 */
export class AuthenticationError extends ApiError {}

/**
 * 403: the token lacks a permission (also an {@link AuthenticationError}).
 *
 * @example
 * ```ts
 * import { PermissionDeniedError } from "@connected-vehicle/sdk/ClientError"
 *
 * const forbidden = (error: unknown) => error instanceof PermissionDeniedError
 * ```
 * @since 0.1.0
 * @category errors
 */
export class PermissionDeniedError extends AuthenticationError {}

/**
 * 404: no such resource (`RESOURCE_NOT_FOUND`).
 *
 * @example
 * ```ts
 * import { NotFoundError } from "@connected-vehicle/sdk/ClientError"
 *
 * const orUndefined = <A>(p: Promise<A>) => p.catch((e) => e instanceof NotFoundError ? undefined : Promise.reject(e))
 * ```
 * @since 0.1.0
 * @category errors
 */
export class NotFoundError extends ApiError {}

/**
 * 409: the vehicle cannot answer now, or does not support the request
 * (`VEHICLE_STATE`, `COMPATIBILITY`, `CONNECTED_SERVICES_ACCOUNT`).
 *
 * @example
 * ```ts
 * import { ConflictError } from "@connected-vehicle/sdk/ClientError"
 *
 * const asleep = (error: unknown) => error instanceof ConflictError && error.type === "VEHICLE_STATE"
 * ```
 * @since 0.1.0
 * @category errors
 */
export class ConflictError extends ApiError {}

/**
 * 429: too many requests; `retryAfterMillis` is the parsed `Retry-After`.
 *
 * @example
 * ```ts
 * import { RateLimitError } from "@connected-vehicle/sdk/ClientError"
 *
 * const waitFor = (error: unknown) => error instanceof RateLimitError ? error.retryAfterMillis ?? 1_000 : 0
 * ```
 * @since 0.1.0
 * @category errors
 */
export class RateLimitError extends ApiError {
  readonly retryAfterMillis: number | undefined

  constructor(fields: ApiErrorFields & { readonly retryAfterMillis?: number | undefined }) {
    super(fields)
    this.retryAfterMillis = fields.retryAfterMillis
  }
}

/**
 * 5xx, once the retries are spent (`SERVER`, `UPSTREAM`).
 *
 * @example
 * ```ts
 * import { ServerError } from "@connected-vehicle/sdk/ClientError"
 *
 * const transient = (error: unknown) => error instanceof ServerError
 * ```
 * @since 0.1.0
 * @category errors
 */
export class ServerError extends ApiError {}

/**
 * No complete response within the timeout (per attempt), once the retries
 * are spent. `status` is set when the headers had arrived (a stalled body).
 *
 * @example
 * ```ts
 * import { TimeoutError } from "@connected-vehicle/sdk/ClientError"
 *
 * const after = (error: unknown) => error instanceof TimeoutError ? error.timeoutMillis : undefined
 * ```
 * @since 0.1.0
 * @category errors
 */
export class TimeoutError extends ConnectedVehicleError {
  readonly timeoutMillis: number | undefined

  constructor(fields: ErrorFields & { readonly timeoutMillis?: number | undefined }) {
    super(fields)
    this.timeoutMillis = fields.timeoutMillis
  }
}

/**
 * The connection failed (refused, reset, dropped mid-body), once the retries
 * are spent.
 *
 * @example
 * ```ts
 * import { ConnectionError } from "@connected-vehicle/sdk/ClientError"
 *
 * const offline = (error: unknown) => error instanceof ConnectionError
 * ```
 * @since 0.1.0
 * @category errors
 */
export class ConnectionError extends ConnectedVehicleError {}

/**
 * A successful response whose body (or headers) does not match the contract,
 * a batch without an entry for a requested path, or a decoded value the
 * Promise client could not convert to plain values (`tag`
 * `ResponseConversion`).
 *
 * @example
 * ```ts
 * import { ResponseValidationError } from "@connected-vehicle/sdk/ClientError"
 *
 * const report = (error: unknown) => error instanceof ResponseValidationError && error.requestId
 * ```
 * @since 0.1.0
 * @category errors
 */
export class ResponseValidationError extends ConnectedVehicleError {}

/**
 * An argument the service would refuse (or the client's own options), found
 * before anything is sent. `field` names it.
 *
 * @example
 * ```ts
 * import { InvalidArgumentError } from "@connected-vehicle/sdk/ClientError"
 *
 * const which = (error: unknown) => error instanceof InvalidArgumentError ? error.field : undefined
 * ```
 * @since 0.1.0
 * @category errors
 */
export class InvalidArgumentError extends ConnectedVehicleError {
  readonly field: string | undefined

  constructor(fields: ErrorFields & { readonly field?: string | undefined }) {
    super(fields)
    this.field = fields.field
  }
}

/**
 * No token could be had: the user has not signed in (`legacy.login` or
 * `legacy.setUserToken`), the refresh token expired or was refused
 * (`invalid_grant`: `status` and `code` are the token endpoint's answer), or
 * the token store failed. A token endpoint that could not be reached, that
 * refused the client's credentials or failed is reported as
 * `ConnectionError` / `TimeoutError`, `AuthenticationError` or `ServerError`
 * instead (see the module's notes).
 *
 * @example
 * ```ts
 * import { CredentialsError } from "@connected-vehicle/sdk/ClientError"
 *
 * const signInFirst = (error: unknown) => error instanceof CredentialsError
 * ```
 * @since 0.1.0
 * @category errors
 */
export class CredentialsError extends ConnectedVehicleError {}

/**
 * A migrated read (`client.v3.migration`) without `userId` looked the
 * vehicle's user up in the connections list and found no connection.
 * `vehicleId` names the vehicle.
 *
 * @example
 * ```ts
 * import { NotConnectedError } from "@connected-vehicle/sdk/ClientError"
 *
 * const unconnected = (error: unknown) => error instanceof NotConnectedError ? error.vehicleId : undefined
 * ```
 * @since 0.2.0
 * @category errors
 */
export class NotConnectedError extends ConnectedVehicleError {
  readonly vehicleId: string | undefined

  constructor(fields: ErrorFields & { readonly vehicleId?: string | undefined }) {
    super(fields)
    this.vehicleId = fields.vehicleId
  }
}

/**
 * The call was cancelled: its `AbortSignal` fired (the request was aborted
 * and its connection closed) or the client was closed. `cause` is the
 * signal's `reason`.
 *
 * @example
 * ```ts
 * import { AbortError } from "@connected-vehicle/sdk/ClientError"
 *
 * const cancelled = (error: unknown) => error instanceof AbortError
 * ```
 * @since 0.1.0
 * @category errors
 */
export class AbortError extends ConnectedVehicleError {}

/** Every class, by name: what `fromEffectError` builds from the error table's answer. */
const classes: { readonly [K in Kind]: new(fields: ApiErrorFields & Fields) => ConnectedVehicleError } = {
  ConnectedVehicleError,
  ApiError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ConnectionError,
  ResponseValidationError,
  InvalidArgumentError,
  CredentialsError,
  NotConnectedError,
  AbortError
}

/**
 * The client error of an Effect error of the SDK (its `_tag` decides).
 *
 * @example
 * ```ts
 * import { fromEffectError, NotFoundError } from "@connected-vehicle/sdk/ClientError"
 * import { fromEnvelope, makeEnvelope } from "@connected-vehicle/schema/ServiceError"
 *
 * const error = fromEffectError(fromEnvelope(makeEnvelope("RESOURCE_NOT_FOUND", "No such webhook"), { status: 404 }))
 * error instanceof NotFoundError // true
 * ```
 * @since 0.1.0
 * @category conversions
 */
export const fromEffectError = (error: unknown): ConnectedVehicleError => {
  if (error instanceof ConnectedVehicleError) return error
  const { fields, kind } = classify(error)
  // an `ApiError` kind always comes with its status (see the table)
  return new classes[kind](fields as ApiErrorFields & Fields)
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
    return new AbortError({ message: "The call was aborted", tag: "Interrupt", ...(reason === undefined ? {} : { cause: reason }) })
  }
  return fromEffectError(Cause.squash(cause))
}

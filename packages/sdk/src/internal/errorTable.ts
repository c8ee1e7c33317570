/**
 * Which client error class an Effect error of the SDK becomes, and with which
 * fields: one rule per `_tag`, the service's error envelopes by status. The
 * rules name classes by name (`kind`); `ClientError` builds them, so this
 * module holds no class and imports none.
 */
import type { ApiErrorFields, ErrorFields } from "../ClientError.ts"

/**
 * The name of a client error class.
 *
 * @internal
 */
export type Kind =
  | "ConnectedVehicleError"
  | "ApiError"
  | "BadRequestError"
  | "AuthenticationError"
  | "PermissionDeniedError"
  | "NotFoundError"
  | "ConflictError"
  | "RateLimitError"
  | "ServerError"
  | "TimeoutError"
  | "ConnectionError"
  | "ResponseValidationError"
  | "InvalidArgumentError"
  | "CredentialsError"
  | "NotConnectedError"
  | "AbortError"

/**
 * The fields of every class (each constructor reads its own).
 *
 * @internal
 */
export type Fields = ErrorFields & Partial<Omit<ApiErrorFields, keyof ErrorFields>> & {
  readonly retryAfterMillis?: number | undefined
  readonly timeoutMillis?: number | undefined
  readonly field?: string | undefined
  readonly vehicleId?: string | undefined
}

/** @internal */
export interface Classified {
  readonly kind: Kind
  readonly fields: Fields
}

type Tagged = { readonly _tag: string; readonly message: string } & Readonly<Record<string, unknown>>

type Base = ErrorFields & { readonly message: string; readonly tag: string; readonly cause: unknown }

const isTagged = (u: unknown): u is Tagged =>
  typeof u === "object" && u !== null && typeof (u as { _tag?: unknown })._tag === "string" &&
  typeof (u as { message?: unknown }).message === "string"

const str = (u: unknown): string | undefined => typeof u === "string" ? u : undefined
const num = (u: unknown): number | undefined => typeof u === "number" ? u : undefined

const statusKinds: Readonly<Record<number, Kind>> = {
  400: "BadRequestError",
  401: "AuthenticationError",
  403: "PermissionDeniedError",
  404: "NotFoundError",
  409: "ConflictError",
  429: "RateLimitError"
}

/** An error status: the class of the status (any 5xx a `ServerError`), else `ApiError`. */
const byStatus = (fields: Fields & { readonly status: number }): Classified => ({
  kind: fields.status >= 500 ? "ServerError" : Object.hasOwn(statusKinds, fields.status) ? statusKinds[fields.status]! : "ApiError",
  fields
})

const as = (kind: Kind) => (base: Base): Classified => ({ kind, fields: base })

/** A status, when the response had one; else the base class. */
const withStatus = (base: Base): Classified =>
  base.status === undefined ? { kind: "ConnectedVehicleError", fields: base } : byStatus({ ...base, status: base.status })

/**
 * The auth layer's `CredentialsError`: when a token request failed, its
 * `cause` is that request's error, and the failure is reported as its own
 * class (`cause` of the client error stays the `CredentialsError`).
 */
const fromCredentialsError = (base: Base, request: unknown): Classified => {
  if (!isTagged(request) || request._tag === "TokenStoreError") return { kind: "CredentialsError", fields: base }
  const tag = request._tag
  const message = `The token request failed: ${request.message}`
  const status = base.status
  switch (tag) {
    case "TransportFailure":
      return { kind: "ConnectionError", fields: { ...base, message, tag, status: undefined } }
    case "RequestTimeout":
      return { kind: "TimeoutError", fields: { ...base, message, tag, timeoutMillis: num(request["timeoutMillis"]) } }
  }
  const code = tag === "OAuthError" ? str(request["error"]) : str(request["code"])
  const fields = { ...base, message, tag, code, ...(tag === "OAuthError" ? { type: "OAUTH" } : {}) }
  if (code === "invalid_client" || status === 401) return { kind: "AuthenticationError", fields: { ...fields, status: status ?? 401 } }
  if (status !== undefined && (status === 429 || status >= 500)) return byStatus({ ...fields, status })
  return { kind: "CredentialsError", fields: { ...base, code } }
}

/** The rule of each `_tag` of the SDK's Effect errors. */
const rules: Readonly<Record<string, (base: Base, error: Tagged) => Classified>> = {
  RequestTimeout: (base, error) => ({ kind: "TimeoutError", fields: { ...base, timeoutMillis: num(error["timeoutMillis"]) } }),
  TransportFailure: as("ConnectionError"),
  ResponseDecodeError: as("ResponseValidationError"),
  MissingBatchEntry: as("ResponseValidationError"),
  InvalidArgument: (base, error) => ({ kind: "InvalidArgumentError", fields: { ...base, field: str(error["field"]) } }),
  InvalidRequest: as("InvalidArgumentError"),
  CredentialsError: (base, error) => fromCredentialsError(base, error["cause"]),
  TokenStoreError: as("CredentialsError"),
  MissingRedirectUri: as("CredentialsError"),
  NotConnected: (base, error) => ({ kind: "NotConnectedError", fields: { ...base, vehicleId: str(error["vehicleId"]) } }),
  OAuthError: (base, error) =>
    byStatus({ ...base, status: base.status ?? 400, code: str(error["error"]), type: "OAUTH", detail: str(error["errorDescription"]) }),
  MalformedErrorBody: withStatus,
  UnexpectedStatus: withStatus
}

/** A service error of the envelope (`type` and `code` set), whatever its tag. */
const fromEnvelope = (base: Base, error: Tagged): Classified => {
  if (base.status === undefined || typeof error["type"] !== "string") return { kind: "ConnectedVehicleError", fields: base }
  return byStatus({
    ...base,
    status: base.status,
    type: str(error["type"]),
    code: str(error["code"]),
    title: str(error["title"]),
    detail: str(error["detail"]),
    resolution: str(error["resolution"]),
    suggestedUserMessage: str(error["suggestedUserMessage"]),
    retryAfterMillis: num(error["retryAfterMillis"])
  })
}

/**
 * The class and fields of an Effect error of the SDK (its `_tag` decides);
 * anything else is an "Unexpected failure" with the value as `cause`.
 *
 * @internal
 */
export const classify = (error: unknown): Classified => {
  if (!isTagged(error)) return { kind: "ConnectedVehicleError", fields: { message: "Unexpected failure", cause: error } }
  const base: Base = {
    message: error.message,
    tag: error._tag,
    cause: error,
    status: num(error["status"]),
    requestId: str(error["requestId"])
  }
  return Object.hasOwn(rules, error._tag) ? rules[error._tag]!(base, error) : fromEnvelope(base, error)
}

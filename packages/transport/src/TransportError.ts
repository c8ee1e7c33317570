/**
 * Transport-level failures: everything that can go wrong between the SDK and
 * the service that is not an error envelope of section 7, and the
 * `InvalidArgument` of an argument refused before sending.
 *
 * Every error of a request that was sent carries the HTTP method and the URL
 * without credentials; the ones that saw a response carry its status and
 * request id. None of them carries a header value or a token.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"

const context = {
  method: Schema.String,
  url: Schema.String
}

// status and request id, when the response headers had arrived before the
// failure (a stalled or dropped body)
const headersSeen = {
  status: Schema.optionalKey(Schema.Int),
  requestId: Schema.optionalKey(Schema.String)
}

const responseContext = {
  ...context,
  status: Schema.Int,
  requestId: Schema.optionalKey(Schema.String)
}

/**
 * A non-2xx response whose body is not the section 7 envelope (not JSON, or
 * JSON of another shape).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { MalformedErrorBody } from "@connected-vehicle/transport/TransportError"
 *
 * const log = (e: MalformedErrorBody) => Effect.logWarning(e.message)
 * ```
 * @since 0.1.0
 */
export class MalformedErrorBody extends Schema.TaggedError<MalformedErrorBody>()("MalformedErrorBody", {
  ...responseContext,
  description: Schema.String
}) {
  override get message() {
    return `${this.status} with an error body that is not the error envelope (${this.method} ${this.url}): ${this.description}`
  }
}

/**
 * A status the endpoint does not declare and that carries no error envelope
 * (for example a 1xx), or a redirect: the service never redirects, so the
 * SDK follows none, whatever the `HttpClient` (`location` names where it
 * pointed, without credentials).
 *
 * @example
 * ```ts
 * import type { UnexpectedStatus } from "@connected-vehicle/transport/TransportError"
 *
 * const redirectedTo = (e: UnexpectedStatus) => e.status >= 300 && e.status < 400 ? e.location : undefined
 * ```
 * @since 0.1.0
 */
export class UnexpectedStatus extends Schema.TaggedError<UnexpectedStatus>()("UnexpectedStatus", {
  ...responseContext,
  location: Schema.optionalKey(Schema.String)
}) {
  override get message() {
    return this.location === undefined
      ? `Unexpected status ${this.status} (${this.method} ${this.url})`
      : `Redirect ${this.status} to ${this.location} refused (${this.method} ${this.url}): the service never redirects`
  }
}

/**
 * A successful response whose body does not match the endpoint's schema
 * (including malformed JSON).
 *
 * @example
 * ```ts
 * import type { ResponseDecodeError } from "@connected-vehicle/transport/TransportError"
 *
 * const where = (e: ResponseDecodeError) => `${e.method} ${e.url}`
 * ```
 * @since 0.1.0
 */
export class ResponseDecodeError extends Schema.TaggedError<ResponseDecodeError>()("ResponseDecodeError", {
  ...responseContext,
  description: Schema.String
}) {
  override get message() {
    return `Response body of ${this.method} ${this.url} (${this.status}) does not match its schema: ${this.description}`
  }
}

/**
 * The whole exchange (headers and body) did not finish within the timeout.
 * When the headers had arrived (a stalled body), `status` and `requestId`
 * are those of the response.
 *
 * @example
 * ```ts
 * import type { RequestTimeout } from "@connected-vehicle/transport/TransportError"
 *
 * const after = (e: RequestTimeout) => e.timeoutMillis
 * ```
 * @since 0.1.0
 */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", {
  ...context,
  ...headersSeen,
  timeoutMillis: Schema.Number
}) {
  override get message() {
    return `${this.method} ${this.url} did not complete within ${this.timeoutMillis} ms`
  }
}

/**
 * The connection failed (refused, reset, dropped mid-body). When it failed
 * while reading the body, `status` and `requestId` are those of the response.
 *
 * @example
 * ```ts
 * import type { TransportFailure } from "@connected-vehicle/transport/TransportError"
 *
 * const why = (e: TransportFailure) => e.description
 * ```
 * @since 0.1.0
 */
export class TransportFailure extends Schema.TaggedError<TransportFailure>()("TransportFailure", {
  ...context,
  ...headersSeen,
  description: Schema.String
}) {
  override get message() {
    return `${this.method} ${this.url} failed: ${this.description}`
  }
}

/**
 * The request could not be built for a reason other than its arguments: a
 * URL that is not valid (a configured root that is not a URL), a body the
 * `HttpClient` cannot encode. Nothing was sent. An argument refused before
 * sending is an `InvalidArgument` (see {@link TransportError}).
 *
 * @example
 * ```ts
 * import type { InvalidRequest } from "@connected-vehicle/transport/TransportError"
 *
 * const why = (e: InvalidRequest) => e.description
 * ```
 * @since 0.1.0
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  method: Schema.String,
  path: Schema.String,
  description: Schema.String
}) {
  override get message() {
    return `Invalid request ${this.method} ${this.path}: ${this.description}`
  }
}

/**
 * No bearer credential could be obtained (the token store or the token
 * endpoint failed). `reason` never contains a token value; `cause`, when a
 * token request or the token store failed, is that error itself (a
 * `TransportFailure`, `RequestTimeout`, `OAuthError`, service error or
 * `TokenStoreError`), so that a caller can tell an unreachable token endpoint
 * from a refused client.
 *
 * @example
 * ```ts
 * import { CredentialsError } from "@connected-vehicle/transport/TransportError"
 *
 * new CredentialsError({ reason: "refresh token expired" })
 * ```
 * @since 0.1.0
 */
export class CredentialsError extends Schema.TaggedError<CredentialsError>()("CredentialsError", {
  reason: Schema.String,
  status: Schema.optionalKey(Schema.Int),
  cause: Schema.optionalKey(Schema.Unknown)
}) {
  override get message() {
    return `No credential available: ${this.reason}`
  }
}

/**
 * Every failure of the transport that is not an error envelope of the service,
 * including `InvalidArgument` (`@connected-vehicle/schema/InvalidArgument`,
 * the one error of every argument refused before sending, by the SDK's
 * clients or by the transport): a path parameter that is not an
 * `Identifier` (`""`, `.`, `..`, a `/` or a control character), or a
 * params, query, headers or payload value its schema rejects.
 *
 * @example
 * ```ts
 * import type { TransportError } from "@connected-vehicle/transport/TransportError"
 *
 * const retriable = (e: TransportError) => e._tag === "TransportFailure" || e._tag === "RequestTimeout"
 * ```
 * @since 0.1.0
 */
export type TransportError =
  | MalformedErrorBody
  | UnexpectedStatus
  | ResponseDecodeError
  | RequestTimeout
  | TransportFailure
  | InvalidRequest
  | InvalidArgument
  | CredentialsError

/**
 * Schema of {@link TransportError}.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { TransportError } from "@connected-vehicle/transport/TransportError"
 *
 * const isTransportError = Schema.is(TransportError)
 * ```
 * @since 0.1.0
 */
export const TransportError = Schema.Union([
  MalformedErrorBody,
  UnexpectedStatus,
  ResponseDecodeError,
  RequestTimeout,
  TransportFailure,
  InvalidRequest,
  InvalidArgument,
  CredentialsError
])

/**
 * An OAuth-style error of the authorization server (`{ error, error_description }`,
 * RFC 6749): invalid grant, invalid client...
 *
 * @example
 * ```ts
 * import type { OAuthError } from "@connected-vehicle/transport/TransportError"
 *
 * const mustReauthenticate = (e: OAuthError) => e.error === "invalid_grant"
 * ```
 * @since 0.1.0
 */
export class OAuthError extends Schema.TaggedError<OAuthError>()("OAuthError", {
  ...responseContext,
  error: Schema.String,
  errorDescription: Schema.optionalKey(Schema.String)
}) {
  override get message() {
    return `${this.status} ${this.error}${this.errorDescription === undefined ? "" : `: ${this.errorDescription}`} (${this.method} ${this.url})`
  }
}

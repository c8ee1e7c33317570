/**
 * The one error of a failed call: a `ConnectedVehicleError` whose `reason`
 * says what happened, modelled on Effect's `AiError`. The reason is either
 * what the service answered (a `ServiceReason` of
 * `@connected-vehicle/schema/ServiceReason`: `Authentication`, `RateLimit`,
 * `NotFound`, ...) or what went wrong between the SDK and the service
 * (`Timeout`, `Connection`, `MalformedBody`, `UnexpectedStatus`,
 * `InvalidResponse`, `InvalidRequest`, `Credentials`, `OAuth`).
 *
 * Every reason carries `isRetryable` (the transport's retry policy asks it),
 * and, where known, the HTTP status, the request id, the method, the URL
 * without credentials and `retryAfter`, the delay of the `Retry-After` the
 * service sent with an error status (a `Duration`; the transport waits at
 * least that long before retrying). None of them carries a header value or
 * a token. Every reason's `message` is escaped and at most 2,048
 * characters (`boundedMessage` of `@connected-vehicle/schema/Message`).
 *
 * An argument refused before sending is not a failed call: it is an
 * `InvalidArgument` (`@connected-vehicle/schema/InvalidArgument`).
 *
 * @since 0.2.0
 */
import { Duration, Predicate, Schema } from "effect"
import { boundedMessage } from "@connected-vehicle/schema/Message"
import { isRetryableStatus, ServiceReason } from "@connected-vehicle/schema/ServiceReason"
import { reasonMessage } from "./internal/controls.ts"
import { withoutCredentials } from "./internal/url.ts"

const context = {
  method: Schema.String,
  url: Schema.String
}

// the delay of the `Retry-After` of an error response, when it sent a valid one
const retryAfter = Schema.optionalKey(Schema.Duration)

// status, request id and `Retry-After`, when the response headers had
// arrived before the failure (a stalled or dropped body)
const headersSeen = {
  status: Schema.optionalKey(Schema.Int),
  requestId: Schema.optionalKey(Schema.String),
  retryAfter
}

const responseContext = {
  ...context,
  status: Schema.Int,
  requestId: Schema.optionalKey(Schema.String),
  retryAfter
}

/**
 * The exchange (headers and body) did not finish within the per-attempt
 * timeout, or within what was left of the call's budget (`maxElapsed`):
 * `timeout` is the one that ran out, as configured. When the headers had
 * arrived (a stalled body), `status`, `requestId` and `retryAfter` are
 * those of the response. `sent` is `false` when no attempt of the call
 * wrote anything of the request (it ran out while the connection or its TLS
 * handshake was still being made, as the `HttpClient` tells through
 * `@connected-vehicle/transport/RequestNotSent`, or while waiting for the
 * transport's `admit`), absent when one may have reached the service.
 * Retryable (a request that is not idempotent only when `sent` is `false`,
 * or when the retry policy allows it).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { Timeout } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * const after = (reason: Timeout) => Duration.toMillis(reason.timeout)
 * const safeToSendAgain = (reason: Timeout) => reason.sent === false
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class Timeout extends Schema.TaggedError<Timeout>()("Timeout", {
  ...context,
  ...headersSeen,
  timeout: Schema.Duration,
  sent: Schema.optionalKey(Schema.Boolean)
}) {
  get isRetryable(): boolean {
    return true
  }
  override get message() {
    return reasonMessage(this, () => `${this.method} ${this.url} did not complete within ${Duration.toMillis(this.timeout)} ms`)
  }
}

/**
 * The connection failed (refused, reset, dropped mid-body). When it failed
 * while reading the body, `status`, `requestId` and `retryAfter` are those
 * of the response. `sent` is `false` when no attempt of the call wrote
 * anything of the request (the connection was never made, or its TLS
 * handshake failed: see `@connected-vehicle/transport/RequestNotSent`),
 * absent when one may have reached the service. Retryable (a request that is not idempotent only
 * when `sent` is `false`, or when the retry policy allows it).
 *
 * @example
 * ```ts
 * import type { Connection } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * const why = (reason: Connection) => reason.description
 * const safeToSendAgain = (reason: Connection) => reason.sent === false
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class Connection extends Schema.TaggedError<Connection>()("Connection", {
  ...context,
  ...headersSeen,
  description: Schema.String,
  sent: Schema.optionalKey(Schema.Boolean),
  /** What failed, when the request was stopped before the HTTP client (an `admit` step's own error: `@connected-vehicle/fleet`'s `FleetError`, say). */
  cause: Schema.optionalKey(Schema.Unknown)
}) {
  get isRetryable(): boolean {
    return true
  }
  override get message() {
    return reasonMessage(this, () => `${this.method} ${this.url} failed: ${this.description}`)
  }
}

/**
 * A 4xx response of a status the service gives no meaning (a 418, a 422...:
 * not one of `errorOfStatus` of `@connected-vehicle/schema/ServiceError`)
 * whose body is not the section 7 envelope: empty, not JSON, JSON of
 * another shape, unreadable or over the client's size limit (`description`
 * says which; never the body itself). Any other error status without the
 * envelope is the reason of its status (`fromStatus` of
 * `@connected-vehicle/schema/ServiceReason`: a 401 `Authentication`, a 404
 * `NotFound`, a 5xx `Server` or `Upstream`...). Retryable when its status
 * is (408, 500, 502, 503, 504).
 *
 * @example
 * ```ts
 * import type { MalformedBody } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * const status = (reason: MalformedBody) => reason.status
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class MalformedBody extends Schema.TaggedError<MalformedBody>()("MalformedBody", {
  ...responseContext,
  description: Schema.String
}) {
  get isRetryable(): boolean {
    return isRetryableStatus(this.status)
  }
  override get message() {
    return reasonMessage(this, () => `${this.status} with an error body that is not the error envelope (${this.method} ${this.url}): ${this.description}`)
  }
}

/**
 * A status the endpoint does not declare and that carries no error envelope
 * (for example a 1xx), or a redirect: the service never redirects, so the
 * SDK follows none, whatever the `HttpClient` (`location` names where it
 * pointed, without credentials). Not retryable.
 *
 * @example
 * ```ts
 * import type { UnexpectedStatus } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * const redirectedTo = (reason: UnexpectedStatus) => reason.location
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class UnexpectedStatus extends Schema.TaggedError<UnexpectedStatus>()("UnexpectedStatus", {
  ...responseContext,
  location: Schema.optionalKey(Schema.String)
}) {
  get isRetryable(): boolean {
    return false
  }
  override get message() {
    return reasonMessage(this, () =>
      this.location === undefined
        ? `Unexpected status ${this.status} (${this.method} ${this.url})`
        : `Redirect ${this.status} to ${this.location} refused (${this.method} ${this.url}): the service never redirects`)
  }
}

/**
 * A successful response whose body the endpoint cannot use: not UTF-8, over
 * the client's size limit, not JSON, or not matching the endpoint's schema.
 * `description` says which: the first three are written "the body is ...",
 * the last is the schema's message. Not retryable.
 *
 * @example
 * ```ts
 * import type { InvalidResponse } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * const where = (reason: InvalidResponse) => `${reason.method} ${reason.url}`
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class InvalidResponse extends Schema.TaggedError<InvalidResponse>()("InvalidResponse", {
  ...responseContext,
  description: Schema.String
}) {
  get isRetryable(): boolean {
    return false
  }
  override get message() {
    // a body refused before the schema (not UTF-8, too large, not JSON) says so, not that it does not match
    return reasonMessage(this, () =>
      this.description.startsWith("the body ")
        ? `Response body of ${this.method} ${this.url} (${this.status}) refused: ${this.description}`
        : `Response body of ${this.method} ${this.url} (${this.status}) does not match its schema: ${this.description}`)
  }
}

/**
 * The request could not be built for a reason other than its arguments: a
 * URL that is not valid (a configured root that is not a URL), a body the
 * `HttpClient` cannot encode. Nothing was sent. Not retryable.
 *
 * @example
 * ```ts
 * import type { InvalidRequest } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * const why = (reason: InvalidRequest) => reason.description
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  method: Schema.String,
  path: Schema.String,
  description: Schema.String
}) {
  get isRetryable(): boolean {
    return false
  }
  override get message() {
    return reasonMessage(this, () => `Invalid request ${this.method} ${this.path}: ${this.description}`)
  }
}

/**
 * No bearer credential could be obtained (the token store or the token
 * endpoint failed). `description` never contains a token value; `cause`,
 * when a token request or the token store failed, is that error itself (a
 * `ConnectedVehicleError` of the token request, or a `TokenStoreError`), so
 * that a caller can tell an unreachable token endpoint from a refused
 * client; `status` and `retryAfter` are the token request's, when it was
 * answered (`retryAfter` what is left of it when the renewal waits it out
 * past the call's wait for the credential); `timeout` the limit the call's wait for the credential ran out
 * at (the attempt's timeout, or what was left of the call's budget), when
 * that is what failed; `callSent` is `true` when an attempt of the call may
 * have written the call's own request before its credential failed (a 401
 * answered it, then its refresh failed), absent when none did, whatever the
 * token request did (its own `sent` is in `cause`). Retryable only when `transient`: the token store
 * could not be read before any token request was sent (a database blip,
 * which the call's retry policy retries as it retries a network failure).
 * Otherwise never retried by the call: a token request has its own retries
 * where sending it again is safe (`@connected-vehicle/auth`'s
 * `TokenExchange`), and a call's retry would start another renewal, sending
 * its refresh token again; a granted token that could not be stored is not
 * asked for again, as its refresh token was used.
 *
 * @example
 * ```ts
 * import { Credentials } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * new Credentials({ description: "refresh token expired" })
 * new Credentials({ description: "TokenStoreError: connection reset", transient: true }).isRetryable // true
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class Credentials extends Schema.TaggedError<Credentials>()("Credentials", {
  description: Schema.String,
  status: Schema.optionalKey(Schema.Int),
  /**
   * The `Retry-After` of the failed token request's answer, when it sent
   * one; what is left of it when a renewal waits it out past the call's wait.
   */
  retryAfter,
  /** The limit the wait for the credential ran out at (the attempt's timeout, or the call's budget), when that is what failed. */
  timeout: Schema.optionalKey(Schema.Duration),
  cause: Schema.optionalKey(Schema.Unknown),
  /** The token store failed for a moment before any token request was sent: retryable. */
  transient: Schema.optionalKey(Schema.Boolean),
  /** `true` when an attempt of the call may have written the call's own request (set by the transport on the call's failure). */
  callSent: Schema.optionalKey(Schema.Literal(true))
}) {
  get isRetryable(): boolean {
    return this.transient === true
  }
  override get message() {
    return reasonMessage(this, () => `No credential available: ${this.description}`)
  }
}

/**
 * An OAuth-style error of the authorization server (`{ error, error_description }`,
 * RFC 6749): invalid grant, invalid client... Retryable when its status is.
 *
 * @example
 * ```ts
 * import type { OAuth } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * const mustReauthenticate = (reason: OAuth) => reason.error === "invalid_grant"
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class OAuth extends Schema.TaggedError<OAuth>()("OAuth", {
  ...responseContext,
  error: Schema.String,
  errorDescription: Schema.optionalKey(Schema.String)
}) {
  get isRetryable(): boolean {
    return isRetryableStatus(this.status)
  }
  override get message() {
    return reasonMessage(this, () => `${this.status} ${this.error}${this.errorDescription === undefined ? "" : `: ${this.errorDescription}`} (${this.method} ${this.url})`)
  }
}

/**
 * Every reason of a failed call: what the service answered
 * (`ServiceReason`), or what went wrong on the way.
 *
 * @example
 * ```ts
 * import type { Reason } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * const offline = (reason: Reason) => reason._tag === "Connection" || reason._tag === "Timeout"
 * ```
 * @since 0.2.0
 * @category models
 */
export type Reason =
  | ServiceReason
  | Timeout
  | Connection
  | MalformedBody
  | UnexpectedStatus
  | InvalidResponse
  | InvalidRequest
  | Credentials
  | OAuth

/**
 * Schema of {@link Reason}.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Reason } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * const isReason = Schema.is(Reason)
 * ```
 * @since 0.2.0
 * @category schemas
 */
export const Reason = Schema.Union([
  ...ServiceReason.members,
  Timeout,
  Connection,
  MalformedBody,
  UnexpectedStatus,
  InvalidResponse,
  InvalidRequest,
  Credentials,
  OAuth
])

/**
 * The tag of every {@link Reason}.
 *
 * @example
 * ```ts
 * import type { ReasonTag } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * const tag: ReasonTag = "RateLimit"
 * ```
 * @since 0.2.0
 * @category models
 */
export type ReasonTag = Reason["_tag"]

/**
 * The error of a failed call. `reason` says what happened; `isRetryable`,
 * `retryAfter`, `status` and `requestId` are the reason's. Match a reason
 * with `Effect.catchReason`:
 *
 * @example
 * ```ts
 * import { Duration, Effect } from "effect"
 * import { ConnectedVehicleError, Timeout } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * const call = Effect.fail(new ConnectedVehicleError({
 *   reason: new Timeout({ method: "GET", url: "https://api.example.test/v3/vehicles", timeout: Duration.seconds(5) })
 * }))
 * const handled = call.pipe(
 *   Effect.catchReason("ConnectedVehicleError", "Timeout", (reason) => Effect.succeed(reason.url))
 * )
 * ```
 * @since 0.2.0
 * @category errors
 */
export class ConnectedVehicleError extends Schema.TaggedError<ConnectedVehicleError>()("ConnectedVehicleError", {
  reason: Reason
}) {
  /** The reason itself (its own `cause`, for a `Credentials` reason, is the token request's error; for a `Connection` reason, an `admit` step's error). */
  override get cause(): Reason {
    return this.reason
  }
  /** Whether another attempt may succeed (decided by the reason). */
  get isRetryable(): boolean {
    return this.reason.isRetryable
  }
  /** The delay of the `Retry-After` the service sent with an error status (a 429, a 503...). */
  get retryAfter(): Duration.Duration | undefined {
    return "retryAfter" in this.reason ? this.reason.retryAfter : undefined
  }
  /** The HTTP status, when a response (or its head) arrived. */
  get status(): number | undefined {
    return "status" in this.reason ? this.reason.status : undefined
  }
  /** The request id of the response, for the service's support. */
  get requestId(): string | undefined {
    return "requestId" in this.reason ? this.reason.requestId : undefined
  }
  /**
   * The reason's message. Every reason's message is escaped and bounded by
   * `boundedMessage` (`@connected-vehicle/schema/Message`): every character
   * a terminal acts on (C0 and C1 controls, DEL, bidirectional formatting: a
   * server's text may hold them) written as an escape (`\u001b`, `\n`), and
   * at most 2,048 characters, a longer text cut (never inside an escape or a
   * surrogate pair) before `… (N more characters)`; so is this one (the rule
   * changes nothing given again, and bounds a reason made with another
   * `message`). The reason's fields keep the whole text as the server sent
   * it (its secrets taken out).
   */
  override get message(): string {
    return boundedMessage(this.reason.message)
  }
}

/**
 * Whether a value is a {@link ConnectedVehicleError}.
 *
 * @example
 * ```ts
 * import { isConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * isConnectedVehicleError(new Error("x")) // false
 * ```
 * @since 0.2.0
 * @category guards
 */
export const isConnectedVehicleError = (u: unknown): u is ConnectedVehicleError =>
  Predicate.isTagged(u, "ConnectedVehicleError") && u instanceof ConnectedVehicleError

/**
 * The reason of a {@link ConnectedVehicleError}, any other value as it is
 * (an `InvalidArgument`, ...): for logs and tests that look at what
 * happened. In an `Effect`, `Effect.unwrapReason("ConnectedVehicleError")`
 * does the same to the error channel.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * const tagOfFailure = <A, E, R>(call: Effect.Effect<A, E, R>) => Effect.map(Effect.flip(call), (e) => reasonOf(e))
 * ```
 * @since 0.2.0
 * @category accessors
 */
export const reasonOf = <E>(error: E): E extends ConnectedVehicleError ? Reason : E =>
  (isConnectedVehicleError(error) ? error.reason : error) as E extends ConnectedVehicleError ? Reason : E

/**
 * A URL as the SDK's errors and log lines show it: user info removed and the
 * value of any query or fragment parameter named like a credential
 * (`access_token`, `client_secret`, `code`, `state`, `api_key`, ...)
 * replaced with `<redacted>`. For code that builds a reason's `url` itself.
 *
 * @example
 * ```ts
 * import { redactUrl } from "@connected-vehicle/transport/ConnectedVehicleError"
 *
 * redactUrl("https://user:pw@example.com/cb?code=abc&page=2") // "https://example.com/cb?code=<redacted>&page=2"
 * ```
 * @since 0.2.0
 * @category utils
 */
export const redactUrl = (url: string): string => withoutCredentials(url)

/**
 * What an `HttpClient` says of a send failure that came before any byte of
 * the request was written: the connection was never made (refused,
 * unreachable, no address, a connect timeout) or its TLS handshake failed.
 * The transport's `Connection` reason of such a failure says `sent: false`,
 * so the caller knows nothing reached the service: a request that is not
 * idempotent (a POST, a token request) is retried like a GET, and a refresh
 * token it carried is known unused.
 *
 * An `HttpClient` tells the transport by giving a {@link RequestNotSent} as
 * the `cause` of its `TransportError`; `UndiciHttpClient` does (it knows
 * whether the request reached a socket). For any other client (Effect's
 * `FetchHttpClient`, `NodeHttpClient`), the transport reads the Node.js
 * error codes along the cause's chain ({@link isNotSent}). An exchange
 * interrupted before it wrote anything (the transport's attempt timeout ran
 * out while connecting) is told with {@link markNotSent}: that attempt's
 * `Timeout` says `sent: false`.
 *
 * @since 0.2.0
 */

import type { HttpClientRequest } from "effect/http"
import { ConnectedVehicleError, Connection, Timeout } from "./ConnectedVehicleError.ts"
import * as NotSent from "./internal/notSent.ts"

/**
 * The cause of a `TransportError` for a request of which nothing was
 * written; `cause` is the client's own error, whose message it keeps.
 *
 * @example
 * ```ts
 * import { HttpClientError, HttpClientRequest } from "effect/http"
 * import { RequestNotSent } from "@connected-vehicle/transport/RequestNotSent"
 *
 * const refused = (request: HttpClientRequest.HttpClientRequest, cause: Error) =>
 *   new HttpClientError.HttpClientError({
 *     reason: new HttpClientError.TransportError({ request, cause: new RequestNotSent(cause), description: cause.message })
 *   })
 * ```
 * @since 0.2.0
 * @category models
 */
export class RequestNotSent extends Error {
  override readonly name = "RequestNotSent"
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause })
  }
}

/**
 * The cause of a `TransportError` for a request that may have been written,
 * whatever the client's own error says (a dispatcher that retried on a new
 * connection after the request was written, and whose retry could not
 * connect); `cause` is the client's own error, whose message it keeps.
 * {@link isNotSent} stops at it.
 *
 * @example
 * ```ts
 * import { isNotSent, RequestMaybeSent } from "@connected-vehicle/transport/RequestNotSent"
 *
 * const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED", syscall: "connect" })
 * isNotSent(new RequestMaybeSent(refused)) // false
 * ```
 * @since 0.2.0
 * @category models
 */
export class RequestMaybeSent extends Error {
  override readonly name = "RequestMaybeSent"
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause })
  }
}

// codes that only a connection never made can have: a failed DNS lookup,
// undici's connect timeout (an unreachable address, `EHOSTUNREACH`, can come
// from a connection in use too: it counts only from `connect`)
const connectCodes = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME", "UND_ERR_CONNECT_TIMEOUT"])

// OpenSSL's and Node's codes of a TLS handshake that failed: a certificate
// refused, an alert only a handshake sends. Not a record the client cannot
// read (`wrong version number`, `packet length too long`: a server that does
// not speak TLS, but also bytes injected into a connection in use)
const handshakeCodes =
  /^(CERT_\w+|UNABLE_TO_\w+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_CERT_ALTNAME_INVALID|ERR_SSL_UNSUPPORTED_PROTOCOL|ERR_SSL_\w*HANDSHAKE_FAILURE|ERR_SSL_TLSV1_ALERT_(PROTOCOL_VERSION|UNKNOWN_CA))$/

const notSentError = (error: object): boolean => {
  if (error instanceof RequestNotSent) return true
  const { code, syscall } = error as { readonly code?: unknown; readonly syscall?: unknown }
  if (typeof code !== "string") return false
  // a failed `connect` or lookup, whatever its code (ECONNREFUSED, EHOSTUNREACH, EACCES...)
  return syscall === "connect" || syscall === "getaddrinfo" || connectCodes.has(code) || handshakeCodes.test(code)
}

/**
 * Whether the cause of a send failure says that nothing of the request was
 * written: a {@link RequestNotSent} along its `cause` chain (before any
 * {@link RequestMaybeSent}), or a Node.js
 * error of a connection that was never made (a failed `connect`: refused,
 * unreachable; an unknown name, a connect timeout) or of a TLS handshake
 * that failed on a certificate. Anything else may have reached the service
 * (a client that cannot tell a server that does not speak TLS from bytes
 * injected later says `sent` only through {@link RequestNotSent}).
 *
 * @example
 * ```ts
 * import { isNotSent } from "@connected-vehicle/transport/RequestNotSent"
 *
 * isNotSent(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED", syscall: "connect" })) // true
 * isNotSent(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", syscall: "read" })) // false
 * isNotSent(Object.assign(new Error("read EHOSTUNREACH"), { code: "EHOSTUNREACH", syscall: "read" })) // false
 * ```
 * @since 0.2.0
 * @category guards
 */
export const isNotSent = (cause: unknown): boolean => {
  // a bounded walk: a cause chain may loop
  for (let i = 0, error = cause; i < 8 && typeof error === "object" && error !== null; i++) {
    if (error instanceof RequestMaybeSent) return false
    if (notSentError(error)) return true
    // an `AggregateError` of every address tried (Node's "happy eyeballs"): not sent when none was
    const errors = (error as { readonly errors?: unknown }).errors
    if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => typeof e === "object" && e !== null && notSentError(e))) return true
    error = (error as { readonly cause?: unknown }).cause
  }
  return false
}

/**
 * Notes that the exchange of `request` (the very request the client was
 * given) was interrupted before anything of it was written: an `HttpClient`
 * calls it from its interruption's finalizer. The transport's `Timeout` of
 * an attempt whose request is marked says `sent: false` (unless another
 * attempt of the call may have reached the service); without a mark, a
 * timed-out attempt may have sent its request. A mark speaks for one
 * attempt: the transport clears it whenever it hands the request to the
 * client again; and a request that an exchange started writing (as an
 * `UndiciHttpClient` notes with {@link markStarted}, a retry of the same
 * request within one attempt included) is never marked. The transport knows
 * only the request it handed over: a `transformClient` that replaces it
 * (`HttpClient.mapRequest`) makes such a timeout count as possibly sent.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { HttpClientRequest } from "effect/http"
 * import { markNotSent } from "@connected-vehicle/transport/RequestNotSent"
 *
 * // the finalizer of an exchange that knows whether it started writing
 * const onInterrupt = (request: HttpClientRequest.HttpClientRequest, started: () => boolean) =>
 *   Effect.sync(() => {
 *     if (!started()) markNotSent(request)
 *   })
 * ```
 * @since 0.2.0
 * @category marks
 */
export const markNotSent: (request: HttpClientRequest.HttpClientRequest) => void = NotSent.mark

/**
 * Notes that an exchange of `request` started writing it (an
 * `HttpClient` calls it as it starts): {@link markNotSent} no longer marks
 * it, whatever later exchanges of the same request do.
 *
 * @example
 * ```ts
 * import { HttpClientRequest } from "effect/http"
 * import { isMarkedNotSent, markNotSent, markStarted } from "@connected-vehicle/transport/RequestNotSent"
 *
 * const request = HttpClientRequest.post("http://127.0.0.1:8080/v2.0/vehicles/v-1/batch")
 * markStarted(request)
 * markNotSent(request)
 * isMarkedNotSent(request) // false
 * ```
 * @since 0.2.0
 * @category marks
 */
export const markStarted: (request: HttpClientRequest.HttpClientRequest) => void = NotSent.start

/**
 * Whether the exchange of `request` was interrupted before anything of it
 * was written ({@link markNotSent}).
 *
 * @example
 * ```ts
 * import { HttpClientRequest } from "effect/http"
 * import { isMarkedNotSent, markNotSent } from "@connected-vehicle/transport/RequestNotSent"
 *
 * const request = HttpClientRequest.get("http://127.0.0.1:8080/v3/vehicles")
 * markNotSent(request)
 * isMarkedNotSent(request) // true
 * ```
 * @since 0.2.0
 * @category marks
 */
export const isMarkedNotSent: (request: HttpClientRequest.HttpClientRequest) => boolean = NotSent.isMarked

/**
 * The error of a request that may have been sent after all: a `Connection`
 * or `Timeout` reason loses its `sent: false` (its other fields, its `cause`
 * included, kept); any other error as it is. For a caller that sent the
 * request again itself, once an earlier attempt may have reached the
 * service (the transport does it for its own retries).
 *
 * @example
 * ```ts
 * import { ConnectedVehicleError, Connection } from "@connected-vehicle/transport/ConnectedVehicleError"
 * import { maybeSent } from "@connected-vehicle/transport/RequestNotSent"
 *
 * const refused = new ConnectedVehicleError({ reason: new Connection({ method: "POST", url: "u", description: "refused", sent: false }) })
 * maybeSent(refused).reason // Connection without sent
 * ```
 * @since 0.2.0
 * @category utils
 */
export const maybeSent = (error: ConnectedVehicleError): ConnectedVehicleError => {
  const reason = error.reason
  if ((reason._tag !== "Connection" && reason._tag !== "Timeout") || reason.sent !== false) return error
  // an `Error`'s own `cause` is not enumerable: a spread loses it
  const { sent: _, ...fields } = reason.cause === undefined ? { ...reason } : { ...reason, cause: reason.cause }
  return new ConnectedVehicleError({ reason: reason._tag === "Connection" ? new Connection(fields as Connection) : new Timeout(fields as Timeout) })
}

/**
 * Whether a failed request is known to have sent nothing: its credential
 * could not be had (`Credentials`, unless an earlier attempt of the call may
 * have reached the service: `callSent`), it could not be built
 * (`InvalidRequest`), or its `Connection` or `Timeout` says `sent: false`.
 * Anything else may have reached the service.
 *
 * @example
 * ```ts
 * import { ConnectedVehicleError, Credentials } from "@connected-vehicle/transport/ConnectedVehicleError"
 * import { sentNothing } from "@connected-vehicle/transport/RequestNotSent"
 *
 * sentNothing(new ConnectedVehicleError({ reason: new Credentials({ description: "no token" }) })) // true
 * ```
 * @since 0.2.0
 * @category guards
 */
export const sentNothing = (error: ConnectedVehicleError): boolean => {
  const reason = error.reason
  return (reason._tag === "Credentials" && reason.callSent !== true) || reason._tag === "InvalidRequest" ||
    ((reason._tag === "Connection" || reason._tag === "Timeout") && reason.sent === false)
}

/**
 * What a response, or the failure to get one, becomes: the typed errors of a
 * call, and its result.
 *
 * @internal
 */
import { Cause, Clock, Duration, Effect, Option, Schema } from "effect"
import { isFailure } from "effect/Result"
import type { HttpClientError, HttpClientResponse } from "effect/http"
import { fromIssue, Identifier, InvalidArgument, isIdentifier } from "@connected-vehicle/schema/InvalidArgument"
import * as Json from "@connected-vehicle/schema/Json"
import { boundedMessage } from "@connected-vehicle/schema/Message"
import { OAuthErrorBody } from "@connected-vehicle/schema/OAuth"
import { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
import { fromEnvelope, fromStatus, RateLimit } from "@connected-vehicle/schema/ServiceReason"
import {
  Connection,
  ConnectedVehicleError,
  InvalidRequest,
  InvalidResponse,
  MalformedBody,
  Credentials,
  OAuth,
  UnexpectedStatus
} from "../ConnectedVehicleError.ts"
import type { Reason } from "../ConnectedVehicleError.ts"
import * as RetryAfter from "../RetryAfter.ts"
import { requestIdOf } from "../TransportConfig.ts"
import { tooLargeIn } from "../ResponseTooLarge.ts"
import { isMarkedStrictUtf8 } from "../StrictUtf8.ts"
import { isNotSent, maybeSent, sentNothing } from "../RequestNotSent.ts"
import { scrubber, scrubText, secretsOf } from "./redact.ts"
import { withoutCredentials } from "./url.ts"

/** @internal */
export type AnyError = ConnectedVehicleError | InvalidArgument

/** @internal */
export const fail = (reason: Reason): ConnectedVehicleError => new ConnectedVehicleError({ reason })

/**
 * The HTTP context of an error: the request, and the response status and
 * request id.
 *
 * @internal
 */
export interface Ctx {
  readonly status: number
  readonly method: string
  readonly url: string
  readonly requestId?: string
  /** The delay of an error response's `Retry-After`, when it sent a valid one. */
  readonly retryAfter?: Duration.Duration
}


/** @internal */
export const statusOf = (error: AnyError): number | undefined => error._tag === "ConnectedVehicleError" ? error.status : undefined

/**
 * The tag of the error an attempt failed with (the reason's, for a failed
 * call), else `"interrupted"` (or `"defect"`).
 *
 * @internal
 */
export const failureOf = (cause: Cause.Cause<AnyError>): string => {
  const error = Cause.findErrorOption(cause)
  return Option.isSome(error) ? tagOf(error.value) : Cause.hasInterrupts(cause) ? "interrupted" : "defect"
}

/**
 * The tag of an error for logs: the reason's for a failed call.
 *
 * @internal
 */
export const tagOf = (error: AnyError): string => error._tag === "ConnectedVehicleError" ? error.reason._tag : error._tag

const decodeIdentifier = Schema.decodeUnknownResult(Identifier, { reportInput: true })

/**
 * Every path parameter must be an `Identifier` (the rule of the SDK's
 * clients): `""`, `.` and `..` would survive `encodeURIComponent` as empty or
 * dot segments, a `/` sent as `%2F` is turned back into a separator by some
 * proxies, a control character or a lone surrogate has no place in an id. A
 * non-string is left to the params schema (also an `InvalidArgument`).
 * A query value (a string, or each of a list) must be well-formed Unicode:
 * a lone surrogate has no UTF-8 form (the URL would carry U+FFFD instead,
 * another value than the one given).
 *
 * @internal
 */
export const checkParams = (request: unknown): InvalidArgument | undefined => {
  if (typeof request !== "object" || request === null) return undefined
  const params = "params" in request ? (request as { readonly params: unknown }).params : undefined
  if (typeof params === "object" && params !== null) {
    for (const key in params) {
      const value = (params as Record<string, unknown>)[key]
      if (typeof value === "string" && !isIdentifier(value)) {
        const result = decodeIdentifier(value)
        if (isFailure(result)) return fromIssue(result.failure.issue, { field: key })
      }
    }
  }
  const query = "query" in request ? (request as { readonly query: unknown }).query : undefined
  return typeof query === "object" && query !== null ? checkQuery(query as Record<string, unknown>) : undefined
}

const checkQuery = (query: Record<string, unknown>): InvalidArgument | undefined => {
  for (const key in query) {
    const value = query[key]
    const values = Array.isArray(value) ? value : [value]
    for (const v of values) {
      if (typeof v === "string" && !v.isWellFormed()) {
        return new InvalidArgument({ field: key, message: `${key}: Expected well-formed Unicode (a lone surrogate cannot be sent)` })
      }
    }
  }
  return undefined
}

/** The message of a failure's cause (`connect ECONNREFUSED 127.0.0.1:4999`), if it has one. */
const causeMessage = (cause: unknown): string | undefined => {
  if (cause instanceof Error) {
    const inner = (cause as { readonly cause?: unknown }).cause
    const innerMessage = inner instanceof Error && inner.message !== "" ? inner.message : undefined
    if (cause.message !== "" && cause.message !== "fetch failed") return cause.message
    return innerMessage ?? (cause.message === "" ? undefined : cause.message)
  }
  return typeof cause === "string" && cause !== "" ? cause : undefined
}

const describe = (reason: { readonly _tag: string; readonly description?: string | undefined; readonly cause?: unknown } | undefined, error: unknown) =>
  reason?.description ?? causeMessage(reason?.cause) ?? reason?._tag ?? String(error)

/**
 * An encoding failure: nothing was sent. A value a schema refuses is an argument error.
 *
 * @internal
 */
export const mapBuildError = (error: unknown, method: string, path: string): AnyError => {
  if (Schema.isSchemaError(error)) return fromIssue(error.issue, { field: "request" })
  const reason = (error as Partial<HttpClientError.HttpClientError>).reason
  return fail(new InvalidRequest({ method, path, description: describe(reason, error) }))
}

/**
 * A send failure: `sent: false` when nothing of the request was written
 * (`isNotSent`: this attempt's; see {@link sentByNone} for the call's).
 *
 * @internal
 */
export const mapSendError = (error: HttpClientError.HttpClientError, method: string, path: string, url: string): ConnectedVehicleError => {
  const reason = error.reason
  if (reason._tag === "InvalidUrlError" || reason._tag === "EncodeError") {
    return fail(new InvalidRequest({ method, path, description: describe(reason, error) }))
  }
  return fail(new Connection({ method, url, description: describe(reason, error), ...(isNotSent(reason.cause) ? { sent: false } : {}) }))
}

/**
 * The call's failure, once an attempt may have reached the service
 * (`mayHaveSent`): a `Connection` or a `Timeout` of the last attempt loses
 * its `sent: false` (whatever made it: the send, an `admit` step, a connect
 * that ran out of time), which speaks for the whole call, and a
 * `Credentials` reason (the call's credential could not be had after that)
 * says `callSent: true`. Otherwise the failure is the very error it was.
 *
 * @internal
 */
export const sentByNone = (error: AnyError, mayHaveSent: boolean): AnyError => {
  if (!mayHaveSent || error._tag !== "ConnectedVehicleError") return error
  const reason = error.reason
  if (reason._tag === "Credentials" && reason.callSent === undefined) return fail(new Credentials({ ...fieldsOf(reason), callSent: true }))
  return maybeSent(error)
}

/** A reason's fields, its `cause` included (an `Error`'s own `cause` is not enumerable: a spread loses it). */
const fieldsOf = <R extends { readonly cause?: unknown }>(reason: R): R => reason.cause === undefined ? { ...reason } : { ...reason, cause: reason.cause }

/**
 * Whether the request of a failed attempt may have reached the service: any
 * failure after the send began (a response, a timeout, a connection that
 * failed), but not one that says `sent: false`, nor a credential or an
 * argument refused before.
 *
 * @internal
 */
export const mayHaveReached = (error: AnyError): boolean => error._tag === "ConnectedVehicleError" && !sentNothing(error)

// fatal: a body that is not UTF-8 (JSON is, RFC 8259) is refused instead of read with U+FFFD in its place
const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * Whether a body's text, as a client decoded it, may hide bytes that are not
 * UTF-8: it holds U+FFFD, what Effect's clients put in their place (a body
 * may also hold U+FFFD itself: its bytes decide, {@link strictText}), and
 * the client did not mark the response as decoded strictly
 * (`StrictUtf8.markStrictUtf8`: its U+FFFD is the body's own).
 *
 * @internal
 */
export const mayNotBeUtf8 = (response: HttpClientResponse.HttpClientResponse, text: string): boolean =>
  text.includes("\ufffd") && !isMarkedStrictUtf8(response)

/**
 * The text of a response's body decoded by the transport from its bytes
 * (`arrayBuffer`, kept by the response once read), `undefined` when they are
 * not UTF-8.
 *
 * @internal
 */
export const strictText = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<string | undefined, HttpClientError.HttpClientError> =>
  Effect.map(response.arrayBuffer, (bytes) => {
    try {
      return utf8.decode(bytes)
    } catch {
      return undefined
    }
  })

/**
 * The text of a response's body by the transport's rule, the same on every
 * client: strict UTF-8 (`undefined` when it is not). The client's `text` is
 * taken as it is unless it holds U+FFFD (and the client did not mark it
 * strict, {@link mayNotBeUtf8}) or the client failed to decode it
 * (a `DecodeError`: a client as strict as the transport); then the bytes
 * decide ({@link strictText}).
 *
 * @internal
 */
export const bodyText = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<string | undefined, HttpClientError.HttpClientError> =>
  Effect.matchEffect(response.text, {
    onFailure: (error) => error.reason._tag === "DecodeError" ? strictText(response) : Effect.fail(error),
    onSuccess: (text) => mayNotBeUtf8(response, text) ? strictText(response) : Effect.succeed(text)
  })

/**
 * What a body that is not UTF-8 is: still in the `Content-Encoding` it came
 * with, if any (see {@link notJson}), else just that.
 *
 * @internal
 */
export const notUtf8 = (response: HttpClientResponse.HttpClientResponse): string => {
  const encoding = encodingOf(response)
  return encoding === undefined ? "the body is not UTF-8" : stillEncoded(encoding)
}

/**
 * A 2xx body that is not UTF-8: an `InvalidResponse` saying so (not retried).
 *
 * @internal
 */
export const notUtf8Error = (response: HttpClientResponse.HttpClientResponse, ctx: Ctx): ConnectedVehicleError =>
  fail(new InvalidResponse({ ...ctx, description: notUtf8(response) }))

/** A body the client refused as over its size limit (a `ResponseTooLarge` along the cause of its read's failure), if it is one. */
const tooLarge = (error: HttpClientError.HttpClientError): string | undefined => {
  const refused = tooLargeIn(error.reason.cause)
  return refused === undefined ? undefined : `the body is larger than the client's limit of ${refused.limit} bytes`
}

/**
 * A 2xx body that could not be read: the connection failed while it arrived
 * (a `Connection`, retried), whatever the client calls it (Effect's fetch and
 * Node clients report a cut body as a `DecodeError`), unless the client
 * refused it as over its size limit (`ResponseTooLarge`: an
 * `InvalidResponse`, not retried).
 *
 * @internal
 */
export const mapBodyReadError = (error: HttpClientError.HttpClientError, ctx: Ctx): ConnectedVehicleError => {
  const refused = tooLarge(error)
  if (refused !== undefined) return fail(new InvalidResponse({ ...ctx, description: refused }))
  return fail(new Connection({ ...ctx, description: describe(error.reason, error) }))
}

/** @internal */
export const mapDecodeError = (error: unknown, ctx: Ctx): ConnectedVehicleError => {
  if (Schema.isSchemaError(error)) {
    return fail(new InvalidResponse({ ...ctx, description: error.message }))
  }
  const reason = (error as HttpClientError.HttpClientError).reason
  if (reason?._tag === "TransportError") {
    return fail(new Connection({ ...ctx, description: describe(reason, error) }))
  }
  // an undeclared status never reaches the decoder (the call refuses it first, from the contract)
  if (reason?._tag === "DecodeError") {
    return fail(new InvalidResponse({ ...ctx, description: reason.description ?? "the body is not JSON" }))
  }
  return fail(new UnexpectedStatus(ctx))
}

const decodeEnvelope = Schema.decodeUnknownOption(ErrorEnvelope)
// an authorization server's body is an OAuth error by its `error` (and
// `error_description`), whatever else it carries (an `errors` of another shape too);
// read only from the authorization server's endpoints (a gateway's `{"error":...}` is not one)
const decodeOAuth = Schema.decodeUnknownOption(Schema.Struct({
  error: OAuthErrorBody.fields.error,
  error_description: OAuthErrorBody.fields.error_description
}))

/** Bytes no text body starts with (control characters, or what UTF-8 decoding replaced): a compressed body. */
// eslint-disable-next-line no-control-regex
const binary = /[\u0000-\u0008\u000e-\u001f\ufffd]/

/** The `Content-Encoding` of a response, unless none or `identity`. */
const encodingOf = (response: HttpClientResponse.HttpClientResponse): string | undefined => {
  const encoding = response.headers["content-encoding"]?.trim()
  return encoding === undefined || encoding === "" || encoding.toLowerCase() === "identity" ? undefined : encoding
}

const stillEncoded = (encoding: string) =>
  `the body is not JSON (it came with content-encoding: ${encoding.slice(0, 40)}, still encoded: the SDK asks for none, accept-encoding: identity, and decodes none)`

/**
 * "the body is not JSON", naming the `Content-Encoding` the response came
 * with when the body `text` is still encoded (binary from its first bytes:
 * the SDK asks for none, `accept-encoding: identity`, and its clients decode
 * none, so a proxy compressed it anyway; a client that decodes it, `fetch`, gives text).
 *
 * @internal
 */
export const notJson = (response: HttpClientResponse.HttpClientResponse, text: string): string => {
  const encoding = encodingOf(response)
  return encoding === undefined || !binary.test(text.slice(0, 16)) ? "the body is not JSON" : stillEncoded(encoding)
}

const jsonOf = (text: string): unknown => {
  try {
    return Json.parse(text)
  } catch {
    return undefined
  }
}

/**
 * The error of a response whose status (400 or more) alone decides it: the
 * reason the envelope of that status would give (`fromStatus`: a 401 is
 * `Authentication`, a 5xx `Server`...), `note` (what the body was, never the
 * body itself) as its detail; for a 4xx the service gives no meaning (a
 * 418...), a `MalformedBody`.
 */
const ofStatus = (ctx: Ctx, note: string): ConnectedVehicleError =>
  fail(fromStatus(ctx, note) ?? new MalformedBody({ ...ctx, description: note }))

/**
 * A non-2xx body that could not be read (cut short, over the client's size
 * limit): the error of its status ({@link ofStatus}), which
 * decides the retry as the status does: a 404 is a `NotFound` at once, a 429
 * a `RateLimit` (waited for only as the rate-limit policy says), a 503 a
 * `Server`, retried.
 */
const unreadable = (e: HttpClientError.HttpClientError, ctx: Ctx): ConnectedVehicleError =>
  ofStatus(ctx, tooLarge(e) ?? `the body could not be read (${describe(e.reason, e)})`)

/**
 * What decides the error of a non-2xx response besides its body: the
 * request's `secrets` (see `./redact.ts`), taken out of the body, and
 * whether the request was one of the authorization server's endpoints
 * (`authorizationServer`), whose error bodies are RFC 6749's.
 *
 * @internal
 */
export interface ErrorSource {
  readonly secrets: ReadonlyArray<string>
  readonly authorizationServer: boolean
}

/**
 * The error of a non-2xx response. On the authorization server's endpoints
 * an OAuth body (`error`) is its `OAuth` reason, whatever else it carries (a
 * 429 is still a `RateLimit`, with its `error` as code); elsewhere the
 * section 7 envelope decides it (a 429 is a `RateLimit` whatever its type).
 * Any other body (empty, not UTF-8, not JSON, JSON of another shape, an `error` of a
 * gateway's on the service's endpoints, unreadable: see {@link unreadable})
 * leaves it to the status ({@link ofStatus}). Each keeps the `Retry-After`
 * delay of `ctx` (read from the head before the body, so that a body that
 * fails to arrive keeps it too). The request's secrets are taken out of
 * each string the error keeps of the body (the envelope's, the OAuth
 * error's, once decoded), in every form a server may echo them in.
 *
 * @internal
 */
export const decodeError = (
  response: HttpClientResponse.HttpClientResponse,
  ctx: Ctx,
  source: ErrorSource
): Effect.Effect<ConnectedVehicleError, ConnectedVehicleError> =>
  Effect.map(
    Effect.mapError(bodyText(response), (e) => unreadable(e, ctx)),
    (text) => {
      if (text === undefined) return ofStatus(ctx, notUtf8(response))
      // a credential the server echoed, in any form, never reaches an error: the body is parsed as it
      // came (scrubbing its text first could break its JSON) and decoded, then every string of what the
      // error keeps of it (the envelope's items, the OAuth error) scrubbed; nothing else of the body is
      // kept, so nothing else of it is scrubbed (a body of many strings echoing a secret costs nothing more)
      const json = jsonOf(text)
      const scrub = scrubber(source.secrets)
      const oauth = Option.map(source.authorizationServer ? decodeOAuth(json) : Option.none(), (body) => scrub.json(body) as typeof body)
      const envelope = Option.isSome(oauth) ? Option.none() : Option.map(decodeEnvelope(json), (body) => scrub.json(body) as typeof body)
      if (Option.isSome(envelope)) return fail(fromEnvelope(envelope.value, ctx))
      const note = text === "" ? "the body is empty" : text.trim() === "" ? "the body is blank" : json === undefined ? notJson(response, text) : "the body is JSON that is not the error envelope"
      if (ctx.status === 429) return fail(rateLimit(ctx, oauth, Option.isSome(oauth) ? "the body is an OAuth error" : note))
      if (Option.isSome(oauth)) {
        return fail(
          new OAuth({
            ...ctx,
            error: oauth.value.error,
            ...(oauth.value.error_description === undefined ? {} : { errorDescription: oauth.value.error_description })
          })
        )
      }
      return ofStatus(ctx, note)
    }
  )

/**
 * The delay of a response's `Retry-After` (seconds or an HTTP date, from the
 * clock's now), when it sent a valid one.
 *
 * @internal
 */
export const retryAfterOf = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<Duration.Duration | undefined> =>
  Effect.map(Clock.currentTimeMillis, (now) => RetryAfter.fromHeaders(response.headers, now))

/**
 * A 429 without an envelope: its OAuth body's error, else the standard one,
 * the detail saying what the body was (`note`) unless the OAuth body has its
 * own description.
 */
const rateLimit = (ctx: Ctx, oauth: Option.Option<OAuthErrorBody>, note: string): RateLimit => {
  const code = Option.isSome(oauth) ? oauth.value.error : "RATE_LIMITED"
  const detail = Option.isSome(oauth) && oauth.value.error_description !== undefined
    ? oauth.value.error_description
    : `Too Many Requests (no error envelope: ${note})`
  return new RateLimit({
    ...ctx,
    message: boundedMessage(`${ctx.status} ${code}: ${detail}`),
    type: "RATE_LIMIT",
    code,
    title: "Too Many Requests",
    detail,
    resolution: "RETRY_LATER",
    errors: []
  })
}

/**
 * The `location` of a response, without credentials, when it sent one: the
 * request's own secrets out of it too, in any form (a redirect that carries
 * the bearer on), from the header as it came (a URL parser rewrites it: a
 * `\/` becomes `//`, a host is lower-cased, so that a secret would no longer
 * be found in it), then its user info removed and credential-like
 * parameters redacted, then once more (what the parser decoded).
 *
 * @internal
 */
export const locationOf = (response: HttpClientResponse.HttpClientResponse): { readonly location?: string } => {
  const location = response.headers["location"]
  if (location === undefined || location === "") return {}
  const scrub = scrubber(secretsOf(response.request))
  // its user information out first, as written (the scrub reads `%40` as `@`, and a parser may fail on
  // what it leaves: the user information would then be cut at the wrong `@`)
  const written = location.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/, "$1")
  // `<redacted>` as the parser percent-encodes it in a path, a query or a fragment, read back
  return { location: scrub.text(withoutCredentials(scrub.text(written)).replace(/%3Credacted%3E/gi, "<redacted>")) }
}

/**
 * The request id of a response (the first of `names` present, its first
 * value: see `requestIdOf`), without the request's secrets in any form (a
 * server that echoes the `authorization` header into `x-request-id`): it
 * reaches every error, the attempt's log line and the call's result.
 *
 * @internal
 */
export const requestIdIn = (response: HttpClientResponse.HttpClientResponse, names: ReadonlyArray<string>): string | undefined => {
  const requestId = requestIdOf(response.headers, names)
  return requestId === undefined ? undefined : scrubText(secretsOf(response.request), requestId)
}

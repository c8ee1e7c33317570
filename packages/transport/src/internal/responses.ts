/**
 * What a response, or the failure to get one, becomes: the typed errors of a
 * call, and its result.
 *
 * @internal
 */
import { Cause, Clock, Effect, Option, Schema } from "effect"
import { isFailure } from "effect/Result"
import type { Headers, HttpClientError, HttpClientResponse } from "effect/http"
import { fromIssue, Identifier, isIdentifier } from "@connected-vehicle/schema/InvalidArgument"
import { OAuthErrorBody } from "@connected-vehicle/schema/OAuth"
import { ErrorEnvelope, fromEnvelope, RateLimitError } from "@connected-vehicle/schema/ServiceError"
import type { ServiceError } from "@connected-vehicle/schema/ServiceError"
import * as RetryAfter from "../RetryAfter.ts"
import { scrub } from "./redact.ts"
import {
  InvalidRequest,
  MalformedErrorBody,
  OAuthError,
  ResponseDecodeError,
  TransportFailure,
  UnexpectedStatus
} from "../TransportError.ts"
import type { TransportError } from "../TransportError.ts"

/** @internal */
export type AnyError = ServiceError | TransportError | OAuthError

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
}

/**
 * A decoded response with the HTTP context it came with (the public
 * `Transport.Result`).
 *
 * @internal
 */
export interface Result<A> {
  readonly value: A
  readonly status: number
  readonly requestId: string | undefined
  readonly headers: Headers.Headers
}

/** @internal */
export const statusOf = (error: AnyError): number | undefined => "status" in error ? error.status : undefined

/**
 * Retried by status (500, 502, 503, 504, whatever the body), and connection
 * failures and timeouts.
 *
 * @internal
 */
export const isTransient = (error: AnyError): boolean => {
  if (error._tag === "TransportFailure" || error._tag === "RequestTimeout") return true
  const status = statusOf(error)
  return status === 500 || status === 502 || status === 503 || status === 504
}

/**
 * The tag of the error an attempt failed with, else `"interrupted"` (or `"defect"`).
 *
 * @internal
 */
export const failureOf = (cause: Cause.Cause<AnyError>): string => {
  const error = Cause.findErrorOption(cause)
  return Option.isSome(error) ? error.value._tag : Cause.hasInterrupts(cause) ? "interrupted" : "defect"
}

const decodeIdentifier = Schema.decodeUnknownResult(Identifier, { reportInput: true })

/**
 * Every path parameter must be an `Identifier` (the rule of the SDK's
 * clients): `""`, `.` and `..` would survive `encodeURIComponent` as empty or
 * dot segments, a `/` sent as `%2F` is turned back into a separator by some
 * proxies, a control character or a lone surrogate has no place in an id. A
 * non-string is left to the params schema (also an `InvalidArgument`).
 *
 * @internal
 */
export const checkParams = (request: unknown): AnyError | undefined => {
  const params = typeof request === "object" && request !== null && "params" in request
    ? (request as { readonly params: unknown }).params
    : undefined
  if (typeof params !== "object" || params === null) return undefined
  for (const key in params) {
    const value = (params as Record<string, unknown>)[key]
    if (typeof value === "string" && !isIdentifier(value)) {
      const result = decodeIdentifier(value)
      if (isFailure(result)) return fromIssue(result.failure.issue, { field: key })
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
  return new InvalidRequest({ method, path, description: describe(reason, error) })
}

/** @internal */
export const mapSendError = (error: HttpClientError.HttpClientError, method: string, path: string, url: string): AnyError => {
  const reason = error.reason
  if (reason._tag === "InvalidUrlError" || reason._tag === "EncodeError") {
    return new InvalidRequest({ method, path, description: describe(reason, error) })
  }
  return new TransportFailure({ method, url, description: describe(reason, error) })
}

/** @internal */
export const mapDecodeError = (error: unknown, ctx: Ctx): AnyError => {
  if (Schema.isSchemaError(error)) {
    return new ResponseDecodeError({ ...ctx, description: error.message })
  }
  const reason = (error as HttpClientError.HttpClientError).reason
  if (reason?._tag === "TransportError") {
    return new TransportFailure({ ...ctx, description: describe(reason, error) })
  }
  if (reason?._tag === "DecodeError" && reason.description !== "undeclared status code") {
    return new ResponseDecodeError({ ...ctx, description: reason.description ?? "the body is not JSON" })
  }
  return new UnexpectedStatus(ctx)
}

const decodeEnvelope = Schema.decodeUnknownOption(Schema.fromJsonString(ErrorEnvelope))
const decodeOAuth = Schema.decodeUnknownOption(Schema.fromJsonString(OAuthErrorBody))

/**
 * The error of a non-2xx response, decided by its status first: a 429 is a
 * `RateLimitError` with the `Retry-After` delay whatever the body says; other
 * statuses follow the body (envelope, OAuth error, or `MalformedErrorBody`).
 * The request's `secrets` (see `./redact.ts`) are taken out of the body first.
 *
 * @internal
 */
export const decodeError = (
  response: HttpClientResponse.HttpClientResponse,
  ctx: Ctx,
  secrets: ReadonlyArray<string>
): Effect.Effect<AnyError, AnyError> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    // read before the body, so that a body that fails to arrive keeps it
    const retryAfterMillis = ctx.status === 429 ? RetryAfter.fromHeaders(response.headers, now) : undefined
    return Effect.map(
      Effect.mapError(response.text, (e): AnyError => new TransportFailure({ ...ctx, description: describe(e.reason, e) })),
      (raw): AnyError => {
        // a credential the server echoed never reaches an error
        const text = scrub(raw, secrets)
        const envelope = decodeEnvelope(text)
        if (ctx.status === 429) return rateLimitError(ctx, retryAfterMillis, text, envelope)
        if (Option.isSome(envelope)) return fromEnvelope(envelope.value, ctx)
        const oauth = decodeOAuth(text)
        if (Option.isSome(oauth)) {
          return new OAuthError({
            ...ctx,
            error: oauth.value.error,
            ...(oauth.value.error_description === undefined ? {} : { errorDescription: oauth.value.error_description })
          })
        }
        return new MalformedErrorBody({
          ...ctx,
          description: text.trim().startsWith("{") ? "JSON that is not the error envelope" : "not JSON"
        })
      }
    )
  })

const rateLimitError = (
  ctx: Ctx,
  retryAfterMillis: number | undefined,
  text: string,
  envelope: Option.Option<ErrorEnvelope>
): RateLimitError => {
  const optional = retryAfterMillis === undefined ? {} : { retryAfterMillis }
  if (Option.isSome(envelope)) {
    const error = fromEnvelope(envelope.value, { ...ctx, retryAfterMillis })
    if (error._tag === "RateLimitError") return error
    // another type with status 429: the status decides, the body's fields are kept
    const { _tag, ...fields } = error
    return new RateLimitError({ ...fields, message: error.message, ...optional })
  }
  const oauth = decodeOAuth(text)
  const code = Option.isSome(oauth) ? oauth.value.error : "RATE_LIMITED"
  const detail = Option.isSome(oauth) && oauth.value.error_description !== undefined
    ? oauth.value.error_description
    : "Too many requests"
  return new RateLimitError({
    ...ctx,
    ...optional,
    message: `${ctx.status} ${code}: ${detail}`,
    type: "RATE_LIMIT",
    code,
    title: "Too Many Requests",
    detail,
    resolution: "RETRY_LATER",
    errors: []
  })
}

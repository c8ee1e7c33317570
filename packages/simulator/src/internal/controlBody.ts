/**
 * The request body of a control route (`/_simulator/...`), checked as the
 * service's routes check theirs before a route reads it: over
 * `MAX_BODY_BYTES` (declared by `Content-Length`, or as it arrives) a 413, a
 * content type other than JSON on a route that takes a JSON body a 415 (the
 * rule of the service's JSON routes: no `Content-Type` is JSON). A refusal's
 * detail that would quote the body is cut short ({@link cutDetail}).
 *
 * @internal
 */
import { ByteSize, Effect } from "effect"
import { HttpIncomingMessage } from "effect/http"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { envelope } from "../Env.ts"
import { takesJsonBody } from "./controlPaths.ts"
import { MAX_BODY_BYTES } from "./headers.ts"
import { envelopeResponse, isBodyTooLarge, tooLargeResponse, unsupportedContentType } from "./responses.ts"

/** A `Content-Type` without its parameters, lower case (absent: `application/json`, as `HttpApiBuilder` takes it). */
const mediaTypeOf = (header: string | undefined): string => {
  const normalized = (header ?? "application/json").toLowerCase().trim()
  const semicolon = normalized.indexOf(";")
  return semicolon === -1 ? normalized : normalized.slice(0, semicolon).trim()
}

/**
 * The answer of a control request refused for its body before any of it is
 * read: a `Content-Length` over `MAX_BODY_BYTES` (413), or a content type
 * other than JSON on a route that takes JSON (415); else undefined.
 */
export const bodyRefusal = (request: HttpServerRequest.HttpServerRequest, path: string): HttpServerResponse.HttpServerResponse | undefined => {
  const length = request.headers["content-length"]
  if (length !== undefined && Number(length) > MAX_BODY_BYTES) return tooLargeResponse(false)
  if (!takesJsonBody(request.method, path)) return undefined
  if (mediaTypeOf(request.headers["content-type"]) === "application/json") return undefined
  return envelopeResponse(415, envelope(415, unsupportedContentType(request.method, path)))
}

/**
 * Reads the body of a route that takes one, at most `MAX_BODY_BYTES` (the
 * route's `request.json` then answers what was read): the 413 of a body that
 * grows past it as it arrives (nothing more is read), else undefined.
 */
export const readBody = (
  request: HttpServerRequest.HttpServerRequest,
  path: string
): Effect.Effect<HttpServerResponse.HttpServerResponse | undefined> =>
  takesJsonBody(request.method, path)
    ? request.arrayBuffer.pipe(
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MAX_BODY_BYTES)),
      Effect.match({
        // another failure (a client gone, a bad chunk) is the route's own 400 when it reads the body
        onFailure: (error) => isBodyTooLarge(error) ? tooLargeResponse(false) : undefined,
        onSuccess: () => undefined
      })
    )
    : Effect.succeed(undefined)

/** How many characters of a decoding failure's message a 400 shows (a member's name is quoted whole in it). */
const DETAIL_LIMIT = 300

/** A decoding failure's message as a 400 shows it: its first {@link DETAIL_LIMIT} characters, `...` after them when there are more. */
export const cutDetail = (message: string): string => {
  const chars = [...message]
  return chars.length > DETAIL_LIMIT ? `${chars.slice(0, DETAIL_LIMIT).join("")}...` : message
}

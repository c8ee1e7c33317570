/**
 * The steps of the simulator's middleware (`App.wrap`), in the order it runs
 * them: control routes, the request log, the checks answered before any
 * latency, injected faults, the bearer token, list queries, and the
 * finishing of every answer (body drained, request id, v2.0 deprecation
 * headers, OAuth cache headers).
 *
 * @internal
 */
import { ByteSize, Cause, Effect } from "effect"
import { HttpIncomingMessage, HttpServerResponse } from "effect/http"
import type { HttpServerRequest } from "effect/http"
import type { Env } from "../Env.ts"
import { envelope, originFor } from "../Env.ts"
import type { Fault, Grant } from "../State.ts"
import { isDeprecatedPath } from "../Sunset.ts"
import { deprecationHeaders, guideResponse, isRetired, MIGRATION_GUIDE_PATH, retiredResponse } from "./sunset.ts"
import type { RetireLegacy } from "../Sunset.ts"
import { bodyRefusal, readBody } from "./controlBody.ts"
import { control, isLoopback } from "./controlRoutes.ts"
import { drainBody } from "./drain.ts"
import { quoted } from "./oauthText.ts"
import { trackAnswer } from "./harden.ts"
import { dropConnection, faultStatusResponse, parseFaultHeader, stalled } from "./faults.ts"
import { DELIVERY_HEADER, FAULT_HEADER, FAULT_KEY_HEADER, MAX_BODY_BYTES, REQUEST_ID_HEADER, requestIdFor, SC_REQUEST_ID_HEADER } from "./headers.ts"
import { routePath } from "./paths.ts"
import { envelopeResponse, failureResponse, isOAuthPath, problemResponse, tooLargeResponse, withRequestId } from "./responses.ts"

type Response = HttpServerResponse.HttpServerResponse

/** One request as the middleware sees it. */
export interface Exchange {
  readonly env: Env["Service"]
  readonly request: HttpServerRequest.HttpServerRequest
  readonly url: string
  readonly path: string
  /** Under `/v2.0` and not the vehicle list (`Sunset.isDeprecatedPath`). */
  readonly deprecated: boolean
  readonly headers: HttpServerRequest.HttpServerRequest["headers"]
  readonly requestId: string
  readonly oauth: boolean
}

/** The exchange of a request (its request id is taken now). */
export const exchangeOf = (env: Env["Service"], request: HttpServerRequest.HttpServerRequest): Exchange => {
  const url = request.url
  const path = routePath(url)
  const deprecated = isDeprecatedPath(path)
  const headers = request.headers
  const requestId = requestIdFor(headers[REQUEST_ID_HEADER], env.state)
  return { env, request, url, path, deprecated, headers, requestId, oauth: isOAuthPath(path) }
}

/** Every answer: the request body drained, the request id, the v2.0 and OAuth headers. */
const finish = (x: Exchange, response: Response) =>
  Effect.map(drainBody(x.request, response.status), (drained) => {
    let out = drained === "tooLarge" && response.status !== 413 ? tooLargeResponse(x.oauth) : response
    out = withRequestId(out, x.requestId)
    out = HttpServerResponse.setHeaders(out, { [REQUEST_ID_HEADER]: x.requestId, [SC_REQUEST_ID_HEADER]: x.requestId })
    // every deprecated v2.0 response, errors included (not the vehicle list's): deprecated as of 2026-12-01
    if (x.deprecated) {
      out = HttpServerResponse.setHeaders(out, deprecationHeaders(originFor(x.env.origins, x.path), x.env.legacySunset))
    }
    if (x.path === "/oauth/token") {
      out = HttpServerResponse.setHeaders(out, { "cache-control": "no-store", pragma: "no-cache" })
      if (out.status === 401) out = HttpServerResponse.setHeader(out, "www-authenticate", "Basic realm=\"oauth\"")
    }
    return drained === "complete" ? out : HttpServerResponse.setHeader(out, "connection", "close")
  })

/** Whether a path is a control route (`/_simulator`). */
export const isControlPath = (path: string) => path === "/_simulator" || path.startsWith("/_simulator/")

/**
 * The answer of a control route (404 to a peer that is not loopback, 403 to
 * a webhook delivery of a simulator: a callback pointed here changes nothing);
 * not logged.
 */
export const controlAnswer = (x: Exchange): Effect.Effect<Response> => {
  const { deliveries, state, usage } = x.env
  if (!isLoopback(x.request.peerAddress)) {
    return finish(x, envelopeResponse(404, envelope(404, `No endpoint ${x.request.method} ${x.path}`)))
  }
  if (x.headers[DELIVERY_HEADER] !== undefined) {
    const detail = `The simulator's webhook deliveries (${DELIVERY_HEADER}) never reach its control routes: a webhook's callback is a receiver, not ${quoted(x.path)}`
    return finish(x, envelopeResponse(403, envelope(403, detail)))
  }
  // a body as the service's routes take theirs: at most 1 MiB (413, nothing past it read), JSON where JSON is read (415)
  const refused = bodyRefusal(x.request, x.path)
  if (refused !== undefined) return finish(x, refused)
  return readBody(x.request, x.path).pipe(
    Effect.flatMap((tooLarge) => tooLarge === undefined ? control(state, x.request, x.path, deliveries, usage) : Effect.succeed(tooLarge)),
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MAX_BODY_BYTES)),
    // an unexpected failure of a control route is the 500 envelope too, never the platform's empty 500
    Effect.catchCause((cause) => Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : failureResponse(cause, x.request, x.path, x.env)),
    Effect.flatMap((response) => finish(x, response))
  )
}

/** Logs the request; the function that finishes an answer and logs its status. */
export const responder = (x: Exchange) => {
  const entry = x.env.state.record(x.request.method, x.url, x.headers, x.requestId)
  trackAnswer(x.request.source, x.requestId, entry)
  if (x.path === "/oauth/token" && x.request.method === "POST") x.env.usage.tokenRequest()
  return (response: Response) =>
    Effect.map(finish(x, response), (out) => {
      // the first answer wins: a request already answered outside the
      // application (its body failed) keeps the status it was sent
      if (entry.status === 0) entry.status = out.status
      return out
    })
}

/** The answer to a request refused before any latency or fault: no Host, an Expect, the guide, another root, a retired v2.0 endpoint, a body too large. */
export const earlyAnswer = (
  x: Exchange,
  options: { readonly allow?: ((path: string) => boolean) | undefined; readonly retireLegacy?: RetireLegacy | undefined }
): Response | undefined => {
  const { headers, path, request } = x
  // HTTP/1.1 requires Host (RFC 9112 section 3.2); Node's own check would answer a bare 400.
  const version = (request.source as { readonly httpVersion?: unknown } | null)?.httpVersion
  if (version === "1.1" && (headers["host"] === undefined || headers["host"] === "")) {
    return problemResponse(x.oauth, 400, "An HTTP/1.1 request needs a Host header")
  }
  // RFC 9110 section 10.1.1: the only expectation served is 100-continue (HTTP/1.0 has none).
  const expect = headers["expect"]
  if (expect !== undefined && version !== "1.0" && !/^\s*100-continue\s*$/i.test(expect)) {
    return problemResponse(x.oauth, 417, `Unsupported expectation ${JSON.stringify(expect)}; only 100-continue is served`)
  }
  const sunset = x.env.legacySunset
  if (path === MIGRATION_GUIDE_PATH && request.method === "GET") return guideResponse(sunset)
  if (options.allow !== undefined && !options.allow(path)) {
    return problemResponse(x.oauth, 404, `No endpoint ${request.method} ${path} on this root`)
  }
  const now = x.env.state.now()
  if (x.deprecated && isRetired(options.retireLegacy, now, sunset)) return retiredResponse(originFor(x.env.origins, path), sunset, now)
  const length = headers["content-length"]
  if (length !== undefined && Number(length) > MAX_BODY_BYTES) return tooLargeResponse(x.oauth)
  return undefined
}

/** The fault of this request (its fault header, else the script), or the 400 detail of an invalid header. */
export const chooseFault = (x: Exchange): Fault | undefined | string => {
  const { headers } = x
  const { state } = x.env
  const controlHeader = headers[FAULT_HEADER]
  if (controlHeader === undefined) return state.nextFault(x.request.method, x.path)
  const parsed = parseFaultHeader(controlHeader)
  const key = headers[FAULT_KEY_HEADER]
  if (typeof parsed === "string") return `Invalid ${FAULT_HEADER} header: ${parsed}`
  if (parsed.times !== undefined && key === undefined) {
    return `${FAULT_HEADER} with times=N needs a ${FAULT_KEY_HEADER} header naming the run`
  }
  return key === undefined || state.takeKeyed(key, controlHeader, parsed.times ?? 1) ? parsed.fault : undefined
}

/** Applies a fault: the answer it makes, or undefined when the request goes on (after a delay, or to be truncated). */
export const applyFault = (
  x: Exchange,
  fault: Fault,
  respond: (response: Response) => Effect.Effect<Response>
): Effect.Effect<Response | undefined> => {
  switch (fault._tag) {
    case "Status":
      return respond(faultStatusResponse(fault, x.path))
    case "Drop":
      return dropConnection(x.request)
    case "StallBody":
      return respond(stalled(200))
    case "Delay":
      return Effect.as(Effect.sleep(fault.delay), undefined)
    case "MalformedJson":
      return Effect.succeed(undefined)
  }
}

const refused = (response: Response) => ({ _tag: "Refused" as const, response })

/** The grant of the bearer token a path needs (undefined when it needs none), or the 401 answer. */
export const bearerGrant = (
  x: Exchange,
  needed: boolean
): { readonly _tag: "Granted"; readonly grant: Grant | undefined } | { readonly _tag: "Refused"; readonly response: Response } => {
  if (!needed) return { _tag: "Granted", grant: undefined }
  const authorization = x.headers["authorization"]
  const match = authorization === undefined ? null : /^bearer\s+(\S+)\s*$/i.exec(authorization)
  if (match === null) {
    return refused(envelopeResponse(
      401,
      envelope(401, "Authorization: Bearer <access token> is required", { resolution: "REAUTHENTICATE" }),
      { "www-authenticate": "Bearer" }
    ))
  }
  const resolved = x.env.state.grantOf(match[1]!)
  if (resolved === undefined || resolved === "expired") {
    return refused(envelopeResponse(
      401,
      envelope(401, resolved === "expired" ? "The access token expired" : "The access token is invalid", {
        resolution: "REAUTHENTICATE"
      }),
      { "www-authenticate": "Bearer error=\"invalid_token\"" }
    ))
  }
  return { _tag: "Granted", grant: resolved }
}

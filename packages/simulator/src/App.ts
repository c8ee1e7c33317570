/**
 * The HTTP application: the `ServiceApi` routes (built by `HttpApiBuilder`),
 * `/openapi.json` and `/docs`, wrapped in the simulator's own middleware:
 * request log, latency and fault injection, bearer-token check, and the
 * mapping of every failure to the section 7 envelope (or the OAuth body under
 * `/oauth`).
 *
 * @since 0.1.0
 */
import { CompatibilityQuery, ConnectionsQuery, ServiceApi, SubscriptionsQuery, WebhooksQuery } from "@connected-vehicle/schema/Api"
import type { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
import { ByteSize, Cause, Duration, Effect, Layer, Option, Schema, Scope, Stream } from "effect"
import {
  HttpIncomingMessage,
  HttpRouter,
  HttpServer,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse,
  UrlParams
} from "effect/http"
import { HttpApiBuilder, HttpApiError, HttpApiScalar } from "effect/http-api"
import * as Delivery from "./Delivery.ts"
import { CurrentGrant, CurrentRequestId, Env, envelope, MAX_BATCH_REQUESTS, originFor } from "./Env.ts"
export { MAX_BATCH_REQUESTS }
import { HandlersLive } from "./Handlers.ts"
import type { Fault, Grant, State } from "./State.ts"
import type { RetireLegacy } from "./Sunset.ts"
import { deprecationHeaders, guideResponse, isLegacyPath, isRetired, MIGRATION_GUIDE_PATH, retiredResponse } from "./Sunset.ts"

/**
 * The control header that injects a fault into one request.
 *
 * @since 0.1.0
 */
export const FAULT_HEADER = "x-simulator-fault"

/**
 * With {@link FAULT_HEADER}, names a run: a `times=N` fault applies to the first
 * N requests carrying this key (and the same fault header), later ones pass.
 *
 * @since 0.1.0
 */
export const FAULT_KEY_HEADER = "x-simulator-fault-key"

/**
 * The request id header: echoed when the request carries a usable one
 * (1..128 visible ASCII characters), else generated (`req-<seed>-<n>`).
 *
 * @since 0.1.0
 */
export const REQUEST_ID_HEADER = "x-request-id"

/**
 * Largest request body read, in bytes (1 MiB); a larger one is 413.
 *
 * @since 0.1.0
 */
export const MAX_BODY_BYTES = 1024 * 1024


/**
 * Marks a response the in-memory client must turn into a dropped connection.
 *
 * @internal
 */
export const DROP_MARKER = "x-simulator-internal-drop"

const httpDate = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/

/**
 * A fault header parsed: the fault and how many requests of a keyed run get it.
 *
 * @since 0.1.0
 */
export interface ParsedFault {
  readonly fault: Fault
  readonly times: number | undefined
}

/**
 * Parses the control header: `500`, `status=429;retry-after=2`, `delay=250`,
 * `stall`, `drop`, `malformed-json`, each optionally followed by `;times=N`
 * (used with {@link FAULT_KEY_HEADER}). `retry-after` is delta-seconds or an
 * HTTP-date. Returns the reason as a string when the value is not valid.
 *
 * @example
 * ```ts
 * import { parseFaultHeader } from "@connected-vehicle/simulator/App"
 *
 * parseFaultHeader("status=500;times=2") // { fault: { _tag: "Status", status: 500 }, times: 2 }
 * ```
 * @since 0.1.0
 */
export const parseFaultHeader = (value: string): ParsedFault | string => {
  const parts = value.split(/;|,(?! \d)/).map((p) => p.trim()).filter((p) => p !== "")
  const [head, ...rest] = parts
  if (head === undefined) return "empty fault"
  const options = new Map<string, string>()
  for (const part of rest) {
    const eq = part.indexOf("=")
    if (eq === -1) return `expected key=value, got ${JSON.stringify(part)}`
    options.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim())
  }
  let times: number | undefined
  const timesText = options.get("times")
  if (timesText !== undefined) {
    times = Number(timesText)
    if (!/^\d+$/.test(timesText) || times < 1 || times > 1_000_000) return "times must be an integer 1..1000000"
    options.delete("times")
  }
  const [key, arg] = head.split("=").map((s) => s.trim().toLowerCase()) as [string, string | undefined]
  const status = key === "status" ? arg : /^\d+$/.test(key) ? key : undefined
  const fault = ((): Fault | string => {
    if (status !== undefined) {
      const n = Number(status)
      if (!Number.isInteger(n) || n < 400 || n > 599) return `status must be 400..599, got ${status}`
      const retryAfter = options.get("retry-after")
      options.delete("retry-after")
      if (retryAfter === undefined) return { _tag: "Status", status: n }
      if (!/^\d{1,9}$/.test(retryAfter) && !(httpDate.test(retryAfter) && !Number.isNaN(Date.parse(retryAfter)))) {
        return `retry-after must be delta-seconds or an HTTP-date, got ${JSON.stringify(retryAfter)}`
      }
      return { _tag: "Status", status: n, retryAfter }
    }
    switch (key) {
      case "delay": {
        const millis = Number(arg)
        if (arg === undefined || !Number.isFinite(millis) || millis < 0 || millis > 600_000) {
          return "delay must be 0..600000 milliseconds"
        }
        return { _tag: "Delay", millis }
      }
      case "stall":
      case "stall-body":
      case "stallbody":
        return { _tag: "StallBody" }
      case "drop":
        return { _tag: "Drop" }
      case "malformed":
      case "malformed-json":
      case "malformedjson":
        return { _tag: "MalformedJson" }
      default:
        return `unknown fault ${JSON.stringify(head)}`
    }
  })()
  if (typeof fault === "string") return fault
  const [unknown] = options.keys()
  if (unknown !== undefined) return `unknown option ${JSON.stringify(unknown)}`
  return { fault, times }
}

const jsonHeaders = { "content-type": "application/json" }

const envelopeResponse = (status: number, body: ErrorEnvelope, headers?: Record<string, string>) =>
  HttpServerResponse.jsonUnsafe(body, { status, headers: { ...headers } })

const oauthResponse = (status: number, error: string, description: string) =>
  HttpServerResponse.jsonUnsafe({ error, error_description: description }, { status })

const isOAuthPath = (path: string) => path === "/oauth" || path.startsWith("/oauth/")

/**
 * The path the router matches: before `?`, `;` or `#`, percent-decoded,
 * duplicate and trailing slashes removed, lower case (the router of
 * `effect/http` is case-insensitive). Every path decision of the middleware
 * (credential, root, control routes, fault rules) is made on this form, so no
 * spelling of a path reaches a handler without the check its route needs.
 *
 * @since 0.1.0
 */
export const routePath = (url: string): string => {
  let path = url
  if (path.charCodeAt(0) !== 47) path = path.replace(/^https?:\/\/[^/]*/i, "")
  const cut = path.search(/[?;#]/)
  if (cut !== -1) path = path.slice(0, cut)
  if (path.includes("%")) {
    try {
      path = decodeURI(path)
    } catch {
      // The router cannot match it either (404).
    }
  }
  if (path.includes("//")) path = path.replace(/\/\/+/g, "/")
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1)
  return path.toLowerCase()
}

/** Paths that need a bearer token: every v3 path but the compatibility listing, and v2.0. */
const needsBearer = (path: string) =>
  (path.startsWith("/v3/") && path !== "/v3/compatible-vehicles" && !path.startsWith("/v3/compatible-vehicles/")) ||
  path.startsWith("/v2.0/") || path === "/v2.0"

const paging = ["page", "pageSize"]

/** The query keys each list endpoint accepts (from the contract's query schemas). */
const listQueryKeys: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  ["/v3/connections", Object.keys(ConnectionsQuery.fields)],
  ["/v3/subscriptions", Object.keys(SubscriptionsQuery.fields)],
  ["/v3/webhooks", Object.keys(WebhooksQuery.fields)],
  ["/v3/compatible-vehicles", Object.keys(CompatibilityQuery.fields)],
  ["/v2.0/vehicles", ["limit", "offset"]]
])

const signalsList = /^\/v3\/vehicles\/[^/]+\/signals$/

/** A list request with an unknown or empty query parameter: the 400 detail, else undefined. */
const queryProblem = (method: string, path: string, url: string): string | undefined => {
  if (method !== "GET") return undefined
  const q = url.indexOf("?")
  if (q === -1) return undefined
  const allowed = listQueryKeys.get(path) ?? (signalsList.test(path) ? paging : undefined)
  if (allowed === undefined) return undefined
  for (const [key, value] of new URLSearchParams(url.slice(q + 1))) {
    if (!allowed.includes(key)) {
      return `Unknown query parameter ${JSON.stringify(key)}; this list accepts ${allowed.join(", ")}`
    }
    if (value === "") return `Query parameter ${key} must not be empty`
  }
  return undefined
}

const schemaErrorDetail = (error: HttpApiError.HttpApiSchemaError) => {
  const where = error.kind === "Params"
    ? "path"
    : error.kind === "Headers"
    ? "headers"
    : error.kind === "Query"
    ? "query"
    : "body"
  return `Invalid request ${where}: ${error.cause.message}`
}

const grantFields: Readonly<Record<string, ReadonlyArray<string>>> = {
  authorization_code: ["code", "redirect_uri"],
  refresh_token: ["refresh_token"],
  client_credentials: []
}

/** RFC 6749 5.2: what is wrong with a token request body. */
const tokenRequestProblem = (params: UrlParams.UrlParams) => {
  const accepted = Object.keys(grantFields).join(", ")
  const grant = Option.getOrUndefined(UrlParams.getFirst(params, "grant_type"))
  if (grant === undefined || grant === "") {
    return oauthResponse(400, "invalid_request", `grant_type is required; accepted: ${accepted}`)
  }
  const fields = grantFields[grant]
  if (fields === undefined || !Object.hasOwn(grantFields, grant)) {
    return oauthResponse(400, "unsupported_grant_type", `Unsupported grant_type ${JSON.stringify(grant)}; accepted: ${accepted}`)
  }
  const missing = fields.filter((f) => (Option.getOrUndefined(UrlParams.getFirst(params, f)) ?? "") === "")
  return oauthResponse(
    400,
    "invalid_request",
    missing.length > 0 ? `grant_type=${grant} requires ${missing.join(" and ")}` : `Invalid token request for grant_type=${grant}`
  )
}

/** The response of a failed request: envelope, or OAuth body under /oauth. */
const failureResponse = (
  cause: Cause.Cause<unknown>,
  request: HttpServerRequest.HttpServerRequest,
  path: string
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const error = Cause.squash(cause)
  const oauth = isOAuthPath(path)
  const tooLarge = () => {
    const detail = `The request body is larger than ${MAX_BODY_BYTES} bytes`
    return Effect.succeed(oauth ? oauthResponse(413, "invalid_request", detail) : envelopeResponse(413, envelope(413, detail)))
  }
  if (HttpServerError.isHttpServerError(error)) {
    if (error.reason._tag === "RouteNotFound") {
      const detail = `No endpoint ${request.method} ${path}`
      return Effect.succeed(oauth ? oauthResponse(404, "invalid_request", detail) : envelopeResponse(404, envelope(404, detail)))
    }
    if (error.reason._tag === "RequestParseError") {
      if (isBodyTooLarge(error.reason)) return tooLarge()
      const detail = "The request could not be read"
      return Effect.succeed(oauth ? oauthResponse(400, "invalid_request", detail) : envelopeResponse(400, envelope(400, detail)))
    }
  }
  if (HttpApiError.HttpApiSchemaError.is(error) && error.kind !== "Body" && error.kind !== "ResponseHeaders") {
    if (isBodyTooLarge(error.cause)) return tooLarge()
    const detail = schemaErrorDetail(error)
    if (!oauth) {
      if (error.kind === "Payload" && path.endsWith("/batch")) {
        return request.json.pipe(
          Effect.map((body) => {
            const requests = (body as { readonly requests?: unknown } | null)?.requests
            return envelopeResponse(
              400,
              envelope(400, Array.isArray(requests) && requests.length === 0 ? "requests must hold at least one path" : detail)
            )
          }),
          Effect.orElseSucceed(() => envelopeResponse(400, envelope(400, detail)))
        )
      }
      return Effect.succeed(envelopeResponse(400, envelope(400, detail)))
    }
    if (error.kind === "Payload" && path === "/oauth/token") {
      return request.urlParamsBody.pipe(
        Effect.map(tokenRequestProblem),
        Effect.orElseSucceed(() => oauthResponse(400, "invalid_request", detail))
      )
    }
    if (error.kind === "Headers" && path === "/oauth/token") {
      return Effect.succeed(oauthResponse(401, "invalid_client", "Authorization header with the Basic client credential is required"))
    }
    return Effect.succeed(oauthResponse(400, "invalid_request", detail))
  }
  if (HttpApiError.HttpApiPayloadTooLarge.is(error)) return tooLarge()
  const detail = "Unexpected server failure"
  return Effect.succeed(oauth ? oauthResponse(500, "server_error", detail) : envelopeResponse(500, envelope(500, detail)))
}

/** Whether a failure (or its cause chain) is a body over {@link MAX_BODY_BYTES}. */
const isBodyTooLarge = (error: unknown): boolean => {
  for (let e: any = error, depth = 0; e !== undefined && e !== null && depth < 6; e = e.cause, depth++) {
    if (e.reason === "BodyTooLarge" || e._tag === "BodyTooLargeError" || e.name === "BodyTooLargeError") return true
    if (typeof e.message === "string" && /too large|exceed/i.test(e.message)) return true
  }
  return false
}

/** A non-2xx response that is not JSON (framework defaults such as 415) gets the spec's body. */
const normalise = (response: HttpServerResponse.HttpServerResponse, path: string, method: string) => {
  if (response.status < 400) return response
  const type = response.headers["content-type"] ?? (response.body._tag === "Uint8Array" ? response.body.contentType : undefined)
  if (type !== undefined && type.startsWith("application/json")) return response
  const detail = response.status === 415
    ? "Unsupported content type"
    : response.status === 405
    ? `Method ${method} is not allowed on ${path}`
    : `Request failed with status ${response.status}`
  return isOAuthPath(path)
    ? oauthResponse(response.status, response.status >= 500 ? "server_error" : "invalid_request", detail)
    : envelopeResponse(response.status, envelope(response.status, detail))
}

const faultStatusResponse = (fault: Extract<Fault, { _tag: "Status" }>, path: string) => {
  const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter }
  const detail = fault.status === 429
    ? "Too many requests; retry later"
    : `Injected failure with status ${fault.status}`
  if (isOAuthPath(path)) {
    return HttpServerResponse.jsonUnsafe(
      {
        error: fault.status === 429 || fault.status === 503
          ? "temporarily_unavailable"
          : fault.status >= 500
          ? "server_error"
          : "invalid_request",
        error_description: detail
      },
      { status: fault.status, headers }
    )
  }
  return envelopeResponse(
    fault.status,
    envelope(fault.status, detail, fault.status === 429 || fault.status >= 500 ? { resolution: "RETRY_LATER" } : undefined),
    headers
  )
}

const stalled = (status: number) =>
  HttpServerResponse.stream(
    Stream.concat(Stream.make(new TextEncoder().encode("{\"data\":[")), Stream.never),
    { status, headers: jsonHeaders }
  )

/** Truncates a JSON body in the middle (at least one byte short, never valid), keeping the status. */
const truncate = (response: HttpServerResponse.HttpServerResponse) => {
  const body = response.body
  const text = body._tag === "Uint8Array" ? new TextDecoder().decode(body.body) : "{\"data\":[{\"id\":\"x\"}]}"
  const cut = text.slice(0, Math.max(1, Math.floor(text.length / 2)))
  return HttpServerResponse.text(cut.endsWith("}") ? cut.slice(0, -1) : cut, {
    status: response.status,
    headers: response.headers,
    contentType: "application/json"
  })
}

const dropConnection = (request: HttpServerRequest.HttpServerRequest) => {
  const source = request.source as { readonly socket?: { destroy(): void } }
  if (source !== null && typeof source === "object" && source.socket !== undefined) {
    source.socket.destroy()
    return Effect.interrupt
  }
  // In-memory client: it turns this marker into a transport failure.
  return Effect.succeed(HttpServerResponse.empty({ status: 599, headers: { [DROP_MARKER]: "1" } }))
}

const requestIdShape = /^[\x21-\x7e]{1,128}$/

/**
 * The request id of a request: its own `x-request-id` when that is 1..128
 * visible ASCII characters, else the next generated one (`req-<seed>-<n>`).
 *
 * @example
 * ```ts
 * import { requestIdFor } from "@connected-vehicle/simulator/App"
 * import { State } from "@connected-vehicle/simulator/State"
 *
 * const state = new State({ now: () => 0, seed: 7, failureRate: 0 })
 * requestIdFor("trace-1", state) // "trace-1"
 * requestIdFor(undefined, state) // "req-7-1"
 * ```
 * @since 0.1.0
 */
export const requestIdFor = (incoming: string | undefined, state: State): string =>
  isUsableRequestId(incoming) ? incoming : state.nextRequestId()

/**
 * Whether a request's own `x-request-id` is echoed (1..128 visible ASCII characters).
 *
 * @internal
 */
export const isUsableRequestId = (incoming: string | undefined): incoming is string =>
  incoming !== undefined && requestIdShape.test(incoming)

/** Adds `meta.debug.requestId` to every item of a JSON error envelope. */
const withRequestId = (response: HttpServerResponse.HttpServerResponse, requestId: string) => {
  const body = response.body
  if (response.status < 400 || body._tag !== "Uint8Array" || !body.contentType.startsWith("application/json")) return response
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body.body)) as { errors?: Array<Record<string, any>> }
    if (!Array.isArray(parsed.errors)) return response
    const errors = parsed.errors.map((item) => ({
      ...item,
      meta: { ...item["meta"], debug: { ...item["meta"]?.debug, requestId } }
    }))
    return HttpServerResponse.jsonUnsafe({ ...parsed, errors }, { status: response.status, headers: response.headers })
  } catch {
    return response
  }
}

/**
 * A request body the handler did not read (a request answered early, such as
 * a 401) is read and discarded before the response is written, up to
 * {@link MAX_BODY_BYTES}, so the response keeps the connection alive and says
 * so truthfully. Waiting for the body is bounded by this (real) time.
 */
const DRAIN_TIMEOUT_MILLIS = 10_000

/**
 * What became of the request body before the response: `complete` (read or
 * absent: the connection stays usable), `tooLarge` (over
 * {@link MAX_BODY_BYTES}), or `close` (a client waiting for `100 Continue`, a
 * body that did not finish in time, a client gone): the answer then closes
 * the connection.
 */
const drainBody = (request: HttpServerRequest.HttpServerRequest, status: number): Effect.Effect<"complete" | "tooLarge" | "close"> => {
  const source = request.source as {
    readonly complete?: boolean
    readonly readableEnded?: boolean
    readonly destroyed?: boolean
    resume?(): void
    pause?(): void
    on?(event: string, listener: (...args: Array<any>) => void): unknown
    off?(event: string, listener: (...args: Array<any>) => void): unknown
  }
  if (source === null || typeof source !== "object" || typeof source.resume !== "function") return Effect.succeed("complete")
  if (source.complete === true || source.readableEnded === true) return Effect.succeed("complete")
  if (source.destroyed === true) return Effect.succeed("close")
  const length = request.headers["content-length"]
  // No body by HTTP framing (RFC 9112 section 6.3): nothing to wait for.
  if ((length === undefined || Number(length) === 0) && request.headers["transfer-encoding"] === undefined) {
    return Effect.succeed("complete")
  }
  if (status === 413 || (length !== undefined && !(Number(length) <= MAX_BODY_BYTES))) return Effect.succeed("tooLarge")
  // The client waits for `100 Continue` before it sends the body: do not wait for it.
  if (/100-continue/i.test(request.headers["expect"] ?? "")) return Effect.succeed("close")
  return Effect.callback<"complete" | "tooLarge" | "close">((resume) => {
    let bytes = 0
    const done = (outcome: "complete" | "tooLarge" | "close") => {
      cleanup()
      resume(Effect.succeed(outcome))
    }
    const onData = (chunk: Uint8Array) => {
      bytes += chunk.length
      if (bytes > MAX_BODY_BYTES) {
        source.pause!()
        done("tooLarge")
      }
    }
    const onEnd = () => done("complete")
    const onGone = () => done("close")
    const timer = setTimeout(onGone, DRAIN_TIMEOUT_MILLIS)
    const cleanup = () => {
      clearTimeout(timer)
      source.off!("data", onData)
      source.off!("end", onEnd)
      source.off!("aborted", onGone)
      source.off!("close", onGone)
      source.off!("error", onGone)
    }
    source.on!("data", onData)
    source.on!("end", onEnd)
    source.on!("aborted", onGone)
    source.on!("close", onGone)
    source.on!("error", onGone)
    source.resume!()
    return Effect.sync(cleanup)
  })
}

const isLoopback = (address: Option.Option<string>) =>
  Option.match(address, {
    onNone: () => true,
    onSome: (a) => a === "::1" || a.startsWith("127.") || a.startsWith("::ffff:127.")
  })

const ControlFaults = Schema.Struct({
  path: Schema.optionalKey(Schema.String),
  pathPattern: Schema.optionalKey(Schema.String),
  method: Schema.optionalKey(Schema.String),
  faults: Schema.NonEmptyArray(Schema.String)
})

/**
 * The control routes under `/_simulator` (not part of the service contract;
 * loopback peers only): `POST /_simulator/faults`, `GET` / `DELETE
 * /_simulator/requests`, `POST /_simulator/reset`, and the routes of
 * webhook deliveries (`Delivery.control`).
 */
const control = (
  state: Env["Service"]["state"],
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  deliveries: Env["Service"]["deliveries"]
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const bad = (detail: string) => Effect.succeed(envelopeResponse(400, envelope(400, detail)))
  const route = `${request.method} ${path}`
  switch (route) {
    case "GET /_simulator/requests":
      return Effect.succeed(HttpServerResponse.jsonUnsafe({ requests: state.requests() }))
    case "DELETE /_simulator/requests":
      return Effect.sync(() => {
        state.resetLog()
        return HttpServerResponse.empty({ status: 204 })
      })
    case "POST /_simulator/reset":
      return Effect.sync(() => {
        state.reset()
        return HttpServerResponse.empty({ status: 204 })
      })
    case "POST /_simulator/faults":
      return request.json.pipe(
        Effect.flatMap(Schema.decodeUnknownEffect(ControlFaults)),
        Effect.matchEffect({
          onFailure: (error) =>
            bad(`Expected {"faults": ["status=500", ...], "path"?, "pathPattern"?, "method"?}: ${String((error as any)?.message ?? error)}`),
          onSuccess: (body) => {
            const faults: Array<Fault> = []
            for (const text of body.faults) {
              const parsed = parseFaultHeader(text)
              if (typeof parsed === "string") return bad(`Invalid fault ${JSON.stringify(text)}: ${parsed}`)
              for (let i = 0; i < (parsed.times ?? 1); i++) faults.push(parsed.fault)
            }
            let pattern: RegExp | undefined
            if (body.pathPattern !== undefined) {
              try {
                pattern = new RegExp(body.pathPattern)
              } catch {
                return bad(`pathPattern is not a regular expression: ${JSON.stringify(body.pathPattern)}`)
              }
            }
            state.inject({ path: pattern ?? body.path, method: body.method, faults })
            return Effect.succeed(HttpServerResponse.jsonUnsafe({ queued: faults.length }, { status: 201 }))
          }
        })
      )
    default:
      return Delivery.control(deliveries, request, path) ??
        Effect.succeed(envelopeResponse(404, envelope(404, `No control route ${route}`)))
  }
}

/**
 * Wraps the routed application with the simulator's middleware.
 *
 * @since 0.1.0
 */
export const wrap = <R>(
  routed: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>,
  options: {
    readonly latencyMillis: number
    readonly allow?: ((path: string) => boolean) | undefined
    /** v2.0 answers 410 Gone (see `Sunset`). */
    readonly retireLegacy?: RetireLegacy | undefined
  }
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  Exclude<R, CurrentGrant | CurrentRequestId> | Env | HttpServerRequest.HttpServerRequest
> =>
  Effect.gen(function*() {
    const { deliveries, origins, state } = yield* Env
    let request = yield* HttpServerRequest.HttpServerRequest
    const url = request.url
    const path = routePath(url)
    const legacy = isLegacyPath(path)
    const headers = request.headers
    const requestId = requestIdFor(headers[REQUEST_ID_HEADER], state)
    const oauth = isOAuthPath(path)
    const tooLarge = () => {
      const detail = `The request body is larger than ${MAX_BODY_BYTES} bytes`
      return oauth ? oauthResponse(413, "invalid_request", detail) : envelopeResponse(413, envelope(413, detail))
    }

    const finish = (response: HttpServerResponse.HttpServerResponse) =>
      Effect.map(drainBody(request, response.status), (drained) => {
        let out = drained === "tooLarge" && response.status !== 413 ? tooLarge() : response
        out = oauth ? out : withRequestId(out, requestId)
        out = HttpServerResponse.setHeader(out, REQUEST_ID_HEADER, requestId)
        // every v2.0 response, errors included: v2.0 sunsets on 2026-12-01
        if (legacy) out = HttpServerResponse.setHeaders(out, deprecationHeaders(originFor(origins, path)))
        if (path === "/oauth/token") {
          out = HttpServerResponse.setHeaders(out, { "cache-control": "no-store", pragma: "no-cache" })
          if (out.status === 401) out = HttpServerResponse.setHeader(out, "www-authenticate", "Basic realm=\"oauth\"")
        }
        return drained === "complete" ? out : HttpServerResponse.setHeader(out, "connection", "close")
      })

    if (path === "/_simulator" || path.startsWith("/_simulator/")) {
      if (!isLoopback(request.peerAddress)) {
        return yield* finish(envelopeResponse(404, envelope(404, `No endpoint ${request.method} ${path}`)))
      }
      return yield* finish(yield* control(state, request, path, deliveries))
    }

    const entry = state.record(request.method, url, headers, requestId)
    const respond = (response: HttpServerResponse.HttpServerResponse) =>
      Effect.map(finish(response), (out) => {
        entry.status = out.status
        return out
      })
    const reject = (status: number, detail: string, error = "invalid_request") =>
      respond(oauth ? oauthResponse(status, error, detail) : envelopeResponse(status, envelope(status, detail)))

    // HTTP/1.1 requires Host (RFC 9112 section 3.2); Node's own check would answer a bare 400.
    const version = (request.source as { readonly httpVersion?: unknown } | null)?.httpVersion
    if (version === "1.1" && (headers["host"] === undefined || headers["host"] === "")) {
      return yield* reject(400, "An HTTP/1.1 request needs a Host header")
    }

    // RFC 9110 section 10.1.1: the only expectation served is 100-continue (HTTP/1.0 has none).
    const expect = headers["expect"]
    if (expect !== undefined && version !== "1.0" && !/^\s*100-continue\s*$/i.test(expect)) {
      return yield* reject(417, `Unsupported expectation ${JSON.stringify(expect)}; only 100-continue is served`)
    }

    if (path === MIGRATION_GUIDE_PATH && request.method === "GET") return yield* respond(guideResponse())

    if (options.allow !== undefined && !options.allow(path)) {
      return yield* reject(404, `No endpoint ${request.method} ${path} on this root`)
    }

    if (legacy && isRetired(options.retireLegacy, state.now())) {
      return yield* respond(retiredResponse(originFor(origins, path)))
    }

    const length = headers["content-length"]
    if (length !== undefined && Number(length) > MAX_BODY_BYTES) {
      return yield* respond(tooLarge())
    }

    if (options.latencyMillis > 0) yield* Effect.sleep(Duration.millis(options.latencyMillis))

    let fault: Fault | undefined
    const controlHeader = headers[FAULT_HEADER]
    if (controlHeader !== undefined) {
      const parsed = parseFaultHeader(controlHeader)
      const key = headers[FAULT_KEY_HEADER]
      if (typeof parsed === "string") return yield* reject(400, `Invalid ${FAULT_HEADER} header: ${parsed}`)
      if (parsed.times !== undefined && key === undefined) {
        return yield* reject(400, `${FAULT_HEADER} with times=N needs a ${FAULT_KEY_HEADER} header naming the run`)
      }
      fault = key === undefined || state.takeKeyed(key, controlHeader, parsed.times ?? 1) ? parsed.fault : undefined
    } else {
      fault = state.nextFault(request.method, path)
    }

    if (fault !== undefined) {
      switch (fault._tag) {
        case "Status":
          return yield* respond(faultStatusResponse(fault, path))
        case "Drop":
          return yield* dropConnection(request)
        case "StallBody":
          return yield* respond(stalled(200))
        case "Delay":
          yield* Effect.sleep(Duration.millis(fault.millis))
          break
        case "MalformedJson":
          break
      }
    }

    let grant: Grant | undefined
    if (needsBearer(path)) {
      const authorization = headers["authorization"]
      const match = authorization === undefined ? null : /^bearer\s+(\S+)\s*$/i.exec(authorization)
      if (match === null) {
        return yield* respond(envelopeResponse(
          401,
          envelope(401, "Authorization: Bearer <access token> is required", { resolution: "REAUTHENTICATE" }),
          { "www-authenticate": "Bearer" }
        ))
      }
      const resolved = state.grantOf(match[1]!)
      if (resolved === undefined || resolved === "expired") {
        return yield* respond(envelopeResponse(
          401,
          envelope(401, resolved === "expired" ? "The access token expired" : "The access token is invalid", {
            resolution: "REAUTHENTICATE"
          }),
          { "www-authenticate": "Bearer error=\"invalid_token\"" }
        ))
      }
      grant = resolved
    }

    const problem = queryProblem(request.method, path, url)
    if (problem !== undefined) return yield* reject(400, problem)

    const q = url.indexOf("?")
    if (path === "/oauth/authorize" && q !== -1) {
      // `mode=test` (the real service's spelling) is an alias of `simulated`.
      const search = new URLSearchParams(url.slice(q + 1))
      if (search.get("mode") === "test") {
        search.set("mode", "simulated")
        request = request.modify({ url: `${url.slice(0, q)}?${search.toString()}` })
      }
    }

    const response = yield* routed.pipe(
      Effect.provideService(CurrentGrant, grant),
      Effect.provideService(CurrentRequestId, requestId),
      Effect.provideService(HttpServerRequest.HttpServerRequest, request),
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MAX_BODY_BYTES)),
      Effect.map((response) => normalise(response, path, request.method)),
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : failureResponse(cause, request, path)
      )
    ) as Effect.Effect<HttpServerResponse.HttpServerResponse>
    if (fault?._tag === "MalformedJson") return yield* respond(truncate(response))
    return yield* respond(response)
  }) as any

/**
 * The routes of the whole service plus `/openapi.json` and `/docs`.
 *
 * @since 0.1.0
 */
export const RoutesLive = Layer.mergeAll(
  HttpApiBuilder.layer(ServiceApi, { openapiPath: "/openapi.json" }),
  HttpApiScalar.layer(ServiceApi, { path: "/docs" })
).pipe(
  Layer.provide(HandlersLive),
  Layer.provide(HttpServer.layerServices)
)

/**
 * Builds the wrapped application in the current scope.
 *
 * @since 0.1.0
 */
export const makeApp = (options: {
  readonly latencyMillis: number
  readonly allow?: ((path: string) => boolean) | undefined
  readonly retireLegacy?: RetireLegacy | undefined
}) =>
  Effect.gen(function*() {
    const routed = yield* HttpRouter.toHttpEffect(RoutesLive)
    return wrap(routed, options)
  })

/**
 * The roots of the spec, each servable on its own port.
 *
 * @since 0.1.0
 */
export type Root = "vehicle" | "management" | "compatibility" | "authorization" | "legacy"

const rootPrefixes: Readonly<Record<Root, ReadonlyArray<string>>> = {
  vehicle: ["/v3/vehicles", "/v3/connections"],
  management: ["/v3/subscriptions", "/v3/webhooks"],
  compatibility: ["/v3/compatible-vehicles"],
  authorization: ["/oauth"],
  legacy: ["/v2.0"]
}

/**
 * Whether a path belongs to a root (`/openapi.json` and `/docs` belong to all).
 *
 * @since 0.1.0
 */
export const inRoot = (root: Root) => (path: string): boolean =>
  path === "/openapi.json" || path === "/docs" ||
  rootPrefixes[root].some((prefix) => path === prefix || path.startsWith(prefix + "/"))

/** @internal */
export type App = Effect.Effect<HttpServerResponse.HttpServerResponse, never, Env | HttpServerRequest.HttpServerRequest | Scope.Scope>

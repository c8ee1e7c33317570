/**
 * The HTTP application: the `ServiceApi` routes (built by `HttpApiBuilder`),
 * `/openapi.json` and `/docs`, wrapped in the simulator's own middleware:
 * request log, latency and fault injection, bearer-token check, and the
 * mapping of every failure to the section 7 envelope (or the OAuth body under
 * `/oauth`).
 *
 * @since 0.1.0
 */
import { ServiceApi } from "@connected-vehicle/schema/Api"
import type { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
import { Cause, Duration, Effect, Layer, Option, Scope, Stream } from "effect"
import { HttpRouter, HttpServer, HttpServerError, HttpServerRequest, HttpServerResponse, UrlParams } from "effect/http"
import { HttpApiBuilder, HttpApiError, HttpApiScalar } from "effect/http-api"
import { CurrentGrant, Env, envelope } from "./Env.ts"
import { HandlersLive } from "./Handlers.ts"
import type { Fault, Grant } from "./State.ts"

/**
 * The control header that injects a fault into one request.
 *
 * @since 0.1.0
 */
export const FAULT_HEADER = "x-simulator-fault"

/**
 * Marks a response the in-memory client must turn into a dropped connection.
 *
 * @internal
 */
export const DROP_MARKER = "x-simulator-internal-drop"

/**
 * Parses the control header: `500`, `status=429;retry-after=2`, `delay=250`,
 * `stall`, `drop`, `malformed-json`.
 *
 * @since 0.1.0
 */
export const parseFaultHeader = (value: string): Fault | string => {
  const parts = value.split(/[;,]/).map((p) => p.trim()).filter((p) => p !== "")
  const [head, ...rest] = parts
  if (head === undefined) return "empty fault"
  const [key, arg] = head.split("=").map((s) => s.trim().toLowerCase()) as [string, string | undefined]
  const status = key === "status" ? arg : /^\d+$/.test(key) ? key : undefined
  if (status !== undefined) {
    const n = Number(status)
    if (!Number.isInteger(n) || n < 400 || n > 599) return `status must be 400..599, got ${status}`
    const retry = rest.map((p) => p.split("=")).find(([k]) => k?.trim().toLowerCase() === "retry-after")
    return retry?.[1] === undefined
      ? { _tag: "Status", status: n }
      : { _tag: "Status", status: n, retryAfter: retry[1].trim() }
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
}

const jsonHeaders = { "content-type": "application/json" }

const envelopeResponse = (status: number, body: ErrorEnvelope, headers?: Record<string, string>) =>
  HttpServerResponse.jsonUnsafe(body, { status, headers: { ...headers } })

const oauthResponse = (status: number, error: string, description: string) =>
  HttpServerResponse.jsonUnsafe({ error, error_description: description }, { status })

const isOAuthPath = (path: string) => path === "/oauth" || path.startsWith("/oauth/")

/** Paths that need a bearer token: every v3 path but the compatibility listing, and v2.0. */
const needsBearer = (path: string) =>
  (path.startsWith("/v3/") && !path.startsWith("/v3/compatible-vehicles")) || path.startsWith("/v2.0/") ||
  path === "/v2.0"

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

/** The response of a failed request: envelope, or OAuth body under /oauth. */
const failureResponse = (
  cause: Cause.Cause<unknown>,
  request: HttpServerRequest.HttpServerRequest,
  path: string
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const error = Cause.squash(cause)
  const oauth = isOAuthPath(path)
  if (HttpServerError.isHttpServerError(error)) {
    if (error.reason._tag === "RouteNotFound") {
      const detail = `No endpoint ${request.method} ${path}`
      return Effect.succeed(oauth ? oauthResponse(404, "invalid_request", detail) : envelopeResponse(404, envelope(404, detail)))
    }
    if (error.reason._tag === "RequestParseError") {
      const detail = "The request could not be read"
      return Effect.succeed(oauth ? oauthResponse(400, "invalid_request", detail) : envelopeResponse(400, envelope(400, detail)))
    }
  }
  if (HttpApiError.HttpApiSchemaError.is(error) && error.kind !== "Body" && error.kind !== "ResponseHeaders") {
    const detail = schemaErrorDetail(error)
    if (!oauth) return Effect.succeed(envelopeResponse(400, envelope(400, detail)))
    if (error.kind === "Payload" && path === "/oauth/token") {
      // RFC 6749: an unknown grant type has its own error code.
      return request.urlParamsBody.pipe(
        Effect.map((params) => {
          const grant = Option.getOrUndefined(UrlParams.getFirst(params, "grant_type"))
          return grant !== undefined && !["authorization_code", "refresh_token", "client_credentials"].includes(grant)
            ? oauthResponse(400, "unsupported_grant_type", `Unsupported grant_type ${JSON.stringify(grant)}`)
            : oauthResponse(400, "invalid_request", detail)
        }),
        Effect.orElseSucceed(() => oauthResponse(400, "invalid_request", detail))
      )
    }
    if (error.kind === "Headers" && path === "/oauth/token") {
      return Effect.succeed(oauthResponse(401, "invalid_client", "Authorization header with the Basic client credential is required"))
    }
    return Effect.succeed(oauthResponse(400, "invalid_request", detail))
  }
  if (HttpApiError.HttpApiPayloadTooLarge.is(error)) {
    const detail = "The request body is too large"
    return Effect.succeed(oauth ? oauthResponse(413, "invalid_request", detail) : envelopeResponse(413, envelope(413, detail)))
  }
  const detail = "Unexpected server failure"
  return Effect.succeed(oauth ? oauthResponse(500, "server_error", detail) : envelopeResponse(500, envelope(500, detail)))
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

const redactHeaders = (headers: Readonly<Record<string, string>>) => {
  const out: Record<string, string> = {}
  for (const key of Object.keys(headers)) out[key] = key === "authorization" ? "<redacted>" : headers[key]!
  return out
}

const faultStatusResponse = (fault: Extract<Fault, { _tag: "Status" }>, path: string) => {
  const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter }
  const detail = fault.status === 429
    ? "Too many requests; slow down"
    : `Injected failure with status ${fault.status}`
  if (isOAuthPath(path)) {
    return HttpServerResponse.jsonUnsafe(
      { error: fault.status === 429 ? "slow_down" : fault.status >= 500 ? "server_error" : "invalid_request", error_description: detail },
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

/** Truncates a JSON body in the middle (at least one byte short, never valid). */
const truncate = (response: HttpServerResponse.HttpServerResponse) => {
  const body = response.body
  const text = body._tag === "Uint8Array" ? new TextDecoder().decode(body.body) : "{\"data\":[{\"id\":\"x\"}]}"
  const cut = text.slice(0, Math.max(1, Math.floor(text.length / 2)))
  return HttpServerResponse.text(cut.endsWith("}") ? cut.slice(0, -1) : cut, {
    status: 200,
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

/**
 * Wraps the routed application with the simulator's middleware.
 *
 * @since 0.1.0
 */
export const wrap = <R>(
  routed: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>,
  options: { readonly latencyMillis: number; readonly allow?: ((path: string) => boolean) | undefined }
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  Exclude<R, CurrentGrant> | Env | HttpServerRequest.HttpServerRequest
> =>
  Effect.gen(function*() {
    const { state } = yield* Env
    const request = yield* HttpServerRequest.HttpServerRequest
    const url = request.url
    const q = url.indexOf("?")
    const path = q === -1 ? url : url.slice(0, q)
    const headers = request.headers
    const entry = state.record({
      method: request.method,
      path,
      query: q === -1 ? "" : url.slice(q + 1),
      headers: redactHeaders(headers),
      status: 0
    })
    const respond = (response: HttpServerResponse.HttpServerResponse) => {
      entry.status = response.status
      return response
    }

    if (options.allow !== undefined && !options.allow(path)) {
      const detail = `No endpoint ${request.method} ${path} on this root`
      return respond(isOAuthPath(path) ? oauthResponse(404, "invalid_request", detail) : envelopeResponse(404, envelope(404, detail)))
    }

    if (options.latencyMillis > 0) yield* Effect.sleep(Duration.millis(options.latencyMillis))

    let fault: Fault | undefined
    const control = headers[FAULT_HEADER]
    if (control !== undefined) {
      const parsed = parseFaultHeader(control)
      if (typeof parsed === "string") {
        const detail = `Invalid ${FAULT_HEADER} header: ${parsed}`
        return respond(isOAuthPath(path) ? oauthResponse(400, "invalid_request", detail) : envelopeResponse(400, envelope(400, detail)))
      }
      fault = parsed
    } else {
      fault = state.nextFault(request.method, path)
    }

    if (fault !== undefined) {
      switch (fault._tag) {
        case "Status":
          return respond(faultStatusResponse(fault, path))
        case "Drop":
          return yield* dropConnection(request)
        case "StallBody":
          return respond(stalled(200))
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
        return respond(envelopeResponse(
          401,
          envelope(401, "Authorization: Bearer <access token> is required", { resolution: "REAUTHENTICATE" }),
          { "www-authenticate": "Bearer" }
        ))
      }
      const resolved = state.grantOf(match[1]!)
      if (resolved === undefined || resolved === "expired") {
        return respond(envelopeResponse(
          401,
          envelope(401, resolved === "expired" ? "The access token expired" : "The access token is invalid", {
            resolution: "REAUTHENTICATE"
          }),
          { "www-authenticate": "Bearer error=\"invalid_token\"" }
        ))
      }
      grant = resolved
    }

    const response = yield* routed.pipe(
      Effect.provideService(CurrentGrant, grant),
      Effect.map((response) => normalise(response, path, request.method)),
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : failureResponse(cause, request, path)
      )
    ) as Effect.Effect<HttpServerResponse.HttpServerResponse>
    if (fault?._tag === "MalformedJson") return respond(truncate(response))
    return respond(response)
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
export const makeApp = (options: { readonly latencyMillis: number; readonly allow?: ((path: string) => boolean) | undefined }) =>
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

/**
 * The responses of the middleware: the section 7 envelope or, under
 * `/oauth`, the OAuth error body; the answer to a failed request; the
 * spec's body for framework defaults; `meta.debug.requestId` on errors.
 *
 * @internal
 */
import { makeOAuthErrorBody } from "@connected-vehicle/schema/OAuth"
import type { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
import { Cause, Effect, Option } from "effect"
import { HttpServerError, HttpServerResponse, UrlParams } from "effect/http"
import type { HttpServerRequest } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { envelope } from "../Env.ts"
import type { ConsentClient } from "./consent.ts"
import { consentTarget, errorRedirect, queryError, queryOf } from "./consent.ts"
import { MAX_BODY_BYTES } from "./headers.ts"
import { describable, parameterName, quoted } from "./oauthText.ts"
import { allowedMethods } from "./paths.ts"

export const jsonHeaders = { "content-type": "application/json" }

export const envelopeResponse = (status: number, body: ErrorEnvelope, headers?: Record<string, string>) =>
  HttpServerResponse.jsonUnsafe(body, { status, headers: { ...headers } })

/** An OAuth error body (its description kept to RFC 6749 section 5.2's characters: see {@link describable}). */
export const oauthResponse = (status: number, error: string, description: string, headers?: Record<string, string>) =>
  HttpServerResponse.jsonUnsafe(
    makeOAuthErrorBody(status, error, describable(description)),
    headers === undefined ? { status } : { status, headers }
  )

/** The OAuth error of a status the simulator answers for its own reasons (not a grant's refusal). */
export const oauthErrorOfStatus = (status: number): string => status >= 500 ? "server_error" : "invalid_request"

export const isOAuthPath = (path: string) => path === "/oauth" || path.startsWith("/oauth/")

/** A refusal: the OAuth body (with `error`) under /oauth, else the envelope. */
export const problemResponse = (oauth: boolean, status: number, detail: string, error = "invalid_request") =>
  oauth ? oauthResponse(status, error, detail) : envelopeResponse(status, envelope(status, detail))

/** The 413 of a body over {@link MAX_BODY_BYTES}. */
export const tooLargeResponse = (oauth: boolean) =>
  problemResponse(oauth, 413, `The request body is larger than ${MAX_BODY_BYTES} bytes`)

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
  // RFC 6749 3.2: a parameter must not be sent more than once (`scope` and the others as much as the grant's own)
  const repeated = repeatedKey(params)
  if (repeated !== undefined) return oauthResponse(400, "invalid_request", `${parameterName(repeated)} is repeated; send it once`)
  const grant = Option.getOrUndefined(UrlParams.getFirst(params, "grant_type"))
  if (grant === undefined || grant === "") {
    return oauthResponse(400, "invalid_request", `grant_type is required; accepted: ${accepted}`)
  }
  const fields = grantFields[grant]
  if (fields === undefined || !Object.hasOwn(grantFields, grant)) {
    return oauthResponse(400, "unsupported_grant_type", `Unsupported grant_type ${quoted(grant)}; accepted: ${accepted}`)
  }
  const missing = fields.filter((f) => (Option.getOrUndefined(UrlParams.getFirst(params, f)) ?? "") === "")
  return oauthResponse(
    400,
    "invalid_request",
    missing.length > 0 ? `grant_type=${grant} requires ${missing.join(" and ")}` : `Invalid token request for grant_type=${grant}`
  )
}

/** The first key that `params` holds more than once (RFC 6749 section 3.2: none may be). */
export const repeatedKey = (params: Iterable<readonly [string, unknown]>): string | undefined => {
  const seen = new Set<string>()
  for (const [key] of params) {
    if (seen.has(key)) return key
    seen.add(key)
  }
  return undefined
}

/**
 * RFC 6749 4.1.2.1: the answer to a consent query the contract refused: a 400
 * when its client or redirect URI is not known valid, else the redirect with
 * the error.
 */
const authorizeProblem = (url: string, detail: string, client: ConsentClient) => {
  const params = queryOf(url)
  const target = consentTarget(params, client)
  if (target._tag === "Refused") return oauthResponse(400, target.error, target.description)
  const { description, error } = queryError(params, detail)
  return errorRedirect(target, error, description)
}

/** The answer to a `Payload` schema error: a batch without paths gets its own detail. */
const payloadProblem = (request: HttpServerRequest.HttpServerRequest, detail: string) =>
  request.json.pipe(
    Effect.map((body) => {
      const requests = (body as { readonly requests?: unknown } | null)?.requests
      return envelopeResponse(
        400,
        envelope(400, Array.isArray(requests) && requests.length === 0 ? "requests must hold at least one path" : detail)
      )
    }),
    Effect.orElseSucceed(() => envelopeResponse(400, envelope(400, detail)))
  )

/**
 * The response of a failed request: envelope, or OAuth body under /oauth (a
 * consent's error redirected once `client` says its target is known valid).
 */
export const failureResponse = (
  cause: Cause.Cause<unknown>,
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  client: ConsentClient
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const error = Cause.squash(cause)
  const oauth = isOAuthPath(path)
  const tooLarge = () => Effect.succeed(tooLargeResponse(oauth))
  if (HttpServerError.isHttpServerError(error)) {
    if (error.reason._tag === "RouteNotFound") {
      // a path that exists under other methods: 405 with Allow (never one that lists the request's own method)
      const allowed = allowedMethods(path)
      if (allowed.length > 0 && !allowed.includes(request.method)) {
        return Effect.succeed(HttpServerResponse.setHeader(
          problemResponse(oauth, 405, `Method ${request.method} is not allowed on ${path}; allowed: ${allowed.join(", ")}`),
          "allow",
          allowed.join(", ")
        ))
      }
      return Effect.succeed(problemResponse(oauth, 404, `No endpoint ${request.method} ${path}`))
    }
    if (error.reason._tag === "RequestParseError") {
      if (isBodyTooLarge(error.reason)) return tooLarge()
      return Effect.succeed(problemResponse(oauth, 400, "The request could not be read"))
    }
  }
  if (HttpApiError.HttpApiSchemaError.is(error) && error.kind !== "Body" && error.kind !== "ResponseHeaders") {
    if (isBodyTooLarge(error.cause)) return tooLarge()
    const detail = schemaErrorDetail(error)
    if (!oauth) {
      if (error.kind === "Payload" && path.endsWith("/batch")) return payloadProblem(request, detail)
      return Effect.succeed(envelopeResponse(400, envelope(400, detail)))
    }
    if (error.kind === "Payload" && path === "/oauth/token") {
      return request.urlParamsBody.pipe(
        Effect.map(tokenRequestProblem),
        Effect.orElseSucceed(() => oauthResponse(400, "invalid_request", detail))
      )
    }
    if (error.kind === "Query" && path === "/oauth/authorize") return Effect.succeed(authorizeProblem(request.url, detail, client))
    if (error.kind === "Headers" && path === "/oauth/token") {
      return Effect.succeed(oauthResponse(401, "invalid_client", "Authorization header with the Basic client credential is required"))
    }
    return Effect.succeed(oauthResponse(400, "invalid_request", detail))
  }
  if (HttpApiError.HttpApiPayloadTooLarge.is(error)) return tooLarge()
  return Effect.succeed(problemResponse(oauth, 500, "Unexpected server failure", "server_error"))
}

/** Whether a failure (or its cause chain) is a body over {@link MAX_BODY_BYTES}. */
export const isBodyTooLarge = (error: unknown): boolean => {
  for (let e: any = error, depth = 0; e !== undefined && e !== null && depth < 6; e = e.cause, depth++) {
    if (e.reason === "BodyTooLarge" || e._tag === "BodyTooLargeError" || e.name === "BodyTooLargeError") return true
    if (typeof e.message === "string" && /too large|exceed/i.test(e.message)) return true
  }
  return false
}

/** The detail of a 415: the content type the route takes (the token endpoint a form, every other route JSON). */
export const unsupportedContentType = (method: string, path: string): string =>
  `Unsupported content type; ${method} ${path} takes ${path === "/oauth/token" ? "application/x-www-form-urlencoded" : "application/json"}`

/** A non-2xx response that is not JSON (framework defaults such as 415) gets the spec's body. */
export const normalise = (response: HttpServerResponse.HttpServerResponse, path: string, method: string) => {
  if (response.status < 400) return response
  const type = response.headers["content-type"] ?? (response.body._tag === "Uint8Array" ? response.body.contentType : undefined)
  if (type !== undefined && type.startsWith("application/json")) return response
  const detail = response.status === 415
    ? unsupportedContentType(method, path)
    : response.status === 405
    ? `Method ${method} is not allowed on ${path}`
    : `Request failed with status ${response.status}`
  return isOAuthPath(path)
    ? oauthResponse(response.status, oauthErrorOfStatus(response.status), detail)
    : envelopeResponse(response.status, envelope(response.status, detail))
}

/** Adds `meta.debug.requestId` to every item of a JSON error envelope. */
export const withRequestId = (response: HttpServerResponse.HttpServerResponse, requestId: string) => {
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

/**
 * Services shared by the handlers and the outer middleware, and the error
 * responses they build.
 *
 * @since 0.1.0
 */
import {
  BadRequestResponse,
  ConflictResponse,
  ForbiddenResponse,
  NotFoundResponse,
  OAuthBadRequest,
  OAuthUnauthorized,
  UnauthorizedResponse
} from "@connected-vehicle/schema/Api"
import { makeOAuthErrorBody, redirectUriIssue } from "@connected-vehicle/schema/OAuth"
import type { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
import { errorOfStatus, makeEnvelope } from "@connected-vehicle/schema/ServiceError"
import { Context, Effect } from "effect"
import type { Dataset } from "./Data.ts"
import type { Deliveries } from "./Delivery.ts"
import { describable } from "./internal/oauthText.ts"
import type { Usage } from "./internal/usage.ts"
import type { Grant, State } from "./State.ts"

/**
 * The origin (`http://host:port`) each root is served on: every root has the
 * same one unless the roots listen on separate ports. Links in responses are
 * built from these, never from the request's `Host` header.
 *
 * @example
 * ```ts
 * import type { Origins } from "@connected-vehicle/simulator/Env"
 *
 * const origin = "http://127.0.0.1:4010"
 * const origins: Origins = { vehicle: origin, management: origin, compatibility: origin, authorization: origin, legacy: origin }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Origins {
  vehicle: string
  management: string
  compatibility: string
  authorization: string
  legacy: string
}

/**
 * The dataset, the state, the client credential and its registered redirect
 * URIs, and the origins of one simulator.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Env } from "@connected-vehicle/simulator/Env"
 *
 * const vehicleCount = Effect.gen(function*() {
 *   const env = yield* Env
 *   return env.data.vehicleCount
 * })
 * ```
 * @since 0.1.0
 * @category services
 */
export class Env extends Context.Service<Env, {
  readonly data: Dataset
  readonly state: State
  readonly clientId: string
  readonly clientSecret: string
  /** Redirect URIs registered for the client (see `redirectUriAllowed`). */
  readonly redirectUris: ReadonlyArray<string>
  /** Filled in once the servers listen. */
  readonly origins: Origins
  /** Created webhooks and subscriptions, and their deliveries (see `Delivery`). */
  readonly deliveries: Deliveries
  /** Request limits and usage counters (see `RateLimit`). */
  readonly usage: Usage
  /**
   * Whether a read needs its permission among the vehicle connection's
   * `permissions` (`SimulatorOptions.enforcePermissions`, default true).
   */
  readonly enforcePermissions: boolean
  /**
   * The removal date of the deprecated v2.0 endpoints, in epoch milliseconds
   * (`SimulatorOptions.legacySunset`): their `Sunset` header. Undefined (the
   * default): none is announced, as in the spec.
   */
  readonly legacySunset?: number | undefined
}>()("@connected-vehicle/simulator/Env") {}

/**
 * The origin of the root that serves `path` (compared in lower case).
 *
 * @example
 * ```ts
 * import { originFor } from "@connected-vehicle/simulator/Env"
 *
 * const origin = "http://127.0.0.1:4010"
 * const origins = { vehicle: origin, management: origin, compatibility: origin, authorization: origin, legacy: origin }
 * originFor(origins, "/v3/webhooks/1") // "http://127.0.0.1:4010"
 * ```
 * @since 0.1.0
 * @category utils
 */
export const originFor = (origins: Origins, path: string): string => {
  const p = path.toLowerCase()
  const under = (prefix: string) => p === prefix || p.startsWith(prefix + "/") || p.startsWith(prefix + "?")
  if (under("/v3/subscriptions") || under("/v3/webhooks")) return origins.management
  if (under("/v3/compatible-vehicles")) return origins.compatibility
  if (under("/oauth")) return origins.authorization
  if (under("/v2.0")) return origins.legacy
  return origins.vehicle
}

/**
 * The redirect URIs the demo client has registered by default: loopback
 * `http` on any port and path (RFC 8252 section 7.3, what a CLI's local
 * listener uses), and `https://app.example` (any path; `.example` is a
 * reserved top-level domain, RFC 2606, so it never reaches a real site).
 *
 * @example
 * ```ts
 * import { DEFAULT_REDIRECT_URIS, redirectUriAllowed } from "@connected-vehicle/simulator/Env"
 *
 * redirectUriAllowed(DEFAULT_REDIRECT_URIS, "http://localhost:8080/callback") // true
 * redirectUriAllowed(DEFAULT_REDIRECT_URIS, "https://evil.example.com/cb") // false
 * ```
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_REDIRECT_URIS: ReadonlyArray<string> = [
  "http://127.0.0.1:*",
  "http://localhost:*",
  "http://[::1]:*",
  "https://app.example"
]

/**
 * Whether `uri` matches one of the `registered` redirect URIs. A `uri` the
 * SDK refuses (`redirectUriIssue` of `@connected-vehicle/schema/OAuth`: not
 * absolute, with white space, a control character or a fragment) never
 * matches. An `http`/`https` entry is `scheme://host[:port]` (any path) or a
 * full URI (exact path); port `*` matches any port. Scheme and host compare
 * case-insensitively, the port after defaults are filled in, the path
 * exactly; the query of `uri` is free (RFC 6749 section 3.1.2 allows one);
 * a URI with user information never matches. A URI of another scheme (an
 * app's, `myapp://callback` or `com.example.app:/callback`, RFC 8252
 * section 7.1) matches an entry equal to it.
 *
 * @example
 * ```ts
 * import { redirectUriAllowed } from "@connected-vehicle/simulator/Env"
 *
 * redirectUriAllowed(["http://127.0.0.1:*"], "http://127.0.0.1:53100/callback") // true
 * redirectUriAllowed(["http://127.0.0.1:*"], "vbscript:msgbox(1)") // false
 * redirectUriAllowed(["myapp://callback"], "myapp://callback") // true
 * ```
 * @since 0.1.0
 * @category utils
 */
export const redirectUriAllowed = (registered: ReadonlyArray<string>, uri: string): boolean => {
  if (redirectUriIssue(uri) !== undefined) return false
  if (!/^https?:/i.test(uri)) return registered.includes(uri)
  const target = parseRedirect(uri)
  if (target === undefined || target.hash !== "" || /#/.test(uri)) return false
  for (const entry of registered) {
    const wildcard = /^(https?:\/\/(?:\[[^\]]*\]|[^/:?#]*)):\*(?=$|\/)/i.exec(entry)
    const pattern = parseRedirect(wildcard === null ? entry : wildcard[1]! + entry.slice(wildcard[0].length))
    if (pattern === undefined) continue
    if (pattern.protocol !== target.protocol || pattern.hostname !== target.hostname) continue
    if (wildcard === null && pattern.port !== target.port) continue
    const anyPath = /^https?:\/\/[^/]*\/?$/i.test(entry)
    if (anyPath || pattern.pathname === target.pathname) return true
  }
  return false
}

const parseRedirect = (uri: string): URL | undefined => {
  if (!/^https?:\/\//i.test(uri)) return undefined
  try {
    const url = new URL(uri)
    const authority = uri.replace(/^https?:\/\//i, "").split(/[/?#\\]/)[0]!
    return url.username !== "" || url.password !== "" || authority.includes("@") ? undefined : url
  } catch {
    return undefined
  }
}

/**
 * Most paths one legacy batch may request.
 *
 * @example
 * ```ts
 * import { MAX_BATCH_REQUESTS } from "@connected-vehicle/simulator/Env"
 *
 * const tooMany = (requests: ReadonlyArray<unknown>) => requests.length > MAX_BATCH_REQUESTS
 * ```
 * @since 0.1.0
 * @category constants
 */
export const MAX_BATCH_REQUESTS = 50

/**
 * The grant of the request's bearer token, resolved by the outer middleware
 * (undefined on endpoints that take no credential).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CurrentGrant } from "@connected-vehicle/simulator/Env"
 *
 * const isUserToken = Effect.gen(function*() {
 *   const grant = yield* CurrentGrant
 *   return grant?._tag === "User"
 * })
 * ```
 * @since 0.1.0
 * @category services
 */
export class CurrentGrant extends Context.Service<CurrentGrant, Grant | undefined>()(
  "@connected-vehicle/simulator/CurrentGrant"
) {}

/**
 * The request id of the current request (the `x-request-id` response header),
 * set by the outer middleware.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CurrentRequestId } from "@connected-vehicle/simulator/Env"
 *
 * const logRequest = Effect.gen(function*() {
 *   const id = yield* CurrentRequestId
 *   yield* Effect.log(`handling ${id}`)
 * })
 * ```
 * @since 0.1.0
 * @category services
 */
export class CurrentRequestId extends Context.Service<CurrentRequestId, string>()(
  "@connected-vehicle/simulator/CurrentRequestId"
) {}

/**
 * The error envelope of a status: type, code and title from the schema's
 * `errorOfStatus` (section 7, then the project's choices).
 *
 * @example
 * ```ts
 * import { envelope } from "@connected-vehicle/simulator/Env"
 *
 * const body = envelope(404, "No vehicle with this id.")
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const envelope = (
  status: number,
  detail: string,
  options?: Parameters<typeof makeEnvelope>[2]
): ErrorEnvelope => {
  const { code, title, type } = errorOfStatus(status)
  return makeEnvelope(type, detail, { status, code, title, ...options })
}

/**
 * Fails the handler with the 400 envelope carrying `detail`.
 *
 * @example
 * ```ts
 * import { badRequest } from "@connected-vehicle/simulator/Env"
 *
 * const refuse = badRequest("limit must be between 1 and 100")
 * ```
 * @since 0.1.0
 * @category errors
 */
export const badRequest = (detail: string) => Effect.fail(new BadRequestResponse(envelope(400, detail)))

/**
 * Fails the handler with the 401 envelope carrying `detail`.
 *
 * @example
 * ```ts
 * import { unauthorized } from "@connected-vehicle/simulator/Env"
 *
 * const noToken = unauthorized("The access token is missing.")
 * ```
 * @since 0.1.0
 * @category errors
 */
export const unauthorized = (detail: string) => Effect.fail(new UnauthorizedResponse(envelope(401, detail)))

/**
 * Fails the handler with the 403 envelope carrying `detail`.
 *
 * @example
 * ```ts
 * import { forbidden } from "@connected-vehicle/simulator/Env"
 *
 * const missingScope = forbidden("The token lacks read_location.")
 * ```
 * @since 0.1.0
 * @category errors
 */
export const forbidden = (detail: string) => Effect.fail(new ForbiddenResponse(envelope(403, detail)))

/**
 * Fails the handler with the 404 envelope carrying `detail`.
 *
 * @example
 * ```ts
 * import { notFound } from "@connected-vehicle/simulator/Env"
 *
 * const unknownVehicle = (id: string) => notFound(`No vehicle with id ${id}.`)
 * ```
 * @since 0.1.0
 * @category errors
 */
export const notFound = (detail: string) => Effect.fail(new NotFoundResponse(envelope(404, detail)))

/**
 * The COMPATIBILITY envelope (409, `statusOfType`).
 *
 * @example
 * ```ts
 * import { compatibilityEnvelope } from "@connected-vehicle/simulator/Env"
 *
 * const body = compatibilityEnvelope("This make does not report service history.")
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const compatibilityEnvelope = (detail: string): ErrorEnvelope =>
  makeEnvelope("COMPATIBILITY", detail, { code: "MAKE_NOT_COMPATIBLE", title: "Not Compatible" })

/**
 * Fails the handler with the 409 COMPATIBILITY envelope carrying `detail`.
 *
 * @example
 * ```ts
 * import { incompatible } from "@connected-vehicle/simulator/Env"
 *
 * const unsupported = incompatible("This vehicle does not support /engine/oil.")
 * ```
 * @since 0.1.0
 * @category errors
 */
export const incompatible = (detail: string) => Effect.fail(new ConflictResponse(compatibilityEnvelope(detail)))

/**
 * Fails an `/oauth` handler with a 400 OAuth error body (RFC 6749 section
 * 5.2, with the section 7 `errors` too: `makeOAuthErrorBody`); a character
 * of the description outside the section's set (printable ASCII but `"` and
 * `\`) is percent-encoded.
 *
 * @example
 * ```ts
 * import { oauthError } from "@connected-vehicle/simulator/Env"
 *
 * const badGrant = oauthError("invalid_grant", "The authorization code has expired.")
 * ```
 * @since 0.1.0
 * @category errors
 */
export const oauthError = (error: string, description: string) =>
  Effect.fail(new OAuthBadRequest(makeOAuthErrorBody(400, error, describable(description))))

/**
 * Fails an `/oauth` handler with a 401 `invalid_client` OAuth error body,
 * its description kept to RFC 6749 section 5.2's characters as
 * {@link oauthError}'s.
 *
 * @example
 * ```ts
 * import { oauthUnauthorized } from "@connected-vehicle/simulator/Env"
 *
 * const badClient = oauthUnauthorized("Unknown client id or wrong secret.")
 * ```
 * @since 0.1.0
 * @category errors
 */
export const oauthUnauthorized = (description: string) =>
  Effect.fail(new OAuthUnauthorized(makeOAuthErrorBody(401, "invalid_client", describable(description))))

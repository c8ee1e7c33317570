/**
 * The fast path of the loopback server: the hot reads (`GET
 * /v3/vehicles/{id}/signals`, `.../signals/{code}` and the legacy v2.0 reads
 * of a vehicle) answered straight from Node's `request` event when the
 * request is the plain successful case, with the bytes the full application
 * writes for it (the same rendering, `internal/render`; the same headers in
 * the same order; the same request id, request log entry and status). Its
 * routes are those endpoints' paths in the contract (`ServiceApi`), compiled
 * once (`internal/routeMatch`).
 *
 * Anything else goes to the full application (`App.wrap` and the
 * `HttpApiBuilder` routes), untouched: another method, path or spelling of a
 * path, a query, a body, `Expect`, no `Host`, a fault header, a scripted
 * fault or a failure rate, added latency, a path outside the port's root, a
 * retired v2.0, and every answer that is not 200 (no or unknown token, wrong
 * grant, unknown vehicle, another user's vehicle, missing permission, a
 * service history the make does not support). The decision is made before
 * anything is recorded, so a request the fast path declines is served exactly
 * as before.
 *
 * @internal
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { ServiceApi } from "@connected-vehicle/schema/Api"
import { LegacyEndpoints, LegacyReads } from "@connected-vehicle/schema/Legacy"
import type { LegacyPath } from "@connected-vehicle/schema/Legacy"
import type { Permission } from "@connected-vehicle/schema/OAuth"
import type { Env } from "../Env.ts"
import { originFor } from "../Env.ts"
import type { RetireLegacy } from "../Sunset.ts"
import { deprecationHeaders, isRetired } from "./sunset.ts"
import { FAULT_HEADER, isUsableRequestId, REQUEST_ID_HEADER, SC_REQUEST_ID_HEADER } from "./headers.ts"
import { fastCharge } from "./limits.ts"
import { heldPermissions, legacyRead, missingPermission, PageMemo, signalsPageText, signalText } from "./render.ts"
import * as RouteMatch from "./routeMatch.ts"
import { generatedRequestId } from "../State.ts"

/**
 * The endpoints the fast path answers, with their paths as the contract
 * (`ServiceApi`) gives them: the v3 signal list and get, the legacy reads.
 *
 * @internal
 */
export type Route =
  | { readonly group: "signals"; readonly endpoint: "list" | "get"; readonly path: string }
  | { readonly group: "legacy"; readonly endpoint: keyof typeof LegacyReads; readonly read: LegacyPath; readonly path: string }

/** @internal */
export const routes: ReadonlyArray<Route> = [
  { group: "signals", endpoint: "list", path: ServiceApi.groups.signals.endpoints.list.path },
  { group: "signals", endpoint: "get", path: ServiceApi.groups.signals.endpoints.get.path },
  ...(Object.keys(LegacyReads) as Array<keyof typeof LegacyReads>).map((endpoint): Route => ({
    group: "legacy",
    endpoint,
    read: LegacyReads[endpoint].path,
    path: ServiceApi.groups.legacy.endpoints[endpoint].path
  }))
]

/**
 * What a path parameter of those routes matches: the simulator's ids
 * (lower-case UUIDs) and signal codes. Any other spelling is left to the full
 * application.
 */
const paramPatterns: Readonly<Record<string, string>> = {
  vehicleId: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
  id: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
  signalCode: "[a-z0-9-]+"
}

/**
 * The pattern of a path parameter; one the fast path does not know is a
 * defect (when the module loads).
 *
 * @internal
 */
export const paramPattern = (param: string): string => {
  const pattern = paramPatterns[param]
  if (pattern === undefined) throw new Error(`The fast path has no pattern for the path parameter :${param}`)
  return pattern
}

/**
 * The fast path's routes, compiled once.
 *
 * @internal
 */
export const matchRoute = RouteMatch.compile(routes, paramPattern)

const bearerToken = /^bearer\s+(\S+)\s*$/i

/**
 * A Node `request` listener that answers a request and returns true, or
 * returns false (having done nothing) for the full application to serve it.
 *
 * @internal
 */
export type FastPath = (request: IncomingMessage, response: ServerResponse) => boolean

/**
 * An answer as sent: the header list (the request id's value at `idSlot`)
 * and the body. Built once per clock millisecond and URL (see `PageMemo`).
 */
interface Answer {
  readonly headers: ReadonlyArray<string>
  readonly idSlot: number
  readonly body: Buffer
}

/** A legacy answer, with the vehicle and permission checked against each request's grant. */
type LegacyAnswer = Answer & { readonly index: number; readonly permission: Permission }

interface Options {
  readonly latencyMillis: number
  readonly allow?: ((path: string) => boolean) | undefined
  readonly retireLegacy?: RetireLegacy | undefined
}

/** The fast path of one server: its environment, options and caches. */
interface Fast {
  readonly env: Env["Service"]
  readonly options: Options
  readonly pages: PageMemo<Answer>
  /** Legacy answers: the vehicle and permission they need are checked against each request's grant. */
  readonly legacyAnswers: PageMemo<LegacyAnswer>
  /**
   * The request log keeps the last 10,000 requests: what it keeps of a fast
   * request is shared with the requests that sent the same URL and headers,
   * so that nothing allocated per request outlives it (a ring of distinct
   * objects would be copied by every young-generation collection and then
   * collected as old garbage).
   */
  readonly urls: Map<string, string>
  readonly headerSets: Map<string, IncomingMessage["headers"]>
  deprecation: { readonly origin: string; readonly headers: ReadonlyArray<string> } | undefined
}

/** The deprecation headers of the legacy reads, built once per origin (the origin is known once the server listens). */
const deprecationOf = (fast: Fast, path: string) => {
  const origin = originFor(fast.env.origins, path)
  if (fast.deprecation === undefined || fast.deprecation.origin !== origin) {
    fast.deprecation = { origin, headers: Object.entries(deprecationHeaders(origin, fast.env.legacySunset)).flat() }
  }
  return fast.deprecation.headers
}

/** The grant of the request's bearer token, or undefined (no, unknown or expired token: the full path answers). */
const grantOf = (fast: Fast, authorization: string | undefined) => {
  if (authorization === undefined) return undefined
  const match = bearerToken.exec(authorization)
  if (match === null) return undefined
  const grant = fast.env.state.grantOf(match[1]!)
  return typeof grant === "object" ? grant : undefined
}

/** The vehicle of `id` when user `userIndex` has its connection, else undefined. */
const ownedVehicle = (fast: Fast, id: string, userIndex: number) => {
  const { data } = fast.env
  const index = data.vehicleIndex(id)
  if (index === -1 || userIndex === -1 || index >= data.connectionCount || data.connectionUser[index] !== userIndex) {
    return undefined
  }
  return data.vehicle(index)
}

const answer = (before: ReadonlyArray<string>, body: Buffer, after: ReadonlyArray<string>): Answer => {
  const headers = [
    ...before, "content-type", "application/json", "content-length", String(body.length), REQUEST_ID_HEADER, "", SC_REQUEST_ID_HEADER, "", ...after
  ]
  return { headers, idSlot: before.length + 5, body }
}

const interned = <A>(cache: Map<string, A>, key: string, value: A): A => {
  const known = cache.get(key)
  if (known !== undefined) return known
  if (cache.size >= 256) cache.clear()
  cache.set(key, value)
  return value
}

const send = (fast: Fast, request: IncomingMessage, response: ServerResponse, url: string, out: Answer) => {
  const { state } = fast.env
  const headers = request.headers
  const incoming = headers[REQUEST_ID_HEADER] as string | undefined
  const own = isUsableRequestId(incoming)
  const number = own ? 0 : state.nextRequestNumber()
  const requestId = own ? incoming : generatedRequestId(state.seed, number)
  const list = out.headers.slice()
  list[out.idSlot] = requestId
  list[out.idSlot + 2] = requestId
  response.writeHead(200, list)
  response.end(out.body)
  state.recordAnswered(
    "GET",
    interned(fast.urls, url, url),
    interned(fast.headerSets, request.rawHeaders.join("\n"), headers),
    own ? requestId : number,
    200
  )
  return true
}

/** Whether a request is a plain GET the fast path may answer (no body, `Expect`, fault or pending script). */
const plain = (fast: Fast, request: IncomingMessage): boolean => {
  if (request.method !== "GET" || request.httpVersionMajor !== 1) return false
  const url = request.url
  if (url === undefined || url.length < 20) return false
  const headers = request.headers
  const length = headers["content-length"]
  return !(
    headers.host === undefined || headers.host === "" || headers.expect !== undefined ||
    (length !== undefined && length !== "0") || headers["transfer-encoding"] !== undefined ||
    headers[FAULT_HEADER] !== undefined || fast.env.state.faultsPending()
  )
}

/** `/v3/vehicles/{vehicleId}/signals[/{signalCode}]` */
const signals = (
  fast: Fast,
  request: IncomingMessage,
  response: ServerResponse,
  url: string,
  endpoint: "list" | "get",
  params: Readonly<Record<string, string>>
) => {
  const { data, deliveries, origins, state } = fast.env
  const headers = request.headers
  const grant = grantOf(fast, headers.authorization)
  const userId = headers["sc-user-id"]
  if (grant?._tag !== "App" || typeof userId !== "string") return false
  const now = state.now()
  const vehicleId = params.vehicleId!
  if (endpoint === "list") {
    const version = deliveries.readingsVersion()
    const key = `${url} ${userId}`
    let out = fast.pages.get(key, data, now, version)
    if (out === undefined) {
      const v = ownedVehicle(fast, vehicleId, data.userIndex(userId.toLowerCase()))
      if (v === undefined) return false
      out = answer([], Buffer.from(signalsPageText(data, origins, deliveries, v, url, now, undefined, undefined, fast.env.enforcePermissions)), [])
      fast.pages.set(key, data, now, version, out)
    }
    if (!fastCharge(fast.env, data.vehicleIndex(vehicleId))) return false
    return send(fast, request, response, url, out)
  }
  const v = ownedVehicle(fast, vehicleId, data.userIndex(userId.toLowerCase()))
  if (v === undefined) return false
  const code = params.signalCode
  const k = v.model.signals.findIndex((s) => s.code === code)
  if (k === -1) return false
  // a signal the connection may not read: the full application answers the 403
  const held = heldPermissions(data, fast.env.enforcePermissions, v)
  if (missingPermission(held, v, v.model.signals[k]!.permission) !== undefined || !fastCharge(fast.env, v.index)) return false
  return send(fast, request, response, url, answer([], Buffer.from(signalText(data, origins, deliveries, v, k, now)), []))
}

/** `/v2.0/vehicles/{id}/{read}` */
const legacy = (
  fast: Fast,
  request: IncomingMessage,
  response: ServerResponse,
  url: string,
  path: LegacyPath,
  params: Readonly<Record<string, string>>
) => {
  const { data, deliveries, state } = fast.env
  const { retireLegacy } = fast.options
  const headers = request.headers
  const now = state.now()
  if (isRetired(retireLegacy, now, fast.env.legacySunset)) return false
  const unitSystem = headers["sc-unit-system"]
  if (unitSystem !== undefined && unitSystem !== "metric" && unitSystem !== "imperial") return false
  const grant = grantOf(fast, headers.authorization)
  if (grant?._tag !== "User") return false
  const version = deliveries.readingsVersion()
  const key = unitSystem === undefined ? url : `${url} ${unitSystem}`
  let out = fast.legacyAnswers.get(key, data, now, version)
  if (out === undefined) {
    const v = ownedVehicle(fast, params.id!, grant.userIndex)
    if (v === undefined) return false
    const item = legacyRead(data, deliveries, grant, fast.env.enforcePermissions, v, path, unitSystem ?? "metric", now)
    if (item.code !== 200) return false
    const before = ["sc-data-age", item.headers["sc-data-age"]!, "sc-unit-system", item.headers["sc-unit-system"]!]
    out = {
      ...answer(before, Buffer.from(JSON.stringify(item.body)), deprecationOf(fast, url)),
      index: v.index,
      permission: LegacyEndpoints[path].permission
    }
    fast.legacyAnswers.set(key, data, now, version, out)
  } else if (
    out.index >= data.connectionCount || data.connectionUser[out.index] !== grant.userIndex ||
    !grant.scopes.has(out.permission)
  ) {
    return false
  }
  if (!fastCharge(fast.env, out.index)) return false
  return send(fast, request, response, url, out)
}

/**
 * The fast path of one server of a simulator.
 *
 * @internal
 */
export const make = (env: Env["Service"], options: Options): FastPath => {
  if (options.latencyMillis > 0) return () => false
  const fast: Fast = {
    env,
    options,
    pages: new PageMemo<Answer>(),
    legacyAnswers: new PageMemo<LegacyAnswer>(),
    urls: new Map(),
    headerSets: new Map(),
    deprecation: undefined
  }
  return (request, response) => {
    if (!plain(fast, request)) return false
    const url = request.url!
    const matched = matchRoute(url)
    if (matched === undefined || (options.allow !== undefined && !options.allow(url))) return false
    const { params, route } = matched
    return route.group === "signals"
      ? signals(fast, request, response, url, route.endpoint, params)
      : legacy(fast, request, response, url, route.read, params)
  }
}

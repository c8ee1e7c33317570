/**
 * Paths as the middleware sees them: the form the router matches, which
 * paths need a bearer token, the query keys of each list, the roots.
 *
 * @internal
 */
import { ConnectionsQuery, LegacyVehiclesQuery, ServiceApi, SubscriptionsQuery } from "@connected-vehicle/schema/Api"
import type { Root } from "../App.ts"

/** The path of a request target as the router reads it: without an origin, cut at `?`, `;` or `#` (find-my-way's rule). */
const rawPath = (url: string): string => {
  let path = url
  if (path.charCodeAt(0) !== 47) path = path.replace(/^https?:\/\/[^/]*/i, "")
  const cut = path.search(/[?;#]/)
  return cut === -1 ? path : path.slice(0, cut)
}

/** @internal */
export const routePath = (url: string): string => {
  let path = rawPath(url)
  if (path.includes("%")) {
    try {
      path = decodeURI(path)
    } catch {
      // A malformed percent-encoding: kept as sent (`pathProblem` answers it 400).
    }
  }
  if (path.includes("//")) path = path.replace(/\/\/+/g, "/")
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1)
  return path.toLowerCase()
}

/**
 * The 400 detail of a request whose path holds a malformed percent-encoding
 * (RFC 3986 section 2.1: `%` and two hexadecimal digits, of UTF-8), which no
 * route can match; else undefined.
 *
 * @internal
 */
export const pathProblem = (url: string): string | undefined => {
  const path = rawPath(url)
  if (!path.includes("%")) return undefined
  try {
    decodeURI(path)
    return undefined
  } catch {
    return "The request path holds a malformed percent-encoding (% and two hexadecimal digits of UTF-8 bytes)"
  }
}

/**
 * A legacy batch entry's path as the batch reads it: a path of the vehicle
 * (`/odometer`) whose case, repeated and trailing slashes and query do not
 * matter; anything that does not start with `/` (an absolute URL, say) is
 * kept as given, which matches no endpoint (a 404 entry).
 *
 * @internal
 */
export const batchEntryPath = (path: string): string => {
  if (path.charCodeAt(0) !== 47) return path
  const query = path.indexOf("?")
  let out = query === -1 ? path : path.slice(0, query)
  if (out.includes("//")) out = out.replace(/\/\/+/g, "/")
  if (out.length > 1 && out.endsWith("/")) out = out.slice(0, -1)
  return out.toLowerCase()
}

/** Paths that need a bearer token: every v3 path but the compatibility listing, and v2.0. */
export const needsBearer = (path: string) =>
  (path.startsWith("/v3/") && path !== "/v3/compatible-vehicles" && !path.startsWith("/v3/compatible-vehicles/")) ||
  path.startsWith("/v2.0/") || path === "/v2.0"

const paging = ["page", "pageSize"]

/**
 * The query keys each list endpoint accepts (from the contract's query
 * schemas). Not the compatibility listing nor the webhook list: they
 * answer 200 to every query (sections 4.5 and 4.4), ignoring other parameters.
 */
const listQueryKeys: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  ["/v3/connections", Object.keys(ConnectionsQuery.fields)],
  ["/v3/subscriptions", Object.keys(SubscriptionsQuery.fields)],
  ["/v2.0/vehicles", Object.keys(LegacyVehiclesQuery.fields)]
])

const signalsList = /^\/v3\/vehicles\/[^/]+\/signals$/

/**
 * A list request with an unknown, empty or repeated query parameter: the 400
 * detail, else undefined (a consent's repeated one: see `consent.ts`).
 */
export const queryProblem = (method: string, path: string, url: string): string | undefined => {
  if (method !== "GET") return undefined
  const q = url.indexOf("?")
  if (q === -1) return undefined
  const list = listQueryKeys.get(path) ?? (signalsList.test(path) ? paging : undefined)
  if (list === undefined) return undefined
  const seen = new Set<string>()
  for (const [key, value] of new URLSearchParams(url.slice(q + 1))) {
    if (!list.includes(key)) return `Unknown query parameter ${JSON.stringify(key)}; this list accepts ${list.join(", ")}`
    if (value === "") return `Query parameter ${key} must not be empty`
    if (seen.has(key)) return `Query parameter ${key} is repeated; send it once`
    seen.add(key)
  }
  return undefined
}

const rootPrefixes: Readonly<Record<Root, ReadonlyArray<string>>> = {
  vehicle: ["/v3/vehicles", "/v3/connections"],
  management: ["/v3/subscriptions", "/v3/webhooks"],
  compatibility: ["/v3/compatible-vehicles"],
  authorization: ["/oauth"],
  legacy: ["/v2.0"]
}

/** @internal */
export const inRoot = (root: Root) => (path: string): boolean =>
  path === "/openapi.json" || path === "/docs" ||
  rootPrefixes[root].some((prefix) => path === prefix || path.startsWith(prefix + "/"))

/** Every route of the application: the contract's endpoints, the OpenAPI document and the docs pages. */
const methodRoutes: ReadonlyArray<{
  readonly method: string
  readonly pattern: RegExp
  readonly group: string | undefined
  readonly endpoint: string | undefined
}> = [
  ...Object.values(ServiceApi.groups).flatMap((group) =>
    Object.values(group.endpoints).map((endpoint) => ({
      method: endpoint.method,
      path: endpoint.path,
      group: group.identifier,
      endpoint: endpoint.identifier
    }))
  ),
  { method: "GET", path: "/openapi.json", group: undefined, endpoint: undefined },
  { method: "GET", path: "/docs", group: undefined, endpoint: undefined },
  { method: "GET", path: "/docs/migrating-to-v3", group: undefined, endpoint: undefined }
].map(({ endpoint, group, method, path }) => ({
  method,
  group,
  endpoint,
  pattern: new RegExp(
    "^" + path.toLowerCase().split("/").map((segment: string) =>
      segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    ).join("/") + "$"
  )
}))

/**
 * The endpoint of the contract a request reaches (a path in `routePath`
 * form; `HEAD` reaches a `GET`): its group and endpoint identifiers, or
 * undefined when the router answers it 404 or 405.
 *
 * @internal
 */
export const routeOf = (
  method: string,
  path: string
): { readonly group: string; readonly endpoint: string } | undefined => {
  const served = method === "HEAD" ? "GET" : method
  for (const route of methodRoutes) {
    if (route.group !== undefined && route.endpoint !== undefined && route.method === served && route.pattern.test(path)) {
      return { group: route.group, endpoint: route.endpoint }
    }
  }
  return undefined
}

/**
 * The methods the application serves on a path (in `routePath` form), for the
 * `Allow` header of a 405: `HEAD` wherever `GET` is (Node's server answers it
 * as a `GET` without the body); empty when no route has that path.
 *
 * @internal
 */
export const allowedMethods = (path: string): ReadonlyArray<string> => {
  const methods = new Set<string>()
  for (const route of methodRoutes) {
    if (!route.pattern.test(path)) continue
    methods.add(route.method)
    if (route.method === "GET") methods.add("HEAD")
  }
  return [...methods].sort()
}

/**
 * The rendering of the hot reads, shared by the handlers (`Handlers`) and the
 * fast path of the loopback server (`internal/fastPath`), so that both write
 * the same bytes: signals (v3 list and get, with the readings set through the
 * control surface) and the legacy v2.0 reads.
 *
 * @internal
 */
import type { Legacy, Signal } from "@connected-vehicle/schema"
import { LegacyEndpoints } from "@connected-vehicle/schema/Legacy"
import type { LegacyPath } from "@connected-vehicle/schema/Legacy"
import type { Permission } from "@connected-vehicle/schema/OAuth"
import type { PageLinks } from "@connected-vehicle/schema/Pagination"
import type { Dataset, SignalDefinition, VehicleInfo } from "../Data.ts"
import { legacyBody, legacyBodyOfReading, legacySignalCode, readings, serviceHistory, signalBody, signalStatus, supportsServiceHistory } from "../Data.ts"
import type { Deliveries, Reading } from "../Delivery.ts"
import type { Origins } from "../Env.ts"
import { compatibilityEnvelope, envelope, originFor } from "../Env.ts"
import type { Grant } from "../State.ts"

/** @internal */
export const DEFAULT_PAGE_SIZE = 10

/** The query parameters of a request target, without `drop`. */
const searchOf = (url: string, drop: ReadonlyArray<string>): URLSearchParams => {
  const q = url.indexOf("?")
  const search = new URLSearchParams(q === -1 ? "" : url.slice(q + 1))
  for (const name of drop) search.delete(name)
  return search
}

/**
 * The absolute link of a list at `path`, the spec's path of the list (never
 * the request's own spelling of it: the router ignores case and repeated or
 * trailing slashes), with the request's query parameters.
 *
 * @internal
 */
export const listLink = (origins: Origins, path: string, url: string): string => {
  const search = searchOf(url, [])
  return originFor(origins, path) + path + (search.size === 0 ? "" : `?${search.toString()}`)
}

/**
 * Paging window and `links` of the list at `path` (the spec's path), keeping
 * the request's other query parameters.
 *
 * @internal
 */
export const paginate = (
  origins: Origins,
  path: string,
  url: string,
  total: number,
  page: number | undefined,
  pageSize: number | undefined
) => {
  const number = page ?? 1
  const size = pageSize ?? DEFAULT_PAGE_SIZE
  const lastPage = Math.max(1, Math.ceil(total / size))
  const base = originFor(origins, path) + path
  const search = searchOf(url, ["page", "pageSize"])
  const rest = search.size === 0 ? "" : `&${search.toString()}`
  const link = (p: number) => `${base}?page=${p}&pageSize=${size}${rest}`
  const links: PageLinks = {
    self: link(number),
    first: link(1),
    prev: number > 1 ? link(Math.min(number - 1, lastPage)) : null,
    next: number < lastPage ? link(number + 1) : null,
    last: link(lastPage)
  }
  const start = (number - 1) * size
  return { number, size, start, end: Math.min(total, start + size), links }
}

/**
 * Instants as the contract's `Timestamp` encodes them (`DateTime.formatIso`),
 * each formatted once: the signals of a page share at most five.
 */
const isoStamps = () => {
  const seen = new Map<number, string>()
  return (millis: number) => {
    let text = seen.get(millis)
    if (text === undefined) {
      text = new Date(millis).toISOString()
      seen.set(millis, text)
    }
    return text
  }
}

/** @internal */
export const vehicleResource = (origins: Origins, v: VehicleInfo) => ({
  id: v.id,
  type: "vehicle" as const,
  attributes: {
    make: v.model.make,
    model: v.model.model,
    year: v.year,
    powertrainType: v.model.powertrainType,
    mode: v.mode
  },
  links: { self: `${origins.vehicle}/v3/vehicles/${v.id}` }
})

/**
 * The permissions a read of vehicle `v` may use: its connection's when they
 * are enforced (none for a vehicle without a connection), else `undefined`
 * (every permission).
 *
 * @internal
 */
export const heldPermissions = (
  data: Dataset,
  enforce: boolean,
  v: VehicleInfo
): ReadonlyArray<Permission> | undefined =>
  !enforce ? undefined : v.index < data.connectionCount ? data.connectionPermissions(v.index) : []

/**
 * Why a read that needs `permission` is refused on vehicle `v` (a detail for
 * the 403), or `undefined` when its connection holds it (or permissions are
 * not enforced).
 *
 * @internal
 */
export const missingPermission = (
  held: ReadonlyArray<Permission> | undefined,
  v: VehicleInfo,
  permission: Permission
): string | undefined =>
  held === undefined || held.includes(permission)
    ? undefined
    : `The connection of vehicle ${v.id} lacks the permission ${permission}`

/** The per-signal error of a signal whose permission the connection lacks (section 7, last paragraph). */
const forbiddenSignal = (detail: string) => ({
  value: "ERROR" as const,
  error: {
    type: "AUTHENTICATION",
    code: "FORBIDDEN",
    title: "Forbidden",
    detail,
    resolution: { type: "REAUTHENTICATE" as const }
  }
})

/**
 * The status of a signal of vehicle `v` its connection may not read (`held`,
 * see {@link heldPermissions}): `ERROR` with the `FORBIDDEN` error, whose
 * detail names the permission; `undefined` when it may read it. The REST
 * reads and the webhook events (`internal/deliveryEvents`, `internal/burstPlan`)
 * both show a signal through it, so polling agrees with the events.
 *
 * @internal
 */
export const forbiddenStatus = (
  held: ReadonlyArray<Permission> | undefined,
  v: VehicleInfo,
  definition: SignalDefinition
): ReturnType<typeof forbiddenSignal> | undefined => {
  const denied = missingPermission(held, v, definition.permission)
  return denied === undefined ? undefined : forbiddenSignal(`${denied}, which signal ${definition.code} requires`)
}

/**
 * A signal in its wire (encoded) form. The signals handlers answer with these
 * bytes directly rather than a `Signal` for `HttpApiBuilder` to encode: the
 * generator is trusted, and the encoder's walk of every field was most of the
 * cost of a list request. Keys are in the schema's order, so the bytes equal
 * the encoder's (test/encoding.test.ts checks it). A reading set through the
 * control surface (`reading`) is served as it was set: status `SUCCESS`, its
 * body, `oemUpdatedAt` and `ingestedAt` the instant it was set. A signal the
 * connection may not read (`held`) is an `ERROR` with the `FORBIDDEN` error
 * and no body, whatever was set.
 */
const signalJson = (
  seed: number,
  origins: Origins,
  v: VehicleInfo,
  signalIndex: number,
  now: number,
  r: ReturnType<typeof readings>,
  iso: (millis: number) => string,
  reading: Reading | undefined,
  held: ReadonlyArray<Permission> | undefined
): typeof Signal.Signal.Encoded => {
  const definition = v.model.signals[signalIndex]!
  const links = { self: `${origins.vehicle}/v3/vehicles/${v.id}/signals/${definition.code}` }
  // a reading that was set (the simulator's state) or the generated one
  let status: typeof Signal.Signal.Encoded["attributes"]["status"]
  let body: typeof Signal.Signal.Encoded["attributes"]["body"]
  let oem: number
  let ingested: number
  const denied = forbiddenStatus(held, v, definition)
  if (denied !== undefined) {
    status = denied
    body = {}
    oem = r.updatedAt
    ingested = Math.min(now, oem + 1500 + (v.index % 7) * 100)
  } else if (reading !== undefined) {
    status = { value: "SUCCESS" }
    body = reading.wire
    oem = reading.at
    ingested = Math.min(now, reading.at)
  } else {
    const generated = signalStatus(seed, v.index, signalIndex)
    status = generated.error === undefined ? { value: generated.value } : { value: generated.value, error: generated.error }
    body = generated.value === "SUCCESS" ? signalBody(definition.code, r, v) : {}
    oem = generated.value === "SUCCESS" ? r.updatedAt : r.updatedAt - 3_600_000 * (1 + (v.index % 5))
    ingested = Math.min(now, oem + 1500 + (v.index % 7) * 100)
  }
  return {
    id: definition.code,
    type: "signal",
    attributes: { code: definition.code, name: definition.name, group: definition.group, status, body },
    meta: { retrievedAt: iso(now), oemUpdatedAt: iso(oem), ingestedAt: iso(ingested) },
    links
  }
}

/**
 * The JSON text of a page of a vehicle's signals (`GET /v3/vehicles/{id}/signals`).
 *
 * @internal
 */
export const signalsPageText = (
  data: Dataset,
  origins: Origins,
  deliveries: Deliveries,
  v: VehicleInfo,
  url: string,
  now: number,
  page: number | undefined,
  pageSize: number | undefined,
  enforce: boolean
): string => {
  const seed = data.options.seed
  const held = heldPermissions(data, enforce, v)
  const r = readings(seed, v, now)
  const signals = v.model.signals
  const window = paginate(origins, `/v3/vehicles/${v.id}/signals`, url, signals.length, page, pageSize)
  const items: Array<typeof Signal.Signal.Encoded> = []
  const iso = isoStamps()
  for (let k = window.start; k < window.end; k++) {
    items.push(signalJson(seed, origins, v, k, now, r, iso, deliveries.reading(v.index, signals[k]!.code), held))
  }
  const body: typeof Signal.SignalsPage.Encoded = {
    data: items,
    meta: { pageNumber: window.number, pageSize: window.size, totalCount: signals.length },
    links: window.links,
    included: { vehicle: vehicleResource(origins, v) }
  }
  return JSON.stringify(body)
}

/**
 * The JSON text of one signal (`GET /v3/vehicles/{id}/signals/{code}`); `k`
 * is its index (one the connection may read: the caller answers 403 otherwise).
 *
 * @internal
 */
export const signalText = (
  data: Dataset,
  origins: Origins,
  deliveries: Deliveries,
  v: VehicleInfo,
  k: number,
  now: number
): string => {
  const seed = data.options.seed
  const reading = deliveries.reading(v.index, v.model.signals[k]!.code)
  const body: typeof Signal.SignalResponse.Encoded = {
    data: signalJson(seed, origins, v, k, now, readings(seed, v, now), isoStamps(), reading, undefined),
    included: { vehicle: vehicleResource(origins, v) }
  }
  return JSON.stringify(body)
}

/** Pages kept per URL and user; each is valid for the clock millisecond it was made in. */
const PAGE_MEMO_LIMIT = 256

/**
 * Rendered pages of signals: the answer depends only on the dataset, the URL
 * (vehicle, paging, links), the user, the clock millisecond and the readings
 * set through the control surface, so requests that agree on all of them
 * share one rendering (the grant and the vehicle are still checked first).
 *
 * @internal
 */
export class PageMemo<A> {
  private readonly pages = new Map<string, { readonly data: Dataset; readonly now: number; readonly version: number; readonly value: A }>()

  get(key: string, data: Dataset, now: number, version: number): A | undefined {
    const memo = this.pages.get(key)
    return memo !== undefined && memo.now === now && memo.data === data && memo.version === version ? memo.value : undefined
  }

  set(key: string, data: Dataset, now: number, version: number, value: A): void {
    if (this.pages.size >= PAGE_MEMO_LIMIT) this.pages.clear()
    this.pages.set(key, { data, now, version, value })
  }
}

/** @internal */
export type LegacyItem = {
  readonly code: number
  readonly body: unknown
  readonly headers: Readonly<Record<string, string>>
}

/**
 * Answers one legacy read for a vehicle the user owns (used by the single
 * endpoints, the batch and the fast path): 403 unless both the token's
 * scopes and (when `enforce`) the vehicle's connection hold its permission. A reading set through the control
 * surface on the read's v3 signal (`legacySignalCode`) is what it answers,
 * with `sc-data-age` the instant it was set.
 *
 * @internal
 */
export const legacyRead = (
  data: Dataset,
  deliveries: Deliveries,
  grant: Extract<Grant, { _tag: "User" }>,
  enforce: boolean,
  v: VehicleInfo,
  path: string,
  unitSystem: "metric" | "imperial",
  now: number
): LegacyItem => {
  if (!Object.hasOwn(LegacyEndpoints, path)) {
    return { code: 404, body: envelope(404, `No legacy endpoint ${path} for a vehicle`), headers: {} }
  }
  const endpoint = LegacyEndpoints[path as LegacyPath]
  if (!grant.scopes.has(endpoint.permission)) {
    return { code: 403, body: envelope(403, `The token lacks the permission ${endpoint.permission}`), headers: {} }
  }
  const denied = missingPermission(heldPermissions(data, enforce, v), v, endpoint.permission)
  if (denied !== undefined) return { code: 403, body: envelope(403, denied), headers: {} }
  const seed = data.options.seed
  const imperial = unitSystem === "imperial"
  if (path === "/service/history") {
    if (!supportsServiceHistory(v)) {
      return {
        code: 409,
        body: compatibilityEnvelope(
          `Service history is available for Ford, Lincoln, Toyota, Lexus, Mazda and Volkswagen vehicles in the US; this is a ${v.model.make} (${v.model.region})`
        ),
        headers: {}
      }
    }
    const r = readings(seed, v, now)
    const history: typeof Legacy.ServiceHistory.Encoded = serviceHistory(seed, v)
    return { code: 200, body: history, headers: { "sc-data-age": new Date(r.updatedAt).toISOString(), "sc-unit-system": unitSystem } }
  }
  const read = path as Exclude<LegacyPath, "/service/history">
  const reading = deliveries.reading(v.index, legacySignalCode[read])
  const set = reading === undefined ? undefined : legacyBodyOfReading(read, reading.body, imperial)
  if (set !== undefined) {
    return { code: 200, body: set, headers: { "sc-data-age": new Date(reading!.at).toISOString(), "sc-unit-system": unitSystem } }
  }
  const r = readings(seed, v, now)
  return {
    code: 200,
    body: legacyBody(read, r, v, imperial),
    headers: { "sc-data-age": new Date(r.updatedAt).toISOString(), "sc-unit-system": unitSystem }
  }
}

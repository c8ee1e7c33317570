/**
 * The deprecation of the v2.0 interface as its responses announce it: the
 * `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and `Link rel="deprecation"`
 * response headers, read from every v2.0 response (single reads, the vehicle
 * list, the batch, and error responses), exposed on results and logged once per
 * process per endpoint, from what each response carries.
 *
 * v2.0 is deprecated as of December 1, 2026 (spec section 9, which gives no
 * removal date; the vehicle list is not deprecated): see
 * `docs/migrating-to-v3.md` and `Migration` of `@connected-vehicle/v3`.
 *
 * @since 0.2.0
 */
import { Clock, Context, DateTime, Effect, Schema } from "effect"

/**
 * What a v2.0 response says about its deprecation: when the endpoint was (or
 * will be) deprecated (`Deprecation`), when it stops answering (`Sunset`, sent
 * only once a removal date is announced: spec section 9 gives none), and the
 * documentation of the deprecation (`Link: <…>; rel="deprecation"`). Each
 * field is present only when its header was sent and well-formed.
 *
 * @example
 * ```ts
 * import { DateTime } from "effect"
 * import type { Deprecation } from "@connected-vehicle/legacy-v2/Deprecation"
 *
 * const describe = (d: Deprecation) => `removal ${d.sunsetAt ? DateTime.formatIso(d.sunsetAt) : "not announced"}, see ${d.link}`
 * ```
 * @deprecated Goes away with v2.0, deprecated as of 2026-12-01 (v3 responses carry no deprecation headers); see `Migration` of `@connected-vehicle/v3`.
 * @since 0.2.0
 * @category models
 */
export interface Deprecation {
  readonly deprecatedAt?: DateTime.Utc
  readonly sunsetAt?: DateTime.Utc
  readonly link?: string
}

const structuredDate = /^@(-?\d{1,15})$/

const httpDate = (value: string): DateTime.Utc | undefined => {
  const millis = Date.parse(value)
  return Number.isNaN(millis) || !/\b\d{4}\b/.test(value) ? undefined : DateTime.makeUnsafe(millis)
}

/** RFC 9745 `@<seconds>`; an HTTP-date (earlier drafts) is accepted too. */
const parseDeprecation = (value: string): DateTime.Utc | undefined => {
  const trimmed = value.trim()
  const match = structuredDate.exec(trimmed)
  return match !== null ? DateTime.makeUnsafe(Number(match[1]) * 1000) : httpDate(trimmed)
}

/** The target of the first `Link` entry whose `rel` includes `deprecation`. */
const parseLink = (value: string): string | undefined => {
  for (const entry of value.matchAll(/<([^>]*)>([^,<]*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(entry[2]!)
    const rels = (rel?.[1] ?? rel?.[2] ?? "").toLowerCase().split(/\s+/)
    if (rels.includes("deprecation")) return entry[1]!.trim()
  }
  return undefined
}

/**
 * Reads the deprecation headers of a response (lower-case names);
 * `undefined` when it carries none. A malformed header is left out (the
 * response itself is not failed for it).
 *
 * @example
 * ```ts
 * import { fromHeaders } from "@connected-vehicle/legacy-v2/Deprecation"
 *
 * fromHeaders({
 *   deprecation: "@1796083200",
 *   link: "<https://example.com/docs/migrating-to-v3>; rel=\"deprecation\"; type=\"text/html\""
 * })
 * ```
 * @deprecated Goes away with v2.0, deprecated as of 2026-12-01 (v3 responses carry no deprecation headers); see `Migration` of `@connected-vehicle/v3`.
 * @since 0.2.0
 * @category parsing
 */
export const fromHeaders = (headers: Readonly<Record<string, string | undefined>>): Deprecation | undefined => {
  const deprecation = headers["deprecation"]
  const sunset = headers["sunset"]
  const link = headers["link"]
  if (deprecation === undefined && sunset === undefined && (link === undefined || !/deprecation/i.test(link))) {
    return undefined
  }
  // every v2.0 response carries the same three values: read them once
  if (deprecation === last.deprecation && sunset === last.sunset && link === last.link) return last.value
  const value = read(deprecation, sunset, link)
  last = { deprecation, sunset, link, value }
  return value
}

/** The last headers read by {@link fromHeaders} and what they gave (a `Deprecation` is immutable). */
let last: {
  readonly deprecation: string | undefined
  readonly sunset: string | undefined
  readonly link: string | undefined
  readonly value: Deprecation | undefined
} = { deprecation: undefined, sunset: undefined, link: undefined, value: undefined }

const read = (deprecation: string | undefined, sunset: string | undefined, link: string | undefined): Deprecation | undefined => {
  const deprecatedAt = deprecation === undefined ? undefined : parseDeprecation(deprecation)
  const sunsetAt = sunset === undefined ? undefined : httpDate(sunset.trim())
  const target = link === undefined ? undefined : parseLink(link)
  if (deprecation === undefined && sunsetAt === undefined && target === undefined) return undefined
  return {
    ...(deprecatedAt === undefined ? {} : { deprecatedAt }),
    ...(sunsetAt === undefined ? {} : { sunsetAt }),
    ...(target === undefined ? {} : { link: target })
  }
}

/**
 * Where the deprecation warning goes: `off`, or the log level of the warning.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WarningLevel } from "@connected-vehicle/legacy-v2/Deprecation"
 *
 * Schema.is(WarningLevel)("off") // true
 * ```
 * @deprecated Goes away with v2.0, deprecated as of 2026-12-01 (v3 responses carry no deprecation headers); see `Migration` of `@connected-vehicle/v3`.
 * @since 0.2.0
 * @category models
 */
export const WarningLevel = Schema.Literals(["off", "warn", "info", "debug"])

/**
 * @example
 * ```ts
 * import type { WarningLevel } from "@connected-vehicle/legacy-v2/Deprecation"
 *
 * const level: WarningLevel = "warn"
 * ```
 * @deprecated Goes away with v2.0, deprecated as of 2026-12-01 (v3 responses carry no deprecation headers); see `Migration` of `@connected-vehicle/v3`.
 * @since 0.2.0
 * @category models
 */
export type WarningLevel = typeof WarningLevel.Type

/**
 * The environment variable of the {@link WarningLevel}, read by
 * `Vehicles.config` (and so `Vehicles.layerConfig`) when the
 * `deprecationWarnings` option is not given.
 *
 * @example
 * ```ts
 * import { Config } from "effect"
 * import { WARNINGS_ENV } from "@connected-vehicle/legacy-v2/Deprecation"
 *
 * const setting = Config.option(Config.String(WARNINGS_ENV))
 * ```
 * @deprecated Goes away with v2.0, deprecated as of 2026-12-01 (v3 responses carry no deprecation headers); see `Migration` of `@connected-vehicle/v3`.
 * @since 0.2.0
 * @category configuration
 */
export const WARNINGS_ENV = "CONNECTED_VEHICLE_DEPRECATION_WARNINGS"

/**
 * The endpoints already warned about (`"GET /v2.0/vehicles/{id}/odometer"`,
 * ...). By default one set for the whole process (kept on `globalThis`, so
 * that two copies of this module share it): each endpoint is warned about
 * once per process. Provide a fresh set to scope the rule (tests).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Warned } from "@connected-vehicle/legacy-v2/Deprecation"
 *
 * const scoped = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, Warned, new Set<string>())
 * ```
 * @deprecated Goes away with v2.0, deprecated as of 2026-12-01 (v3 responses carry no deprecation headers); see `Migration` of `@connected-vehicle/v3`.
 * @since 0.2.0
 * @category references
 */
export const Warned = Context.Reference<Set<string>>("@connected-vehicle/legacy-v2/Deprecation/Warned", {
  defaultValue: () => {
    const key = Symbol.for("@connected-vehicle/legacy-v2/Deprecation/Warned")
    const global = globalThis as { [key]?: Set<string> }
    return (global[key] ??= new Set<string>())
  }
})

// the replacement of an endpoint v3 does not replace (the service history)
const NO_V3_EQUIVALENT = "no v3 equivalent (see docs/migrating-to-v3.md)"

/**
 * The v3 replacement of each v2.0 endpoint, by its path below `/v2.0`.
 *
 * @example
 * ```ts
 * import { replacements } from "@connected-vehicle/legacy-v2/Deprecation"
 *
 * replacements["/vehicles/{id}/odometer"] // "Migration.odometer (Signals.get odometer-traveleddistance)"
 * ```
 * @deprecated Goes away with v2.0, deprecated as of 2026-12-01 (v3 responses carry no deprecation headers); see `Migration` of `@connected-vehicle/v3`.
 * @since 0.2.0
 * @category constants
 */
export const replacements: Readonly<Record<string, string>> = {
  "/vehicles": "Connections.stream({ userId })",
  "/vehicles/{id}/odometer": "Migration.odometer (Signals.get odometer-traveleddistance)",
  "/vehicles/{id}/location": "Migration.location (Signals.get location-preciselocation)",
  "/vehicles/{id}/vin": "Migration.vin (Signals.get vehicleidentification-vin)",
  "/vehicles/{id}/engine/oil": "Migration.engineOil (Signals.get internalcombustionengine-oillife)",
  "/vehicles/{id}/tires/pressure": "Migration.tirePressure (Signals.get wheel-tirepressures)",
  "/vehicles/{id}/service/history": NO_V3_EQUIVALENT,
  "/vehicles/{id}/batch": "one Migration read per path, or Signals.list"
}

/**
 * The endpoint of a v2.0 request URL, without the vehicle id, the query or
 * anything before `/v2.0` (so no identifier and no credential):
 * `"GET /v2.0/vehicles/{id}/odometer"`. `undefined` for a URL outside `/v2.0`.
 *
 * @example
 * ```ts
 * import { endpointOf } from "@connected-vehicle/legacy-v2/Deprecation"
 *
 * endpointOf("GET", "http://127.0.0.1:4010/v2.0/vehicles/abc/odometer?x=1") // "GET /v2.0/vehicles/{id}/odometer"
 * ```
 * @deprecated Goes away with v2.0, deprecated as of 2026-12-01 (v3 responses carry no deprecation headers); see `Migration` of `@connected-vehicle/v3`.
 * @since 0.2.0
 * @category utils
 */
export const endpointOf = (method: string, url: string): string | undefined => {
  const start = url.indexOf("/v2.0/")
  if (start === -1) return undefined
  const query = url.indexOf("?", start)
  const fragment = url.indexOf("#", start)
  const end = query === -1 ? fragment === -1 ? url.length : fragment : fragment === -1 ? query : Math.min(query, fragment)
  // the segment after `/vehicles/`, if any, is the vehicle's id
  const path = start + 5
  const id = path + "/vehicles/".length
  if (!url.startsWith("/vehicles/", path) || id >= end || url.charCodeAt(id) === 47) {
    return `${method} /v2.0${url.slice(path, end)}`
  }
  const slash = url.indexOf("/", id)
  return `${method} /v2.0/vehicles/{id}${slash === -1 || slash > end ? "" : url.slice(slash, end)}`
}

const describe = (endpoint: string, deprecation: Deprecation, now: number): string => {
  const path = endpoint.slice(endpoint.indexOf(" /v2.0") + 6)
  const replacement = replacements[path]
  const date = (d: DateTime.Utc) => DateTime.formatIso(d).slice(0, 10)
  const sunset = deprecation.sunsetAt
  return [
    `The connected-vehicle v2.0 endpoint ${endpoint} is deprecated`,
    deprecation.deprecatedAt === undefined ? "" : ` as of ${date(deprecation.deprecatedAt)}`,
    sunset === undefined
      ? ""
      : now < DateTime.toEpochMillis(sunset)
      ? ` and sunsets on ${date(sunset)}`
      : ` and was sunset on ${date(sunset)} (it may stop answering at any time)`,
    replacement === undefined
      ? "; move to v3"
      : replacement === NO_V3_EQUIVALENT
      ? "; it has no v3 equivalent: export the data you need while v2.0 answers (see docs/migrating-to-v3.md)"
      : `; v3 replacement: ${replacement} of @connected-vehicle/v3`,
    deprecation.link === undefined ? "" : `; see ${deprecation.link}`,
    `. To silence this warning, give the option deprecationWarnings: "off" to Vehicles.layer (legacy: { deprecationWarnings: "off" } to ConnectedVehicle.layer), or set ${WARNINGS_ENV}=off for Vehicles.layerConfig, ConnectedVehicle.layerConfig or createClient (which read it).`
  ].join("")
}

/**
 * Logs the deprecation of `endpoint` at `level`, unless `level` is `off` or
 * the endpoint was already warned about in this process ({@link Warned}).
 * The message names the endpoint (no vehicle id, no query, never a token),
 * "deprecated as of <date>" (`deprecatedAt`), the v3 replacement (or that it
 * has none: the service history) and the link. A sunset is named only when the response carried one (`sunsetAt`),
 * told by the `Clock`: "sunsets on <date>" before it, "was sunset on <date>"
 * from that day on.
 *
 * @example
 * ```ts
 * import { DateTime } from "effect"
 * import { warnOnce } from "@connected-vehicle/legacy-v2/Deprecation"
 *
 * const warn = warnOnce("GET /v2.0/vehicles/{id}/vin", { deprecatedAt: DateTime.makeUnsafe("2026-12-01T00:00:00Z") }, "warn")
 * ```
 * @deprecated Goes away with v2.0, deprecated as of 2026-12-01 (v3 responses carry no deprecation headers); see `Migration` of `@connected-vehicle/v3`.
 * @since 0.2.0
 * @category logging
 */
export const warnOnce = (endpoint: string, deprecation: Deprecation, level: WarningLevel): Effect.Effect<void> =>
  level === "off" ? Effect.void : Effect.flatMap(Effect.service(Warned), (warned) => {
    if (warned.has(endpoint)) return Effect.void
    warned.add(endpoint)
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const message = describe(endpoint, deprecation, now)
      const log = level === "warn" ? Effect.logWarning(message) : level === "info" ? Effect.logInfo(message) : Effect.logDebug(message)
      return Effect.annotateLogs(log, {
        endpoint,
        ...(deprecation.sunsetAt === undefined ? {} : { sunsetAt: DateTime.formatIso(deprecation.sunsetAt) })
      })
    })
  })

/**
 * The v2.0 deprecation (spec section 9: v2.0 is announced for deprecation on
 * December 1, 2026; the legacy vehicle list may be used meanwhile). Every
 * `/v2.0` response but the vehicle list's carries `Deprecation` (RFC 9745)
 * and `Link: <…/docs/migrating-to-v3>; rel="deprecation"`, errors and batches
 * included; `Sunset` (RFC 8594) only when a removal date is configured
 * (`SimulatorOptions.legacySunset`: the spec gives none). `GET
 * /docs/migrating-to-v3` answers a short summary, and a retired mode answers
 * the deprecated `/v2.0` requests `410 Gone` (section 7 envelope), so that
 * teams can rehearse the removal.
 *
 * @since 0.2.0
 */
import { HttpServerResponse } from "effect/http"
import { envelope } from "./Env.ts"

/**
 * The deprecation date of v2.0 (section 9.2): 2026-12-01T00:00:00Z, in
 * milliseconds. The spec gives no removal (sunset) date.
 *
 * @example
 * ```ts
 * import { DEPRECATION_MILLIS } from "@connected-vehicle/simulator/Sunset"
 *
 * const deprecated = Date.now() >= DEPRECATION_MILLIS
 * ```
 * @since 0.2.0
 * @category constants
 */
export const DEPRECATION_MILLIS = Date.UTC(2026, 11, 1)

/**
 * The path of the legacy vehicle list, which is not deprecated (section 9.3:
 * it may be used while the move to v3 is completed).
 *
 * @example
 * ```ts
 * import { VEHICLE_LIST_PATH } from "@connected-vehicle/simulator/Sunset"
 *
 * const listUrl = new URL(VEHICLE_LIST_PATH, "http://127.0.0.1:4010").href
 * ```
 * @since 0.2.0
 * @category constants
 */
export const VEHICLE_LIST_PATH = "/v2.0/vehicles"

/**
 * The path of the migration summary the `Link` header points to.
 *
 * @example
 * ```ts
 * import { MIGRATION_GUIDE_PATH } from "@connected-vehicle/simulator/Sunset"
 *
 * const guideUrl = new URL(MIGRATION_GUIDE_PATH, "http://127.0.0.1:4010").href
 * ```
 * @since 0.2.0
 * @category constants
 */
export const MIGRATION_GUIDE_PATH = "/docs/migrating-to-v3"

/**
 * When the deprecated v2.0 endpoints answer `410 Gone`: `false` (never, the
 * default), `true` (always: the simulator plays a retired v2.0), or
 * `"afterSunset"` (once the simulator's `Clock` reaches the configured
 * removal date, `SimulatorOptions.legacySunset`, which it requires). The
 * vehicle list keeps answering in every mode.
 *
 * @example
 * ```ts
 * import type { RetireLegacy } from "@connected-vehicle/simulator/Sunset"
 *
 * const retire: RetireLegacy = "afterSunset" // 410 Gone from the configured legacySunset (simulated time)
 * ```
 * @since 0.2.0
 * @category models
 */
export type RetireLegacy = boolean | "afterSunset"

/**
 * Whether a (normalised) path is part of v2.0.
 *
 * @example
 * ```ts
 * import { isLegacyPath } from "@connected-vehicle/simulator/Sunset"
 *
 * isLegacyPath("/v2.0/vehicles/abc/odometer") // true
 * ```
 * @since 0.2.0
 * @category utils
 */
export const isLegacyPath = (path: string): boolean => path === "/v2.0" || path.startsWith("/v2.0/")

/**
 * Whether a (normalised) path is part of the deprecated v2.0: under `/v2.0`
 * and not the vehicle list ({@link VEHICLE_LIST_PATH}).
 *
 * @example
 * ```ts
 * import { isDeprecatedPath } from "@connected-vehicle/simulator/Sunset"
 *
 * isDeprecatedPath("/v2.0/vehicles/abc/odometer") // true
 * isDeprecatedPath("/v2.0/vehicles") // false
 * ```
 * @since 0.2.0
 * @category utils
 */
export const isDeprecatedPath = (path: string): boolean => path !== VEHICLE_LIST_PATH && isLegacyPath(path)

/**
 * The deprecation headers of a deprecated v2.0 response: `Deprecation` and
 * `Link` (on `origin`), and `Sunset` when a removal date (`sunsetMillis`) is
 * configured.
 *
 * @example
 * ```ts
 * import { deprecationHeaders } from "@connected-vehicle/simulator/Sunset"
 *
 * deprecationHeaders("http://127.0.0.1:4010").deprecation // "@1796083200"
 * deprecationHeaders("http://127.0.0.1:4010", Date.UTC(2027, 5, 1)).sunset // "Tue, 01 Jun 2027 00:00:00 GMT"
 * ```
 * @since 0.2.0
 * @category utils
 */
export const deprecationHeaders = (origin: string, sunsetMillis?: number | undefined): Readonly<Record<string, string>> => {
  // built once per origin and sunset (a simulator has one, or one per root): every deprecated response carries them
  const key = sunsetMillis === undefined ? origin : `${origin} ${sunsetMillis}`
  let headers = deprecationByOrigin.get(key)
  if (headers === undefined) {
    headers = Object.freeze({
      deprecation: `@${DEPRECATION_MILLIS / 1000}`,
      ...(sunsetMillis === undefined ? {} : { sunset: new Date(sunsetMillis).toUTCString() }),
      link: `<${origin}${MIGRATION_GUIDE_PATH}>; rel="deprecation"; type="text/markdown"`
    })
    if (deprecationByOrigin.size >= 64) deprecationByOrigin.clear()
    deprecationByOrigin.set(key, headers)
  }
  return headers
}

const deprecationByOrigin = new Map<string, Readonly<Record<string, string>>>()

/**
 * Whether the deprecated v2.0 is retired at `now` under `mode`
 * (`"afterSunset"` needs the removal date, `sunsetMillis`).
 *
 * @example
 * ```ts
 * import { isRetired } from "@connected-vehicle/simulator/Sunset"
 *
 * isRetired("afterSunset", Date.UTC(2027, 5, 1), Date.UTC(2027, 5, 1)) // true
 * ```
 * @since 0.2.0
 * @category utils
 */
export const isRetired = (mode: RetireLegacy | undefined, now: number, sunsetMillis?: number | undefined): boolean =>
  mode === true || (mode === "afterSunset" && sunsetMillis !== undefined && now >= sunsetMillis)

const day = (millis: number) => new Date(millis).toISOString().slice(0, 10)

/**
 * The answer of a retired v2.0 endpoint: `410 Gone` with the section 7
 * envelope (type `VALIDATION`, code `GONE`); it names the removal date when
 * one is configured (`sunsetMillis`).
 *
 * @example
 * ```ts
 * import { retiredResponse } from "@connected-vehicle/simulator/Sunset"
 *
 * retiredResponse("http://127.0.0.1:4010").status // 410
 * ```
 * @since 0.2.0
 * @category handlers
 */
export const retiredResponse = (origin: string, sunsetMillis?: number | undefined): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(
    envelope(
      410,
      `The v2.0 interface (deprecated as of ${day(DEPRECATION_MILLIS)}) ${
        sunsetMillis === undefined ? "is retired" : `was retired on ${day(sunsetMillis)}`
      }; use v3 (see ${origin}${MIGRATION_GUIDE_PATH})`,
      { code: "GONE", title: "Gone" }
    ),
    { status: 410 }
  )

/**
 * `GET /docs/migrating-to-v3`: the v2.0 → v3 table and dates (the full guide
 * is `docs/migrating-to-v3.md` of the SDK); the removal date only when one
 * is configured (`sunsetMillis`).
 *
 * @example
 * ```ts
 * import { guideResponse } from "@connected-vehicle/simulator/Sunset"
 *
 * const response = guideResponse() // text/markdown summary of the migration
 * ```
 * @since 0.2.0
 * @category handlers
 */
export const guideResponse = (sunsetMillis?: number | undefined): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(
    [
      "# Migrating from v2.0 to v3",
      "",
      `v2.0 is deprecated as of ${new Date(DEPRECATION_MILLIS).toUTCString()} (RFC 9745 Deprecation header); ${
        sunsetMillis === undefined
          ? "no removal (sunset) date is announced."
          : `its sunset date is ${new Date(sunsetMillis).toUTCString()} (RFC 8594 Sunset header).`
      }`,
      "The legacy vehicle list (GET /v2.0/vehicles) is not deprecated: it may be used while the move to v3 is completed.",
      "v3 reads use the application token (client-credentials grant) and the vehicle's user id in sc-user-id.",
      "",
      "| v2.0 read | v3 signal |",
      "| --- | --- |",
      "| /odometer | odometer-traveleddistance (unit in the body) |",
      "| /location | location-preciselocation |",
      "| /vin | vehicleidentification-vin |",
      "| /engine/oil | internalcombustionengine-oillife (percent) |",
      "| /tires/pressure | wheel-tirepressures (kPa) |",
      "| /service/history | none |",
      "| /vehicles (not deprecated) | GET /v3/connections?filter[userId]= |",
      "",
      "SDK: Migration of @connected-vehicle/v3; guide: docs/migrating-to-v3.md.",
      ""
    ].join("\n"),
    { contentType: "text/markdown; charset=utf-8" }
  )

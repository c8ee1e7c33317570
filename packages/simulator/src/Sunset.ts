/**
 * The v2.0 sunset (spec section 9: v2.0 is deprecated on December 1, 2026):
 * every `/v2.0` response carries `Deprecation` (RFC 9745), `Sunset` (RFC 8594)
 * and `Link: <…/docs/migrating-to-v3>; rel="deprecation"`, errors and batches
 * included; `GET /docs/migrating-to-v3` answers a short summary; and a retired
 * mode answers every `/v2.0` request `410 Gone` (section 7 envelope), so that
 * teams can rehearse the sunset.
 *
 * @since 0.2.0
 */
import { HttpServerResponse } from "effect/http"
import { envelope } from "./Env.ts"

/**
 * The sunset (and deprecation) date of v2.0: 2026-12-01T00:00:00Z, in milliseconds.
 *
 * @example
 * ```ts
 * import { SUNSET_MILLIS } from "@connected-vehicle/simulator/Sunset"
 *
 * const sunsetPassed = Date.now() >= SUNSET_MILLIS
 * ```
 * @since 0.2.0
 * @category constants
 */
export const SUNSET_MILLIS = Date.UTC(2026, 11, 1)

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
 * When v2.0 answers `410 Gone`: `false` (never, the default), `true` (always:
 * the simulator plays a retired v2.0), or `"afterSunset"` (once the
 * simulator's `Clock` reaches {@link SUNSET_MILLIS}).
 *
 * @example
 * ```ts
 * import type { RetireLegacy } from "@connected-vehicle/simulator/Sunset"
 *
 * const retire: RetireLegacy = "afterSunset" // 410 Gone from 1 December 2026 (simulated time)
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
 * The deprecation headers of every v2.0 response; the link is on `origin`.
 *
 * @example
 * ```ts
 * import { deprecationHeaders } from "@connected-vehicle/simulator/Sunset"
 *
 * deprecationHeaders("http://127.0.0.1:4010").sunset // "Tue, 01 Dec 2026 00:00:00 GMT"
 * ```
 * @since 0.2.0
 * @category utils
 */
export const deprecationHeaders = (origin: string): Readonly<Record<string, string>> => {
  // built once per origin (a simulator has one, or one per root): every v2.0 response carries them
  let headers = deprecationByOrigin.get(origin)
  if (headers === undefined) {
    headers = Object.freeze({
      deprecation: `@${SUNSET_MILLIS / 1000}`,
      sunset: new Date(SUNSET_MILLIS).toUTCString(),
      link: `<${origin}${MIGRATION_GUIDE_PATH}>; rel="deprecation"; type="text/markdown"`
    })
    if (deprecationByOrigin.size >= 64) deprecationByOrigin.clear()
    deprecationByOrigin.set(origin, headers)
  }
  return headers
}

const deprecationByOrigin = new Map<string, Readonly<Record<string, string>>>()

/**
 * Whether v2.0 is retired at `now` under `mode`.
 *
 * @example
 * ```ts
 * import { isRetired, SUNSET_MILLIS } from "@connected-vehicle/simulator/Sunset"
 *
 * isRetired("afterSunset", SUNSET_MILLIS) // true
 * ```
 * @since 0.2.0
 * @category utils
 */
export const isRetired = (mode: RetireLegacy | undefined, now: number): boolean =>
  mode === true || (mode === "afterSunset" && now >= SUNSET_MILLIS)

/**
 * The answer of a retired v2.0: `410 Gone` with the section 7 envelope
 * (type `VALIDATION`, code `GONE`).
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
export const retiredResponse = (origin: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(
    envelope(
      410,
      `The v2.0 interface was retired on ${new Date(SUNSET_MILLIS).toISOString().slice(0, 10)}; use v3 (see ${origin}${MIGRATION_GUIDE_PATH})`,
      { code: "GONE", title: "Gone" }
    ),
    { status: 410 }
  )

/**
 * `GET /docs/migrating-to-v3`: the v2.0 → v3 table and dates (the full guide
 * is `docs/migrating-to-v3.md` of the SDK).
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
export const guideResponse = (): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(
    [
      "# Migrating from v2.0 to v3",
      "",
      `v2.0 is deprecated; its sunset date is ${new Date(SUNSET_MILLIS).toUTCString()} (RFC 8594 Sunset header).`,
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
      "| /vehicles | GET /v3/connections?filter[userId]= |",
      "",
      "SDK: Migration of @connected-vehicle/v3; guide: docs/migrating-to-v3.md.",
      ""
    ].join("\n"),
    { contentType: "text/markdown; charset=utf-8" }
  )

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
import { DateTime } from "effect"
import type { HttpServerResponse } from "effect/http"
import * as internal from "./internal/sunset.ts"

/**
 * The deprecation date of v2.0 (section 9.2): 2026-12-01T00:00:00Z. The spec
 * gives no removal (sunset) date.
 *
 * @example
 * ```ts
 * import { DateTime } from "effect"
 * import { DEPRECATION_DATE } from "@connected-vehicle/simulator/Sunset"
 *
 * DateTime.formatIso(DEPRECATION_DATE) // "2026-12-01T00:00:00.000Z"
 * ```
 * @since 0.3.0
 * @category constants
 */
export const DEPRECATION_DATE: DateTime.Utc = DateTime.makeUnsafe(internal.DEPRECATION_EPOCH)

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
export const MIGRATION_GUIDE_PATH: typeof internal.MIGRATION_GUIDE_PATH = internal.MIGRATION_GUIDE_PATH

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
 * `Link` (on `origin`), and `Sunset` when a removal date (`sunset`: a
 * `DateTime`, a `Date`, epoch milliseconds or an ISO 8601 string) is
 * configured. A `sunset` that is not a date, or is at or after 10000-01-01
 * (an IMF-fixdate has a 4-digit year), throws an `InvalidArgument` naming it.
 *
 * @example
 * ```ts
 * import { deprecationHeaders } from "@connected-vehicle/simulator/Sunset"
 *
 * deprecationHeaders("http://127.0.0.1:4010").deprecation // "@1796083200"
 * deprecationHeaders("http://127.0.0.1:4010", "2027-06-01").sunset // "Tue, 01 Jun 2027 00:00:00 GMT"
 * ```
 * @since 0.2.0
 * @category utils
 */
export const deprecationHeaders = (
  origin: string,
  sunset?: DateTime.DateTime.Input | undefined
): Readonly<Record<string, string>> => internal.deprecationHeaders(origin, epochOrUndefined(sunset))

const epochOrUndefined = (sunset: DateTime.DateTime.Input | undefined): number | undefined =>
  sunset === undefined ? undefined : internal.sunsetEpochOf("sunset", sunset)

/**
 * Whether the deprecated v2.0 is retired at `now` under `mode`
 * (`"afterSunset"` needs the removal date, `sunset`). Both are dates (a
 * `DateTime`, a `Date`, epoch milliseconds or an ISO 8601 string); one that is
 * not, or a `sunset` at or after 10000-01-01, throws an `InvalidArgument`
 * naming it.
 *
 * @example
 * ```ts
 * import { DateTime } from "effect"
 * import { isRetired } from "@connected-vehicle/simulator/Sunset"
 *
 * isRetired("afterSunset", DateTime.makeUnsafe("2027-06-01"), "2027-06-01") // true
 * isRetired("afterSunset", new Date("2027-05-31T23:59:59Z"), "2027-06-01") // false
 * ```
 * @since 0.2.0
 * @category utils
 */
export const isRetired = (
  mode: RetireLegacy | undefined,
  now: DateTime.DateTime.Input,
  sunset?: DateTime.DateTime.Input | undefined
): boolean => internal.isRetired(mode, internal.epochOf("now", now), epochOrUndefined(sunset))

/**
 * The answer of a retired v2.0 endpoint: `410 Gone` with the section 7
 * envelope (type `VALIDATION`, code `GONE`); it names the removal date when
 * one is configured (`sunset`, a date as {@link isRetired} takes it): "was
 * retired on" that date once `now` (a date too; default the current time)
 * reached it, else a removal rehearsal with the announced date.
 *
 * @example
 * ```ts
 * import { retiredResponse } from "@connected-vehicle/simulator/Sunset"
 *
 * retiredResponse("http://127.0.0.1:4010").status // 410
 * retiredResponse("http://127.0.0.1:4010", "2027-06-01", "2027-07-01") // 410, "was retired on 2027-06-01"
 * retiredResponse("http://127.0.0.1:4010", "2027-06-01", "2027-01-15") // 410, a rehearsal: "the announced removal date is 2027-06-01"
 * ```
 * @since 0.2.0
 * @category handlers
 */
export const retiredResponse = (
  origin: string,
  sunset?: DateTime.DateTime.Input | undefined,
  now?: DateTime.DateTime.Input | undefined
): HttpServerResponse.HttpServerResponse =>
  internal.retiredResponse(origin, epochOrUndefined(sunset), now === undefined ? Date.now() : internal.epochOf("now", now))

/**
 * `GET /docs/migrating-to-v3`: the v2.0 → v3 table and dates (the full guide
 * is `docs/migrating-to-v3.md` of the SDK); the removal date only when one
 * is configured (`sunset`, a date as {@link isRetired} takes it).
 *
 * @example
 * ```ts
 * import { guideResponse } from "@connected-vehicle/simulator/Sunset"
 *
 * const response = guideResponse() // text/markdown summary of the migration
 * const withRemoval = guideResponse("2027-06-01") // names the sunset date too
 * ```
 * @since 0.2.0
 * @category handlers
 */
export const guideResponse = (sunset?: DateTime.DateTime.Input | undefined): HttpServerResponse.HttpServerResponse =>
  internal.guideResponse(epochOrUndefined(sunset))

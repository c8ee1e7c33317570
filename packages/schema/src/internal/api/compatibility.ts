/**
 * The group of the v3 compatibility API (`{compat_url}`).
 *
 * @internal
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { PowertrainFilter, Region } from "../../Common.ts"
import { CompatibilityPage } from "../../Compatibility.ts"
import { lenientQueryValue, NotFoundResponse, ServerErrorResponse } from "./responses.ts"

/**
 * The query of the listing as the service reads it (section 4.5): any value
 * is accepted (the listing answers 200 to every query), one outside the
 * allowed values matches nothing, a repeated parameter is several filters
 * that must all hold, and other parameters are ignored.
 * {@link CompatibilityFilters} holds the allowed values.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { CompatibilityQuery } from "@connected-vehicle/schema/Api"
 *
 * const isCompatibilityQuery = Schema.is(CompatibilityQuery)
 * isCompatibilityQuery({ "filter[region]": "MARS" }) // true: answered with empty data
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const CompatibilityQuery = Schema.Struct({
  "filter[region]": lenientQueryValue("US, CA or EUROPE (exact spelling); any other value matches nothing", Region),
  "filter[make]": lenientQueryValue("Manufacturer name, case-insensitive"),
  "filter[powertrainType]": lenientQueryValue(
    "ICE, BEV, PHEV, or EV for BEV and PHEV together (exact spelling); any other value matches nothing",
    PowertrainFilter
  )
})

/**
 * The filters of the listing with their allowed values (section 4.5): a
 * region, a make (case-insensitive), a powertrain type where `EV` is BEV and
 * PHEV. A client checks its filters with it before sending them (a value
 * outside these can match nothing).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { CompatibilityFilters } from "@connected-vehicle/schema/Api"
 *
 * const isCompatibilityFilters = Schema.is(CompatibilityFilters)
 * isCompatibilityFilters({ "filter[region]": "MARS" }) // false
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const CompatibilityFilters = Schema.Struct({
  "filter[region]": Schema.optionalKey(Region),
  "filter[make]": Schema.optionalKey(Schema.String),
  "filter[powertrainType]": Schema.optionalKey(PowertrainFilter)
})

/**
 * Compatible vehicles (section 4.5): no credential.
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { CompatibilityGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(CompatibilityGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export class CompatibilityGroup extends HttpApiGroup.make("compatibility").add(
  HttpApiEndpoint.get("list", "/compatible-vehicles", {
    query: CompatibilityQuery,
    success: CompatibilityPage,
    // section 4.5: 200 (empty data when nothing matches), 404 and 500 only
    error: [NotFoundResponse, ServerErrorResponse]
  })
) {}

/**
 * The group of the v3 compatibility API (`{compat_url}`).
 *
 * @internal
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { PowertrainFilter, Region } from "../../Common.ts"
import { CompatibilityPage } from "../../Compatibility.ts"
import { BadRequestResponse, NotFoundResponse, ServerErrorResponse } from "./responses.ts"

/**
 * Compatibility filters (section 4.5).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { CompatibilityQuery } from "@connected-vehicle/schema/Api"
 *
 * const isCompatibilityQuery = Schema.is(CompatibilityQuery)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const CompatibilityQuery = Schema.Struct({
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
    error: [BadRequestResponse, NotFoundResponse, ServerErrorResponse]
  })
) {}

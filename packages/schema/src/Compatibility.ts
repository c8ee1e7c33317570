/**
 * The compatibility listing (section 2.6).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { openEnum, ReportedPowertrainType, ReportedRegion, SelfLinks } from "./Common.ts"
import { CompatibilityMeta } from "./Pagination.ts"

/**
 * A signal or command a vehicle model supports.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Capability } from "@connected-vehicle/schema/Compatibility"
 *
 * const isCapability = Schema.is(Capability)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Capability = Schema.Struct({
  type: openEnum("CapabilityType", ["signal", "command"]),
  name: Schema.String,
  group: Schema.String,
  code: Schema.String,
  capability: Schema.String,
  permission: Schema.String
}).annotate({ identifier: "Capability" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Capability } from "@connected-vehicle/schema/Compatibility"
 *
 * const isCapability: (u: unknown) => u is Capability = Schema.is(Capability)
 * ```
 * @category models
 * @since 0.1.0
 */
export type Capability = typeof Capability.Type

/**
 * One make/model/powertrain/region combination.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { CompatibilityEntry } from "@connected-vehicle/schema/Compatibility"
 *
 * const decode = Schema.decodeUnknownEffect(CompatibilityEntry)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const CompatibilityEntry = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("vehicle-model-capability"),
  attributes: Schema.Struct({
    make: Schema.String,
    model: Schema.String,
    region: ReportedRegion,
    powertrainType: ReportedPowertrainType,
    years: Schema.Struct({ start: Schema.Int, end: Schema.Int }),
    capabilities: Schema.Array(Capability)
  })
}).annotate({ identifier: "CompatibilityEntry" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { CompatibilityEntry } from "@connected-vehicle/schema/Compatibility"
 *
 * const isCompatibilityEntry: (u: unknown) => u is CompatibilityEntry = Schema.is(CompatibilityEntry)
 * ```
 * @category models
 * @since 0.1.0
 */
export type CompatibilityEntry = typeof CompatibilityEntry.Type

/**
 * `GET /compatible-vehicles` response: everything in one page.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { CompatibilityPage } from "@connected-vehicle/schema/Compatibility"
 *
 * const isCompatibilityPage = Schema.is(CompatibilityPage)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const CompatibilityPage = Schema.Struct({
  data: Schema.Array(CompatibilityEntry),
  meta: CompatibilityMeta,
  links: SelfLinks
}).annotate({ identifier: "CompatibilityPage" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { CompatibilityPage } from "@connected-vehicle/schema/Compatibility"
 *
 * const isCompatibilityPage: (u: unknown) => u is CompatibilityPage = Schema.is(CompatibilityPage)
 * ```
 * @category models
 * @since 0.1.0
 */
export type CompatibilityPage = typeof CompatibilityPage.Type

/**
 * The deterministic id of an entry: make, model, start year, end year, powertrain, region.
 *
 * @example
 * ```ts
 * import { compatibilityId } from "@connected-vehicle/schema/Compatibility"
 *
 * compatibilityId({ make: "Tesla", model: "Model 3", start: 2019, end: 2024, powertrainType: "BEV", region: "US" })
 * ```
 * @category utils
 * @since 0.1.0
 */
export const compatibilityId = (entry: {
  readonly make: string
  readonly model: string
  readonly start: number
  readonly end: number
  readonly powertrainType: string
  readonly region: string
}): string =>
  [entry.make, entry.model, entry.start, entry.end, entry.powertrainType, entry.region]
    .map((part) => String(part).toLowerCase().replace(/[^a-z0-9]+/g, "-"))
    .join(":")

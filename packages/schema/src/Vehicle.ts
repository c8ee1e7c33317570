/**
 * The vehicle resource (section 2.2), returned under `included.vehicle`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ReportedMode, ReportedPowertrainType, SelfLinks } from "./Common.ts"

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Vehicle } from "@connected-vehicle/schema/Vehicle"
 *
 * const decode = Schema.decodeUnknownSync(Vehicle)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Vehicle = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("vehicle"),
  attributes: Schema.Struct({
    make: Schema.String,
    model: Schema.String,
    year: Schema.Int,
    powertrainType: ReportedPowertrainType,
    mode: ReportedMode
  }),
  links: SelfLinks
}).annotate({ identifier: "Vehicle" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Vehicle } from "@connected-vehicle/schema/Vehicle"
 *
 * const isVehicle: (u: unknown) => u is Vehicle = Schema.is(Vehicle)
 * ```
 * @category models
 * @since 0.1.0
 */
export type Vehicle = typeof Vehicle.Type

/**
 * `included: { vehicle }`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { IncludedVehicle } from "@connected-vehicle/schema/Vehicle"
 *
 * const isIncludedVehicle = Schema.is(IncludedVehicle)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const IncludedVehicle = Schema.Struct({ vehicle: Vehicle })

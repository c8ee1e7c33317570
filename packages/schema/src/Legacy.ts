/**
 * The legacy v2.0 shapes (section 2.8).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Timestamp } from "./Common.ts"

/**
 * Odometer: `distance` in kilometers (metric) or miles (imperial).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Odometer } from "@connected-vehicle/schema/Legacy"
 *
 * Schema.decodeUnknownSync(Odometer)({ distance: 104.32 })
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Odometer = Schema.Struct({ distance: Schema.Finite }).annotate({ identifier: "Odometer" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Odometer } from "@connected-vehicle/schema/Legacy"
 *
 * const isOdometer: (u: unknown) => u is Odometer = Schema.is(Odometer)
 * ```
 * @category models
 * @since 0.1.0
 */
export type Odometer = typeof Odometer.Type

/**
 * Location in degrees.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Location } from "@connected-vehicle/schema/Legacy"
 *
 * const isLocation = Schema.is(Location)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Location = Schema.Struct({
  latitude: Schema.Finite.check(Schema.isBetween({ minimum: -90, maximum: 90 })),
  longitude: Schema.Finite.check(Schema.isBetween({ minimum: -180, maximum: 180 }))
}).annotate({ identifier: "Location" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Location } from "@connected-vehicle/schema/Legacy"
 *
 * const isLocation: (u: unknown) => u is Location = Schema.is(Location)
 * ```
 * @category models
 * @since 0.1.0
 */
export type Location = typeof Location.Type

/**
 * Vehicle identification number.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Vin } from "@connected-vehicle/schema/Legacy"
 *
 * const isVin = Schema.is(Vin)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Vin = Schema.Struct({ vin: Schema.String }).annotate({ identifier: "Vin" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Vin } from "@connected-vehicle/schema/Legacy"
 *
 * const isVin: (u: unknown) => u is Vin = Schema.is(Vin)
 * ```
 * @category models
 * @since 0.1.0
 */
export type Vin = typeof Vin.Type

/**
 * Engine oil life: 1 = recently changed, 0 = change immediately.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EngineOil } from "@connected-vehicle/schema/Legacy"
 *
 * const isEngineOil = Schema.is(EngineOil)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const EngineOil = Schema.Struct({
  lifeRemaining: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))
}).annotate({ identifier: "EngineOil" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EngineOil } from "@connected-vehicle/schema/Legacy"
 *
 * const isEngineOil: (u: unknown) => u is EngineOil = Schema.is(EngineOil)
 * ```
 * @category models
 * @since 0.1.0
 */
export type EngineOil = typeof EngineOil.Type

/**
 * Tire pressure in kilopascals (metric) or psi (imperial).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { TirePressure } from "@connected-vehicle/schema/Legacy"
 *
 * const isTirePressure = Schema.is(TirePressure)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const TirePressure = Schema.Struct({
  frontLeft: Schema.Finite,
  frontRight: Schema.Finite,
  backLeft: Schema.Finite,
  backRight: Schema.Finite
}).annotate({ identifier: "TirePressure" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { TirePressure } from "@connected-vehicle/schema/Legacy"
 *
 * const isTirePressure: (u: unknown) => u is TirePressure = Schema.is(TirePressure)
 * ```
 * @category models
 * @since 0.1.0
 */
export type TirePressure = typeof TirePressure.Type

const NullableString = Schema.NullOr(Schema.String)

/**
 * One service record. The spec names a further nullable string stating whether a
 * dealership completed the service or the owner entered it without naming it:
 * this SDK calls it `serviceType` (`"DEALERSHIP"` or `"OWNER"` from the simulator)
 * and treats it as optional.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ServiceRecord } from "@connected-vehicle/schema/Legacy"
 *
 * const isServiceRecord = Schema.is(ServiceRecord)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ServiceRecord = Schema.Struct({
  serviceId: NullableString,
  serviceDate: Schema.NullOr(Timestamp),
  odometerDistance: Schema.NullOr(Schema.Finite),
  serviceTasks: Schema.Array(Schema.Struct({ taskId: NullableString, taskDescription: NullableString })),
  serviceDetails: Schema.Array(Schema.Struct({ type: NullableString, value: NullableString })),
  serviceCost: Schema.Struct({
    totalCost: Schema.NullOr(Schema.Finite),
    currency: NullableString
  }),
  serviceType: Schema.optionalKey(NullableString)
}).annotate({ identifier: "ServiceRecord" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ServiceRecord } from "@connected-vehicle/schema/Legacy"
 *
 * const isServiceRecord: (u: unknown) => u is ServiceRecord = Schema.is(ServiceRecord)
 * ```
 * @category models
 * @since 0.1.0
 */
export type ServiceRecord = typeof ServiceRecord.Type

/**
 * Service history: the list of service records.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ServiceHistory } from "@connected-vehicle/schema/Legacy"
 *
 * const isServiceHistory = Schema.is(ServiceHistory)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ServiceHistory = Schema.Array(ServiceRecord).annotate({ identifier: "ServiceHistory" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ServiceHistory } from "@connected-vehicle/schema/Legacy"
 *
 * const isServiceHistory: (u: unknown) => u is ServiceHistory = Schema.is(ServiceHistory)
 * ```
 * @category models
 * @since 0.1.0
 */
export type ServiceHistory = typeof ServiceHistory.Type

/**
 * `GET /v2.0/vehicles` response.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VehicleList } from "@connected-vehicle/schema/Legacy"
 *
 * const isVehicleList = Schema.is(VehicleList)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const VehicleList = Schema.Struct({
  paging: Schema.Struct({ count: Schema.Int, offset: Schema.Int }),
  vehicles: Schema.Array(Schema.String)
}).annotate({ identifier: "VehicleList" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VehicleList } from "@connected-vehicle/schema/Legacy"
 *
 * const isVehicleList: (u: unknown) => u is VehicleList = Schema.is(VehicleList)
 * ```
 * @category models
 * @since 0.1.0
 */
export type VehicleList = typeof VehicleList.Type

/**
 * Unit systems of the legacy interface (header `sc-unit-system`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { UnitSystem } from "@connected-vehicle/schema/Legacy"
 *
 * const isUnitSystem = Schema.is(UnitSystem)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const UnitSystem = Schema.Literals(["metric", "imperial"])

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { UnitSystem } from "@connected-vehicle/schema/Legacy"
 *
 * const isUnitSystem: (u: unknown) => u is UnitSystem = Schema.is(UnitSystem)
 * ```
 * @category models
 * @since 0.1.0
 */
export type UnitSystem = typeof UnitSystem.Type

/**
 * The legacy v2.0 reads (section 4.7), by the name of their endpoint in the
 * contract: the path of each below `/v2.0/vehicles/{id}`, the schema of its
 * body and the permission it needs. This table is the one description of the
 * reads: the contract's read endpoints (`LegacyGroup` of `Api`, in this
 * order), {@link LegacyEndpoints}, the reads of `Vehicles`
 * (`@connected-vehicle/legacy-v2`) and the simulator's handlers are built
 * from it, so a name, a path and a schema cannot disagree between them.
 *
 * @example
 * ```ts
 * import { LegacyReads } from "@connected-vehicle/schema/Legacy"
 *
 * const names = Object.keys(LegacyReads) // ["odometer", "location", "vin", "engineOil", "tirePressure", "serviceHistory"]
 * const path = LegacyReads.tirePressure.path // "/tires/pressure"
 * ```
 * @category constants
 * @since 0.4.0
 */
export const LegacyReads = {
  /** @deprecated v2.0 is deprecated as of 2026-12-01: use `Migration.odometer` of `@connected-vehicle/v3` (`Signals.get` code `odometer-traveleddistance`). */
  odometer: { path: "/odometer", schema: Odometer, permission: "read_odometer" },
  /** @deprecated v2.0 is deprecated as of 2026-12-01: use `Migration.location` of `@connected-vehicle/v3` (`Signals.get` code `location-preciselocation`). */
  location: { path: "/location", schema: Location, permission: "read_location" },
  /** @deprecated v2.0 is deprecated as of 2026-12-01: use `Migration.vin` of `@connected-vehicle/v3` (`Signals.get` code `vehicleidentification-vin`). */
  vin: { path: "/vin", schema: Vin, permission: "read_vin" },
  /** @deprecated v2.0 is deprecated as of 2026-12-01: use `Migration.engineOil` of `@connected-vehicle/v3` (`Signals.get` code `internalcombustionengine-oillife`). */
  engineOil: { path: "/engine/oil", schema: EngineOil, permission: "read_engine_oil" },
  /** @deprecated v2.0 is deprecated as of 2026-12-01: use `Migration.tirePressure` of `@connected-vehicle/v3` (`Signals.get` code `wheel-tirepressures`). */
  tirePressure: { path: "/tires/pressure", schema: TirePressure, permission: "read_tires" },
  /**
   * @deprecated v2.0 is deprecated as of 2026-12-01 and v3 has no service-records signal, so there is no
   * `Migration` equivalent in `@connected-vehicle/v3`: export the history while v2.0 answers
   * (see `docs/migrating-to-v3.md`).
   */
  serviceHistory: { path: "/service/history", schema: ServiceHistory, permission: "read_service_history" }
} as const satisfies Readonly<Record<string, { readonly path: `/${string}`; readonly schema: Schema.Top; readonly permission: string }>>

type Reads = typeof LegacyReads

// the table by path: each entry's schema and permission
type ByPath = {
  readonly [K in keyof Reads as Reads[K]["path"]]: { readonly schema: Reads[K]["schema"]; readonly permission: Reads[K]["permission"] }
}

/**
 * The legacy read endpoints, by their path below `/v2.0/vehicles/{id}`, with the
 * schema of their body and the permission they need: {@link LegacyReads} by path.
 *
 * @example
 * ```ts
 * import { LegacyEndpoints } from "@connected-vehicle/schema/Legacy"
 *
 * const permission = LegacyEndpoints["/odometer"].permission // "read_odometer"
 * ```
 * @category constants
 * @since 0.1.0
 */
export const LegacyEndpoints: ByPath = Object.fromEntries(
  Object.values(LegacyReads).map(({ path, permission, schema }) => [path, { schema, permission }])
) as ByPath

/**
 * A path the batch endpoint answers.
 *
 * @example
 * ```ts
 * import type { LegacyPath } from "@connected-vehicle/schema/Legacy"
 *
 * const path: LegacyPath = "/odometer"
 * ```
 * @category models
 * @since 0.1.0
 */
export type LegacyPath = keyof typeof LegacyEndpoints

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { LegacyPath } from "@connected-vehicle/schema/Legacy"
 *
 * const isLegacyPath = Schema.is(LegacyPath)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const LegacyPath = Schema.Literals(
  Object.keys(LegacyEndpoints) as [LegacyPath, ...Array<LegacyPath>]
)

/**
 * The decoded body of each legacy path.
 *
 * @example
 * ```ts
 * import type { LegacyBody } from "@connected-vehicle/schema/Legacy"
 *
 * const odometer: LegacyBody<"/odometer"> = { distance: 104.32 }
 * ```
 * @category models
 * @since 0.1.0
 */
export type LegacyBody<P extends LegacyPath> = (typeof LegacyEndpoints)[P]["schema"]["Type"]

/**
 * The shapes of `POST /v2.0/vehicles/{id}/batch`: its request body
 * (`BatchRequest`), its response (`BatchResponse`), an answered sub-request
 * (`BatchItem`) and its headers (`BatchItemHeaders`). Each schema (and its type
 * of the same name) is documented where it is defined; an entry's body is
 * decoded by its path ({@link decodeBatchBody}).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BatchResponse } from "@connected-vehicle/schema/Legacy"
 *
 * const isBatchResponse = Schema.is(BatchResponse)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export { BatchItem, BatchItemHeaders, BatchRequest, BatchResponse } from "./internal/legacyBatch.ts"

/**
 * Decodes a batch item's body with the schema of its path.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { decodeBatchBody } from "@connected-vehicle/schema/Legacy"
 *
 * const odometer = Schema.decodeUnknownSync(decodeBatchBody("/odometer"))({ distance: 12 })
 * ```
 * @category decoding
 * @since 0.1.0
 */
export const decodeBatchBody = <P extends LegacyPath>(path: P): (typeof LegacyEndpoints)[P]["schema"] =>
  LegacyEndpoints[path].schema

/**
 * `sc-data-age` header value decoded to a date.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { DataAge } from "@connected-vehicle/schema/Legacy"
 *
 * const isDataAge = Schema.is(DataAge)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const DataAge = Timestamp

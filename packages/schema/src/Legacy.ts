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
 * The legacy read endpoints, by their path below `/v2.0/vehicles/{id}`, with the
 * schema of their body and the permission they need.
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
export const LegacyEndpoints = {
  "/odometer": { schema: Odometer, permission: "read_odometer" },
  "/location": { schema: Location, permission: "read_location" },
  "/vin": { schema: Vin, permission: "read_vin" },
  "/engine/oil": { schema: EngineOil, permission: "read_engine_oil" },
  "/tires/pressure": { schema: TirePressure, permission: "read_tires" },
  "/service/history": { schema: ServiceHistory, permission: "read_service_history" }
} as const

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
 * `POST /v2.0/vehicles/{id}/batch` request body.
 *
 * @example
 * ```ts
 * import type { BatchRequest } from "@connected-vehicle/schema/Legacy"
 *
 * const body: BatchRequest = { requests: [{ path: "/odometer" }, { path: "/vin" }] }
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const BatchRequest = Schema.Struct({
  requests: Schema.NonEmptyArray(Schema.Struct({ path: Schema.String }))
}).annotate({ identifier: "BatchRequest" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BatchRequest } from "@connected-vehicle/schema/Legacy"
 *
 * const isBatchRequest: (u: unknown) => u is BatchRequest = Schema.is(BatchRequest)
 * ```
 * @category models
 * @since 0.1.0
 */
export type BatchRequest = typeof BatchRequest.Type

/**
 * Headers of a batch item (and of every legacy read response).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BatchItemHeaders } from "@connected-vehicle/schema/Legacy"
 *
 * const isBatchItemHeaders = Schema.is(BatchItemHeaders)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const BatchItemHeaders = Schema.StructWithRest(
  Schema.Struct({
    "sc-data-age": Schema.optionalKey(Schema.String),
    "sc-unit-system": Schema.optionalKey(Schema.String)
  }),
  [Schema.Record(Schema.String, Schema.String)]
)

/**
 * One answered sub-request. Its `body` is decoded separately, by its `path`
 * ({@link decodeBatchBody}), so that one malformed entry never fails the others.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BatchItem } from "@connected-vehicle/schema/Legacy"
 *
 * const isBatchItem = Schema.is(BatchItem)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const BatchItem = Schema.Struct({
  path: Schema.String,
  body: Schema.Unknown,
  code: Schema.Int,
  headers: BatchItemHeaders
}).annotate({ identifier: "BatchItem" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BatchItem } from "@connected-vehicle/schema/Legacy"
 *
 * const isBatchItem: (u: unknown) => u is BatchItem = Schema.is(BatchItem)
 * ```
 * @category models
 * @since 0.1.0
 */
export type BatchItem = typeof BatchItem.Type

/**
 * `POST /v2.0/vehicles/{id}/batch` response.
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
export const BatchResponse = Schema.Struct({
  responses: Schema.Array(BatchItem)
}).annotate({ identifier: "BatchResponse" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BatchResponse } from "@connected-vehicle/schema/Legacy"
 *
 * const isBatchResponse: (u: unknown) => u is BatchResponse = Schema.is(BatchResponse)
 * ```
 * @category models
 * @since 0.1.0
 */
export type BatchResponse = typeof BatchResponse.Type

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

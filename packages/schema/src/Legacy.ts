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
 * @since 0.1.0
 */
export const Odometer = Schema.Struct({ distance: Schema.Finite }).annotate({ identifier: "Odometer" })

/**
 * @since 0.1.0
 */
export type Odometer = typeof Odometer.Type

/**
 * Location in degrees.
 *
 * @since 0.1.0
 */
export const Location = Schema.Struct({
  latitude: Schema.Finite.check(Schema.isBetween({ minimum: -90, maximum: 90 })),
  longitude: Schema.Finite.check(Schema.isBetween({ minimum: -180, maximum: 180 }))
}).annotate({ identifier: "Location" })

/**
 * @since 0.1.0
 */
export type Location = typeof Location.Type

/**
 * Vehicle identification number.
 *
 * @since 0.1.0
 */
export const Vin = Schema.Struct({ vin: Schema.String }).annotate({ identifier: "Vin" })

/**
 * @since 0.1.0
 */
export type Vin = typeof Vin.Type

/**
 * Engine oil life: 1 = recently changed, 0 = change immediately.
 *
 * @since 0.1.0
 */
export const EngineOil = Schema.Struct({
  lifeRemaining: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))
}).annotate({ identifier: "EngineOil" })

/**
 * @since 0.1.0
 */
export type EngineOil = typeof EngineOil.Type

/**
 * Tire pressure in kilopascals (metric) or psi (imperial).
 *
 * @since 0.1.0
 */
export const TirePressure = Schema.Struct({
  frontLeft: Schema.Finite,
  frontRight: Schema.Finite,
  backLeft: Schema.Finite,
  backRight: Schema.Finite
}).annotate({ identifier: "TirePressure" })

/**
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
 * @since 0.1.0
 */
export type ServiceRecord = typeof ServiceRecord.Type

/**
 * Service history: the list of service records.
 *
 * @since 0.1.0
 */
export const ServiceHistory = Schema.Array(ServiceRecord).annotate({ identifier: "ServiceHistory" })

/**
 * @since 0.1.0
 */
export type ServiceHistory = typeof ServiceHistory.Type

/**
 * `GET /v2.0/vehicles` response.
 *
 * @since 0.1.0
 */
export const VehicleList = Schema.Struct({
  paging: Schema.Struct({ count: Schema.Int, offset: Schema.Int }),
  vehicles: Schema.Array(Schema.String)
}).annotate({ identifier: "VehicleList" })

/**
 * @since 0.1.0
 */
export type VehicleList = typeof VehicleList.Type

/**
 * Unit systems of the legacy interface (header `sc-unit-system`).
 *
 * @since 0.1.0
 */
export const UnitSystem = Schema.Literals(["metric", "imperial"])

/**
 * @since 0.1.0
 */
export type UnitSystem = typeof UnitSystem.Type

/**
 * The legacy read endpoints, by their path below `/v2.0/vehicles/{id}`, with the
 * schema of their body and the permission they need.
 *
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
 * @since 0.1.0
 */
export type LegacyPath = keyof typeof LegacyEndpoints

/**
 * @since 0.1.0
 */
export const LegacyPath = Schema.Literals(
  Object.keys(LegacyEndpoints) as [LegacyPath, ...Array<LegacyPath>]
)

/**
 * The decoded body of each legacy path.
 *
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
 * @since 0.1.0
 */
export const BatchRequest = Schema.Struct({
  requests: Schema.NonEmptyArray(Schema.Struct({ path: Schema.String }))
}).annotate({ identifier: "BatchRequest" })

/**
 * @since 0.1.0
 */
export type BatchRequest = typeof BatchRequest.Type

/**
 * Headers of a batch item (and of every legacy read response).
 *
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
 * @since 0.1.0
 */
export const BatchItem = Schema.Struct({
  path: Schema.String,
  body: Schema.Unknown,
  code: Schema.Int,
  headers: BatchItemHeaders
}).annotate({ identifier: "BatchItem" })

/**
 * @since 0.1.0
 */
export type BatchItem = typeof BatchItem.Type

/**
 * `POST /v2.0/vehicles/{id}/batch` response.
 *
 * @since 0.1.0
 */
export const BatchResponse = Schema.Struct({
  responses: Schema.Array(BatchItem)
}).annotate({ identifier: "BatchResponse" })

/**
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
 * @since 0.1.0
 */
export const decodeBatchBody = <P extends LegacyPath>(path: P): (typeof LegacyEndpoints)[P]["schema"] =>
  LegacyEndpoints[path].schema

/**
 * `sc-data-age` header value decoded to a date.
 *
 * @since 0.1.0
 */
export const DataAge = Timestamp

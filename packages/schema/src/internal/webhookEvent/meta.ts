/**
 * The parts of an event outside its signals: the delivery time (epoch
 * milliseconds or ISO 8601), the `meta` objects, `data.user`, `data.vehicle`
 * and the triggers.
 *
 * @internal
 */
import { DateTime, Schema, SchemaGetter } from "effect"
import { openEnum, Timestamp } from "../../Common.ts"

const minimumMillis = DateTime.toEpochMillis(DateTime.makeUnsafe("0000-01-01T00:00:00.000Z"))
const maximumMillis = DateTime.toEpochMillis(DateTime.makeUnsafe("9999-12-31T23:59:59.999Z"))

/**
 * Epoch milliseconds (an integer, years 0000 to 9999) decoded to a
 * `DateTime.Utc`, encoded back as a number.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EpochMillis } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const utc = Schema.decodeUnknownSync(EpochMillis)(1756202400000)
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const EpochMillis = Schema.Int.check(Schema.isBetween({ minimum: minimumMillis, maximum: maximumMillis })).pipe(
  // the same type side as Timestamp's (checks and arbitrary included)
  Schema.decodeTo(Schema.toType(Timestamp), {
    decode: SchemaGetter.transform((millis: number) => DateTime.makeUnsafe(millis)),
    encode: SchemaGetter.transform((utc: DateTime.Utc) => DateTime.toEpochMillis(utc))
  })
).annotate({ identifier: "EpochMillis" })

/**
 * `meta.deliveredAt`: the real service's documentation shows it both as epoch
 * milliseconds and as an ISO 8601 string; both decode to a `DateTime.Utc`
 * (encoded back as an ISO string).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { DeliveredAt } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const a = Schema.decodeUnknownSync(DeliveredAt)(1756202400000)
 * const b = Schema.decodeUnknownSync(DeliveredAt)("2025-08-26T10:00:00.000Z")
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const DeliveredAt = Schema.Union([Timestamp, EpochMillis]).annotate({ identifier: "DeliveredAt" })

/**
 * `LIVE` or `SIMULATED` (open: an unknown value decodes as `UnknownEnumValue`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EventMode } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isEventMode = Schema.is(EventMode)
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const EventMode = openEnum("EventMode", ["LIVE", "SIMULATED"])

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EventMode } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isEventMode: (u: unknown) => u is EventMode = Schema.is(EventMode)
 * ```
 * @category models
 * @since 0.2.0
 */
export type EventMode = typeof EventMode.Type

/**
 * The `meta` object every event carries.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EventMeta } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const decode = Schema.decodeUnknownSync(EventMeta)
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const EventMeta = Schema.Struct({
  version: Schema.String,
  webhookId: Schema.String,
  webhookName: Schema.String,
  deliveryId: Schema.String,
  deliveredAt: DeliveredAt
}).annotate({ identifier: "EventMeta" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EventMeta } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isEventMeta: (u: unknown) => u is EventMeta = Schema.is(EventMeta)
 * ```
 * @category models
 * @since 0.2.0
 */
export type EventMeta = typeof EventMeta.Type

/**
 * The `meta` object of `VEHICLE_STATE`: the common fields plus `signalCount`
 * and `mode`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VehicleStateMeta } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isVehicleStateMeta = Schema.is(VehicleStateMeta)
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const VehicleStateMeta = Schema.Struct({
  ...EventMeta.fields,
  signalCount: Schema.Int,
  mode: EventMode
}).annotate({ identifier: "VehicleStateMeta" })

/**
 * The `meta` object of `VEHICLE_ERROR`: the common fields, plus `signalCount`
 * and `mode` when present.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VehicleErrorMeta } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isVehicleErrorMeta = Schema.is(VehicleErrorMeta)
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const VehicleErrorMeta = Schema.Struct({
  ...EventMeta.fields,
  signalCount: Schema.optionalKey(Schema.Int),
  mode: Schema.optionalKey(EventMode)
}).annotate({ identifier: "VehicleErrorMeta" })

/**
 * `data.user` of a vehicle event.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EventUser } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isEventUser = Schema.is(EventUser)
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const EventUser = Schema.Struct({ id: Schema.String }).annotate({ identifier: "EventUser" })

/**
 * `data.vehicle` of a vehicle event.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EventVehicle } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isEventVehicle = Schema.is(EventVehicle)
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const EventVehicle = Schema.Struct({
  id: Schema.String,
  make: Schema.String,
  model: Schema.String,
  year: Schema.Int
}).annotate({ identifier: "EventVehicle" })

/**
 * An entry of `data.triggers`: the signal whose change caused the delivery.
 * The first delivery after subscribing carries `{ "code": "FIRST_DELIVERY" }`
 * alone, so `name` and `group` are optional.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Trigger } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isTrigger = Schema.is(Trigger)
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const Trigger = Schema.Struct({
  code: Schema.String,
  name: Schema.optionalKey(Schema.String),
  group: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "Trigger" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Trigger } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isTrigger: (u: unknown) => u is Trigger = Schema.is(Trigger)
 * ```
 * @category models
 * @since 0.2.0
 */
export type Trigger = typeof Trigger.Type

/**
 * The trigger code of the first delivery after subscribing.
 *
 * @example
 * ```ts
 * import { FirstDeliveryTrigger } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isFirst = (code: string): boolean => code === FirstDeliveryTrigger
 * ```
 * @category constants
 * @since 0.2.0
 */
export const FirstDeliveryTrigger = "FIRST_DELIVERY"

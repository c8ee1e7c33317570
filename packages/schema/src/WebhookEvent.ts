/**
 * The events the service delivers to a webhook's `callbackUri` and
 * `errorCallbackUri` (section 6 leaves the payload "not shown"; the shapes
 * follow the real service's public documentation): `VERIFY`, `VEHICLE_STATE`
 * and `VEHICLE_ERROR`, as a union tagged on `eventType`. An `eventType` this
 * SDK does not know yet decodes to an {@link UnknownEvent} instead of failing.
 *
 * @since 0.2.0
 */
import { DateTime, Schema, SchemaGetter } from "effect"
import { openEnum, Timestamp } from "./Common.ts"
import { fromJsonString } from "./Json.ts"
import { Resolution } from "./Signal.ts"
import { SignalRef } from "./Webhook.ts"

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
 * @since 0.2.0
 */
export const DeliveredAt = Schema.Union([Timestamp, EpochMillis]).annotate({ identifier: "DeliveredAt" })

/**
 * `LIVE` or `SIMULATED` (open: an unknown value decodes as `UnknownEnumValue`).
 *
 * @since 0.2.0
 */
export const EventMode = openEnum("EventMode", ["LIVE", "SIMULATED"])

/**
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
 * @since 0.2.0
 */
export type EventMeta = typeof EventMeta.Type

/**
 * The `meta` object of `VEHICLE_STATE`: the common fields plus `signalCount`
 * and `mode`.
 *
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
 * @since 0.2.0
 */
export const EventUser = Schema.Struct({ id: Schema.String }).annotate({ identifier: "EventUser" })

/**
 * `data.vehicle` of a vehicle event.
 *
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
 * @since 0.2.0
 */
export const Trigger = Schema.Struct({
  code: Schema.String,
  name: Schema.optionalKey(Schema.String),
  group: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "Trigger" })

/**
 * @since 0.2.0
 */
export type Trigger = typeof Trigger.Type

/**
 * The trigger code of the first delivery after subscribing.
 *
 * @since 0.2.0
 */
export const FirstDeliveryTrigger = "FIRST_DELIVERY"

/**
 * `meta` of a signal read: when the OEM last updated the value and when the
 * service fetched it.
 *
 * @since 0.2.0
 */
export const SignalReadMeta = Schema.Struct({
  oemUpdatedAt: Timestamp,
  fetchedAt: Timestamp
}).annotate({ identifier: "SignalReadMeta" })

/**
 * `body` of a signal read: its members as sent (`unit` when present). Unlike
 * the REST signal body, `value` is not always a number here (`IsCharging`
 * carries a boolean, a location carries `latitude`/`longitude`), so the
 * members stay `unknown` to the schema.
 *
 * @since 0.2.0
 */
export const EventSignalBody = Schema.StructWithRest(
  Schema.Struct({ unit: Schema.optionalKey(Schema.String) }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).annotate({ identifier: "EventSignalBody" })

/**
 * A signal of `VEHICLE_STATE` that was read: `body` and `meta`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalReading } from "@connected-vehicle/schema/WebhookEvent"
 *
 * Schema.decodeUnknownSync(SignalReading)({
 *   code: "charge-voltage", name: "Voltage", group: "Charge",
 *   body: { unit: "volts", value: 240 },
 *   meta: { oemUpdatedAt: "2025-08-26T10:00:00.000Z", fetchedAt: "2025-08-26T10:00:01.000Z" }
 * })
 * ```
 * @since 0.2.0
 */
export const SignalReading = Schema.Struct({
  ...SignalRef.fields,
  body: EventSignalBody,
  meta: SignalReadMeta
}).annotate({ identifier: "SignalReading" })

/**
 * @since 0.2.0
 */
export type SignalReading = typeof SignalReading.Type

/**
 * `status.error` of a signal that could not be read.
 *
 * @since 0.2.0
 */
export const SignalFailure = Schema.Struct({ code: Schema.String, type: Schema.String }).annotate({
  identifier: "SignalFailure"
})

/**
 * A signal of `VEHICLE_STATE` that could not be read: `status` instead of
 * `body` (`meta` when the service sends one).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { FailedSignal } from "@connected-vehicle/schema/WebhookEvent"
 *
 * Schema.decodeUnknownSync(FailedSignal)({
 *   code: "location-preciselocation", name: "PreciseLocation", group: "Location",
 *   status: { value: "ERROR", error: { code: "VEHICLE_ASLEEP", type: "VEHICLE_STATE" } }
 * })
 * ```
 * @since 0.2.0
 */
export const FailedSignal = Schema.Struct({
  ...SignalRef.fields,
  status: Schema.Struct({ value: Schema.Literal("ERROR"), error: SignalFailure }),
  meta: Schema.optionalKey(SignalReadMeta)
}).annotate({ identifier: "FailedSignal" })

/**
 * @since 0.2.0
 */
export type FailedSignal = typeof FailedSignal.Type

/**
 * An entry of `data.signals`: a {@link FailedSignal} (it has `status`) or a
 * {@link SignalReading} (it has `body`).
 *
 * @since 0.2.0
 */
export const EventSignal = Schema.Union([FailedSignal, SignalReading]).annotate({ identifier: "EventSignal" })

/**
 * @since 0.2.0
 */
export type EventSignal = typeof EventSignal.Type

/**
 * Whether a signal of `VEHICLE_STATE` failed (it has no `body`).
 *
 * @example
 * ```ts
 * import { isFailedSignal, type EventSignal } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const values = (signals: ReadonlyArray<EventSignal>) =>
 *   signals.flatMap((s) => isFailedSignal(s) ? [] : [s.body.value])
 * ```
 * @since 0.2.0
 */
export const isFailedSignal = (signal: EventSignal): signal is FailedSignal => "status" in signal

/**
 * `VERIFY`: sent when a webhook is created or its callback changes. The
 * receiver answers `{"challenge": HMAC-SHA256(webhook secret, data.challenge)}`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VerifyEvent } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const event = Schema.decodeUnknownSync(VerifyEvent)({
 *   eventId: "evt_1", eventType: "VERIFY", data: { challenge: "3c1f" },
 *   meta: { version: "4.0", webhookId: "wh_1", webhookName: "Fleet", deliveryId: "dlv_1", deliveredAt: 1756202400000 }
 * })
 * ```
 * @since 0.2.0
 */
export const VerifyEvent = Schema.Struct({
  eventId: Schema.String,
  eventType: Schema.Literal("VERIFY"),
  data: Schema.Struct({ challenge: Schema.String }),
  meta: EventMeta
}).annotate({ identifier: "VerifyEvent" })

/**
 * @since 0.2.0
 */
export type VerifyEvent = typeof VerifyEvent.Type

/**
 * `VEHICLE_STATE`: a trigger signal changed. `data.signals` holds every data
 * signal of the webhook, not only the changed ones.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VehicleStateEvent } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const decode = Schema.decodeUnknownEffect(VehicleStateEvent)
 * ```
 * @since 0.2.0
 */
export const VehicleStateEvent = Schema.Struct({
  eventId: Schema.String,
  eventType: Schema.Literal("VEHICLE_STATE"),
  vehicleId: Schema.String,
  data: Schema.Struct({
    user: EventUser,
    vehicle: EventVehicle,
    triggers: Schema.Array(Trigger),
    signals: Schema.Array(EventSignal)
  }),
  meta: VehicleStateMeta
}).annotate({ identifier: "VehicleStateEvent" })

/**
 * @since 0.2.0
 */
export type VehicleStateEvent = typeof VehicleStateEvent.Type

/**
 * `ERROR` (a problem started) or `RESOLVED` (it cleared); open.
 *
 * @since 0.2.0
 */
export const VehicleErrorState = openEnum("VehicleErrorState", ["ERROR", "RESOLVED"])

/**
 * @since 0.2.0
 */
export type VehicleErrorState = typeof VehicleErrorState.Type

/**
 * An entry of `data.errors` of `VEHICLE_ERROR`.
 *
 * @since 0.2.0
 */
export const VehicleErrorEntry = Schema.Struct({
  type: Schema.String,
  code: Schema.String,
  state: VehicleErrorState,
  description: Schema.optionalKey(Schema.String),
  suggestedUserMessage: Schema.optionalKey(Schema.String),
  resolution: Schema.optionalKey(Resolution),
  signals: Schema.optionalKey(Schema.Array(SignalRef))
}).annotate({ identifier: "VehicleErrorEntry" })

/**
 * @since 0.2.0
 */
export type VehicleErrorEntry = typeof VehicleErrorEntry.Type

/**
 * `VEHICLE_ERROR`: delivered to `errorCallbackUri` when set, else to
 * `callbackUri`; a second event with `state: "RESOLVED"` follows when the
 * problem clears.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VehicleErrorEvent } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const decode = Schema.decodeUnknownEffect(VehicleErrorEvent)
 * ```
 * @since 0.2.0
 */
export const VehicleErrorEvent = Schema.Struct({
  eventId: Schema.String,
  eventType: Schema.Literal("VEHICLE_ERROR"),
  vehicleId: Schema.String,
  data: Schema.Struct({
    user: Schema.optionalKey(EventUser),
    vehicle: Schema.optionalKey(EventVehicle),
    errors: Schema.Array(VehicleErrorEntry)
  }),
  meta: VehicleErrorMeta
}).annotate({ identifier: "VehicleErrorEvent" })

/**
 * @since 0.2.0
 */
export type VehicleErrorEvent = typeof VehicleErrorEvent.Type

/**
 * The event types this SDK knows.
 *
 * @since 0.2.0
 */
export const KnownEventTypes = ["VERIFY", "VEHICLE_STATE", "VEHICLE_ERROR"] as const

const known: ReadonlySet<string> = new Set(KnownEventTypes)

const UnknownEventEncoded = Schema.StructWithRest(
  Schema.Struct({
    eventId: Schema.String,
    eventType: Schema.String.check(Schema.makeFilter((type: string) => !known.has(type), {
      expected: "an event type other than VERIFY, VEHICLE_STATE and VEHICLE_ERROR"
    }))
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)

const UnknownEventType = Schema.Struct({
  eventType: Schema.Literal("UNKNOWN"),
  receivedEventType: Schema.String,
  eventId: Schema.String,
  raw: Schema.Record(Schema.String, Schema.Unknown)
})

/**
 * An event whose `eventType` this SDK does not know yet (the service may add
 * kinds). Its `eventType` is the sentinel `"UNKNOWN"`, so that a `switch` on
 * `eventType` narrows; the service's value is `receivedEventType`, and `raw`
 * is the whole JSON object as received (it encodes back to `raw`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { UnknownEvent } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const event = Schema.decodeUnknownSync(UnknownEvent)({ eventId: "evt_9", eventType: "VEHICLE_DELETED" })
 * event.receivedEventType // "VEHICLE_DELETED"
 * ```
 * @since 0.2.0
 */
export const UnknownEvent = UnknownEventEncoded.pipe(
  Schema.decodeTo(UnknownEventType, {
    decode: SchemaGetter.transform((raw) => ({
      eventType: "UNKNOWN" as const,
      receivedEventType: raw.eventType,
      eventId: raw.eventId,
      raw
    })),
    encode: SchemaGetter.transform((event) => ({ ...event.raw, eventId: event.eventId, eventType: event.receivedEventType }))
  })
).annotate({ identifier: "UnknownEvent" })

/**
 * @since 0.2.0
 */
export type UnknownEvent = typeof UnknownEvent.Type

/**
 * Any event the service delivers, tagged on `eventType` (`"UNKNOWN"` for a
 * kind this SDK does not know). A known `eventType` with a malformed payload
 * is a decoding failure, not an unknown event.
 *
 * @example
 * ```ts
 * import type { WebhookEvent } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const describe = (event: WebhookEvent) => {
 *   switch (event.eventType) {
 *     case "VEHICLE_STATE": return `${event.data.signals.length} signals of ${event.vehicleId}`
 *     case "VEHICLE_ERROR": return `${event.data.errors.length} errors of ${event.vehicleId}`
 *     case "VERIFY": return "verification"
 *     case "UNKNOWN": return `unknown event ${event.receivedEventType}`
 *   }
 * }
 * ```
 * @since 0.2.0
 */
export const WebhookEvent = Schema.Union([VerifyEvent, VehicleStateEvent, VehicleErrorEvent, UnknownEvent]).annotate({
  identifier: "WebhookEvent"
})

/**
 * @since 0.2.0
 */
export type WebhookEvent = typeof WebhookEvent.Type

/**
 * The events a receiver hands to the application: every kind but `VERIFY`,
 * which the receiver answers itself.
 *
 * @since 0.2.0
 */
export type DeliveredEvent = Exclude<WebhookEvent, VerifyEvent>

/**
 * A request body (JSON text) decoded to a {@link WebhookEvent}; encodes an
 * event to JSON text (what a sender signs and posts). The text is read with
 * `Json.parse`: a signal body's keys stay as sent whatever was read before.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WebhookEventFromJson } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const decodeBody = Schema.decodeUnknownEffect(WebhookEventFromJson)
 * const encodeBody = Schema.encodeSync(WebhookEventFromJson)
 * ```
 * @since 0.2.0
 */
export const WebhookEventFromJson = fromJsonString(WebhookEvent).annotate({ identifier: "WebhookEventFromJson" })

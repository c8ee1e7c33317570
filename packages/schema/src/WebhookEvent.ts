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

/**
 * `meta` of a signal read: when the OEM last updated the value and when the
 * service fetched it.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalReadMeta } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isSignalReadMeta = Schema.is(SignalReadMeta)
 * ```
 * @category schemas
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
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EventSignalBody } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isEventSignalBody = Schema.is(EventSignalBody)
 * ```
 * @category schemas
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
 * @category schemas
 * @since 0.2.0
 */
export const SignalReading = Schema.Struct({
  ...SignalRef.fields,
  body: EventSignalBody,
  meta: SignalReadMeta
}).annotate({ identifier: "SignalReading" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalReading } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isSignalReading: (u: unknown) => u is SignalReading = Schema.is(SignalReading)
 * ```
 * @category models
 * @since 0.2.0
 */
export type SignalReading = typeof SignalReading.Type

/**
 * `status.error` of a signal that could not be read.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalFailure } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isSignalFailure = Schema.is(SignalFailure)
 * ```
 * @category schemas
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
 * @category schemas
 * @since 0.2.0
 */
export const FailedSignal = Schema.Struct({
  ...SignalRef.fields,
  status: Schema.Struct({ value: Schema.Literal("ERROR"), error: SignalFailure }),
  meta: Schema.optionalKey(SignalReadMeta)
}).annotate({ identifier: "FailedSignal" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { FailedSignal } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isFailedSignal: (u: unknown) => u is FailedSignal = Schema.is(FailedSignal)
 * ```
 * @category models
 * @since 0.2.0
 */
export type FailedSignal = typeof FailedSignal.Type

/**
 * An entry of `data.signals`: a {@link FailedSignal} (it has `status`) or a
 * {@link SignalReading} (it has `body`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EventSignal } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isEventSignal = Schema.is(EventSignal)
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const EventSignal = Schema.Union([FailedSignal, SignalReading]).annotate({ identifier: "EventSignal" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EventSignal } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isEventSignal: (u: unknown) => u is EventSignal = Schema.is(EventSignal)
 * ```
 * @category models
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
 * @category guards
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
 * @category schemas
 * @since 0.2.0
 */
export const VerifyEvent = Schema.Struct({
  eventId: Schema.String,
  eventType: Schema.Literal("VERIFY"),
  data: Schema.Struct({ challenge: Schema.String }),
  meta: EventMeta
}).annotate({ identifier: "VerifyEvent" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VerifyEvent } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isVerifyEvent: (u: unknown) => u is VerifyEvent = Schema.is(VerifyEvent)
 * ```
 * @category models
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
 * @category schemas
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
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VehicleStateEvent } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isVehicleStateEvent: (u: unknown) => u is VehicleStateEvent = Schema.is(VehicleStateEvent)
 * ```
 * @category models
 * @since 0.2.0
 */
export type VehicleStateEvent = typeof VehicleStateEvent.Type

/**
 * `ERROR` (a problem started) or `RESOLVED` (it cleared); open.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VehicleErrorState } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isVehicleErrorState = Schema.is(VehicleErrorState)
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const VehicleErrorState = openEnum("VehicleErrorState", ["ERROR", "RESOLVED"])

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VehicleErrorState } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isVehicleErrorState: (u: unknown) => u is VehicleErrorState = Schema.is(VehicleErrorState)
 * ```
 * @category models
 * @since 0.2.0
 */
export type VehicleErrorState = typeof VehicleErrorState.Type

/**
 * An entry of `data.errors` of `VEHICLE_ERROR`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VehicleErrorEntry } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isVehicleErrorEntry = Schema.is(VehicleErrorEntry)
 * ```
 * @category schemas
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
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VehicleErrorEntry } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isVehicleErrorEntry: (u: unknown) => u is VehicleErrorEntry = Schema.is(VehicleErrorEntry)
 * ```
 * @category models
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
 * @category schemas
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
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VehicleErrorEvent } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isVehicleErrorEvent: (u: unknown) => u is VehicleErrorEvent = Schema.is(VehicleErrorEvent)
 * ```
 * @category models
 * @since 0.2.0
 */
export type VehicleErrorEvent = typeof VehicleErrorEvent.Type

/**
 * The event types this SDK knows.
 *
 * @example
 * ```ts
 * import { KnownEventTypes } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const known = (eventType: string): boolean => (KnownEventTypes as ReadonlyArray<string>).includes(eventType)
 * ```
 * @category constants
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
 * @category schemas
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
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { UnknownEvent } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isUnknownEvent: (u: unknown) => u is UnknownEvent = Schema.is(UnknownEvent)
 * ```
 * @category models
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
 * @category schemas
 * @since 0.2.0
 */
export const WebhookEvent = Schema.Union([VerifyEvent, VehicleStateEvent, VehicleErrorEvent, UnknownEvent]).annotate({
  identifier: "WebhookEvent"
})

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WebhookEvent } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const isWebhookEvent: (u: unknown) => u is WebhookEvent = Schema.is(WebhookEvent)
 * ```
 * @category models
 * @since 0.2.0
 */
export type WebhookEvent = typeof WebhookEvent.Type

/**
 * The events a receiver hands to the application: every kind but `VERIFY`,
 * which the receiver answers itself.
 *
 * @example
 * ```ts
 * import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const eventIdOf = (event: DeliveredEvent): string => event.eventId
 * ```
 * @category models
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
 * @category schemas
 * @since 0.2.0
 */
export const WebhookEventFromJson = fromJsonString(WebhookEvent).annotate({ identifier: "WebhookEventFromJson" })

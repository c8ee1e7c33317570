/**
 * The events the service delivers to a webhook's `callbackUri` and
 * `errorCallbackUri` (section 6 leaves the payload "not shown"; the shapes
 * follow the real service's public documentation): `VERIFY`, `VEHICLE_STATE`
 * and `VEHICLE_ERROR`, as a union tagged on `eventType`. An `eventType` this
 * SDK does not know yet decodes to an {@link UnknownEvent} instead of failing.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import { fromJsonString } from "./Json.ts"
import { VehicleErrorEvent, VehicleStateEvent, VerifyEvent } from "./internal/webhookEvent/knownEvents.ts"
import { UnknownEvent } from "./internal/webhookEvent/unknownEvent.ts"

/**
 * The parts of an event outside its signals: the delivery time (epoch
 * milliseconds or ISO 8601, both decoded to a `DateTime.Utc`), the `meta`
 * objects, `data.user`, `data.vehicle` and the entries of `data.triggers`.
 * Each schema (and its type of the same name) is documented where it is
 * defined.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { DeliveredAt, EventMeta } from "@connected-vehicle/schema/WebhookEvent"
 *
 * const utc = Schema.decodeUnknownSync(DeliveredAt)(1756202400000)
 * const isEventMeta = Schema.is(EventMeta)
 * ```
 * @category schemas
 * @since 0.2.0
 */
export {
  DeliveredAt,
  EpochMillis,
  EventMeta,
  EventMode,
  EventUser,
  EventVehicle,
  Trigger,
  VehicleErrorMeta,
  VehicleStateMeta
} from "./internal/webhookEvent/meta.ts"

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
export { FirstDeliveryTrigger } from "./internal/webhookEvent/meta.ts"

/**
 * The entries of `data.signals` of `VEHICLE_STATE`: a `SignalReading` (it has
 * `body`) or a `FailedSignal` (it has `status`), and their parts. Each schema
 * (and its type of the same name) is documented where it is defined.
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
export {
  EventSignal,
  EventSignalBody,
  FailedSignal,
  SignalFailure,
  SignalReading,
  SignalReadMeta
} from "./internal/webhookEvent/signal.ts"

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
export { isFailedSignal } from "./internal/webhookEvent/signal.ts"

/**
 * The event kinds this SDK knows: `VERIFY`, `VEHICLE_STATE` and
 * `VEHICLE_ERROR` (with its error entries and their state). Each schema (and
 * its type of the same name) is documented where it is defined.
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
export {
  VehicleErrorEntry,
  VehicleErrorEvent,
  VehicleErrorState,
  VehicleStateEvent,
  VerifyEvent
} from "./internal/webhookEvent/knownEvents.ts"

/**
 * An event whose `eventType` this SDK does not know yet (documented where it
 * is defined): its `eventType` is the sentinel `"UNKNOWN"`, the service's
 * value is `receivedEventType` and `raw` is the whole JSON object as received.
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
export { UnknownEvent } from "./internal/webhookEvent/unknownEvent.ts"

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
export { KnownEventTypes } from "./internal/webhookEvent/unknownEvent.ts"

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

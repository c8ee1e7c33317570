/**
 * The event kinds this SDK knows: `VERIFY`, `VEHICLE_STATE` and
 * `VEHICLE_ERROR`.
 *
 * @internal
 */
import { Schema } from "effect"
import { openEnum } from "../../Common.ts"
import { Resolution } from "../../Signal.ts"
import { SignalRef } from "../../Webhook.ts"
import { EventMeta, EventUser, EventVehicle, Trigger, VehicleErrorMeta, VehicleStateMeta } from "./meta.ts"
import { EventSignal } from "./signal.ts"

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

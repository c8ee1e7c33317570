/**
 * The entries of `data.signals` of `VEHICLE_STATE`: a signal read (`body`) or
 * a signal that could not be read (`status`).
 *
 * @internal
 */
import { Schema, SchemaGetter } from "effect"
import { PresentUnchanged, Timestamp } from "../../Common.ts"
import { SignalRef } from "../../Webhook.ts"

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
 * `body` of a signal read: its members as sent (`unit` when present: a string
 * or `null`, as in the REST signal body). Unlike the REST signal body, `value`
 * is not always a number here (`IsCharging` carries a boolean, a location
 * carries `latitude`/`longitude`), so the members stay `unknown` to the
 * schema. A reading whose `body` is `null` decodes with `body: {}`.
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
  Schema.Struct({ unit: Schema.optionalKey(Schema.NullOr(Schema.String)) }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).annotate({ identifier: "EventSignalBody" })

/**
 * A signal of `VEHICLE_STATE` that was read: `body` (`{}` when sent as
 * `null`) and `meta`.
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
  body: Schema.NullOr(EventSignalBody).pipe(Schema.decodeTo(EventSignalBody, {
    decode: SchemaGetter.transform((body) => body ?? {}),
    encode: SchemaGetter.passthroughSubtype()
  })).annotate({ [PresentUnchanged]: true }),
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

/**
 * An event of a kind this SDK does not know yet, kept whole.
 *
 * @internal
 */
import { Schema, SchemaGetter } from "effect"

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

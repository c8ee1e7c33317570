/**
 * Building blocks shared by every resource: timestamps, open enumerations,
 * links and relationship objects.
 *
 * @since 0.1.0
 */
import { DateTime, Schema, SchemaGetter } from "effect"
import type { SchemaAST } from "effect"
import { parseIsoMillis } from "./internal/timestamp.ts"

const minimumInstant = DateTime.makeUnsafe("0000-01-01T00:00:00.000Z")
const maximumInstant = DateTime.makeUnsafe("9999-12-31T23:59:59.999Z")

type ToArbitrary = NonNullable<Schema.Annotations.Declaration<DateTime.Utc>["toCodecArbitrary"]>
const utcArbitrary = Schema.DateTimeUtc.ast.annotations?.["toCodecArbitrary"] as ToArbitrary

// Four-digit years only: what an ISO 8601 date-time without expansion can
// carry. It is checked on the string (below), when decoding and when encoding;
// generated values stay within it. (No check on the `DateTime.Utc` itself: it
// would run on every decoded timestamp again.)
const FourDigitYearUtc = Schema.DateTimeUtc.annotate({
  toCodecArbitrary: (context: Parameters<ToArbitrary>[0]) =>
    utcArbitrary({ ...context, constraint: { ...context.constraint, minimum: minimumInstant, maximum: maximumInstant } })
})

// The check and the decode below run back to back on the same string: a
// one-entry memo of the parse (a pure function) saves the second one.
let lastInput: string | undefined
let lastMillis = Number.NaN
const parseMillis = (input: string): number => {
  if (input !== lastInput) {
    lastMillis = parseIsoMillis(input)
    lastInput = input
  }
  return lastMillis
}

// The `DateTime.Utc` of a valid epoch millis, by Effect's own constructors:
// `fromEpochSeconds` (no `Date` in between), or `makeUnsafe` where the
// division by 1000 does not give the same millis back.
const utcOfMillis = (millis: number): DateTime.Utc => {
  const utc = DateTime.fromEpochSeconds(millis / 1000)
  return utc.epochMilliseconds === millis ? utc : DateTime.makeUnsafe(millis)
}

/**
 * The annotation under which a schema decoded from a string gives that
 * decoding as one function too: its value (what the schema's checks and
 * transformations give) or `undefined` (where Effect's decoder fails), valid
 * for the node whose `encoding` is `encoding` (a schema derived with other
 * checks or another encoding does not take it). `Timestamp` carries it; a
 * decoder of JSON bodies may call it instead of walking the string's check,
 * transformation and declaration (the transport's does, its results checked
 * against Effect's decoder by property tests).
 *
 * @example
 * ```ts
 * import type { DecodeString } from "@connected-vehicle/schema/Common"
 * import { DecodeString as key, Timestamp } from "@connected-vehicle/schema/Common"
 *
 * const spec = Timestamp.ast.annotations?.[key] as DecodeString | undefined
 * spec?.decode("2025-08-26T10:00:00.000Z") // a DateTime.Utc
 * ```
 * @category annotations
 * @since 0.2.0
 */
export const DecodeString = "@connected-vehicle/schema/DecodeString"

/**
 * The annotation (`true`) of a schema whose decoding gives a present value
 * back as it is, unchanged and not mutated (its getter only supplies a value
 * for an absent or `null` one: `SignalAttributesBody`): a decoder of JSON
 * bodies may skip the second walk Effect's decoder makes over what that
 * getter gave (the transport's does, its results checked against Effect's
 * decoder by property tests). Only the schema's author can say so: a getter
 * that mutates its input must not carry it.
 *
 * @example
 * ```ts
 * import { PresentUnchanged } from "@connected-vehicle/schema/Common"
 * import { SignalAttributesBody } from "@connected-vehicle/schema/Signal"
 *
 * SignalAttributesBody.ast.annotations?.[PresentUnchanged] // true
 * ```
 * @category annotations
 * @since 0.2.0
 */
export const PresentUnchanged = "@connected-vehicle/schema/PresentUnchanged"

/**
 * The value of the {@link DecodeString} annotation.
 *
 * @example
 * ```ts
 * import type { DecodeString } from "@connected-vehicle/schema/Common"
 *
 * const upper = (encoding: DecodeString["encoding"]): DecodeString => ({ encoding, decode: (s) => s.toUpperCase() })
 * ```
 * @category annotations
 * @since 0.2.0
 */
export interface DecodeString {
  readonly encoding: SchemaAST.Encoding
  readonly decode: (input: string) => unknown
}

const minimumMillis = DateTime.toEpochMillis(minimumInstant)
const maximumMillis = DateTime.toEpochMillis(maximumInstant)

const isTimestampMillis = (millis: number) => millis >= minimumMillis && millis <= maximumMillis

const TimestampCodec = Schema.String.check(Schema.makeFilter(
  (input: string) => isTimestampMillis(parseMillis(input)),
  { expected: "an ISO 8601 date-time with zone in the years 0000 to 9999, e.g. 2025-08-26T10:00:00.000Z" }
)).pipe(
  Schema.decodeTo(FourDigitYearUtc, {
    // The check above guarantees a valid instant: a plain synchronous getter
    // is enough (about twice as fast as an effectful transformation).
    decode: SchemaGetter.transform((input: string) => utcOfMillis(parseMillis(input))),
    // an instant outside the years 0000 to 9999 formats with an expanded
    // year, which the check of the string refuses: the encode fails
    encode: SchemaGetter.transform((utc: DateTime.Utc) => DateTime.formatIso(utc))
  })
)

/**
 * An ISO 8601 date-time string (with an explicit zone) decoded to a
 * `DateTime.Utc`, encoded back as `YYYY-MM-DDTHH:mm:ss.sssZ`.
 *
 * The string is read once (the common `...sssZ` form digit by digit, any
 * other zone through `Date.parse`) by a check of the string that also keeps
 * the instant within the years 0000 to 9999, so the decoding step only builds
 * the `DateTime.Utc`: an invalid timestamp fails the decode as before.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Timestamp } from "@connected-vehicle/schema/Common"
 *
 * const utc = Schema.decodeUnknownSync(Timestamp)("2025-08-26T10:00:00.000Z")
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Timestamp = TimestampCodec.annotate({
  [DecodeString]: {
    encoding: TimestampCodec.ast.encoding!,
    decode: (input: string): DateTime.Utc | undefined => {
      const millis = parseMillis(input)
      return isTimestampMillis(millis) ? utcOfMillis(millis) : undefined
    }
  } satisfies DecodeString
})

/**
 * A value of a server-side enumeration that this SDK does not know yet.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { UnknownEnumValue } from "@connected-vehicle/schema/Common"
 *
 * const isUnknownEnumValue = Schema.is(UnknownEnumValue)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const UnknownEnumValue = Schema.String.pipe(Schema.brand("UnknownEnumValue"))

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { UnknownEnumValue } from "@connected-vehicle/schema/Common"
 *
 * const isUnknownEnumValue: (u: unknown) => u is UnknownEnumValue = Schema.is(UnknownEnumValue)
 * ```
 * @category models
 * @since 0.1.0
 */
export type UnknownEnumValue = typeof UnknownEnumValue.Type

/**
 * An enumeration the service reports in its responses. Known values decode as
 * their literal; a value the SDK does not know yet decodes as a string branded
 * `UnknownEnumValue` instead of failing the whole response (the service may add
 * values). Request-side enumerations are strict instead.
 *
 * @example
 * ```ts
 * import { openEnum } from "@connected-vehicle/schema/Common"
 *
 * const Color = openEnum("Color", ["RED", "BLUE"])
 * ```
 * @category constructors
 * @since 0.1.0
 */
export const openEnum = <const Name extends string, const L extends ReadonlyArray<string>>(name: Name, literals: L) =>
  Schema.Union([
    Schema.Literals(literals),
    UnknownEnumValue
  ]).annotate({ identifier: name })

/**
 * `live` or `simulated`.
 *
 * @example
 * ```ts
 * import { ModeValues } from "@connected-vehicle/schema/Common"
 *
 * const known = (u: string): boolean => (ModeValues as ReadonlyArray<string>).includes(u)
 * ```
 * @category constants
 * @since 0.1.0
 */
export const ModeValues = ["live", "simulated"] as const

/**
 * Request-side (strict) vehicle mode.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Mode } from "@connected-vehicle/schema/Common"
 *
 * const isMode = Schema.is(Mode)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Mode = Schema.Literals(ModeValues)

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Mode } from "@connected-vehicle/schema/Common"
 *
 * const isMode: (u: unknown) => u is Mode = Schema.is(Mode)
 * ```
 * @category models
 * @since 0.1.0
 */
export type Mode = typeof Mode.Type

/**
 * Vehicle mode as reported by the service (open).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ReportedMode } from "@connected-vehicle/schema/Common"
 *
 * const isReportedMode = Schema.is(ReportedMode)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ReportedMode = openEnum("Mode", ModeValues)

/**
 * Powertrain types of the compatibility listing. Hybrids are reported as ICE.
 *
 * @example
 * ```ts
 * import { PowertrainTypeValues } from "@connected-vehicle/schema/Common"
 *
 * const known = (u: string): boolean => (PowertrainTypeValues as ReadonlyArray<string>).includes(u)
 * ```
 * @category constants
 * @since 0.1.0
 */
export const PowertrainTypeValues = ["ICE", "BEV", "PHEV"] as const

/**
 * Strict powertrain type.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { PowertrainType } from "@connected-vehicle/schema/Common"
 *
 * const isPowertrainType = Schema.is(PowertrainType)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const PowertrainType = Schema.Literals(PowertrainTypeValues)

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { PowertrainType } from "@connected-vehicle/schema/Common"
 *
 * const isPowertrainType: (u: unknown) => u is PowertrainType = Schema.is(PowertrainType)
 * ```
 * @category models
 * @since 0.1.0
 */
export type PowertrainType = typeof PowertrainType.Type

/**
 * Powertrain type as reported by the service (open).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ReportedPowertrainType } from "@connected-vehicle/schema/Common"
 *
 * const isReportedPowertrainType = Schema.is(ReportedPowertrainType)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ReportedPowertrainType = openEnum("PowertrainType", PowertrainTypeValues)

/**
 * Compatibility powertrain filter: the three types plus `EV` (BEV and PHEV).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { PowertrainFilter } from "@connected-vehicle/schema/Common"
 *
 * const isPowertrainFilter = Schema.is(PowertrainFilter)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const PowertrainFilter = Schema.Literals([...PowertrainTypeValues, "EV"])

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { PowertrainFilter } from "@connected-vehicle/schema/Common"
 *
 * const isPowertrainFilter: (u: unknown) => u is PowertrainFilter = Schema.is(PowertrainFilter)
 * ```
 * @category models
 * @since 0.1.0
 */
export type PowertrainFilter = typeof PowertrainFilter.Type

/**
 * Expands a powertrain filter to the types it matches (`EV` = BEV + PHEV).
 *
 * @example
 * ```ts
 * import { powertrainsOf } from "@connected-vehicle/schema/Common"
 *
 * powertrainsOf("EV") // ["BEV", "PHEV"]
 * ```
 * @category utils
 * @since 0.1.0
 */
export const powertrainsOf = (filter: PowertrainFilter): ReadonlyArray<PowertrainType> =>
  filter === "EV" ? ["BEV", "PHEV"] : [filter]

/**
 * Compatibility regions.
 *
 * @example
 * ```ts
 * import { RegionValues } from "@connected-vehicle/schema/Common"
 *
 * const known = (u: string): boolean => (RegionValues as ReadonlyArray<string>).includes(u)
 * ```
 * @category constants
 * @since 0.1.0
 */
export const RegionValues = ["US", "CA", "EUROPE"] as const

/**
 * Strict region.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Region } from "@connected-vehicle/schema/Common"
 *
 * const isRegion = Schema.is(Region)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Region = Schema.Literals(RegionValues)

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Region } from "@connected-vehicle/schema/Common"
 *
 * const isRegion: (u: unknown) => u is Region = Schema.is(Region)
 * ```
 * @category models
 * @since 0.1.0
 */
export type Region = typeof Region.Type

/**
 * Region as reported by the service (open).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ReportedRegion } from "@connected-vehicle/schema/Common"
 *
 * const isReportedRegion = Schema.is(ReportedRegion)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ReportedRegion = openEnum("Region", RegionValues)

/**
 * `{ self }` links object.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SelfLinks } from "@connected-vehicle/schema/Common"
 *
 * const isSelfLinks = Schema.is(SelfLinks)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const SelfLinks = Schema.Struct({ self: Schema.String })

/**
 * `{ data: { type, id }, links: { related } }` relationship object.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Relationship } from "@connected-vehicle/schema/Common"
 *
 * const VehicleRelationship = Relationship(Schema.Literal("vehicle"))
 * ```
 * @category constructors
 * @since 0.1.0
 */
export const Relationship = <T extends Schema.Top>(type: T) =>
  Schema.Struct({
    data: Schema.Struct({ id: Schema.String, type }),
    links: Schema.Struct({ related: Schema.String })
  })

/**
 * `meta.createdAt` / `meta.updatedAt`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Timestamps } from "@connected-vehicle/schema/Common"
 *
 * const isTimestamps = Schema.is(Timestamps)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Timestamps = Schema.Struct({ createdAt: Timestamp, updatedAt: Timestamp })

/**
 * Vehicle summary carried by connections and subscriptions.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { VehicleSummary } from "@connected-vehicle/schema/Common"
 *
 * const isVehicleSummary = Schema.is(VehicleSummary)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const VehicleSummary = Schema.Struct({
  make: Schema.String,
  model: Schema.String,
  year: Schema.Int,
  mode: ReportedMode,
  powertrainType: ReportedPowertrainType
})

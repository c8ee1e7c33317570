/**
 * The signal resource (section 2.1), its per-signal error and its envelopes.
 *
 * @since 0.1.0
 */
import { Option, Schema, SchemaGetter } from "effect"
import { openEnum, PresentUnchanged, SelfLinks, Timestamp } from "./Common.ts"
import { Page, PageMeta } from "./Pagination.ts"
import { IncludedVehicle } from "./Vehicle.ts"

/**
 * `SUCCESS`, `ERROR` or `UNAVAILABLE` (open: an unknown value decodes as `UnknownEnumValue`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalStatusValue } from "@connected-vehicle/schema/Signal"
 *
 * const isSignalStatusValue = Schema.is(SignalStatusValue)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const SignalStatusValue = openEnum("SignalStatus", ["SUCCESS", "ERROR", "UNAVAILABLE"])

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalStatusValue } from "@connected-vehicle/schema/Signal"
 *
 * const isSignalStatusValue: (u: unknown) => u is SignalStatusValue = Schema.is(SignalStatusValue)
 * ```
 * @category models
 * @since 0.1.0
 */
export type SignalStatusValue = typeof SignalStatusValue.Type

/**
 * Recommended action of an error (values seen: REAUTHENTICATE, RETRY_LATER, CONTACT_SUPPORT).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ResolutionType } from "@connected-vehicle/schema/Signal"
 *
 * const isResolutionType = Schema.is(ResolutionType)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ResolutionType = openEnum("ResolutionType", ["REAUTHENTICATE", "RETRY_LATER", "CONTACT_SUPPORT"])

/**
 * `{ type }` resolution object.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Resolution } from "@connected-vehicle/schema/Signal"
 *
 * const isResolution = Schema.is(Resolution)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Resolution = Schema.Struct({ type: ResolutionType })

/**
 * The error object inside `attributes.status.error`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalError } from "@connected-vehicle/schema/Signal"
 *
 * Schema.decodeUnknownSync(SignalError)({
 *   type: "AUTHENTICATION", code: "UNAUTHORIZED", title: "Unauthorized", detail: "Re-login",
 *   resolution: { type: "REAUTHENTICATE" }
 * })
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const SignalError = Schema.Struct({
  type: Schema.String,
  code: Schema.String,
  title: Schema.String,
  detail: Schema.String,
  resolution: Schema.optionalKey(Resolution),
  description: Schema.optionalKey(Schema.String),
  message: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "SignalError" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalError } from "@connected-vehicle/schema/Signal"
 *
 * const isSignalError: (u: unknown) => u is SignalError = Schema.is(SignalError)
 * ```
 * @category models
 * @since 0.1.0
 */
export type SignalError = typeof SignalError.Type

/**
 * Signal body: `unit` and `value` in the spec's sample; other members are kept
 * as they are. The spec shows no body beyond that sample (section 2.1), so
 * `value` is any JSON value, kept as sent: a number in the sample, a string
 * for a VIN, a boolean for a lock state, `null`. Read a number with
 * {@link numericValue}. `unit` is a string or `null` (a unitless reading may
 * carry `"unit": null`), kept as sent: typed `string | null` when present, so
 * a body encodes back to what was received.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalBody } from "@connected-vehicle/schema/Signal"
 *
 * Schema.decodeUnknownSync(SignalBody)({ value: "1HGCM82633A004352" }) // { value: "1HGCM82633A004352" }
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const SignalBody = Schema.StructWithRest(
  Schema.Struct({ unit: Schema.optionalKey(Schema.NullOr(Schema.String)), value: Schema.optionalKey(Schema.Json) }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)

/**
 * @example
 * ```ts
 * import type { SignalBody } from "@connected-vehicle/schema/Signal"
 *
 * const unitOf = (body: SignalBody): string => body.unit ?? ""
 * ```
 * @category models
 * @since 0.2.0
 */
export type SignalBody = typeof SignalBody.Type

/**
 * The body's `value` when it is a number (a finite one: JSON has no other),
 * else `undefined` (no `value`, or a string, boolean, `null`, array or
 * object).
 *
 * @example
 * ```ts
 * import { numericValue } from "@connected-vehicle/schema/Signal"
 *
 * numericValue({ unit: "volts", value: 240 }) // 240
 * numericValue({ unit: "volts", value: null }) // undefined
 * numericValue({ value: "1HGCM82633A004352" }) // undefined
 * ```
 * @category accessors
 * @since 0.2.0
 */
export const numericValue = (body: SignalBody): number | undefined =>
  typeof body.value === "number" && Number.isFinite(body.value) ? body.value : undefined

/**
 * `attributes.body` of a signal: {@link SignalBody}, `{}` when the service
 * sends none or sends `null` (a signal whose status is `ERROR` or
 * `UNAVAILABLE` may carry no body; the spec shows none). Encodes the body it
 * holds, `{}` included.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalAttributesBody } from "@connected-vehicle/schema/Signal"
 *
 * const Attributes = Schema.Struct({ body: SignalAttributesBody })
 * Schema.decodeUnknownSync(Attributes)({}) // { body: {} }
 * Schema.decodeUnknownSync(Attributes)({ body: null }) // { body: {} }
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const SignalAttributesBody = Schema.optionalKey(Schema.NullOr(SignalBody)).pipe(
  Schema.decodeTo(SignalBody, {
    decode: SchemaGetter.transformOptional((o) => Option.some(Option.isSome(o) && o.value !== null ? o.value : {})),
    encode: SchemaGetter.passthroughSubtype()
  })
).annotate({ [PresentUnchanged]: true })

/**
 * A signal resource.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Signal } from "@connected-vehicle/schema/Signal"
 *
 * const decodeSignal = Schema.decodeUnknownEffect(Signal)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Signal = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("signal"),
  attributes: Schema.Struct({
    code: Schema.String,
    name: Schema.String,
    group: Schema.String,
    status: Schema.Struct({
      value: SignalStatusValue,
      error: Schema.optionalKey(SignalError)
    }),
    body: SignalAttributesBody
  }),
  meta: Schema.Struct({
    retrievedAt: Timestamp,
    oemUpdatedAt: Timestamp,
    ingestedAt: Timestamp
  }),
  links: SelfLinks
}).annotate({ identifier: "Signal" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Signal } from "@connected-vehicle/schema/Signal"
 *
 * const isSignal: (u: unknown) => u is Signal = Schema.is(Signal)
 * ```
 * @category models
 * @since 0.1.0
 */
export type Signal = typeof Signal.Type

/**
 * `GET /vehicles/{vehicleId}/signals` response.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalsPage } from "@connected-vehicle/schema/Signal"
 *
 * const isSignalsPage = Schema.is(SignalsPage)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const SignalsPage = Schema.Struct({
  ...Page(Signal, PageMeta).fields,
  included: IncludedVehicle
}).annotate({ identifier: "SignalsPage" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalsPage } from "@connected-vehicle/schema/Signal"
 *
 * const isSignalsPage: (u: unknown) => u is SignalsPage = Schema.is(SignalsPage)
 * ```
 * @category models
 * @since 0.1.0
 */
export type SignalsPage = typeof SignalsPage.Type

/**
 * `GET /vehicles/{vehicleId}/signals/{signalCode}` response.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalResponse } from "@connected-vehicle/schema/Signal"
 *
 * const isSignalResponse = Schema.is(SignalResponse)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const SignalResponse = Schema.Struct({
  data: Signal,
  included: IncludedVehicle
}).annotate({ identifier: "SignalResponse" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalResponse } from "@connected-vehicle/schema/Signal"
 *
 * const isSignalResponse: (u: unknown) => u is SignalResponse = Schema.is(SignalResponse)
 * ```
 * @category models
 * @since 0.1.0
 */
export type SignalResponse = typeof SignalResponse.Type

/**
 * A signal body that is absent, `null` or present (with a `null` unit), and
 * decodings whose encoded side is the node itself (decoding defaults): the
 * transport's body decoder gives what Effect's decoder gives, and walks a
 * present value once.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Exit, Option, Schema, SchemaGetter } from "effect"
import { PresentUnchanged, Timestamp } from "@connected-vehicle/schema/Common"
import { SignalAttributesBody, SignalBody, SignalResponse, SignalsPage } from "@connected-vehicle/schema/Signal"
import { WebhookEvent } from "@connected-vehicle/schema/WebhookEvent"
import { decodeUnknownExit } from "../src/internal/decoder.ts"
import { agree } from "./agree.ts"
import { seeded } from "./seed.ts"
import { signalResponse } from "./signals.ts"

/** What a service may send as a signal's `attributes`: the body absent, `null`, or an object whose unit may be `null` or wrong. */
const SentAttributes = Schema.Struct({
  body: Schema.optionalKey(Schema.NullOr(Schema.StructWithRest(
    Schema.Struct({
      unit: Schema.optionalKey(Schema.Union([Schema.Null, Schema.String, Schema.Finite, Schema.Boolean])),
      value: Schema.optionalKey(Schema.Json)
    }),
    [Schema.Record(Schema.String, Schema.Json)]
  )))
})

const withAttributes = (attributes: object) => ({
  ...signalResponse,
  data: { ...signalResponse.data, attributes: { ...signalResponse.data.attributes, body: undefined, ...attributes } }
})
const json = (value: unknown) => JSON.parse(JSON.stringify(value))

/** A struct with a member counted each time its check runs (once per walk of the value). */
const counted = () => {
  const counter = { runs: 0 }
  const Body = Schema.StructWithRest(
    Schema.Struct({ unit: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.makeFilter(() => (counter.runs++, true))))) }),
    [Schema.Record(Schema.String, Schema.Unknown)]
  )
  return { Body, counter }
}

/** `null` and an absent key as `{}`, as `SignalAttributesBody` does (its getter gives a present value back: `PresentUnchanged`). */
const nullAsEmpty = <S extends Schema.Codec<object, object>>(body: S) =>
  Schema.optionalKey(Schema.NullOr(body)).pipe(Schema.decodeTo(body, {
    decode: SchemaGetter.transformOptional((o: Option.Option<S["Type"] | null>) => Option.some(Option.isSome(o) && o.value !== null ? o.value : {})),
    encode: SchemaGetter.passthroughSubtype()
  })).annotate({ [PresentUnchanged]: true })

describe("decoder.decodeUnknownExit: a signal body absent, null or present", () => {
  it.prop(
    "a signal with any body a service may send decodes as with Effect's decoder",
    { attributes: SentAttributes },
    ({ attributes }) => {
      const input = json(withAttributes(attributes))
      agree(SignalResponse, input)
      agree(SignalsPage, { data: [input.data, input.data], meta: { pageNumber: 1, pageSize: 2, totalCount: 2 }, links: { self: "s", first: "f", prev: null, next: null, last: "l" }, included: input.included })
    },
    { timeout: 20_000, arbitrary: seeded({ runs: 200 }) }
  )

  it("a null body decodes as {}, a null unit as sent, on the fast path, in a page with other signals", () => {
    for (const body of [null, { unit: null, value: 1 }, { unit: null }, { unit: "km", value: null }]) {
      const input = json(withAttributes({ body }))
      agree(SignalResponse, input)
      const decoded = decodeUnknownExit(SignalResponse)(input)
      assert.isTrue(Exit.isSuccess(decoded), JSON.stringify(body))
      if (Exit.isSuccess(decoded)) assert.deepStrictEqual(decoded.value.data.attributes.body, body ?? {})
    }
    const nullBody = json(withAttributes({ body: null })).data
    const page = { data: [nullBody, json(signalResponse).data, nullBody], meta: { pageNumber: 1, pageSize: 3, totalCount: 3 }, links: { self: "s", first: "f", prev: null, next: null, last: "l" }, included: json(signalResponse).included }
    const decoded = decodeUnknownExit(SignalsPage)(page)
    assert.isTrue(Exit.isSuccess(decoded))
    if (Exit.isSuccess(decoded)) {
      assert.deepStrictEqual(decoded.value.data.map((s) => s.attributes.body), [{}, { unit: "volts", value: 240 }, {}])
      assert.notStrictEqual(decoded.value.data[0]!.attributes.body, decoded.value.data[2]!.attributes.body)
    }
  })

  it("a webhook reading with a null body or a null unit decodes as with Effect's decoder", () => {
    const at = "2025-08-26T10:00:00.000Z"
    const reading = (body: unknown) => ({ code: "charge-voltage", name: "Voltage", group: "Charge", body, meta: { oemUpdatedAt: at, fetchedAt: at } })
    const event = (signals: ReadonlyArray<unknown>) => ({
      eventId: "evt_1",
      eventType: "VEHICLE_STATE",
      vehicleId: "veh_1",
      data: { user: { id: "usr_1" }, vehicle: { id: "veh_1", make: "TESLA", model: "Model 3", year: 2024 }, triggers: [], signals },
      meta: { version: "4.0", webhookId: "wh_1", webhookName: "Fleet", deliveryId: "dlv_1", deliveredAt: at, signalCount: signals.length, mode: "LIVE" }
    })
    for (const body of [null, { unit: null, value: 1 }, { unit: "V", value: 240 }, "x", { unit: 1 }]) agree(WebhookEvent, event([reading(body)]))
    const decoded = decodeUnknownExit(WebhookEvent)(event([reading(null), reading({ unit: null, value: true })]))
    assert.isTrue(Exit.isSuccess(decoded))
    if (Exit.isSuccess(decoded) && decoded.value.eventType === "VEHICLE_STATE") {
      assert.deepStrictEqual(decoded.value.data.signals.map((s) => "body" in s ? s.body : undefined), [{}, { unit: null, value: true }])
    }
  })
})

describe("decoder.decodeUnknownExit: a decoding whose encoded side is the node itself walks a present value once", () => {
  it("a signal's body is walked as often as SignalBody alone walks it", () => {
    let walks = 0
    const value = new Proxy({ a: [1, 2] }, { ownKeys: (target) => (walks++, Reflect.ownKeys(target)) })
    const body = { unit: "km", value, extra: 1 }
    assert.isTrue(Exit.isSuccess(decodeUnknownExit(SignalBody)(body)))
    const alone = walks
    walks = 0
    assert.isTrue(Exit.isSuccess(decodeUnknownExit(SignalResponse)({ ...json(signalResponse), data: { ...json(signalResponse).data, attributes: { ...signalResponse.data.attributes, body } } })))
    assert.isAbove(alone, 0)
    assert.strictEqual(walks, alone)
    walks = 0
    assert.isTrue(Exit.isSuccess(decodeUnknownExit(Schema.Struct({ body: SignalAttributesBody }))({ body })))
    assert.strictEqual(walks, alone)
  })

  it("a decoding default (withDecodingDefaultKey) and a null default: each check of a present value runs once, with Effect's results", () => {
    for (const make of [
      (Body: Schema.Codec<object, object>) => Body.pipe(Schema.withDecodingDefaultKey(Effect.succeed({}))).annotate({ [PresentUnchanged]: true }),
      (Body: Schema.Codec<object, object>) => nullAsEmpty(Body)
    ]) {
      const { Body, counter } = counted()
      const Outer = Schema.Struct({ body: make(Body as unknown as Schema.Codec<object, object>) })
      for (const input of [{ body: { unit: "km", x: 1 } }, { body: { unit: null } }, {}, { body: { unit: 1 } }]) {
        counter.runs = 0
        const exit = decodeUnknownExit(Outer)(input)
        if (input.body?.unit === "km") {
          assert.isTrue(Exit.isSuccess(exit))
          assert.strictEqual(counter.runs, 1)
        }
        agree(Outer, input)
      }
    }
  })

  it("a getter that changes its input in place and gives it back: the value is decoded again (without PresentUnchanged), as Effect does", () => {
    const Body = Schema.Struct({ unit: Schema.optionalKey(Schema.NullOr(Schema.String)) })
    const Mutating = Schema.NullOr(Body).pipe(Schema.decodeTo(Body, {
      decode: SchemaGetter.transform((b: { unit?: unknown } | null) => {
        if (b === null) return {}
        b.unit = 42
        return b as never
      }),
      encode: SchemaGetter.passthroughSubtype()
    }))
    const Outer = Schema.Struct({ body: Mutating })
    assert.isTrue(Exit.isFailure(decodeUnknownExit(Outer)({ body: { unit: "km" } })))
    agree(Outer, { body: { unit: "km" } })
  })

  it.prop(
    "decoding defaults and null defaults over structs, checked, transformed or not, agree with Effect's decoder",
    {
      input: Schema.Struct({
        a: Schema.optionalKey(Schema.NullOr(Schema.Struct({ n: Schema.optionalKey(Schema.Union([Schema.Finite, Schema.String])), s: Schema.optionalKey(Schema.Union([Schema.String, Schema.Null])) }))),
        b: Schema.optionalKey(Schema.Union([Schema.Null, Schema.Finite, Schema.String, Schema.Struct({ t: Schema.Literals(["2025-08-26T10:00:00.000Z", "x"]) })]))
      })
    },
    ({ input }) => {
      const Checked = Schema.Struct({ n: Schema.optionalKey(Schema.Finite.check(Schema.isGreaterThan(0))), s: Schema.optionalKey(Schema.NullOr(Schema.String)) })
      const Transformed = Schema.Struct({ n: Schema.optionalKey(Schema.NumberFromString), s: Schema.optionalKey(Schema.NullOr(Schema.String)) })
      const Stamped = Schema.Struct({ t: Timestamp })
      const schemas = [
        Schema.Struct({ a: Checked.pipe(Schema.withDecodingDefaultKey(Effect.succeed({ n: 1 }))), b: Schema.optionalKey(Schema.Unknown) }),
        Schema.Struct({ a: nullAsEmpty(Checked as Schema.Codec<object, object>), b: Schema.optionalKey(Schema.Unknown) }),
        Schema.Struct({ a: Transformed.pipe(Schema.withDecodingDefaultKey(Effect.succeed({}))), b: Schema.optionalKey(Schema.Unknown) }),
        Schema.Struct({ a: nullAsEmpty(Transformed as Schema.Codec<object, object>), b: Schema.optionalKey(Schema.Unknown) }),
        Schema.Struct({ a: Schema.optionalKey(Schema.Unknown), b: Stamped.pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed({ t: DateTime.makeUnsafe(0) }))) }),
        // a getter that gives another value for a present one: the node decodes it
        Schema.Struct({
          a: Schema.optionalKey(Schema.NullOr(Checked)).pipe(Schema.decodeTo(Checked, {
            decode: SchemaGetter.transformOptional((o) => Option.some(Option.isSome(o) && o.value !== null ? { ...o.value, n: 2 } : {})),
            encode: SchemaGetter.passthroughSubtype()
          })),
          b: Schema.optionalKey(Schema.Unknown)
        }),
        // the other member of the union is the node's encoded side too: not taken for it
        Schema.Struct({
          a: Schema.Unknown,
          b: Schema.Union([Schema.Null, Schema.Finite]).pipe(Schema.decodeTo(Schema.NullOr(Schema.Finite), {
            decode: SchemaGetter.transform((n) => n === null ? null : n + 1),
            encode: SchemaGetter.transform((n) => n === null ? null : n - 1)
          }))
        })
      ]
      for (const schema of schemas) agree(schema, json(input))
    },
    { timeout: 20_000, arbitrary: seeded({ runs: 150 }) }
  )
})

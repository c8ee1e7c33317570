import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { parse } from "../src/Json.ts"
import { numericValue, type Signal, SignalBody, SignalResponse, SignalsPage } from "../src/Signal.ts"
import { type Webhook, WebhookResponse, WebhooksPage } from "../src/Webhook.ts"
import * as Samples from "./samples.ts"

// Fields the spec leaves open (section 2.1: "Body fields per signal code: not
// shown beyond the sample shape"; section 2.5 shows no webhook without an
// error callback): a value the sample does not show decodes, as sent, so that
// it never fails a whole page.

const signalWith = (attributes: Record<string, unknown>) => ({
  ...Samples.successSignal,
  attributes: { ...Samples.successSignal.attributes, ...attributes }
})
const pageOf = (...signals: ReadonlyArray<unknown>) => ({
  ...Samples.signalsPage,
  data: signals,
  meta: { ...Samples.signalsPage.meta, totalCount: signals.length }
})

/** JSON text in, decoded, encoded, JSON text out (the wire both ways). */
const wire = <S extends Schema.Codec<any, any>>(schema: S, json: unknown) => {
  const decoded = Schema.decodeUnknownSync(schema)(parse(JSON.stringify(json)))
  return { decoded: decoded as S["Type"], encoded: parse(JSON.stringify(Schema.encodeSync(schema)(decoded))) }
}

describe("signal body value: any JSON value, kept as sent", () => {
  const values: ReadonlyArray<Schema.Json> = [
    "1HGCM82633A004352",
    true,
    false,
    null,
    0,
    -12.5,
    [1, "a", null, { b: [true] }],
    { latitude: 37.4, longitude: -122.1, nested: { deep: [[]] } },
    {},
    []
  ]

  it("every kind of JSON value decodes in a page and re-encodes to the same JSON", () => {
    const page = pageOf(...values.map((value, i) => signalWith({ code: `c${i}`, body: { unit: "u", value } })))
    const { decoded, encoded } = wire(SignalsPage, page)
    assert.deepStrictEqual(decoded.data.map((signal) => signal.attributes.body.value), [...values])
    assert.deepStrictEqual(encoded, page)
  })

  it("the decoded value is the value given (an array or object is not copied)", () => {
    for (const value of values) {
      const body = { value, extra: 1 }
      const decoded = Schema.decodeUnknownSync(SignalBody)(body)
      assert.strictEqual(decoded.value, value)
      assert.deepStrictEqual(decoded, body)
    }
  })

  it("a VIN, a lock state and a null value no longer fail the signals of their vehicle", () => {
    const page = pageOf(
      signalWith({ code: "vehicleidentification-vin", body: { value: "1HGCM82633A004352" } }),
      signalWith({ code: "closure-islocked", body: { value: true } }),
      signalWith({ code: "charge-voltage", body: { unit: "volts", value: null } }),
      Samples.successSignal
    )
    const decoded = Schema.decodeUnknownSync(SignalsPage)(page)
    assert.deepStrictEqual(decoded.data.map((signal) => signal.attributes.body.value), ["1HGCM82633A004352", true, null, 240])
  })

  it("what is not a JSON value still fails (not from JSON text: NaN, Infinity, undefined, a Date)", () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, undefined, new Date(0), () => 1, [Number.NaN]]) {
      const exit = Schema.decodeUnknownExit(SignalBody)({ value })
      assert.isTrue(exit._tag === "Failure", String(value))
      assert.include(String(exit), "JSON value")
    }
    // a missing value is fine
    assert.deepStrictEqual(Schema.decodeUnknownSync(SignalBody)({ unit: "km" }), { unit: "km" })
  })

  it("numericValue reads a number, and nothing else", () => {
    assert.strictEqual(numericValue({ unit: "volts", value: 240 }), 240)
    assert.strictEqual(numericValue({ value: 0 }), 0)
    assert.strictEqual(numericValue({ value: -1.5 }), -1.5)
    for (const value of ["240", true, null, [240], { value: 240 }]) {
      assert.isUndefined(numericValue({ value }), JSON.stringify(value))
    }
    assert.isUndefined(numericValue({ unit: "volts" }))
    assert.isUndefined(numericValue({}))
  })

  it("types: the value is a JSON value (narrowed to a number by numericValue)", () => {
    const signal = Schema.decodeUnknownSync(SignalResponse)(Samples.signalResponse).data
    const value: Schema.Json | undefined = signal.attributes.body.value
    // @ts-expect-error a JSON value is not a number without a check
    const notNumber: number | undefined = signal.attributes.body.value
    const volts: number | undefined = numericValue(signal.attributes.body)
    assert.strictEqual(value, 240)
    assert.strictEqual(notNumber, 240)
    assert.strictEqual(volts, 240)
  })
})

describe("signal without a body (a failed signal)", () => {
  const { body: _, ...withoutBody } = Samples.errorSignal.attributes
  const unavailable = {
    ...Samples.successSignal,
    attributes: { code: "charge-voltage", name: "Voltage", group: "Charge", status: { value: "UNAVAILABLE" } }
  }

  it("decodes with an empty body, in a page with other signals", () => {
    const page = pageOf({ ...Samples.errorSignal, attributes: withoutBody }, unavailable, Samples.successSignal)
    const decoded = Schema.decodeUnknownSync(SignalsPage)(page)
    assert.deepStrictEqual(decoded.data.map((signal) => signal.attributes.body), [{}, {}, { unit: "volts", value: 240 }])
    assert.deepStrictEqual(decoded.data.map((signal) => signal.attributes.status.value), ["ERROR", "UNAVAILABLE", "SUCCESS"])
    assert.strictEqual(decoded.data[0]!.attributes.status.error?.code, "UNAUTHORIZED")
  })

  it("encodes the body it holds (`{}`), which decodes to the same signal", () => {
    const { decoded, encoded } = wire(SignalResponse, { ...Samples.signalResponse, data: unavailable })
    const attributes = (encoded as { data: { attributes: Record<string, unknown> } }).data.attributes
    assert.deepStrictEqual(attributes["body"], {})
    assert.deepStrictEqual(Schema.decodeUnknownSync(SignalResponse)(encoded), decoded)
    // a body sent is encoded as sent
    assert.deepStrictEqual(wire(SignalResponse, Samples.signalResponse).encoded, Samples.signalResponse)
  })

  it("each decoded signal has a body of its own", () => {
    const decoded = Schema.decodeUnknownSync(SignalsPage)(pageOf(unavailable, unavailable))
    assert.notStrictEqual(decoded.data[0]!.attributes.body, decoded.data[1]!.attributes.body)
  })

  it("a body that is not an object (nor null) still fails", () => {
    for (const body of ["x", 1, [1], true]) {
      assert.isTrue(Schema.decodeUnknownExit(SignalResponse)({ ...Samples.signalResponse, data: signalWith({ body }) })._tag === "Failure")
    }
  })

  it("types: the body is never undefined", () => {
    const signal: Signal = Schema.decodeUnknownSync(SignalResponse)({ ...Samples.signalResponse, data: unavailable }).data
    const body: SignalBody = signal.attributes.body
    const encoded: (typeof SignalResponse.Encoded)["data"]["attributes"]["body"] = undefined
    assert.deepStrictEqual(body, {})
    assert.isUndefined(encoded)
  })
})

describe("a null body, a null unit", () => {
  it("a null body decodes as an absent one (`{}`), in a page with other signals, and encodes as `{}`", () => {
    const nullBody = signalWith({ code: "tractionbattery-range", status: { value: "UNAVAILABLE" }, body: null })
    const decoded = Schema.decodeUnknownSync(SignalsPage)(pageOf(nullBody, Samples.successSignal, nullBody))
    assert.deepStrictEqual(decoded.data.map((signal) => signal.attributes.body), [{}, { unit: "volts", value: 240 }, {}])
    assert.notStrictEqual(decoded.data[0]!.attributes.body, decoded.data[2]!.attributes.body)
    const { encoded } = wire(SignalResponse, { ...Samples.signalResponse, data: nullBody })
    assert.deepStrictEqual((encoded as { data: { attributes: Record<string, unknown> } }).data.attributes["body"], {})
  })

  it("a null unit decodes as sent (`null`) and re-encodes to the same JSON", () => {
    const page = pageOf(signalWith({ code: "c0", body: { unit: null, value: 3 } }), signalWith({ code: "c1", body: { unit: null } }))
    const { decoded, encoded } = wire(SignalsPage, page)
    assert.deepStrictEqual(decoded.data.map((signal) => signal.attributes.body), [{ unit: null, value: 3 }, { unit: null }])
    assert.deepStrictEqual(encoded, page)
    assert.deepStrictEqual(Schema.decodeUnknownSync(SignalBody)({ unit: null, value: true }), { unit: null, value: true })
    // a unit of another type still fails
    for (const unit of [1, true, {}, []]) assert.isTrue(Schema.decodeUnknownExit(SignalBody)({ unit, value: 1 })._tag === "Failure")
  })

  it("types: the unit is a string or null when present", () => {
    const body: SignalBody = Schema.decodeUnknownSync(SignalBody)({ unit: null, value: 1 })
    const unit: string | null | undefined = body.unit
    const label: string = body.unit ?? "-"
    assert.isNull(unit)
    assert.strictEqual(label, "-")
  })
})

describe("webhook error callback: optional, null-tolerant", () => {
  const { errorCallbackUri: _, ...withoutErrorCallback } = Samples.webhook.attributes
  const webhooks = [
    { ...Samples.webhook, id: "wh_absent", attributes: withoutErrorCallback },
    { ...Samples.webhook, id: "wh_null", attributes: { ...Samples.webhook.attributes, errorCallbackUri: null } },
    { ...Samples.webhook, id: "wh_empty", attributes: { ...Samples.webhook.attributes, errorCallbackUri: "" } },
    Samples.webhook
  ]

  it("absent, null, empty or a URI: decodes in the list as sent, and re-encodes to the same JSON", () => {
    const page = { ...Samples.webhooksPage, data: webhooks, meta: { ...Samples.webhooksPage.meta, totalCount: 4 } }
    const { decoded, encoded } = wire(WebhooksPage, page)
    assert.deepStrictEqual(decoded.data.map((webhook) => webhook.attributes.errorCallbackUri), [
      undefined,
      null,
      "",
      "https://hooks.example.test/cv-errors"
    ])
    assert.isFalse("errorCallbackUri" in decoded.data[0]!.attributes)
    assert.deepStrictEqual(encoded, page)
    assert.deepStrictEqual(wire(WebhookResponse, { data: webhooks[0] }).encoded, { data: webhooks[0] })
  })

  it("another type still fails", () => {
    const exit = Schema.decodeUnknownExit(WebhookResponse)({ data: { ...Samples.webhook, attributes: { ...Samples.webhook.attributes, errorCallbackUri: 1 } } })
    assert.isTrue(exit._tag === "Failure")
  })

  it("types: the error callback may be absent or null", () => {
    const webhook: Webhook = Schema.decodeUnknownSync(WebhookResponse)({ data: webhooks[1] }).data
    const uri: string | null | undefined = webhook.attributes.errorCallbackUri
    // @ts-expect-error not always a string
    const notString: string = webhook.attributes.errorCallbackUri
    assert.isNull(uri)
    assert.isNull(notString)
  })
})

import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Exit, Option, Schema, SchemaGetter, SchemaIssue } from "effect"
import { DecodeString, Timestamp } from "@connected-vehicle/schema/Common"
import { CompatibilityPage } from "@connected-vehicle/schema/Compatibility"
import { ConnectionResponse, ConnectionsPage } from "@connected-vehicle/schema/Connection"
import * as Legacy from "@connected-vehicle/schema/Legacy"
import { AppTokenResponse, TokenResponse } from "@connected-vehicle/schema/OAuth"
import { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
import { SignalBody, SignalResponse, SignalsPage } from "@connected-vehicle/schema/Signal"
import { SubscriptionResponse, SubscriptionsPage } from "@connected-vehicle/schema/Subscription"
import { WebhookResponse, WebhooksPage } from "@connected-vehicle/schema/Webhook"
import { WebhookEvent } from "@connected-vehicle/schema/WebhookEvent"
import { decodeUnknownExit } from "../src/internal/decoder.ts"
import { agree } from "./agree.ts"
import { seeded } from "./seed.ts"
import { signalResponse } from "./signals.ts"

const { Odometer } = Legacy

/** Every top-level body schema of the service (200s and errors), and the webhook event. */
const schemas = {
  SignalsPage,
  SignalResponse,
  ConnectionsPage,
  ConnectionResponse,
  SubscriptionsPage,
  SubscriptionResponse,
  WebhooksPage,
  WebhookResponse,
  CompatibilityPage,
  ErrorEnvelope,
  Odometer,
  Location: Legacy.Location,
  Vin: Legacy.Vin,
  EngineOil: Legacy.EngineOil,
  TirePressure: Legacy.TirePressure,
  ServiceHistory: Legacy.ServiceHistory,
  VehicleList: Legacy.VehicleList,
  BatchResponse: Legacy.BatchResponse,
  TokenResponse,
  AppTokenResponse,
  WebhookEvent
} as const

/** Every path of a JSON value, containers included. */
const paths = (value: unknown, prefix: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> => {
  const out = [prefix]
  if (Array.isArray(value)) value.forEach((item, i) => out.push(...paths(item, [...prefix, i])))
  else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) out.push(...paths(item, [...prefix, key]))
  }
  return out
}

/** `json` with the value at `path` replaced by `replacement`, or removed when it is `undefined`. */
const mutate = (json: unknown, path: ReadonlyArray<string | number>, replacement: unknown): unknown => {
  if (path.length === 0) return replacement
  const copy = structuredClone(json) as Record<string | number, unknown>
  let parent = copy
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
  const last = path[path.length - 1]!
  if (replacement === undefined) {
    if (Array.isArray(parent)) parent.splice(last as number, 1)
    else delete parent[last]
  } else parent[last] = replacement
  return copy
}

const Replacement = Schema.Union([
  Schema.Undefined,
  Schema.Null,
  Schema.Boolean,
  Schema.Finite,
  Schema.String,
  Schema.Literals(["SUCCESS", "ERROR", "signal", "vehicle", "2025-08-26T10:00:00.000Z", "2025-13-01T00:00:00Z"]),
  Schema.Array(Schema.String),
  Schema.Record(Schema.String, Schema.Finite)
])

describe("decoder.decodeUnknownExit (the transport's body decoder) against Effect's decoder", () => {
  for (const [name, schema] of Object.entries(schemas)) {
    const codec = schema as unknown as Schema.Codec<unknown, unknown>
    const encode = Schema.encodeSync(codec)
    it.prop(`${name}: a generated value decodes as with Effect's decoder`, { value: codec }, ({ value }) => {
      agree(schema, JSON.parse(JSON.stringify(encode(value))))
    }, { timeout: 20_000, arbitrary: seeded({ runs: 60 }) })
    it.prop(
      `${name}: a generated value with one member changed or removed agrees with Effect's decoder`,
      { value: codec, at: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000 })), replacement: Replacement },
      ({ at, replacement, value }) => {
        const json = JSON.parse(JSON.stringify(encode(value)))
        const all = paths(json)
        agree(schema, mutate(json, all[at % all.length]!, replacement))
      },
      { timeout: 20_000, arbitrary: seeded({ runs: 100 }) }
    )
  }

  it("takes a schema's own decoding from a string (DecodeString) on that very node only, with Effect's results", () => {
    let calls = 0
    const Codec = Schema.String.pipe(Schema.decodeTo(Schema.String, {
      decode: SchemaGetter.transform((s: string) => `${s}!`),
      encode: SchemaGetter.transform((s: string) => s.slice(0, -1))
    }))
    const Shouting = Codec.annotate({
      [DecodeString]: { encoding: Codec.ast.encoding!, decode: (s: string) => (calls++, `${s}!`) } satisfies DecodeString
    })
    const agreeing = (schema: Schema.Codec<unknown, unknown>, input: unknown) =>
      assert.deepStrictEqual(decodeUnknownExit(schema)(input), Schema.decodeUnknownExit(schema)(input))
    agreeing(Shouting as never, "hey")
    agreeing(Schema.Struct({ a: Shouting, b: Schema.NullOr(Shouting) }) as never, { a: "x", b: "y" })
    assert.strictEqual(calls, 3)
    // an optional key rebuilds the node's encoding: compiled as any other node
    agreeing(Schema.Struct({ c: Schema.optionalKey(Shouting) }) as never, { c: "z" })
    // a derived schema with a check of its own, or the annotation copied onto another encoding: not taken
    agreeing(Shouting.check(Schema.isMinLength(3)) as never, "hey")
    agreeing(Shouting.check(Schema.isMinLength(3)) as never, "h")
    agreeing(Schema.String.annotate({ [DecodeString]: Shouting.ast.annotations![DecodeString] }) as never, "plain")
    assert.strictEqual(calls, 3)
    // Timestamp carries it, for its own node
    const spec = Timestamp.ast.annotations?.[DecodeString] as DecodeString | undefined
    assert.strictEqual(spec?.encoding, Timestamp.ast.encoding)
    agreeing(Timestamp as never, "2025-08-26T10:00:00.000Z")
    agreeing(Timestamp as never, "2025-02-30T10:00:00.000Z")
    agreeing(Timestamp as never, 42)
  })

  it("keeps the rest members of a struct after the declared ones, in their order, an own `__proto__` included", () => {
    const body = JSON.parse(`{"zeta":1,"value":2.5,"__proto__":{"polluted":true},"unit":"km","alpha":[1]}`)
    agree(SignalBody, body)
    const decoded = decodeUnknownExit(SignalBody)(body)
    assert.isTrue(Exit.isSuccess(decoded))
    if (Exit.isSuccess(decoded)) {
      assert.deepStrictEqual(Object.keys(decoded.value), ["unit", "value", "zeta", "__proto__", "alpha"])
      assert.isTrue(Object.hasOwn(decoded.value, "__proto__"))
      assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    }
    // a declared member is decoded once, not overwritten by the rest record's copy of it
    const WithRest = Schema.StructWithRest(Schema.Struct({ at: Timestamp }), [Schema.Record(Schema.String, Schema.Unknown)])
    agree(WithRest, { extra: 1, at: "2025-08-26T10:00:00.000Z" })
    agree(WithRest, { extra: 1 })
    // a declared member is a member of the rest record too: its schema checks it
    const Strings = Schema.StructWithRest(Schema.Struct({ a: Schema.Number }), [Schema.Record(Schema.String, Schema.String)])
    agree(Strings, { a: 1 })
    agree(Strings, { a: 1, b: "x" })
    const Numbers = Schema.StructWithRest(Schema.Struct({ a: Schema.optionalKey(Schema.String) }), [Schema.Record(Schema.String, Schema.NumberFromString)])
    agree(Numbers, { a: "1", b: "2" })
    agree(Numbers, { a: "x", b: "2" })
  })

  it("reads declared keys as Effect does (`in`, inherited ones too) and fails the same way", () => {
    const Inherited = Schema.Struct({ toString: Schema.optionalKey(Schema.String), constructor: Schema.String })
    agree(Inherited, {})
    agree(Inherited, JSON.parse(`{"constructor":"c"}`))
    agree(Inherited, JSON.parse(`{"constructor":"c","toString":"t"}`))
    const Proto = Schema.Struct({ __proto__: Schema.optionalKey(Schema.String), a: Schema.Number })
    agree(Proto, JSON.parse(`{"a":1}`))
    agree(Proto, JSON.parse(`{"__proto__":"p","a":1}`))
    agree(Proto, JSON.parse(`{"__proto__":1,"a":1}`))
  })

  it("fails exactly as Effect's decoder: a missing key, a wrong type, an invalid timestamp, a non-finite number", () => {
    const valid = JSON.parse(JSON.stringify(signalResponse))
    agree(SignalResponse, valid)
    agree(SignalResponse, mutate(valid, ["data", "meta", "retrievedAt"], "2025-02-30T10:00:00.000Z"))
    agree(SignalResponse, mutate(valid, ["data", "attributes", "status"], undefined))
    agree(SignalResponse, mutate(valid, ["data", "attributes", "body", "value"], "240"))
    agree(Odometer, { distance: Number.POSITIVE_INFINITY })
    agree(Odometer, { distance: Number.NaN })
    agree(Odometer, [])
    agree(Odometer, null)
    agree(Timestamp, "2025-08-26T12:00:00+02:00")
    agree(Timestamp, "10000-01-01T00:00:00.000Z")
  })

  it("leaves to Effect's decoder what it does not cover: suspensions, overlapping unions of transformed members", () => {
    interface Tree {
      readonly value: number
      readonly children: ReadonlyArray<Tree>
    }
    const Tree: Schema.Codec<Tree> = Schema.Struct({
      value: Schema.Number,
      children: Schema.Array(Schema.suspend((): Schema.Codec<Tree> => Tree))
    })
    agree(Tree, { value: 1, children: [{ value: 2, children: [] }] })
    agree(Tree, { value: 1, children: [{ value: "2", children: [] }] })
    const Overlapping = Schema.Union([Timestamp, Schema.String])
    agree(Overlapping, "2025-08-26T10:00:00.000Z")
    agree(Overlapping, "not a date")
  })

  /** Reads of `data` of the input: 1 when the fast path decoded it, more when Effect's decoder read it again. */
  const readsOfData = (schema: Schema.Top, input: object) => {
    let calls = 0
    const counted = new Proxy(input, { get: (target, key) => (key === "data" && calls++, Reflect.get(target, key)) })
    assert.isTrue(Exit.isSuccess(decodeUnknownExit(schema)(counted)))
    return calls
  }

  it("decodes the open fields of the service on the fast path: any JSON value of a signal body, a signal without a body, a webhook without an error callback", () => {
    const json = JSON.parse(JSON.stringify(signalResponse))
    for (const value of ["1HGCM82633A004352", true, false, null, 0, -1.5, [1, "a", null, { b: [true] }], { lat: 1, n: { m: [] } }, {}, []]) {
      const input = mutate(json, ["data", "attributes", "body", "value"], value) as object
      agree(SignalResponse, input)
      assert.strictEqual(readsOfData(SignalResponse, input), 1, JSON.stringify(value))
    }
    // what is not a JSON value fails as in Effect's decoder
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, new Date(0), [Number.NaN], { a: undefined }]) {
      agree(SignalResponse, mutate(json, ["data", "attributes", "body", "value"], value))
    }
    const withoutBody = mutate(json, ["data", "attributes", "body"], undefined) as object
    agree(SignalResponse, withoutBody)
    assert.strictEqual(readsOfData(SignalResponse, withoutBody), 1)
    const page = { data: [withoutBody, json].map((r) => (r as { data: unknown }).data), meta: { pageNumber: 1, pageSize: 2, totalCount: 2 }, links: { self: "s", first: "f", prev: null, next: null, last: "l" }, included: json.included }
    agree(SignalsPage, page)
    const decoded = decodeUnknownExit(SignalsPage)(page)
    assert.isTrue(Exit.isSuccess(decoded) && decoded.value.data[0]!.attributes.body !== decoded.value.data[1]!.attributes.body)
    agree(SignalResponse, mutate(json, ["data", "attributes", "body"], null))
    const webhook = {
      data: {
        id: "wh_1",
        type: "webhook",
        attributes: { name: "n", triggers: [], data: [], callbackUri: "https://x", isEnabled: true, autoSubscribe: false },
        meta: { createdAt: "2025-08-26T10:00:00.000Z" },
        links: { self: "x" }
      }
    }
    for (const errorCallbackUri of [undefined, null, "", "https://x/errors", 1]) {
      const input = errorCallbackUri === undefined ? webhook : mutate(webhook, ["data", "attributes", "errorCallbackUri"], errorCallbackUri) as object
      agree(WebhookResponse, input)
      if (errorCallbackUri !== 1) assert.strictEqual(readsOfData(WebhookResponse, input), 1)
    }
    agree(Schema.MutableJson, [1, { a: "b" }])
    agree(Schema.Struct({ j: Schema.Json.pipe(Schema.check(Schema.makeFilter((u) => u !== 3))) }), { j: 3 })
  })

  it("compiles decoding defaults and optional getters that answer at once, with Effect's results", () => {
    const cases: ReadonlyArray<readonly [Schema.Top, ReadonlyArray<object>]> = [
      [Schema.Struct({ n: Schema.Number.pipe(Schema.withDecodingDefault(Effect.succeed(7))) }), [{}, { n: 3 }, { n: undefined }, { n: "3" }]],
      [Schema.Struct({ n: Schema.Number.pipe(Schema.withDecodingDefaultKey(Effect.succeed(7))) }), [{}, { n: 3 }, { n: undefined }]],
      [Schema.Struct({ n: Schema.Number.pipe(Schema.withDecodingDefaultKey(Effect.succeed(7), { encodingStrategy: "omit" })) }), [{}, { n: 3 }]],
      [Schema.Struct({ t: Timestamp.pipe(Schema.withDecodingDefaultTypeKey(Effect.succeed(DateTime.makeUnsafe(0)))) }), [{}, { t: "2025-08-26T10:00:00.000Z" }, { t: "x" }]],
      [Schema.Struct({ t: Timestamp.pipe(Schema.withDecodingDefaultType(Effect.succeed(DateTime.makeUnsafe(0)))) }), [{}, { t: undefined }, { t: "2025-08-26T10:00:00.000Z" }]],
      // a default that is checked, or a check that fails it
      [Schema.Struct({ n: Schema.Number.check(Schema.isGreaterThan(0)).pipe(Schema.withDecodingDefaultKey(Effect.succeed(-1))) }), [{}, { n: 1 }]],
      // an effect that is no exit yet (Effect's decoder runs it), a default that fails
      [Schema.Struct({ n: Schema.Number.pipe(Schema.withDecodingDefaultKey(Effect.sync(() => 5))) }), [{}, { n: 1 }]],
      [Schema.Struct({ n: Schema.Number.pipe(Schema.withDecodingDefaultKey(Effect.fail(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message: "no default" }))))) }), [{}, { n: 1 }]],
      // a default struct whose members have defaults, and an absent key an optional getter keeps absent
      [
        Schema.Struct({
          b: Schema.Struct({ a: Schema.String.pipe(Schema.withDecodingDefaultKey(Effect.succeed("x"))), c: Schema.optionalKey(Schema.Number) })
            .pipe(Schema.withDecodingDefaultKey(Effect.succeed({})))
        }),
        [{}, { b: {} }, { b: { a: "y", c: 1 } }, { b: { c: "1" } }]
      ],
      // a struct decoded by the loop (an own `__proto__`, no generated code)
      [Schema.Struct({ __proto__: Schema.optionalKey(Schema.String), n: Schema.Number.pipe(Schema.withDecodingDefaultKey(Effect.succeed(7))) }), [{}, JSON.parse(`{"__proto__":"p"}`), { n: 1 }]],
      [Schema.Struct({ o: Schema.optionalKey(Schema.Number).pipe(Schema.decodeTo(Schema.optionalKey(Schema.Number), { decode: SchemaGetter.transformOptional((o) => Option.filter(o, (n) => n > 0)), encode: SchemaGetter.passthrough() })) }), [{}, { o: 1 }, { o: -1 }]],
      [Schema.Struct({ r: Schema.optionalKey(Schema.Number).pipe(Schema.decodeTo(Schema.Number, { decode: SchemaGetter.transformOptional((o) => Option.isNone(o) ? Option.some(0) : Option.filter(o, (n) => n > 0)), encode: SchemaGetter.required() })) }), [{}, { r: 1 }, { r: -1 }]]
    ]
    for (const [schema, inputs] of cases) for (const input of inputs) agree(schema, input)
    // on the fast path: the input read once
    const Page = Schema.Struct({ data: Schema.Struct({ n: Schema.Number.pipe(Schema.withDecodingDefaultKey(Effect.succeed(7))) }) })
    assert.strictEqual(readsOfData(Page, { data: {} }), 1)
  })

  it("decodes the JSON codec of a schema in one pass (each rest member checked as a JSON value by Effect's decoder of that declaration)", () => {
    const codec = Schema.toCodecJson(SignalResponse)
    const input = JSON.parse(JSON.stringify({ ...signalResponse, data: { ...signalResponse.data, attributes: { ...signalResponse.data.attributes, body: { unit: "km", value: 1, extra: { a: [1, null] } } } } }))
    agree(codec, input)
    // a rest member that is not a JSON value fails as in Effect's decoder
    agree(codec, mutate(input, ["data", "attributes", "body", "extra"], Number.NaN))
    const general = Schema.decodeUnknownExit(codec as Schema.Codec<unknown, unknown>)
    let calls = 0
    const counted = new Proxy(input, { get: (target, key) => (key === "data" && calls++, Reflect.get(target, key)) })
    assert.isTrue(Exit.isSuccess(decodeUnknownExit(codec)(counted)))
    // read once by the fast path, not again by a fallback
    assert.strictEqual(calls, 1)
    assert.isTrue(Exit.isSuccess(general(input)))
  })

  it("hands a transformation that throws to Effect's decoder (a defect, as there)", () => {
    const Throwing = Schema.Struct({
      n: Schema.String.pipe(Schema.decodeTo(Schema.Number, {
        decode: SchemaGetter.transform((s: string) => {
          if (s === "boom") throw new Error("boom")
          return s.length
        }),
        encode: SchemaGetter.transform((n: number) => "x".repeat(n))
      }))
    })
    agree(Throwing, { n: "abc" })
    const exit = decodeUnknownExit(Throwing)({ n: "boom" })
    assert.isTrue(Exit.isFailure(exit))
    agree(Throwing, { n: "boom" })
  })
})

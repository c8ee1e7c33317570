/**
 * Options checked when a receiver or a store is made: a value that is not
 * what the option means (`NaN` from `Number(undefined)`, a string from the
 * environment, a fraction) throws an `InvalidArgument` naming it, as an
 * empty secret does, instead of a receiver that crashes, dies or has no limit.
 */
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { KeyValueStore } from "effect/persistence"
import { inspect } from "node:util"
import * as NodeAdapter from "../src/NodeAdapter.ts"
import * as Receiver from "../src/Receiver.ts"
import * as SeenEvents from "../src/SeenEvents.ts"
import * as WebAdapter from "../src/WebAdapter.ts"
import { secret } from "./samples.ts"

const thrown = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  return undefined
}

const assertInvalid = (error: unknown, field: string, label: string) => {
  assert.instanceOf(error, InvalidArgument, label)
  assert.strictEqual((error as InvalidArgument).field, field, label)
  assert.match((error as InvalidArgument).message, new RegExp(`^${field}: Expected `), label)
}

const badByteCounts: ReadonlyArray<unknown> = [1000 / 3, "1000", Number.NaN, Infinity, 0, -1, null, 2 ** 53]

describe("maxBodySize", () => {
  const handler = () => Effect.void
  const makers: ReadonlyArray<readonly [string, (maxBodySize: unknown) => unknown]> = [
    ["Receiver.make", (maxBodySize) => Receiver.make({ secret, handler, maxBodySize: maxBodySize as number })],
    ["Receiver.toHttpEffect", (maxBodySize) => Receiver.toHttpEffect({ secret, handler, maxBodySize: maxBodySize as number })],
    ["NodeAdapter.make", (maxBodySize) => NodeAdapter.make({ secret, handler, maxBodySize: maxBodySize as number })],
    ["WebAdapter.make", (maxBodySize) => WebAdapter.make({ secret, handler, maxBodySize: maxBodySize as number })]
  ]

  it("every make throws an InvalidArgument naming maxBodySize when it is not a positive whole number", () => {
    for (const [name, make] of makers) {
      for (const value of badByteCounts) assertInvalid(thrown(() => make(value)), "maxBodySize", `${name}(${inspect(value)})`)
    }
    assert.include((thrown(() => Receiver.make({ secret, handler, maxBodySize: Number.NaN })) as Error).message, "got NaN")
    assert.include((thrown(() => Receiver.make({ secret, handler, maxBodySize: "1000" as never })) as Error).message, "got \"1000\"")
  })

  it("a positive whole number, or none, is taken", () => {
    for (const [name, make] of makers) {
      for (const value of [1, 512, 10 * 1024 * 1024, undefined]) assert.isUndefined(thrown(() => make(value)), `${name}(${value})`)
    }
    assert.strictEqual(Receiver.make({ secret, handler }).maxBodySize, Receiver.defaultMaxBodySize)
    assert.strictEqual(Receiver.make({ secret, handler, maxBodySize: 512 }).maxBodySize, 512)
  })

  it.effect("readLimited with a limit that is not a positive whole number is an InvalidArgument naming limit", () =>
    Effect.gen(function*() {
      for (const limit of badByteCounts) {
        const error = yield* Effect.flip(Receiver.readLimited(Stream.make(new Uint8Array([123, 125])), limit as number))
        assertInvalid(error, "limit", inspect(limit))
      }
      const body = yield* Receiver.readLimited(Stream.make(new Uint8Array([123, 125])), 2)
      assert.deepStrictEqual([...body], [123, 125])
    }))
})

describe("SeenEvents options", () => {
  const memory = (options: unknown) => () => SeenEvents.makeMemory(options as SeenEvents.MemoryOptions)
  const kv = (options: unknown) => () => SeenEvents.makeKeyValueStore(options as SeenEvents.KeyValueStoreOptions)
  const layers = (options: unknown) => [
    () => SeenEvents.layerMemory(options as SeenEvents.MemoryOptions),
    () => SeenEvents.layerKeyValueStore(options as SeenEvents.KeyValueStoreOptions)
  ]

  it("maxEntries, ttl and inFlightTimeout that are not what they mean throw an InvalidArgument naming them", () => {
    for (const maxEntries of [Number.NaN, 0, 0.5, -3, Infinity, "100"]) {
      assertInvalid(thrown(memory({ maxEntries })), "maxEntries", `makeMemory maxEntries ${inspect(maxEntries)}`)
      assertInvalid(thrown(() => SeenEvents.layerMemory({ maxEntries: maxEntries as number })), "maxEntries", "layerMemory")
    }
    for (const ttl of [Number.NaN, 0, -1, Infinity, "soon", "0 seconds", null]) {
      for (const make of [memory({ ttl }), kv({ ttl }), ...layers({ ttl })]) assertInvalid(thrown(make), "ttl", `ttl ${inspect(ttl)}`)
    }
    for (const inFlightTimeout of [Number.NaN, 0, -1, Infinity, "soon"]) {
      for (const make of [kv({ inFlightTimeout }), layers({ inFlightTimeout })[1]!]) {
        assertInvalid(thrown(make), "inFlightTimeout", `inFlightTimeout ${inspect(inFlightTimeout)}`)
      }
    }
  })

  it("ttl and inFlightTimeout over 100 years throw an InvalidArgument naming them and the limit (a store's expiry stays exact)", () => {
    const tooLong: ReadonlyArray<unknown> = ["36501 days", Number.MAX_VALUE, 2 ** 53]
    for (const ttl of tooLong) {
      for (const make of [memory({ ttl }), kv({ ttl }), ...layers({ ttl })]) {
        const error = thrown(make)
        assertInvalid(error, "ttl", `ttl ${inspect(ttl)}`)
        assert.match((error as InvalidArgument).message, /^ttl: Expected a positive, finite duration of at most 36500d; got /)
      }
    }
    for (const inFlightTimeout of tooLong) {
      for (const make of [kv({ inFlightTimeout }), layers({ inFlightTimeout })[1]!]) {
        assertInvalid(thrown(make), "inFlightTimeout", `inFlightTimeout ${inspect(inFlightTimeout)}`)
      }
    }
  })

  it.effect("a KeyValueStore store with a ttl of 100 years recognises a duplicate", () =>
    Effect.gen(function*() {
      const store = yield* SeenEvents.makeKeyValueStore({ ttl: "36500 days", inFlightTimeout: "36500 days" })
      assert.strictEqual(yield* store.claim("evt_century"), "claimed")
      yield* store.complete("evt_century")
      assert.strictEqual(yield* store.claim("evt_century"), "duplicate")
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it("maxEntries: NaN is refused (it turned deduplication off); a fraction is rounded down (SeenEvents.test.ts)", () => {
    assert.instanceOf(thrown(memory({ maxEntries: Number.NaN })), InvalidArgument)
  })

  it.effect("valid options, as durations or their text, are taken", () =>
    Effect.gen(function*() {
      yield* SeenEvents.makeMemory({ ttl: 1000, maxEntries: 1 })
      yield* SeenEvents.makeMemory({ ttl: "1 hour" })
      yield* SeenEvents.makeKeyValueStore({ ttl: "2 hours", inFlightTimeout: "30 seconds" })
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))
})

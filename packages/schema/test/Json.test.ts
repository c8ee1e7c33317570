import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { fromJsonString, parse } from "../src/Json.ts"
import { seeded } from "./seed.ts"

// V8's `JSON.parse` reads an escaped key wrongly once a key holding a
// backslash was parsed at the same place (nodejs/node#63785).
const poison = (text: string) => JSON.parse(text)

describe("Json.parse", () => {
  it("keeps escaped keys after a backslash key was read at the same place", () => {
    poison(String.raw`{"\\":1}`)
    assert.deepStrictEqual(Object.keys(parse(String.raw`{"\u0000":1}`) as object), ["\u0000"])
    poison(String.raw`{"h":[],"\\":0}`)
    assert.deepStrictEqual(Object.keys(parse(String.raw`{"h":1,"\"":2}`) as object), ["h", "\""])
    poison(String.raw`{"a":{"\\":1}}`)
    assert.deepStrictEqual(parse(String.raw`{"a":{"\u0000" : [{"\n":true}]}}`), { a: { "\u0000": [{ "\n": true }] } })
  })

  it("gives what JSON.parse gives: key order, repeated keys, an own __proto__, escaped values", () => {
    for (
      const text of [
        String.raw`{"b":1,"\u0031":2,"a":3}`,
        String.raw`{"\u0061":1,"b":2,"a":3}`,
        String.raw`{"\u005f_proto__":{"x":1},"y":"\\"}`,
        String.raw`{"k":"\"\\:\u0000","\t":"v:"," \\ ":[1,"\\",{"\\\"":null}]}`,
        String.raw`["\\",{"\b":1}]`,
        String.raw`"\\"`,
        "{\"\uf8ff0\":1,\"\\u0000\":2}"
      ]
    ) {
      const value = parse(text)
      assert.strictEqual(JSON.stringify(value), JSON.stringify(JSON.parse(text)), text)
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        assert.strictEqual(Object.getPrototypeOf(value), Object.prototype, text)
      }
    }
    assert.isTrue(Object.hasOwn(parse(String.raw`{"\u005f_proto__":1}`) as object, "__proto__"))
  })

  it("reads a text with long runs of the marker character in one pass (no quadratic search)", () => {
    // 2 MB of U+F8FF (the character the escaped-key markers are made of) in a value and in a key
    const run = "\uf8ff".repeat(1_000_000)
    const text = `{"\\u0000":"${run}","${run}x":1,"\\n":[{"\\t":2}]}`
    const value = parse(text) as Record<string, unknown>
    assert.deepStrictEqual(Object.keys(value), ["\u0000", `${run}x`, "\n"])
    assert.strictEqual(value["\u0000"], run)
    assert.deepStrictEqual(value["\n"], [{ "\t": 2 }])
  })

  it("reads a text with an open string full of escaped quotes in one pass (no quadratic search)", () => {
    // 2 MB: a search from each `"` to the end of the text would take hours
    for (const tail of ["", "\\", "\"", "x"]) {
      const text = `{"\\n":1,"a":"${"\\\"".repeat(1_000_000)}${tail}`
      assert.throws(() => parse(text), SyntaxError)
    }
  })

  it("keeps JSON.parse's last value of a repeated key whatever its spellings, and its place of array-index keys", () => {
    assert.deepStrictEqual(parse(String.raw`{"a":1,"\u0061":2,"a":3}`), { a: 3 })
    assert.deepStrictEqual(parse(String.raw`{"\u0031":1,"1":2}`), { 1: 2 })
    assert.deepStrictEqual(Object.keys(parse(String.raw`{"b":1,"\u0032":2,"a":3,"0":4}`) as object), ["0", "2", "b", "a"])
    // a control character in a plain key is not JSON, beside an escaped key too
    assert.throws(() => parse("{\"\\n\":1,\"a\u0001\":2}"), SyntaxError)
  })

  it("reads many escaped keys beside a long run of the marker character in one pass (no key compared at its length)", () => {
    // each key rewritten to a marker as long as the run took quadratic time (30,000 × 5,000)
    const text = `{"v":"${"\uf8ff".repeat(30_000)}",` + Array.from({ length: 5_000 }, (_, i) => String.raw`"\n${i}":${i}`).join(",") + "}"
    const value = parse(text) as Record<string, unknown>
    assert.strictEqual(Object.keys(value).length, 5_001)
    assert.strictEqual(value["\n4999"], 4999)
  })

  it("keeps escaped keys at any depth JSON.parse reads (no recursion to overflow and fall back to JSON.parse)", () => {
    const depth = 20_000
    const text = "[".repeat(depth) + String.raw`{"h":1,"\u0000":{"\n":[2]}}` + "]".repeat(depth)
    // what sets V8's misreading up (nodejs/node#63785): a backslash key at the same place of the same shape
    JSON.parse(String.raw`{"h":[],"\\":0}`)
    let value = parse(text) as unknown
    for (let d = 0; d < depth; d++) value = (value as ReadonlyArray<unknown>)[0]
    assert.deepStrictEqual(value, { h: 1, "\u0000": { "\n": [2] } })
    assert.deepStrictEqual(Object.keys(value as object), ["h", "\u0000"])
  })

  it("reads escaped keys beside a string of millions of characters (no regular expression to overflow the stack)", () => {
    // what sets V8's misreading up (nodejs/node#63785)
    JSON.parse(String.raw`{"h":"x","\\":0}`)
    const text = `{"h":"${"x".repeat(9_000_000)}",` + String.raw`"\u0000":1}`
    const value = parse(text) as Record<string, unknown>
    assert.deepStrictEqual(Object.keys(value), ["h", "\u0000"])
    assert.strictEqual((value["h"] as string).length, 9_000_000)
  })

  it("reads many keys and one backslash at the end in one pass (each key's backslash looked for within it)", () => {
    const text = "{" + Array.from({ length: 200_000 }, (_, i) => `"k${i}":${i}`).join(",") + String.raw`,"\n":"\n"}`
    const value = parse(text) as Record<string, unknown>
    assert.strictEqual(Object.keys(value).length, 200_001)
    assert.strictEqual(value["\n"], "\n")
  })

  it("throws JSON.parse's own error for a text that is not JSON", () => {
    for (const text of [String.raw`{"\x":1}`, String.raw`{"\u00":1}`, String.raw`{"\n" 1}`, "{\"a\\\n\":1}", String.raw`{"\\":1`, String.raw`{"\n":"\"`, "{\"\\n\":1,\"\\", ""]) {
      let expected: unknown
      try {
        JSON.parse(text)
      } catch (error) {
        expected = error
      }
      assert.throws(() => parse(text), (expected as Error).message)
    }
  })

  it.prop("reads JSON text of any value to the value", { value: Schema.Json }, ({ value }) => {
    const text = JSON.stringify(value)
    assert.strictEqual(JSON.stringify(parse(text)), text)
  }, { arbitrary: seeded({ runs: 200 }) })
})

describe("Json.fromJsonString", () => {
  const Body = fromJsonString(Schema.Record(Schema.String, Schema.Number))

  it("decodes escaped keys as sent, encodes with JSON.stringify, fails on text that is not JSON", () => {
    poison(String.raw`{"\\":1}`)
    assert.deepStrictEqual(Object.keys(Schema.decodeUnknownSync(Body)(String.raw`{"\u0000":1}`)), ["\u0000"])
    assert.strictEqual(Schema.encodeSync(Body)({ "\n": 1 }), String.raw`{"\n":1}`)
    const failure = Schema.decodeUnknownExit(Body)("{")
    assert.isTrue(failure._tag === "Failure")
    assert.include(String(failure), "a valid JSON string")
  })
})

import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { parse } from "../src/Json.ts"
import { responses } from "./samples.ts"
import { seeded } from "./seed.ts"

// Every top-level response schema: a value generated from the schema encodes to
// JSON, survives JSON text, decodes back, and encodes to the same JSON again.
describe("round trip of generated values", () => {
  for (const [name, schema] of Object.entries(responses)) {
    const codec = schema as unknown as Schema.Codec<unknown, unknown>
    const encode = Schema.encodeSync(codec)
    const decode = Schema.decodeUnknownSync(codec)
    it.prop(`${name}`, { value: schema as Schema.Codec<unknown, unknown> }, ({ value }) => {
      // JSON text is the wire: it is what must survive (it has no -0, for one;
      // key order is not significant), read as the SDK reads it.
      const json = parse(JSON.stringify(encode(value)))
      assert.deepStrictEqual(parse(JSON.stringify(encode(decode(json)))), json)
    }, { timeout: 20_000, arbitrary: seeded({ runs: 100 }) })
  }
})

/**
 * The differential check of the transport's body decoder: it gives what
 * Effect's decoder gives.
 */
import { assert } from "@effect/vitest"
import { DateTime, Exit, Schema } from "effect"
import { decodeUnknownExit } from "../src/internal/decoder.ts"

/**
 * A value as nested `[key, value]` lists, so that key order counts and a
 * `DateTime` compares by its instant.
 */
const ordered = (value: unknown): unknown => {
  if (DateTime.isDateTime(value)) return `DateTime(${DateTime.toEpochMillis(value)})`
  if (Array.isArray(value)) return value.map(ordered)
  if (typeof value === "object" && value !== null) {
    return [Object.getPrototypeOf(value) === Object.prototype, Object.keys(value).map((key) => [key, ordered((value as Record<string, unknown>)[key])])]
  }
  return value
}

/** Both decoders give the same exit: the same value, keys in the same order, or the same failure. */
export const agree = (schema: Schema.Top, input: unknown) => {
  const expected = Schema.decodeUnknownExit(schema as Schema.Codec<unknown, unknown>)(input)
  const actual = decodeUnknownExit(schema)(input)
  assert.strictEqual(actual._tag, expected._tag, `${JSON.stringify(input)}: ${String(expected)} vs ${String(actual)}`)
  if (Exit.isSuccess(expected) && Exit.isSuccess(actual)) {
    assert.deepStrictEqual(ordered(actual.value), ordered(expected.value))
  } else {
    assert.strictEqual(String(actual), String(expected))
  }
}

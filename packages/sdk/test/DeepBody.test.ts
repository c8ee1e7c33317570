/**
 * A signal `body` is free-form JSON nested at any depth: the Promise client's
 * `DateTime`-to-`Date` walk has no depth limit of the call stack. (The same
 * over loopback, through the client: `tests/integration/sdk/DeepBody.test.ts`.)
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import { plain } from "../src/internal/plain.ts"

/** `[[[ … [value] … ]]]`, `levels` arrays around `value`. */
const nest = (levels: number, value: unknown): unknown => {
  let out: unknown = value
  for (let i = 0; i < levels; i++) out = [out]
  return out
}

/** The arrays around the innermost value, and that value (walked without recursion). */
const unnest = (u: unknown): [number, unknown] => {
  let levels = 0
  while (Array.isArray(u)) {
    assert.strictEqual(u.length, 1)
    u = u[0]
    levels++
  }
  return [levels, u]
}

describe("deeply nested answers", () => {
  it("the conversion reaches a DateTime at any depth, and copies only the way to it", () => {
    const at = DateTime.makeUnsafe("2026-01-02T03:04:05Z")
    const untouched = { a: [1, 2] }
    const value = { untouched, deep: nest(20_000, { at }) }
    const converted = plain(value) as unknown as { untouched: unknown; deep: unknown }
    assert.strictEqual(converted.untouched, untouched)
    const [levels, inner] = unnest(converted.deep)
    assert.strictEqual(levels, 20_000)
    assert.instanceOf((inner as { at: unknown }).at, Date)
    assert.strictEqual(((inner as { at: Date }).at).toISOString(), "2026-01-02T03:04:05.000Z")
    // the input is not changed
    assert.isTrue(DateTime.isDateTime((unnest(value.deep)[1] as { at: unknown }).at))
    // a deep value without a DateTime is the value itself
    const noDates = nest(10_000, { n: 1 })
    assert.strictEqual(plain(noDates), noDates)
  })
})

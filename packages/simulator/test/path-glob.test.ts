/**
 * The `pathPattern` globs of `POST /_simulator/faults`: the paths they match
 * (against a regular expression, on seeded random globs and paths), and the
 * work a request does against many long pending globs.
 */
import { assert, describe, it } from "@effect/vitest"
import { prng } from "../src/Data.ts"
import { FaultQueue } from "../src/internal/faultQueue.ts"
import { globMatches, pathGlob, type PathGlob } from "../src/internal/pathGlob.ts"

const glob = (pattern: string): PathGlob => {
  const parsed = pathGlob(pattern)
  if (typeof parsed === "string") throw new Error(parsed)
  return parsed
}

/** What a glob means, as a regular expression (fine on the short strings of the property). */
const reference = (pattern: string): RegExp =>
  new RegExp(`^${pattern.replace(/\*\*+|\*/g, (stars) => stars.length > 1 ? "\u0000" : "\u0001")
    .replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\u0000/g, ".*").replace(/\u0001/g, "[^/]*")}$`)

const timed = (run: () => void): number => {
  const start = performance.now()
  run()
  return performance.now() - start
}

describe("pathPattern globs", () => {
  it("match as their regular expression does (seeded random globs and paths)", () => {
    const seed = Date.now() % 1_000_000
    console.log(`path glob property seed: ${seed}`)
    const random = prng(seed)
    const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!
    let checked = 0
    for (let n = 0; n < 20_000; n++) {
      let pattern = "/"
      for (let i = Math.floor(random() * 8); i > 0; i--) pattern += pick(["a", "b", "/", "*", "**", "ab", ".", "*a*"])
      const parsed = pathGlob(pattern)
      if (typeof parsed === "string") continue
      const expected = reference(parsed.source)
      for (let m = 0; m < 5; m++) {
        let path = "/"
        for (let i = Math.floor(random() * 10); i > 0; i--) path += pick(["a", "b", "/", "."])
        assert.strictEqual(globMatches(parsed, path), expected.test(path), `seed ${seed}: ${pattern} on ${path}`)
        checked++
      }
    }
    assert.isAbove(checked, 10_000)
  })

  it("match the whole path, * within a segment, ** across them", () => {
    const cases: ReadonlyArray<readonly [string, string, boolean]> = [
      ["/v3/vehicles/*/odometer", "/v3/vehicles/abc/odometer", true],
      ["/v3/vehicles/*/odometer", "/v3/vehicles/a/b/odometer", false],
      ["/v3/**", "/v3/webhooks", true],
      ["/v3/**", "/v3", false],
      ["/**/odometer", "/v3/vehicles/x/odometer", true],
      ["/**/odometer", "/odometer", false],
      ["/**odometer", "/odometer", true],
      ["/a**b**c", "/abc", true],
      ["/a**b**c", "/acb", false],
      ["/a*b**b*c", "/ab/bc", true],
      ["/a*b**b*c", "/abc", false],
      ["/v2.*", "/v2.json", true],
      ["/v2.*", "/v2", false],
      ["/files/*.*", "/files/a.txt", true],
      ["/files/*.*", "/files/a/b.txt", false],
      ["/", "/", true],
      ["/*", "/", true],
      ["/**", "/", true],
      ["/a\u0000*", "/a\u0000b", true],
      ["/a\u0000*", "/ab", false],
      ["/100%", "/100%", true]
    ]
    for (const [pattern, path, expected] of cases) assert.strictEqual(globMatches(glob(pattern), path), expected, `${pattern} on ${path}`)
  })

  it("a request against 24,000 pending globs and a 16 KB path is quick", () => {
    const long = "/a".repeat(8_000)
    const queue = new FaultQueue(1_000)
    const fault = { _tag: "Status", status: 502 } as const
    // the same glob many times, distinct globs, long globs of many stars
    for (let i = 0; i < 10_000; i++) queue.inject(glob("/**/odometer"), undefined, [{ fault, times: 1 }], Infinity)
    for (let i = 0; i < 10_000; i++) queue.inject(glob(`/**/odometer${i}`), undefined, [{ fault, times: 1 }], Infinity)
    for (let i = 0; i < 1_000; i++) queue.inject(glob(`/a/**/x${i}/**/a`), undefined, [{ fault, times: 1 }], Infinity)
    for (let i = 0; i < 1_000; i++) queue.inject(glob(`/${"**a".repeat(83)}**b${i}`), undefined, [{ fault, times: 1 }], Infinity)
    for (let i = 0; i < 1_000; i++) queue.inject(glob(`/${"*a".repeat(126)}${i}`), undefined, [{ fault, times: 1 }], Infinity)
    for (let i = 0; i < 1_000; i++) queue.inject(glob(`/${"a*/".repeat(80)}**c${i}`), undefined, [{ fault, times: 1 }], Infinity)
    let missed = 0
    const millis = timed(() => {
      for (const path of [long, `/${"a".repeat(16_000)}`]) if (queue.next("GET", path) === undefined) missed++
    })
    assert.strictEqual(missed, 2)
    // some 50 ms on an idle machine (560 ms on a loaded one); some 50 s when every glob stepped through every character
    assert.isBelow(millis, 5_000)
    // and the rules still match what they should
    assert.deepStrictEqual(queue.next("GET", `/${"ab".repeat(5_000)}b7`), fault)
    assert.deepStrictEqual(queue.next("GET", "/v3/vehicles/x/odometer"), fault)
  })
})

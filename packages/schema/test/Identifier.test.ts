import { assert, describe, it } from "@effect/vitest"
import { Exit, Schema } from "effect"
import { Identifier, isIdentifier } from "../src/InvalidArgument.ts"
import { seeded } from "./seed.ts"

// The rule as regular expressions, in its order: the reference the one-pass
// check of `InvalidArgument.ts` must agree with.
// eslint-disable-next-line no-control-regex
const control = /[\u0000-\u001f\u007f]/
const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const reference = (s: string): string | undefined =>
  s.length === 0
    ? "non-empty"
    : control.test(s)
    ? "control characters"
    : s.includes("/")
    ? "\"/\""
    : lone.test(s)
    ? "lone surrogate"
    : s === "." || s === ".."
    ? "\".\" and \"..\""
    : undefined

const decode = Schema.decodeUnknownExit(Identifier)

const agree = (s: string) => {
  const expected = reference(s)
  assert.strictEqual(isIdentifier(s), expected === undefined, JSON.stringify(s))
  const exit = decode(s)
  if (expected === undefined) assert.isTrue(Exit.isSuccess(exit), JSON.stringify(s))
  else assert.isTrue(Exit.isFailure(exit) && String(exit.cause).includes(expected), `${JSON.stringify(s)}: ${String(exit)}`)
}

const Piece = Schema.Literals([
  "a", "veh_1", "-", ".", "..", "/", "\u0000", "\u001f", "\u007f", "\t", " ", "\u0080", "\u00e9", "\ud83d", "\ude00", "\ud83d\ude00",
  "\udbff", "\udc00", "\udfff", "\ud800", "%2F", "~"
])

describe("Identifier", () => {
  it("refuses what the rule refuses, with the first issue of the rule", () => {
    for (
      const s of ["", ".", "..", "...", "a/b", "/", "a\u0000", "a\nb\u007f", "\ud83d", "a\ude00b", "\ud83d\ude00", "\ude00\ud83d", "\u0000/", "/\ud800", "veh_1"]
    ) agree(s)
  })

  it.prop(
    "agrees with the rule written as regular expressions, on generated strings",
    { pieces: Schema.Array(Piece).check(Schema.isMaxLength(6)) },
    ({ pieces }) => agree(pieces.join("")),
    { arbitrary: seeded({ runs: 3_000 }) }
  )
})

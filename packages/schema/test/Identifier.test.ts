import { assert, describe, it } from "@effect/vitest"
import { Exit, Schema } from "effect"
import { HeaderIdentifier, headerValueIssue, Identifier, isHeaderIdentifier, isIdentifier } from "../src/InvalidArgument.ts"
import { seeded } from "./seed.ts"

// The rule as regular expressions, in its order: the reference the one-pass
// check of `InvalidArgument.ts` must agree with.
// eslint-disable-next-line no-control-regex
const control = /[\u0000-\u001f\u007f-\u009f]/
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
  "a", "veh_1", "-", ".", "..", "/", "\u0000", "\u001f", "\u007f", "\t", " ", "\u0080", "\u0085", "\u009b", "\u009f", "\u00a0", "\u00e9", "\ud83d", "\ude00", "\ud83d\ude00",
  "\udbff", "\udc00", "\udfff", "\ud800", "%2F", "~"
])

describe("Identifier", () => {
  it("refuses what the rule refuses, with the first issue of the rule", () => {
    for (
      const s of ["", ".", "..", "...", "a/b", "/", "a\u0000", "a\nb\u007f", "\u009b31m", "a\u0085b", "\u00a0", "\ud83d", "a\ude00b", "\ud83d\ude00", "\ude00\ud83d", "\u0000/", "/\ud800", "veh_1"]
    ) agree(s)
  })

  it.prop(
    "agrees with the rule written as regular expressions, on generated strings",
    { pieces: Schema.Array(Piece).check(Schema.isMaxLength(6)) },
    ({ pieces }) => agree(pieces.join("")),
    { arbitrary: seeded({ runs: 3_000 }) }
  )
})

describe("HeaderIdentifier: an identifier a header carries as it is", () => {
  const decodeHeader = Schema.decodeUnknownExit(HeaderIdentifier)
  const refused = (s: string, expected: string) => {
    assert.isFalse(isHeaderIdentifier(s), JSON.stringify(s))
    const exit = decodeHeader(s)
    assert.isTrue(Exit.isFailure(exit) && String(exit.cause).includes(expected), `${JSON.stringify(s)}: ${String(exit)}`)
  }

  it("refuses a blank value, a leading or trailing space, a comma and what is outside printable ASCII; keeps the Identifier rule", () => {
    for (const s of ["  u1  ", " ", "u1 ", " u1", "   "]) refused(s, "leading or trailing spaces")
    for (const s of ["u1, u2", ",", "u1,"]) refused(s, "\",\"")
    for (const s of ["\u00e9", "u\u00ff", "u\u00a0", "u\u2713", "\ud83d\ude00"]) refused(s, "printable ASCII")
    // the Identifier rule first
    refused("", "non-empty")
    refused("a/b", "\"/\"")
    refused("u\t1", "control characters")
  })

  it("accepts what an id looks like, an inner space and every other printable ASCII character", () => {
    for (const s of ["usr_1", "a b", "3f2a-99:x@example.com", "u!#$%&'()*+-.:;<=>?@[\\]^_`{|}~\"1"]) {
      assert.isTrue(isHeaderIdentifier(s), s)
      assert.isTrue(Exit.isSuccess(decodeHeader(s)), s)
    }
  })
})

describe("headerValueIssue", () => {
  it("a header value: a tab, U+0020-U+007E and U+0080-U+00FF; exact: also not empty, no leading or trailing space or tab", () => {
    for (const s of ["sdk/1.0", "caf\u00e9\tx", " padded ", ""]) assert.isUndefined(headerValueIssue(s), JSON.stringify(s))
    for (const s of ["sdk\u2713", "a\r\nx-evil: 1", "a\u0000", "a\u007f", "\u0100"]) assert.isDefined(headerValueIssue(s), JSON.stringify(s))
    for (const s of ["", " tok", "tok ", "\ttok", "tok\t", "tok\u2713"]) assert.isDefined(headerValueIssue(s, true), JSON.stringify(s))
    assert.isUndefined(headerValueIssue("to k\u00e9", true))
  })
})

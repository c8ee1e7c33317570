/**
 * The normal form's forward scans (`src/internal/normalize.ts`) against the
 * naive reference written apart from them (`scrubReference.ts`): the same
 * text, each character traced to the same part of the original, for random
 * texts of escapes (percent and JSON), entities and their pieces (the seed printed, replayed
 * with `FC_SEED`), texts longer than a scan's chunk with lone surrogates
 * across it, and texts of millions of escapes.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { normalize, normalizeTraced } from "../src/internal/normalize.ts"
import { referenceNormalize } from "./scrubReference.ts"
import { seeded } from "./seed.ts"

/** `text`'s normal form and tracing agree with the reference's. */
const agree = (text: string) => {
  const reference = referenceNormalize(text)
  const expected = reference.map((unit) => unit.c).join("")
  assert.strictEqual(normalize(text), expected, JSON.stringify(text))
  const traced = normalizeTraced(text)
  assert.strictEqual(traced.text, expected, JSON.stringify(text))
  assert.deepStrictEqual(Array.from(traced.from), reference.map((unit) => unit.lo), `from of ${JSON.stringify(text)}`)
  assert.deepStrictEqual(Array.from(traced.to), reference.map((unit) => unit.hi), `to of ${JSON.stringify(text)}`)
}

/** Escapes, entities, their pieces, and what completes them or stops them. */
const Piece = Schema.Literals([
  "&", "#", "x", "X", ";", "&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#", "&#x", "&#X", "amp;", "lt;", "1", "0", "9", "41", "3b", "7f",
  "10ffff", "110000", "1114111", "1114112", "12345678", "F", "a", "%", "%2", "%25", "%26", "%23", "%3B", "%41", "%c3", "%a9", "%C3%A9",
  "%e2%82%ac", "%f0%9f%98%80", "%ed%a0%80", "%c0%80", "%e0%80%80", "%f4%90%80%80", "%80", "%ff", "%5C", "%2F", "%2B", "&#43;", "&#92;",
  "&#x26;", "&#38;", "&#37;", "\\", "/", "\\/", "+", " ", "\u00e9", "\ud83d", "\ude00", "\ud83d\ude00", "\u0000",
  // JSON escapes, their pieces, escaped again or spelled otherwise
  "\\u", "u", "\\u0073", "\\U0073", "\\u00", "\\u002F", "\\u005c", "\\u005C", "\\u0025", "\\u0026", "\\ud83d", "\\uDE00", "\\u00e9",
  "\\\\", "\\\\u0073", "%5Cu0073", "&#92;u0073", "\\u0026#65;", "\\x73", "0073", "feff",
  // a byte-order mark, written and escaped, where a scan's output starts a chunk (after a long kept run)
  "\ufeff", "&#xFEFF;", "&#65279;", "%EF%BB%BF", "x".repeat(32)
])

describe("normalize", () => {
  it.prop(
    "the scans give the reference's normal form and tracing, on texts of escapes, entities and their pieces",
    { pieces: Schema.Array(Piece).check(Schema.isMaxLength(24)) },
    ({ pieces }) => agree(pieces.join("")),
    { arbitrary: seeded({ runs: 3_000 }) }
  )

  it.prop(
    "the same on pieces mixed with any text",
    { pieces: Schema.Array(Schema.Union([Piece, Schema.String])).check(Schema.isMaxLength(12)) },
    ({ pieces }) => agree(pieces.join("")),
    { arbitrary: seeded({ runs: 1_000 }) }
  )

  it("texts longer than a scan's chunk: lone surrogates and pairs across its edges are kept as they are", () => {
    for (const filler of ["a", "&#65;", "%41", "&#xd83d;", "%f0%9f%98%80"]) {
      for (const at of [4_094, 4_095, 4_096, 8_191]) {
        const text = `${filler.repeat(at)}\ud83d${filler}\ude00&#x1F600;\ud83d\ude00%2B${filler.repeat(50)}\ud83d`
        agree(text)
      }
    }
  })

  it("a byte-order mark at the start of a scan's output or chunk is kept (a UTF-16 decoder would drop it, and the tracing after it would shift)", () => {
    for (const mark of ["\ufeff", "&#xFEFF;", "%EF%BB%BF"]) {
      agree(`${mark}abc`)
      agree(`${"x".repeat(32)}${mark}`.repeat(10) + "tok_ABCDEFGHIJ")
    }
  })

  it("JSON escapes: `\\uXXXX` (either case of hex digits, a lone surrogate kept) and `\\\\`, one level a round; not `\\xXX` nor `\\U`", () => {
    assert.strictEqual(normalize("tokAPP\\u0073ecret7781"), "tokAPPsecret7781")
    assert.strictEqual(normalize("tokAPP\\\\u0073ecret7781"), "tokAPPsecret7781")
    assert.strictEqual(normalize("a\\u00E9\\ud83d\\ude00\\ud83d"), "a\u00e9\ud83d\ude00\ud83d")
    assert.strictEqual(normalize("%5Cu0073&#92;u0074"), "st")
    assert.strictEqual(normalize("\\x73 \\U0073 \\u007 \\u"), "\\x73 \\U0073 \\u007 \\u")
    agree("x\\\\\\u0041\\\\\\\\u0042\\u005c\\u005c\\u0075\\u0030\\u0030\\u0034\\u0031")
  })

  it("a text of millions of escapes is read whole (a forward scan: nothing built for each escape)", () => {
    const entities = "&#x25;".repeat(2_790_000)
    assert.strictEqual(normalize(entities), "%".repeat(2_790_000))
    assert.strictEqual(normalize("%2541".repeat(300_000)), "A".repeat(300_000))
    assert.strictEqual(normalize("&amp;#x41;+\\/".repeat(300_000)), "A /".repeat(300_000))
    assert.strictEqual(normalize("\\\\u0041".repeat(300_000)), "A".repeat(300_000))
    // a backslash escaped once a round, three rounds at most
    assert.strictEqual(normalize("\\".repeat(1_000_001)), "\\".repeat(125_001))
  })
})

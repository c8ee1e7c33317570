/**
 * The one rule of every reason's message (`boundedMessage`): escaped, cut
 * where a character ends, at most the limit with what is cut said included,
 * and the same when given again (property tests, the seed printed, replayed
 * with `FC_SEED`); `fromEnvelope` and `fromStatus` make their reasons'
 * messages by it while the fields keep the server's text.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { boundedMessage, escapeControls, MESSAGE_LIMIT } from "../src/Message.ts"
import { fromEnvelope, fromStatus } from "../src/ServiceReason.ts"
import { seeded } from "./seed.ts"

// eslint-disable-next-line no-control-regex
const active = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

/** Pieces of text a server may send: controls, bidi marks, surrogates (paired and lone), escapes written out, the suffix's ellipsis. */
const Piece = Schema.Literals([
  "a", "xyz", " ", "\u001b", "\u001b[31m", "\n", "\r", "\t", "\u0000", "\u007f", "\u009b", "\u202e", "\u2066", "\u2028", "\u061c",
  "\ud83d\ude00", "\ud83d", "\ude00", "\\", "\\u001b", "…", "… (3 more characters)", "\u00e9", "0123456789"
])

/** What `boundedMessage(text, limit)` must be: the checks of the rule. */
const obeys = (text: string, limit: number) => {
  const shown = boundedMessage(text, limit)
  const context = `${JSON.stringify(text)} at ${limit}`
  assert.isAtMost(shown.length, limit, context)
  assert.isFalse(active.test(shown), context)
  assert.strictEqual(boundedMessage(shown, limit), shown, `given again: ${context}`)
  if (shown === escapeControls(text)) return
  // cut: the escaped start of the text, then how many characters (UTF-16 units) are left out
  const cut = /… \((\d+) more characters?\)$/.exec(shown)
  const left = cut === null ? undefined : Number(cut[1])
  const start = cut === null ? shown.slice(0, -1) : shown.slice(0, cut.index)
  if (cut === null) assert.isTrue(shown === "" || shown.endsWith("…"), context)
  // a text ending with a suffix of an earlier cut: its N counted in, the suffix itself never shown
  const earlier = /… \((\d{1,15}) more characters?\)$/.exec(text)
  const end = earlier === null ? text.length : earlier.index
  const before = earlier === null ? 0 : Number(earlier[1])
  if (left !== undefined) assert.strictEqual(start, escapeControls(text.slice(0, end - (left - before))), context)
  // never inside a surrogate pair: the start does not end with the high half of a pair that the text completes
  const kept = text.slice(0, start.length === 0 ? 0 : end - ((left ?? before) - before))
  assert.isFalse(/[\ud800-\udbff]$/.test(kept) && /^[\udc00-\udfff]/.test(text.slice(kept.length)), context)
}

describe("boundedMessage", () => {
  it.prop(
    "at most the limit, no character a terminal acts on, the escaped start and what it leaves out, the same when given again",
    { pieces: Schema.Array(Piece).check(Schema.isMaxLength(40)), limit: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 120 })) },
    ({ limit, pieces }) => obeys(pieces.join(""), limit),
    { arbitrary: seeded({ runs: 5_000 }) }
  )

  it.prop(
    "the same on any text, repeated past the default limit",
    { text: Schema.String, times: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 3_000 })) },
    ({ text, times }) => obeys(text.repeat(times), MESSAGE_LIMIT),
    { arbitrary: seeded({ runs: 300 }) }
  )

  it("cuts before an escape or a surrogate pair that would cross the limit, the suffix counted in the limit", () => {
    assert.strictEqual(boundedMessage("abcdef", 6), "abcdef")
    const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    // "… (36 more characters)" is 22 characters: 8 are left for the text at 30
    assert.strictEqual(boundedMessage(alphabet, 30), "abcdefgh… (28 more characters)")
    assert.strictEqual(boundedMessage(alphabet, 36), alphabet)
    // `\u001b` is 6 characters once escaped: it is shown whole or not at all
    assert.strictEqual(boundedMessage(`ab\u001b${alphabet}`, 29), "ab… (37 more characters)")
    assert.strictEqual(boundedMessage(`ab\u001b${alphabet}`, 30), "ab\\u001b… (36 more characters)")
    assert.strictEqual(boundedMessage(`ab\n${alphabet}`, 25), "ab… (37 more characters)")
    assert.strictEqual(boundedMessage(`ab\n${alphabet}`, 26), "ab\\n… (36 more characters)")
    // a surrogate pair is shown whole or not at all; a lone surrogate is one character
    assert.strictEqual(boundedMessage(`ab\ud83d\ude00${alphabet}`, 25), "ab… (38 more characters)")
    assert.strictEqual(boundedMessage(`ab\ud83d\ude00${alphabet}`, 26), "ab\ud83d\ude00… (36 more characters)")
    assert.strictEqual(boundedMessage(`ab\ud83d${alphabet}`, 25), "ab\ud83d… (36 more characters)")
    // a limit too short for the suffix: `…` alone
    assert.strictEqual(boundedMessage(alphabet, 5), "abcd…")
    assert.strictEqual(boundedMessage(alphabet, 0), "")
    // the default limit, the whole result within it
    const long = boundedMessage("\u001b[31m" + "x".repeat(5_000_000))
    assert.isAtMost(long.length, MESSAGE_LIMIT)
    assert.isTrue(long.startsWith("\\u001b[31mxxx"))
    assert.match(long, /x… \(\d+ more characters\)$/)
    assert.strictEqual(boundedMessage(long), long)
  })
})

describe("a message cut before, put after a prefix and bounded again", () => {
  it("counts what the first cut left out too, and stays within the limit", () => {
    const inner = boundedMessage("x".repeat(5_000_000))
    const outer = boundedMessage(`The token request failed: ${inner}`)
    assert.isAtMost(outer.length, 2048)
    assert.isTrue(outer.startsWith("The token request failed: xxx"))
    const left = Number(/… \((\d+) more characters\)$/.exec(outer)![1])
    // the prefix's 26 characters shown in place of as many x's: the whole text's left-out count
    assert.strictEqual(left, 5_000_000 + 26 - (outer.length - `… (${left} more characters)`.length))
    assert.strictEqual(boundedMessage(outer), outer)
  })
})

describe("the messages fromEnvelope and fromStatus make", () => {
  const detail = "\u001b[31m" + "x".repeat(5_000_000)
  const envelope = { errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail }] } as const

  it("a 5 MB detail with an escape sequence: the message escaped and at most 2,048 characters, the detail kept", () => {
    const reason = fromEnvelope(envelope, { status: 404, method: "GET", url: "https://api.example.test/v3/webhooks/wh_1" })
    assert.strictEqual(reason._tag, "NotFound")
    assert.isAtMost(reason.message.length, MESSAGE_LIMIT)
    assert.isTrue(reason.message.startsWith("404 NOT_FOUND: \\u001b[31mxxx"))
    assert.notInclude(reason.message, "\u001b")
    assert.strictEqual(reason.message, boundedMessage(`404 NOT_FOUND: ${detail}`))
    assert.strictEqual(reason.detail, detail)
    // its stack starts with the message (what `Cause.pretty` prints)
    assert.isAtMost(reason.stack!.split("\n")[0]!.length, MESSAGE_LIMIT + "NotFound: ".length)
    assert.notInclude(reason.stack!, "\u001b")
  })

  it("a code with controls: escaped in the message, kept in the field", () => {
    const reason = fromEnvelope({ errors: [{ ...envelope.errors[0], code: "NOT\u202eFOUND", detail: "gone\r\n" }] }, { status: 404 })
    assert.strictEqual(reason.message, "404 NOT\\u202eFOUND: gone\\r\\n")
    assert.strictEqual(reason.code, "NOT\u202eFOUND")
  })

  it("fromStatus: the same rule", () => {
    const reason = fromStatus({ status: 502 }, "the body is \u001b[2J".repeat(1_000))
    assert.isAtMost(reason!.message.length, MESSAGE_LIMIT)
    assert.notInclude(reason!.message, "\u001b")
    assert.match(reason!.message, /^502 [A-Z_]+: /)
  })
})

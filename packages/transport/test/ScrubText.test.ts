/**
 * `scrubText` (a request id's scrub, on every response) and the scrubber
 * against a naive reference written apart from them (`scrubReference.ts`):
 * the same answer for secrets and texts with and without the characters of
 * escapes and encodings, the secrets in each spelling a server may write
 * them, overlapping secrets, and random texts made of their pieces.
 */
import { assert, describe, it } from "@effect/vitest"
import { scrubber, scrubText } from "../src/internal/redact.ts"
import { referenceScrub } from "./scrubReference.ts"

const secrets = [
  "tok_0123456789abcdef", "Bearer tok_0123456789abcdef", "rt-AbC.dEf~123", "a b c d e f", "ab cd e", "p%2Fss%2Fword", "%41%42%43%44%45",
  "x&amp;y-secret", "s3cr3t+value/==", "tok\\/slash-1", "quote\"d'secret", "<tag>secret", "caf\u00e9-secret", "emoji\ud83d\ude00-secret",
  // an escape a neighbour completes: ending in `%4` or `\\`, starting with a hex digit
  "s3cr3t-t0ken-value%4", "1abcdef-token-123456", "tok-secret\\", "Fabc-token%"
]

/** Text around a secret that completes an escape with its first or last characters. */
const neighbours = (spelled: string): Array<string> => [
  `echo: ${spelled}41`,
  `id=%4${spelled}`,
  `id=%${spelled}`,
  `${spelled}/x`,
  `&#${spelled};`,
  `%25${spelled}%2541`
]

/** Every other UTF-16 unit of `text` as a JSON `\uXXXX` escape. */
const unicodeEscaped = (text: string): string =>
  text.split("").map((c, i) => i % 2 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}` : c).join("")

const spellings = (secret: string): Array<string> => {
  const once = encodeURIComponent(secret)
  return [
    secret,
    once,
    once.replaceAll("%", "%25"),
    secret.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\"", "&quot;").replaceAll("'", "&#39;"),
    secret.replaceAll("/", "\\/"),
    secret.replaceAll(" ", "+"),
    secret.slice(0, -1),
    // JSON-escaped (a JSON text in a header), every other unit as `\uXXXX`, and that escaped again
    JSON.stringify(secret).slice(1, -1),
    unicodeEscaped(secret),
    unicodeEscaped(secret).replaceAll("\\", "\\\\")
  ]
}

const texts = (secret: string): Array<string> =>
  spellings(secret).flatMap((spelled) => [spelled, `req-${spelled}`, `echo ${spelled} end`, `${spelled}${spelled}`, ...neighbours(spelled)]).concat([
    "req-42-6", "3f2a9c1e-1111-4222-8333-444455556666", "short", "", "100%41 and %2B kept?", "a&b<c>d\"e'f+g\\/h", "tok_0123456789abcde"
  ])

describe("scrubText", () => {
  it("scrubText and the scrubber give what the reference gives, for one secret and two, in every spelling", () => {
    let compared = 0
    for (const secret of secrets) {
      for (const other of [undefined, ...secrets]) {
        const given = other === undefined ? [secret] : [secret, other]
        for (const text of texts(secret)) {
          const expected = referenceScrub(given, text)
          assert.strictEqual(scrubber(given).text(text), expected, `${JSON.stringify(given)} ${JSON.stringify(text)}`)
          assert.strictEqual(scrubText(given, text), expected, `scrubText ${JSON.stringify(given)} ${JSON.stringify(text)}`)
          compared++
        }
      }
    }
    assert.isAbove(compared, 5_000)
  }, 60_000)

  it("a secret next to an escape it completes (a `%X` or a `\\` before it or after it) is found as it is, and redacted", () => {
    assert.strictEqual(scrubText(["s3cr3t-t0ken-value%4"], "echo: s3cr3t-t0ken-value%41"), "echo: <redacted>1")
    assert.strictEqual(scrubText(["1abcdef-token-123456"], "id=%41abcdef-token-123456"), "id=%4<redacted>")
    assert.strictEqual(scrubText(["tok-secret\\"], "x tok-secret\\/y"), "x <redacted>/y")
    for (const secret of ["s3cr3t-t0ken-value%4", "1abcdef-token-123456", "tok-secret\\", "Fabc-token%"]) {
      for (const text of neighbours(secret)) {
        const scrubbed = scrubText([secret], text)
        assert.include(scrubbed, "<redacted>", `${secret} in ${text}`)
        assert.notInclude(scrubbed, secret, `${secret} in ${text}`)
      }
    }
  })

  it("a secret JSON-escaped (`\\uXXXX`, `\\\\`, `\\\"`), once or twice, in a request id or a string of a body is redacted", () => {
    const token = "tokAPPsecret7781"
    assert.strictEqual(scrubText([token], "tokAPP\\u0073ecret7781"), "<redacted>")
    assert.strictEqual(scrubText([token], "echo: Bearer tokAPP\\\\u0073ecret7781"), "echo: Bearer <redacted>")
    assert.strictEqual(scrubText([token], "req-\\u0074\\u006fkAPPsecret7781-1"), "req-<redacted>-1")
    const quoted = "quote\"d\\secret"
    assert.strictEqual(scrubText([quoted], JSON.stringify({ echo: quoted })), "{\"echo\":\"<redacted>\"}")
    assert.strictEqual(scrubText(["a&b<c>d-secret"], "x a\\u0026b\\u003cc\\u003ed-secret"), "x <redacted>")
  })

  it("a secret overlapping another one found as written is hidden whole, whichever spelling each has", () => {
    const pair = ["tok_0123456789abcdef", "abcdef/XYZ/SECRETPART"]
    assert.strictEqual(scrubber(pair).text("echo tok_0123456789abcdef%2fXYZ%2fSECRETPART end"), "echo <redacted> end")
    assert.strictEqual(scrubber(pair).text("echo tok_0123456789abcdef/XYZ/SECRETPART end"), "echo <redacted> end")
    assert.strictEqual(scrubber(pair).text("echo tok_0123456789abcdef\\/XYZ\\/SECRETPART end"), "echo <redacted> end")
    assert.strictEqual(scrubber(pair).text("echo tok_0123456789%61bcdef%2FXYZ/SECRETPART end"), "echo <redacted> end")
    assert.strictEqual(scrubber(pair).text("echo tok_0123456789abcdef%252fXYZ%252fSECRETPART end"), "echo <redacted> end")
    // the other way round: the second secret as written, the first one only once normalized
    assert.strictEqual(scrubber(pair).text("echo tok%5f0123456789abcdef/XYZ/SECRETPART end"), "echo <redacted> end")
    // three in a chain, one of them completing an escape across its edge
    const chain = ["s3cr3t-t0ken-value%4", "value%41bc-2nd-secret", "secret&amp;3rd-one"]
    assert.strictEqual(scrubber(chain).text("[s3cr3t-t0ken-value%41bc-2nd-secret&amp;amp;3rd-one]"), "[<redacted>]")
    assert.strictEqual(scrubText(pair, "echo tok_0123456789abcdef%2fXYZ%2fSECRETPART end"), "echo <redacted> end")
  })

  it("a secret overlapping one found as written is hidden whatever the length of its spelling, or a multi-byte run around it", () => {
    const pair = ["tok_0123456789abcdef", "abcdef/XYZ/SECRETPART"]
    // each character a numeric entity, percent-encoded: 30 characters for one
    const wide = (c: string) => [...`&#x${c.charCodeAt(0).toString(16).padStart(6, "0")};`].map((x) => `%${x.charCodeAt(0).toString(16)}`).join("")
    const spelled = `echo tok_0123456789abcdef${[..."/XYZ/SECRETPART"].map(wide).join("")} end`
    assert.strictEqual(scrubber(pair).text(spelled), referenceScrub(pair, spelled))
    assert.notInclude(scrubber(pair).text(spelled), "SECRETPART")
    const accented = ["tok_abcdef0123", "abcdef0123SECRETPART\u00e9"]
    const run = `tok_abcdef0123SECRETPART%c3%a9%e2%82%ac${"%c3%a9".repeat(200)}`
    assert.notInclude(scrubber(accented).text(run), "SECRETPART")
    assert.strictEqual(scrubber(accented).text(run), referenceScrub(accented, run))
  })

  it("a text over 256 KiB that holds a secret as written is withheld whole (never a cut that could split another spelling)", () => {
    const pair = ["tok_0123456789abcdef", "abcdef/XYZ/SECRETPART"]
    assert.strictEqual(scrubber(pair).text(`${"a&amp;b%41c ".repeat(100_000)}echo tok_0123456789abcdef%2fXYZ%2fSECRETPART end`), "<redacted>")
    const token = "tok_0123456789abcdef"
    assert.strictEqual(scrubber([token]).text(`${`${token} `.repeat(60_000)}${"x".repeat(375)}tok_0123456789&#97;bcdef end`), "<redacted>")
    // a text with no secret as written is normalized and cut where its keys are, whatever its length
    const long = `${"x".repeat(2_000_000)} tok_0123456789&#97;bcdef end`
    assert.isTrue(scrubber([token]).text(long).endsWith(" <redacted> end"))
  })

  it("a text echoing a secret, the same spelled otherwise beside it: hidden under the budget, withheld whole past it", () => {
    const token = "tok_SECRETSECRETSECRET_0123456789abcdef"
    const odd = [...token].map((c, i) => i % 2 ? `%${c.charCodeAt(0).toString(16).toUpperCase()}` : c).join("")
    const secrets = [token, `Bearer ${token}`]
    const past = Array.from({ length: 900 }, () => token + "y".repeat(1_200)).join("") + token + "y".repeat(1_000) + odd + " end"
    assert.strictEqual(scrubber(secrets).text(past), "<redacted>")
    const within = Array.from({ length: 100 }, () => token + "y".repeat(1_200)).join("") + token + "y".repeat(1_000) + odd + " end"
    const out = scrubber(secrets).text(within)
    assert.notInclude(out, "SECRETSECRET")
    assert.notInclude(out, "0123456789abcdef")
    assert.isTrue(out.endsWith("<redacted> end"))
  })

  it("byte-order marks (escaped) before a secret, each at the start of a scan's chunk, shift nothing: the secret is hidden whole", () => {
    const secret = "tok_ABCDEFGHIJ"
    for (const mark of ["&#xFEFF;", "%EF%BB%BF", "\ufeff"]) {
      for (const k of [1, 5, 10]) {
        const value = `${"x".repeat(32)}${mark}`.repeat(k) + secret + " then &#116;ok_ABCDEFGHIJ"
        const scrubbed = scrubber([secret]).text(value)
        assert.notMatch(scrubbed, /[A-J]{2}/, `${mark} x${k}: ${scrubbed.slice(-60)}`)
        assert.strictEqual(scrubbed, referenceScrub([secret], value), `${mark} x${k}`)
      }
    }
  })

  it("random texts of the secrets' pieces and escapes: the scrubber gives what the reference gives", () => {
    // a deterministic generator: the same cases every run
    let seed = 0x5eed
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % n
    }
    const pieces = [
      "tok_", "0123456789", "abcdef", "/", "%2f", "%2F", "%252f", "XYZ", "SECRETPART", "%4", "1", "%", "41", "&amp;", "&#47;", "&",
      "\\", "\\/", "+", " ", "%20", "%E2%82%AC", "\u20ac", "%C3", "%ZZ", "&#x2F;", "ab cd", "e", "x",
      "\\u", "\\u0073", "\\u002f", "\\u005C", "\\\\", "\\\\u0041", "u00", "\\u00"
    ]
    const pool = [...secrets, "tok_0123456789abcdef", "abcdef/XYZ/SECRETPART", "ab cd e/x", "%2fXYZ%2", "\u20ac&amp;SECRET"]
    for (let n = 0; n < 3_000; n++) {
      const given = Array.from({ length: 1 + next(3) }, () => pool[next(pool.length)]!)
      let text = ""
      for (let k = 0, parts = 1 + next(10); k < parts; k++) {
        text += next(3) === 0 ? given[next(given.length)]! : pieces[next(pieces.length)]!
      }
      assert.strictEqual(scrubber(given).text(text), referenceScrub(given, text), `${JSON.stringify(given)} ${JSON.stringify(text)}`)
    }
  })
})

/**
 * `scrubText` (a request id's scrub, on every response) against the scrubber
 * it stands for: the same answer for secrets and texts with and without the
 * characters of escapes and encodings, the secrets in each spelling a server
 * may write them.
 */
import { assert, describe, it } from "@effect/vitest"
import { scrubber, scrubText } from "../src/internal/redact.ts"

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

const spellings = (secret: string): Array<string> => {
  const once = encodeURIComponent(secret)
  return [
    secret,
    once,
    once.replaceAll("%", "%25"),
    secret.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\"", "&quot;").replaceAll("'", "&#39;"),
    secret.replaceAll("/", "\\/"),
    secret.replaceAll(" ", "+"),
    secret.slice(0, -1)
  ]
}

const texts = (secret: string): Array<string> =>
  spellings(secret).flatMap((spelled) => [spelled, `req-${spelled}`, `echo ${spelled} end`, `${spelled}${spelled}`, ...neighbours(spelled)]).concat([
    "req-42-6", "3f2a9c1e-1111-4222-8333-444455556666", "short", "", "100%41 and %2B kept?", "a&b<c>d\"e'f+g\\/h", "tok_0123456789abcde"
  ])

describe("scrubText", () => {
  it("gives what scrubber(secrets).text gives, for one secret and two, in every spelling", () => {
    let compared = 0
    for (const secret of secrets) {
      for (const other of [undefined, ...secrets]) {
        const given = other === undefined ? [secret] : [secret, other]
        for (const text of texts(secret)) {
          assert.strictEqual(scrubText(given, text), scrubber(given).text(text), `${JSON.stringify(given)} ${JSON.stringify(text)}`)
          compared++
        }
      }
    }
    assert.isAbove(compared, 5_000)
  })

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
})

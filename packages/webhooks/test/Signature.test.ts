import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Result, Schema } from "effect"
import { createHmac } from "node:crypto"
import { inspect } from "node:util"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { challengeResponse, isValid, makeSecret, secretResult, secretsResult, sign, verify, verifyResult } from "../src/Signature.ts"
import { otherSecret, prettyEscaped, secret, secretText, vehicleStateEvent } from "./samples.ts"
import { seeded } from "./seed.ts"

const tagOf = (body: Uint8Array | string, header: string | null | undefined, key = secret) => {
  const result = verifyResult(body, header, key)
  return Result.isSuccess(result) ? "ok" : result.failure._tag
}

// Two strings are one HMAC key when their UTF-8 bytes are equal up to
// trailing zero bytes (short keys are padded).
const sameKey = (a: string, b: string) =>
  Buffer.from(a, "utf8").toString("hex").replace(/(00)+$/, "") === Buffer.from(b, "utf8").toString("hex").replace(/(00)+$/, "")

const WellFormed = Schema.NonEmptyString.check(Schema.makeFilter((s: string) => s.isWellFormed()))

describe("Signature", () => {
  const compact = JSON.stringify(vehicleStateEvent())
  const pretty = prettyEscaped(vehicleStateEvent())

  it("is the lowercase hex HMAC-SHA256 of the body bytes, keyed with the secret", () => {
    const expected = createHmac("sha256", secretText).update(Buffer.from(compact, "utf8")).digest("hex")
    assert.strictEqual(sign(compact, secret), expected)
    assert.strictEqual(sign(new TextEncoder().encode(compact), secret), expected)
    assert.match(expected, /^[0-9a-f]{64}$/)
  })

  it("challengeResponse matches a known HMAC-SHA256 vector", () => {
    assert.strictEqual(
      challengeResponse("The quick brown fox jumps over the lazy dog", Redacted.make("key")),
      "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"
    )
  })

  it.effect("the same event pretty-printed and with \\u00e9 escapes verifies over its raw bytes", () =>
    Effect.gen(function*() {
      assert.include(pretty, "Zo\\u00e9")
      assert.include(pretty, "\n  ")
      const bytes = new TextEncoder().encode(pretty)
      yield* verify(bytes, sign(bytes, secret), secret)
      yield* verify(pretty, sign(pretty, secret), secret)
      // a verifier that re-serialises the parsed body (JSON.stringify) hashes other bytes
      const reserialised = JSON.stringify(JSON.parse(pretty))
      assert.notStrictEqual(reserialised, pretty)
      assert.strictEqual(tagOf(reserialised, sign(pretty, secret)), "InvalidSignature")
    }))

  it("one flipped byte of the body is InvalidSignature", () => {
    const bytes = new TextEncoder().encode(compact)
    const signature = sign(bytes, secret)
    for (const index of [0, 17, bytes.length - 1]) {
      const flipped = Uint8Array.from(bytes)
      flipped[index] = flipped[index]! ^ 0x01
      assert.strictEqual(tagOf(flipped, signature), "InvalidSignature")
    }
  })

  it("one flipped hex digit of the signature is InvalidSignature", () => {
    const signature = sign(compact, secret)
    const flipped = (signature[0] === "0" ? "1" : "0") + signature.slice(1)
    assert.strictEqual(tagOf(compact, flipped), "InvalidSignature")
  })

  it("a truncated, uppercase, padded or garbage header is MalformedSignature", () => {
    const signature = sign(compact, secret)
    for (
      const header of [
        signature.slice(0, 63),
        signature.slice(0, 32),
        signature + "0",
        signature.toUpperCase(),
        ` ${signature}`,
        `sha256=${signature}`,
        "z".repeat(64),
        "not a signature"
      ]
    ) {
      assert.strictEqual(tagOf(compact, header), "MalformedSignature", header)
    }
  })

  it("a missing header is MissingSignature", () => {
    assert.strictEqual(tagOf(compact, undefined), "MissingSignature")
    assert.strictEqual(tagOf(compact, null), "MissingSignature")
    assert.strictEqual(tagOf(compact, ""), "MissingSignature")
  })

  it("a signature made with another secret is InvalidSignature", () => {
    assert.strictEqual(tagOf(compact, sign(compact, otherSecret)), "InvalidSignature")
    assert.isFalse(isValid(compact, sign(compact, otherSecret), secret))
    assert.isTrue(isValid(compact, sign(compact, secret), secret))
  })

  it.effect("verify fails with the typed error, never throws", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(verify(compact, "ABC", secret))
      assert.strictEqual(error._tag, "MalformedSignature")
      const untyped = yield* Effect.flip(verify(compact, 42 as unknown as string, secret))
      assert.strictEqual(untyped._tag, "MalformedSignature")
    }))

  it("no error shows the secret or the received header", () => {
    const signature = sign(compact, otherSecret)
    for (const header of [undefined, signature.toUpperCase(), signature]) {
      const result = verifyResult(compact, header, secret)
      assert.isTrue(Result.isFailure(result))
      if (Result.isFailure(result)) {
        const shown = [String(result.failure), result.failure.message, JSON.stringify(result.failure), inspect(result.failure)]
          .join("\n")
        assert.notInclude(shown, secretText)
        assert.notInclude(shown.toLowerCase(), signature)
      }
    }
    assert.notInclude(inspect(secret), secretText)
    assert.notInclude(JSON.stringify({ secret }), secretText)
  })

  it.prop(
    "any body and secret: the signature verifies; another secret or a flipped byte does not",
    {
      body: Schema.Uint8Array,
      text: Schema.String,
      // a secret with a lone surrogate is refused (it has no UTF-8 form)
      key: WellFormed,
      other: WellFormed,
      index: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 }))
    },
    ({ body, index, key, other, text }) => {
      const mine = Redacted.make(key)
      for (const message of [body, text]) {
        const signature = sign(message, mine)
        assert.isTrue(isValid(message, signature, mine))
        if (!sameKey(key, other)) assert.isFalse(isValid(message, signature, Redacted.make(other)))
      }
      if (body.length > 0) {
        const flipped = Uint8Array.from(body)
        const at = index % body.length
        flipped[at] = flipped[at]! ^ 0x80
        assert.strictEqual(tagOf(flipped, sign(body, mine), mine), "InvalidSignature")
      }
    },
    { timeout: 20_000, arbitrary: seeded({ runs: 200 }) }
  )
  it.effect("a plain-string secret (JavaScript callers) verifies as its Redacted form does; verify*/isValid never throw", () =>
    Effect.gen(function*() {
      const signature = sign(compact, secret)
      assert.strictEqual(sign(compact, secretText), signature)
      assert.strictEqual(challengeResponse("abc", secretText), challengeResponse("abc", secret))
      assert.isTrue(Result.isSuccess(verifyResult(compact, signature, secretText)))
      assert.isTrue(isValid(compact, signature, secretText))
      assert.isFalse(isValid(compact, signature, "another-secret"))
      yield* verify(compact, signature, secretText)
      assert.strictEqual(tagOf("{}", signature, "k" as never), "InvalidSignature")
      assert.strictEqual(tagOf("{}", "00", "k" as never), "MalformedSignature")
      // the string is kept only inside a Redacted
      const wrapped = makeSecret(secretText)
      assert.isTrue(Redacted.isRedacted(wrapped))
      assert.notInclude(inspect(wrapped), secretText)
      assert.notInclude(String(wrapped), secretText)
    }))

  it.effect("an empty, non-string or ill-formed (lone surrogate) secret, or a body that is not bytes, is a typed failure, never a throw or a defect", () =>
    Effect.gen(function*() {
      const signature = sign(compact, secret)
      const badSecrets: ReadonlyArray<unknown> = [
        "",
        Redacted.make(""),
        Redacted.make(undefined),
        undefined,
        null,
        42,
        { secret: secretText }
      ]
      for (const bad of badSecrets) {
        const key = bad as string
        const result = verifyResult(compact, signature, key)
        assert.isTrue(Result.isFailure(result))
        if (Result.isFailure(result)) {
          assert.strictEqual(result.failure._tag, "InvalidArgument")
          assert.strictEqual((result.failure as InvalidArgument).field, "secret")
          assert.match(result.failure.message, /^secret: Expected the webhook secret/)
          assert.notInclude(result.failure.message, secretText)
        }
        assert.isFalse(isValid(compact, signature, key))
        const failure = yield* Effect.flip(verify(compact, signature, key))
        assert.strictEqual(failure._tag, "InvalidArgument")
        assert.isTrue(Result.isFailure(secretResult(key)))
        assert.throws(() => makeSecret(key), InvalidArgument, /^secret: /)
        assert.throws(() => sign(compact, key), InvalidArgument, /^secret: /)
      }
      // a lone surrogate has no UTF-8 form: it would key the HMAC as U+FFFD, another secret
      for (const illFormed of ["\ud800abc-secret", Redacted.make("abc-secret\udfff"), ["fine-secret", "\udc00abc-secret"]] as const) {
        const result = secretsResult(illFormed)
        assert.isTrue(Result.isFailure(result), String(illFormed))
        if (Result.isFailure(result)) {
          assert.strictEqual(result.failure.field, "secret")
          assert.match(result.failure.message, /^secret(\[1\])?: .*not well-formed Unicode/)
          assert.notInclude(result.failure.message, "abc-secret")
        }
      }
      assert.throws(() => makeSecret("\ud800abc"), InvalidArgument, /^secret: .*not well-formed Unicode/)
      assert.throws(() => sign(compact, "\ud800abc"), InvalidArgument, /^secret: /)
      assert.isFalse(isValid(compact, sign(compact, "\ufffdabc"), "\ud800abc"))
      const wiped = Redacted.make(secretText)
      Redacted.wipeUnsafe(wiped)
      assert.strictEqual(tagOf(compact, signature, wiped), "InvalidArgument")
      for (const body of [JSON.parse(compact), undefined, null, 7]) {
        const result = verifyResult(body as string, signature, secret)
        assert.isTrue(Result.isFailure(result) && result.failure._tag === "UnsupportedBody")
        assert.isFalse(isValid(body as string, signature, secretText))
        assert.strictEqual((yield* Effect.flip(verify(body as string, signature, secret)))._tag, "UnsupportedBody")
      }
    }))
})

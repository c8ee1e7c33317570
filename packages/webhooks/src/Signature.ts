/**
 * Signing of deliveries: the `SC-Signature` header is the lowercase hex
 * HMAC-SHA256 of the raw request body bytes, keyed with the webhook secret
 * (the application's management token). Verification hashes the exact bytes
 * received (never a re-serialised object) and compares in constant time.
 *
 * This module depends on `node:crypto` and `effect` only, so a sender (the
 * simulator, a test) can sign with the same code the receiver verifies with.
 *
 * @since 0.1.0
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { Effect, Redacted, Result, Schema } from "effect"

/**
 * The header carrying the signature (HTTP header names are case-insensitive;
 * Node and the Fetch API give them in lowercase).
 *
 * @since 0.1.0
 */
export const SignatureHeader = "sc-signature"

/**
 * The request has no `SC-Signature` header (or an empty one).
 *
 * @example
 * ```ts
 * import type { MissingSignature } from "@connected-vehicle/webhooks/Signature"
 *
 * const status = (_: MissingSignature) => 401
 * ```
 * @since 0.1.0
 */
export class MissingSignature extends Schema.TaggedError<MissingSignature>()("MissingSignature", {}) {
  override get message() {
    return "The request has no SC-Signature header"
  }
}

/**
 * The `SC-Signature` header is not 64 lowercase hexadecimal characters (an
 * uppercase, truncated or garbage value). The header's value is not kept.
 *
 * @example
 * ```ts
 * import type { MalformedSignature } from "@connected-vehicle/webhooks/Signature"
 *
 * const explain = (e: MalformedSignature) => e.message
 * ```
 * @since 0.1.0
 */
export class MalformedSignature extends Schema.TaggedError<MalformedSignature>()("MalformedSignature", {
  length: Schema.Int
}) {
  override get message() {
    return `The SC-Signature header is not 64 lowercase hexadecimal characters (${this.length} characters received)`
  }
}

/**
 * The signature is well formed but does not match the body: the body was
 * altered, or it was signed with another secret.
 *
 * @example
 * ```ts
 * import type { InvalidSignature } from "@connected-vehicle/webhooks/Signature"
 *
 * const status = (_: InvalidSignature) => 401
 * ```
 * @since 0.1.0
 */
export class InvalidSignature extends Schema.TaggedError<InvalidSignature>()("InvalidSignature", {}) {
  override get message() {
    return "The SC-Signature header does not match the request body"
  }
}

/**
 * Any reason a delivery's signature is rejected.
 *
 * @since 0.1.0
 */
export type SignatureError = MissingSignature | MalformedSignature | InvalidSignature

const encoder = new TextEncoder()

const hmac = (message: Uint8Array | string, secret: Redacted.Redacted<string>): Buffer =>
  createHmac("sha256", Redacted.value(secret))
    .update(typeof message === "string" ? encoder.encode(message) : message)
    .digest()

/**
 * The signature of a body: lowercase hex HMAC-SHA256 of its bytes (a string
 * is signed as its UTF-8 bytes). What a sender puts in `SC-Signature`.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { sign } from "@connected-vehicle/webhooks/Signature"
 *
 * const body = JSON.stringify({ eventId: "evt_1", eventType: "VERIFY" })
 * const headers = { "content-type": "application/json", "sc-signature": sign(body, Redacted.make("secret")) }
 * ```
 * @since 0.1.0
 */
export const sign = (rawBody: Uint8Array | string, secret: Redacted.Redacted<string>): string =>
  hmac(rawBody, secret).toString("hex")

/**
 * The answer to a `VERIFY` challenge: lowercase hex HMAC-SHA256 of the
 * challenge string, keyed with the webhook secret.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { challengeResponse } from "@connected-vehicle/webhooks/Signature"
 *
 * const body = JSON.stringify({ challenge: challengeResponse("a1b2c3", Redacted.make("secret")) })
 * ```
 * @since 0.1.0
 */
export const challengeResponse = (challenge: string, secret: Redacted.Redacted<string>): string =>
  hmac(challenge, secret).toString("hex")

const lowercaseHex64 = /^[0-9a-f]{64}$/

/**
 * Checks a signature, synchronously, as a `Result` (never throws).
 *
 * @example
 * ```ts
 * import { Redacted, Result } from "effect"
 * import { verifyResult } from "@connected-vehicle/webhooks/Signature"
 *
 * const result = verifyResult("{}", "00", Redacted.make("secret"))
 * if (Result.isFailure(result)) console.log(result.failure._tag) // "MalformedSignature"
 * ```
 * @since 0.1.0
 */
export const verifyResult = (
  rawBody: Uint8Array | string,
  signatureHeader: string | null | undefined,
  secret: Redacted.Redacted<string>
): Result.Result<void, SignatureError> => {
  if (signatureHeader === null || signatureHeader === undefined || signatureHeader === "") {
    return Result.fail(new MissingSignature())
  }
  if (typeof signatureHeader !== "string" || !lowercaseHex64.test(signatureHeader)) {
    // (a non-string reaches here only from untyped callers)
    return Result.fail(new MalformedSignature({ length: typeof signatureHeader === "string" ? signatureHeader.length : 0 }))
  }
  const expected = hmac(rawBody, secret)
  const received = Buffer.from(signatureHeader, "hex")
  // both are 32 bytes here: the pattern above fixed the length
  return timingSafeEqual(expected, received) ? Result.void : Result.fail(new InvalidSignature())
}

/**
 * Verifies a delivery's signature over the exact body bytes received: fails
 * with `MissingSignature`, `MalformedSignature` or `InvalidSignature`; never
 * throws or dies.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { verify } from "@connected-vehicle/webhooks/Signature"
 *
 * const check = (body: Uint8Array, header: string | undefined) =>
 *   verify(body, header, Redacted.make("secret")).pipe(
 *     Effect.catchTag("InvalidSignature", () => Effect.logWarning("forged delivery"))
 *   )
 * ```
 * @since 0.1.0
 */
export const verify = (
  rawBody: Uint8Array | string,
  signatureHeader: string | null | undefined,
  secret: Redacted.Redacted<string>
): Effect.Effect<void, SignatureError> => Effect.suspend(() => Effect.fromResult(verifyResult(rawBody, signatureHeader, secret)))

/**
 * Whether a signature is valid, as a plain boolean (for code without Effect).
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { isValid } from "@connected-vehicle/webhooks/Signature"
 *
 * const ok = isValid("{}", "a".repeat(64), Redacted.make("secret")) // false
 * ```
 * @since 0.1.0
 */
export const isValid = (
  rawBody: Uint8Array | string,
  signatureHeader: string | null | undefined,
  secret: Redacted.Redacted<string>
): boolean => Result.isSuccess(verifyResult(rawBody, signatureHeader, secret))

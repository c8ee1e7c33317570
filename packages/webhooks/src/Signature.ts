/**
 * Signing of deliveries: the `SC-Signature` header is the lowercase hex
 * HMAC-SHA256 of the raw request body bytes, keyed with the webhook secret
 * (the application's management token). Verification hashes the exact bytes
 * received (never a re-serialised object) and compares in constant time.
 *
 * This module depends on `node:crypto`, `effect` and the SDK's argument
 * error (`InvalidArgument` of `@connected-vehicle/schema`) only, so a sender
 * (the simulator, a test) can sign with the same code the receiver verifies
 * with.
 *
 * A receiver verifies with one secret, or with several while the secret is
 * rotated ({@link Secrets}): a delivery is verified when its signature
 * matches any of them, each compared in constant time, every one compared.
 *
 * A secret that cannot key a signature (empty, or not a string: an unset
 * environment variable, `Redacted.make(undefined)`; an empty array of them) is an `InvalidArgument`
 * with `field: "secret"`, the one argument error of the SDK: thrown by
 * `Receiver.make`, `NodeAdapter.make`, `WebAdapter.make`, {@link sign} and
 * {@link challengeResponse}; the failure of {@link verify} and
 * {@link verifyResult} (and `false` from {@link isValid}). The secret is
 * never part of it.
 *
 * @since 0.1.0
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { Effect, Redacted, Result, Schema } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { NonEmptyReadonlyArray } from "effect/Array"

/**
 * The header carrying the signature (HTTP header names are case-insensitive;
 * Node and the Fetch API give them in lowercase).
 *
 * @example
 * ```ts
 * import { SignatureHeader } from "@connected-vehicle/webhooks/Signature"
 *
 * const signatureOf = (headers: Headers) => headers.get(SignatureHeader)
 * ```
 * @category constants
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
 * @category errors
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
 * @category errors
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
 * @category errors
 * @since 0.1.0
 */
export class InvalidSignature extends Schema.TaggedError<InvalidSignature>()("InvalidSignature", {}) {
  override get message() {
    return "The SC-Signature header does not match the request body"
  }
}

/**
 * The body given to {@link verify} is neither bytes (`Uint8Array`, a
 * `Buffer`) nor a string: typically an object a body parser made from the
 * JSON (`express.json()`), whose bytes can no longer be verified.
 *
 * @example
 * ```ts
 * import { UnsupportedBody } from "@connected-vehicle/webhooks/Signature"
 *
 * new UnsupportedBody({ received: "object" }).message
 * ```
 * @category errors
 * @since 0.2.0
 */
export class UnsupportedBody extends Schema.TaggedError<UnsupportedBody>()("UnsupportedBody", {
  received: Schema.String
}) {
  override get message() {
    return `The body to verify must be the raw bytes (a Uint8Array or Buffer) or their text, not ${this.received}: mount the webhook handler before any JSON body parser`
  }
}

/**
 * Any reason a delivery's signature is rejected, or cannot be checked.
 *
 * @example
 * ```ts
 * import { type SignatureError, verifyResult } from "@connected-vehicle/webhooks/Signature"
 *
 * const result = verifyResult("{}", undefined, "management-token")
 * const reason = (error: SignatureError): string => error._tag
 * ```
 * @category models
 * @since 0.1.0
 */
export type SignatureError = MissingSignature | MalformedSignature | InvalidSignature | InvalidArgument | UnsupportedBody

/**
 * A webhook secret as the functions of this package take it: a string
 * (wrapped in `Redacted` at once, for JavaScript callers and code reading it
 * from the environment) or a `Redacted<string>`. It must not be empty.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Secret } from "@connected-vehicle/webhooks/Signature"
 *
 * const fromEnv: Secret = process.env["WEBHOOK_SECRET"] ?? ""
 * const wrapped: Secret = Redacted.make("management-token")
 * ```
 * @category models
 * @since 0.2.0
 */
export type Secret = string | Redacted.Redacted<string>

/**
 * The webhook secrets a receiver verifies with: one {@link Secret}, or a
 * non-empty array of them while the secret is rotated, the current one
 * first (`[next, previous]`). A delivery is verified when its signature
 * matches any of them; a receiver answers a `VERIFY` challenge with the one that signed it.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Secrets } from "@connected-vehicle/webhooks/Signature"
 *
 * const one: Secrets = Redacted.make("management-token")
 * const rotating: Secrets = [Redacted.make("new-management-token"), Redacted.make("management-token")]
 * ```
 * @category models
 * @since 0.2.0
 */
export type Secrets = Secret | ReadonlyArray<Secret>

/** Why the secret cannot key a signature, as the SDK's argument error (never with the secret's value). */
const invalidSecret = (why: string, at?: string): InvalidArgument =>
  new InvalidArgument({
    field: "secret",
    message: at === undefined
      ? `secret: Expected the webhook secret, a non-empty string or Redacted<string>; ${why}`
      : `secret${at}: Expected the webhook secret, a non-empty string or Redacted<string> (or a non-empty array of them); ${why}`
  })

/**
 * The secret as a `Redacted<string>`, checked (a non-empty string of
 * well-formed Unicode: a lone surrogate has no UTF-8 form), or why it cannot
 * key a signature (an `InvalidArgument`, `field: "secret"`).
 * Never throws.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { secretResult } from "@connected-vehicle/webhooks/Signature"
 *
 * Result.isFailure(secretResult("")) // true
 * ```
 * @category constructors
 * @since 0.2.0
 */
export const secretResult = (secret: Secret): Result.Result<Redacted.Redacted<string>, InvalidArgument> => checked(secret, undefined)

/** `at`: the index of the secret in an array of them (`"[1]"`), undefined for a secret on its own. */
const checked = (secret: Secret, at: string | undefined): Result.Result<Redacted.Redacted<string>, InvalidArgument> => {
  let value: unknown = secret
  let wrapped: Redacted.Redacted<string> | undefined
  if (Redacted.isRedacted(secret)) {
    try {
      value = Redacted.value(secret)
      wrapped = secret
    } catch {
      // a Redacted whose value was wiped (Redacted.wipeUnsafe)
      return Result.fail(invalidSecret("its Redacted value was wiped", at))
    }
  }
  if (typeof value !== "string") {
    return Result.fail(invalidSecret(`got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`, at))
  }
  if (value.length === 0) return Result.fail(invalidSecret("got an empty string", at))
  // a lone surrogate has no UTF-8 form: the HMAC would be keyed with U+FFFD, another secret than the one given
  if (!value.isWellFormed()) return Result.fail(invalidSecret("got a string that is not well-formed Unicode (a lone surrogate)", at))
  return Result.succeed(wrapped ?? Redacted.make(value))
}

/**
 * The secrets as a non-empty array of `Redacted<string>`, each checked (one
 * secret is an array of one), or why they cannot key signatures: an
 * `InvalidArgument` (`field: "secret"`) for an empty array, or naming the
 * index of the first bad secret (`secret[1]: ...`). Never throws.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { secretsResult } from "@connected-vehicle/webhooks/Signature"
 *
 * Result.isSuccess(secretsResult(["new-token", "old-token"])) // true
 * Result.isFailure(secretsResult([])) // true
 * ```
 * @category constructors
 * @since 0.2.0
 */
export const secretsResult = (
  secrets: Secrets
): Result.Result<NonEmptyReadonlyArray<Redacted.Redacted<string>>, InvalidArgument> => {
  if (!Array.isArray(secrets)) return Result.map(checked(secrets as Secret, undefined), (secret) => [secret] as const)
  const list = secrets as ReadonlyArray<Secret>
  if (list.length === 0) return Result.fail(invalidSecret("got an empty array", ""))
  const out: Array<Redacted.Redacted<string>> = []
  for (let i = 0; i < list.length; i++) {
    const result = checked(list[i]!, `[${i}]`)
    if (Result.isFailure(result)) return Result.fail(result.failure)
    out.push(result.success)
  }
  return Result.succeed(out as unknown as NonEmptyReadonlyArray<Redacted.Redacted<string>>)
}

/**
 * The secret as a `Redacted<string>`, checked; throws an `InvalidArgument`
 * (`field: "secret"`) when it is empty, not a string, or not well-formed
 * Unicode (a lone surrogate). What the receivers' `make` run first.
 *
 * @example
 * ```ts
 * import { makeSecret } from "@connected-vehicle/webhooks/Signature"
 *
 * const secret = makeSecret(process.env["WEBHOOK_SECRET"] ?? "") // throws InvalidArgument when unset
 * ```
 * @category constructors
 * @since 0.2.0
 */
export const makeSecret = (secret: Secret): Redacted.Redacted<string> => {
  const result = secretResult(secret)
  if (Result.isFailure(result)) throw result.failure
  return result.success
}

/**
 * The secrets, checked, as a non-empty array of `Redacted<string>`; throws
 * the `InvalidArgument` of {@link secretsResult}. What the receivers' `make` run first.
 *
 * @example
 * ```ts
 * import { makeSecrets } from "@connected-vehicle/webhooks/Signature"
 *
 * const [current] = makeSecrets(["new-token", "old-token"]) // a VERIFY is answered with the one that signed it
 * ```
 * @category constructors
 * @since 0.2.0
 */
export const makeSecrets = (secrets: Secrets): NonEmptyReadonlyArray<Redacted.Redacted<string>> => {
  const result = secretsResult(secrets)
  if (Result.isFailure(result)) throw result.failure
  return result.success
}

const encoder = new TextEncoder()

const hmac = (message: Uint8Array | string, secret: Redacted.Redacted<string>): Buffer =>
  createHmac("sha256", Redacted.value(secret))
    .update(typeof message === "string" ? encoder.encode(message) : message)
    .digest()

/**
 * The signature of a body: lowercase hex HMAC-SHA256 of its bytes (a string
 * is signed as its UTF-8 bytes). What a sender puts in `SC-Signature`.
 * Throws an `InvalidArgument` (`field: "secret"`) for an empty secret.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { sign } from "@connected-vehicle/webhooks/Signature"
 *
 * const body = JSON.stringify({ eventId: "evt_1", eventType: "VERIFY" })
 * const headers = { "content-type": "application/json", "sc-signature": sign(body, Redacted.make("secret")) }
 * ```
 * @category signing
 * @since 0.1.0
 */
export const sign = (rawBody: Uint8Array | string, secret: Secret): string =>
  hmac(rawBody, makeSecret(secret)).toString("hex")

/**
 * The answer to a `VERIFY` challenge: lowercase hex HMAC-SHA256 of the
 * challenge string, keyed with the webhook secret. Throws
 * an `InvalidArgument` (`field: "secret"`) for an empty secret.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { challengeResponse } from "@connected-vehicle/webhooks/Signature"
 *
 * const body = JSON.stringify({ challenge: challengeResponse("a1b2c3", Redacted.make("secret")) })
 * ```
 * @category signing
 * @since 0.1.0
 */
export const challengeResponse = (challenge: string, secret: Secret): string =>
  hmac(challenge, makeSecret(secret)).toString("hex")

const lowercaseHex64 = /^[0-9a-f]{64}$/

/**
 * Checks a signature, synchronously, as a `Result`, against one secret or
 * any of several ({@link Secrets}); never throws, whatever
 * it is given: an `InvalidArgument` (`field: "secret"`) for an empty or non-string secret (or an empty array),
 * `UnsupportedBody` for a body that is not bytes or a string.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { verifyResult } from "@connected-vehicle/webhooks/Signature"
 *
 * const result = verifyResult("{}", "00", process.env["WEBHOOK_SECRET"] ?? "secret")
 * if (Result.isFailure(result)) console.log(result.failure._tag) // "MalformedSignature"
 * ```
 * @category verification
 * @since 0.1.0
 */
export const verifyResult = (
  rawBody: Uint8Array | string,
  signatureHeader: string | null | undefined,
  secret: Secrets
): Result.Result<void, SignatureError> => {
  const key = secretsResult(secret)
  if (Result.isFailure(key)) return Result.fail(key.failure)
  if (typeof rawBody !== "string" && !(rawBody instanceof Uint8Array)) {
    // (reaches here only from untyped callers: a parsed JSON body, undefined)
    return Result.fail(new UnsupportedBody({ received: rawBody === null ? "null" : typeof rawBody }))
  }
  return checkSignature(rawBody, signatureHeader, key.success)
}

/** The check of {@link verifyResult} with a checked secret and body. */
const checkSignature = (
  rawBody: Uint8Array | string,
  signatureHeader: string | null | undefined,
  secrets: NonEmptyReadonlyArray<Redacted.Redacted<string>>
): Result.Result<void, MissingSignature | MalformedSignature | InvalidSignature> => {
  if (signatureHeader === null || signatureHeader === undefined || signatureHeader === "") {
    return Result.fail(new MissingSignature())
  }
  if (typeof signatureHeader !== "string" || !lowercaseHex64.test(signatureHeader)) {
    // (a non-string reaches here only from untyped callers)
    return Result.fail(new MalformedSignature({ length: typeof signatureHeader === "string" ? signatureHeader.length : 0 }))
  }
  const received = Buffer.from(signatureHeader, "hex")
  let matched = false
  for (const secret of secrets) {
    // every secret is compared (no early exit), each in constant time: the time
    // taken tells neither whether nor which one matched; both are 32 bytes here
    const equal = timingSafeEqual(hmac(rawBody, secret), received)
    matched = matched || equal
  }
  return matched ? Result.void : Result.fail(new InvalidSignature())
}

/**
 * Verifies a delivery's signature over the exact body bytes received, with
 * one secret or any of several ({@link Secrets}): fails
 * with `MissingSignature`, `MalformedSignature` or `InvalidSignature` (and
 * `InvalidArgument` / `UnsupportedBody` for a bad secret or body); never
 * throws or dies.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { verify } from "@connected-vehicle/webhooks/Signature"
 *
 * const check = (body: Uint8Array, header: string | undefined) =>
 *   verify(body, header, Redacted.make("secret")).pipe( // or a plain string secret
 *     Effect.catchTag("InvalidSignature", () => Effect.logWarning("forged delivery"))
 *   )
 * ```
 * @category verification
 * @since 0.1.0
 */
export const verify = (
  rawBody: Uint8Array | string,
  signatureHeader: string | null | undefined,
  secret: Secrets
): Effect.Effect<void, SignatureError> => Effect.suspend(() => Effect.fromResult(verifyResult(rawBody, signatureHeader, secret)))

/**
 * Whether a signature is valid, as a plain boolean (for code without
 * Effect); never throws (`false` for an empty secret or a body that is not
 * bytes or a string).
 *
 * @example
 * ```ts
 * import { isValid } from "@connected-vehicle/webhooks/Signature"
 *
 * const ok = isValid("{}", "a".repeat(64), "secret") // false
 * ```
 * @category verification
 * @since 0.1.0
 */
export const isValid = (
  rawBody: Uint8Array | string,
  signatureHeader: string | null | undefined,
  secret: Secrets
): boolean => Result.isSuccess(verifyResult(rawBody, signatureHeader, secret))

/**
 * Signing of webhook deliveries: lowercase hex HMAC-SHA256 keyed with the
 * webhook secret. The simulator signs with `node:crypto` itself (it depends on
 * the schema only); its tests verify with `@connected-vehicle/webhooks`.
 *
 * @internal
 */
import { Redacted } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"

/** Lowercase hex HMAC-SHA256 of `message` (a string is signed as its UTF-8 bytes). */
export const hmacHex = (message: Uint8Array | string, secret: Redacted.Redacted<string>): string =>
  createHmac("sha256", Redacted.value(secret)).update(message).digest("hex")

/**
 * Whether `answer` is the expected hex challenge answer (constant time). Any
 * other value is `false`, one of the same length in characters but not in
 * bytes (non-ASCII) included.
 */
export const sameHex = (expected: string, answer: unknown): boolean => {
  if (typeof answer !== "string" || answer.length !== expected.length) return false
  const a = Buffer.from(expected, "utf8")
  const b = Buffer.from(answer, "utf8")
  return a.length === b.length && timingSafeEqual(a, b)
}

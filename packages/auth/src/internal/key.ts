/**
 * The rule of a token-store key.
 *
 * @internal
 */
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"

/**
 * The longest key, in UTF-16 code units (an email address has at most 254).
 *
 * @internal
 */
export const maxKeyLength = 1024

// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f]/

const issueOf = (key: unknown): string | undefined =>
  typeof key !== "string"
    ? `Expected a string, got ${key === null ? "null" : typeof key}`
    : key.length === 0
    ? "Expected a non-empty string"
    : key.length > maxKeyLength
    ? `Expected at most ${maxKeyLength} characters, got ${key.length}`
    : controlCharacters.test(key)
    ? "Expected a string without control characters"
    // a UTF-16 surrogate without its pair: no UTF-8 form, so no database or file can hold it
    : !key.isWellFormed()
    ? "Expected well-formed Unicode (a lone surrogate has no UTF-8 form)"
    : undefined

/**
 * The `InvalidArgument` (`field: "key"`) of a key that is not a non-empty
 * string of at most {@link maxKeyLength} characters without control
 * characters or lone surrogates, else `undefined`. The key is never quoted
 * (it is the caller's, and it may be anything).
 *
 * @internal
 */
export const keyError = (key: unknown): InvalidArgument | undefined => {
  const issue = issueOf(key)
  return issue === undefined ? undefined : new InvalidArgument({ field: "key", message: `key: ${issue}` })
}

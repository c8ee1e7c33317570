/**
 * Text of an OAuth `error_description` (RFC 6749 section 5.2, and 4.1.2.1
 * for a consent's redirect): only the characters `%x20-21 / %x23-5B /
 * %x5D-7E` (printable ASCII but `"` and `\`), so a value the request sent
 * is shown quoted, escaped and cut short.
 *
 * @internal
 */

/** Whether the character code is one an `error_description` may hold. */
const allowed = (code: number): boolean => code >= 0x20 && code <= 0x7e && code !== 0x22 && code !== 0x5c

const percentEncoded = (char: string): string =>
  [...new TextEncoder().encode(char)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("")

/**
 * `description` with every character an `error_description` may not hold
 * percent-encoded (its UTF-8 bytes; a lone surrogate as U+FFFD's).
 *
 * @internal
 */
export const describable = (description: string): string => {
  let out = ""
  for (const char of description) out += char.length === 1 && allowed(char.charCodeAt(0)) ? char : percentEncoded(char)
  return out
}

/** How many characters of a value a description shows. */
const shownLength = 40

/**
 * A value the request sent, as a description shows it: between single
 * quotes, its first 40 characters (`...` after them when there are more),
 * each character an `error_description` may not hold, `'` and `%`
 * percent-encoded.
 *
 * @internal
 */
export const quoted = (value: string): string => {
  const chars = [...value]
  let out = ""
  for (const char of chars.slice(0, shownLength)) out += char === "'" || char === "%" ? percentEncoded(char) : describable(char)
  return `'${out}'${chars.length > shownLength ? "..." : ""}`
}

/** A plain parameter name, shown as it is. */
const plainName = /^[A-Za-z0-9_.-]{1,40}$/

/**
 * A parameter's name as a description shows it: as it is when plain
 * (`grant_type`), else {@link quoted}.
 *
 * @internal
 */
export const parameterName = (name: string): string => plainName.test(name) ? name : quoted(name)

/**
 * Text from the service as the CLI shows it on a terminal: every character a
 * terminal acts on (C0 and C1 controls, DEL, the bidirectional formatting
 * characters, the line and paragraph separators) written as an escape, so
 * that a field cannot set a color, move the cursor, retitle the window,
 * print a fake line or reorder what a line shows. Tables, `key: value` lines,
 * error reports, `webhooks listen` rows and every JSON output go through it.
 *
 * @since 0.2.0
 */

const named: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

const unicodeEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`

// what a terminal acts on besides C0 controls (JSON keeps those escaped): C1
// controls and DEL (U+009B starts an escape sequence on some terminals), the
// bidirectional formatting characters that reorder what a line shows, and
// the line and paragraph separators
const terminalActive = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/**
 * A value as it can be shown on one line of a terminal: every C0 and C1
 * control character and DEL (an escape sequence, a line break, a carriage
 * return the service could send), every bidirectional formatting character
 * (which would reorder the line as shown) and the line and paragraph
 * separators written as an escape, `\n`, `\r`, `\t` or `\u001b`, so the text
 * is one line that sets no color, moves no cursor and shows its characters
 * in order. Other text (accents, symbols, emoji) is kept as it is.
 *
 * @example
 * ```ts
 * import { printable } from "@connected-vehicle/sample/Printable"
 *
 * printable("ASLEEP\u001b[31m\nFAKE ROW") // "ASLEEP\\u001b[31m\\nFAKE ROW"
 * ```
 * @since 0.2.0
 * @category rendering
 */
export const printable = (text: string): string =>
  text.replace(/[\u0000-\u001f]/g, (c) => named[c] ?? unicodeEscape(c)).replace(terminalActive, unicodeEscape)

/**
 * JSON text (`JSON.stringify`'s output) as it can be shown on a terminal:
 * the characters a terminal acts on that `JSON.stringify` leaves as they are
 * (C1 controls, DEL, bidirectional formatting, line and paragraph separators:
 * they can only be inside its strings) written as `\uXXXX` escapes. It parses
 * to the same value.
 *
 * @example
 * ```ts
 * import { printableJson } from "@connected-vehicle/sample/Printable"
 *
 * printableJson(JSON.stringify({ name: "a\u009b31mb" })) // '{"name":"a\\u009b31mb"}'
 * ```
 * @since 0.2.0
 * @category rendering
 */
export const printableJson = (json: string): string => json.replace(terminalActive, unicodeEscape)

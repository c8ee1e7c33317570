/**
 * Server text in a message made for people: the characters a terminal acts
 * on written as escapes.
 *
 * @internal
 */

const named: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

/**
 * What a terminal acts on: C0 controls, DEL and C1 controls (U+009B starts
 * an escape sequence on some terminals), the bidirectional formatting
 * characters that reorder what a line shows, the line and paragraph
 * separators.
 */
// eslint-disable-next-line no-control-regex
const active = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/**
 * `text` with every character a terminal acts on ({@link active}) written as
 * an escape: `\n`, `\r`, `\t`, else `\u001b` and the like. Other text
 * (accents, symbols, emoji, a backslash) is kept as it is, so that text
 * escaped once is escaped no further (the same rule as the sample CLI's).
 *
 * @internal
 */
export const escapeControls = (text: string): string =>
  text.replace(active, (c) => named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

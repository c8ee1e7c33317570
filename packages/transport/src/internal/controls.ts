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

/** One character a terminal acts on ({@link active}, not global). */
const activeOne = new RegExp(active.source)

/**
 * The longest message the SDK's errors show, in characters once escaped
 * ({@link boundedMessage}).
 *
 * @internal
 */
export const MESSAGE_LIMIT = 2048

/**
 * `text` as a message shows it: escaped as {@link escapeControls} does,
 * and cut to `limit` characters (escapes included), never inside an escape
 * or a surrogate pair, then `… (N more characters)`, N the characters (UTF-16
 * units) of
 * `text` left out. Only what is shown is read: the cost is the limit's, not
 * the text's (a server's detail of 16 MB).
 *
 * @internal
 */
export const boundedMessage = (text: string, limit: number = MESSAGE_LIMIT): string => {
  // an escape is 6 characters at most (`\u001b`): a text this short is shown whole
  if (text.length * 6 <= limit) return escapeControls(text)
  let shown = 0
  let at = 0
  while (at < text.length) {
    const code = text.charCodeAt(at)
    const pair = code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(at + 1) & 0xfc00) === 0xdc00 ? 2 : 1
    const width = pair === 2 ? 2 : !activeOne.test(text[at]!) ? 1 : named[text[at]!] !== undefined ? 2 : 6
    if (shown + width > limit) break
    shown += width
    at += pair
  }
  return at === text.length ? escapeControls(text) : `${escapeControls(text.slice(0, at))}… (${text.length - at} more character${text.length - at === 1 ? "" : "s"})`
}

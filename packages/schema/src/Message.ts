/**
 * How the SDK's error messages show text from outside (a server's `detail`,
 * an OAuth `error_description`, a network error's text): every character a
 * terminal acts on written as an escape, and at most {@link MESSAGE_LIMIT}
 * characters in all. One rule, for every reason's `message`: the reasons of
 * `@connected-vehicle/schema/ServiceReason` made by `fromEnvelope` and
 * `fromStatus`, the transport's reasons and its `ConnectedVehicleError`.
 *
 * @since 0.5.0
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

/** One character a terminal acts on ({@link active}, not global). */
const activeOne = new RegExp(active.source)

/**
 * `text` with every character a terminal acts on written as an escape: the
 * C0 controls, DEL, the C1 controls, the bidirectional formatting characters
 * (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and the line and
 * paragraph separators, as `\n`, `\r`, `\t`, else `\u001b` and the like.
 * Other text (accents, symbols, emoji, a backslash) is kept as it is, so
 * that text escaped once is escaped no further.
 *
 * @example
 * ```ts
 * import { escapeControls } from "@connected-vehicle/schema/Message"
 *
 * escapeControls("\u001b[31mred\n") // "\\u001b[31mred\\n"
 * ```
 * @since 0.5.0
 * @category utils
 */
export const escapeControls = (text: string): string =>
  text.replace(active, (c) => named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/**
 * The most characters (UTF-16 code units) a message of the SDK's errors
 * shows: 2,048, what is cut included ({@link boundedMessage}).
 *
 * @example
 * ```ts
 * import { boundedMessage, MESSAGE_LIMIT } from "@connected-vehicle/schema/Message"
 *
 * boundedMessage("x".repeat(1_000_000)).length <= MESSAGE_LIMIT // true
 * ```
 * @since 0.5.0
 * @category constants
 */
export const MESSAGE_LIMIT = 2048

/** What follows a cut text: how many characters of it are left out. */
const leftOut = (left: number): string => `… (${left} more character${left === 1 ? "" : "s"})`

/**
 * `text` as a message shows it: escaped as {@link escapeControls} does, and
 * at most `limit` characters in all. A text longer once escaped is cut where
 * a character ends (never inside an escape or a surrogate pair) and followed
 * by `… (N more characters)`, N the characters (UTF-16 units) of `text` left
 * out, the suffix counted in the limit (a limit too short for it gives `…`
 * alone); a text ending with such a suffix (a message cut before, with
 * something put before it) adds its N to the count. What it gives holds no character a terminal acts on and is at most
 * the limit, so that giving it again changes nothing:
 * `boundedMessage(boundedMessage(text)) === boundedMessage(text)`. Only what
 * is shown is read: the cost is the limit's, not the text's (a server's
 * detail of 16 MB).
 *
 * @example
 * ```ts
 * import { boundedMessage } from "@connected-vehicle/schema/Message"
 *
 * boundedMessage("404 NOT_FOUND: \u001b[31mgone") // "404 NOT_FOUND: \\u001b[31mgone"
 * boundedMessage("abcdefghijklmnopqrstuvwxyz0123456789", 30) // "abcdefgh… (28 more characters)" (30 characters)
 * ```
 * @since 0.5.0
 * @category utils
 */
export const boundedMessage = (text: string, limit: number = MESSAGE_LIMIT): string => {
  // an escape is 6 characters at most (`\u001b`): a text this short is shown whole
  if (text.length * 6 <= limit) return escapeControls(text)
  // a text holding a message cut before (`The token request failed: ` and a message): what that cut left
  // out is left out still, and counted
  const earlier = /… \((\d{1,15}) more characters?\)$/.exec(text)
  const end = earlier === null ? text.length : earlier.index
  const before = earlier === null ? 0 : Number(earlier[1])
  // room for the text before the longest suffix it may need (all of it left out)
  const most = end + before
  const suffix = leftOut(most).length <= limit ? leftOut : () => "…"
  const room = limit - suffix(most).length
  let shown = 0
  let at = 0
  let cut = 0
  while (at < text.length) {
    const code = text.charCodeAt(at)
    const pair = code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(at + 1) & 0xfc00) === 0xdc00 ? 2 : 1
    const width = pair === 2 ? 2 : !activeOne.test(text[at]!) ? 1 : named[text[at]!] !== undefined ? 2 : 6
    if (shown + width > limit) break
    shown += width
    at += pair
    if (shown <= room) cut = at
  }
  if (at === text.length) return escapeControls(text)
  if (room < 0) return ""
  if (cut > end) cut = end
  return `${escapeControls(text.slice(0, cut))}${suffix(end - cut + before)}`
}

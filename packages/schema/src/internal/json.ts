/**
 * @internal
 */

// The string tokens of a JSON text are read by hand, not by a regular
// expression: one pass, whatever the text (a regular expression backtracks
// one entry per character of a token and overflows the stack past a few
// million; an open string read from each of its `"` again was quadratic).

/** The end (past its closing `"`) of the string token opened at `start`; the text's length when it is left open. */
const stringEnd = (text: string, start: number): number => {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 92) i++ // a backslash: the next character is escaped
    else if (c === 34) return i + 1
  }
  return text.length
}

/** Whether the string token ending at `end` is an object key: a `:` follows, after JSON whitespace only. */
const isKey = (text: string, end: number): boolean => {
  let i = end
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break
  }
  return text.charCodeAt(i) === 58
}

/**
 * Calls `f` with each object key token of the text (`start` at its opening
 * `"`, `end` past its closing one), in order (outside strings a JSON text has
 * no `"`); stops when `f` returns `true`.
 */
const eachKey = (text: string, f: (start: number, end: number) => boolean | void): void => {
  for (let start = text.indexOf("\""); start !== -1;) {
    const end = stringEnd(text, start)
    if (isKey(text, end) && f(start, end) === true) return
    start = text.indexOf("\"", end)
  }
}

/** The marker of a rewritten key: `<marker><index>`. */
const marker = "\uf8ff"

/** Whether the token from `start` to `end` holds a backslash (read within the token only). */
const hasBackslash = (text: string, start: number, end: number): boolean => {
  for (let i = start + 1; i < end; i++) if (text.charCodeAt(i) === 92) return true
  return false
}

/** Whether some object key of the text holds an escape sequence. */
const hasEscapedKey = (text: string): boolean => {
  let found = false
  eachKey(text, (start, end) => found = hasBackslash(text, start, end))
  return found
}

/**
 * A key token without escape sequences as `JSON.parse` reads it, or
 * `undefined` when it holds a control character (not JSON: `JSON.parse` of
 * the token throws, as it would for the text).
 */
const plainKey = (quoted: string): string | undefined => {
  for (let i = 1; i < quoted.length - 1; i++) if (quoted.charCodeAt(i) < 0x20) return undefined
  return quoted.slice(1, -1)
}

/**
 * When some object key holds an escape sequence: the text with every object
 * key replaced by a plain marker key (`<marker><index>`, one per occurrence,
 * in the order of the text; no key of the text is left, so none can equal a
 * marker), and those keys as read by `JSON.parse` as string values. Every
 * key, not only the escaped ones: an object's members then come back in the
 * text's order, so a repeated key keeps `JSON.parse`'s last value whatever
 * its spellings, and array-index keys are placed as `JSON.parse` places them.
 * `undefined` when no key holds an escape sequence.
 *
 * @internal
 */
export const rewriteEscapedKeys = (
  text: string
): { readonly text: string; readonly marker: string; readonly keys: ReadonlyArray<string> } | undefined => {
  if (!hasEscapedKey(text)) return undefined
  const keys: Array<string> = []
  const parts: Array<string> = []
  let last = 0
  eachKey(text, (start, end) => {
    const quoted = text.slice(start, end)
    keys.push((hasBackslash(text, start, end) ? undefined : plainKey(quoted)) ?? JSON.parse(quoted) as string)
    parts.push(text.slice(last, start), `"${marker}${keys.length - 1}"`)
    last = end
  })
  parts.push(text.slice(last))
  return { text: parts.join(""), marker, keys }
}

const define = (out: Record<string, unknown>, key: string, value: unknown) => {
  // an own `__proto__` member, as `JSON.parse` makes it
  if (key === "__proto__") Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true })
  else out[key] = value
}

/**
 * The value with every marker key given back its own key: each object is
 * rebuilt member by member in its order, so key order and repeated keys come
 * out as `JSON.parse` makes them (the last value, at the first place). An
 * explicit stack, not recursion: any depth `JSON.parse` reads (a fallback to
 * `JSON.parse` on a stack overflow would bring back the keys it misreads).
 *
 * @internal
 */
export const restoreKeys = (value: unknown, marker: string, keys: ReadonlyArray<string>): unknown => {
  // containers whose members are still to restore (objects already rebuilt with their own keys)
  const pending: Array<Array<unknown> | Record<string, unknown>> = []
  const rebuild = (v: unknown): unknown => {
    if (typeof v !== "object" || v === null) return v
    if (Array.isArray(v)) {
      pending.push(v)
      return v
    }
    const record = v as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(record)) {
      define(out, key.startsWith(marker) ? keys[Number(key.slice(marker.length))]! : key, record[key])
    }
    pending.push(out)
    return out
  }
  const root = rebuild(value)
  for (let container = pending.pop(); container !== undefined; container = pending.pop()) {
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) container[i] = rebuild(container[i])
      continue
    }
    for (const key of Object.keys(container)) {
      const member = container[key]
      const rebuilt = rebuild(member)
      if (rebuilt !== member) define(container, key, rebuilt)
    }
  }
  return root
}

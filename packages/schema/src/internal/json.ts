/**
 * @internal
 */

// Every string token of a JSON text, in order (outside strings a JSON text has
// no `"`), with the `:` that makes it an object key. A string left open runs
// to the end of the text (a lone backslash at its end included): a match
// never fails once started, so a text that is not JSON, with many `"` in an
// open string, is read in one pass (not once from each `"`, quadratic).
const stringToken = /"(?:[^"\\]|\\[^])*(?:"([ \t\n\r]*:)?|\\?$)/g

/** The marker of a rewritten key: `<marker><index>`. */
const marker = "\uf8ff"

/** Whether a key of the text (a string token followed by `:`) holds an escape sequence. */
const hasEscapedKey = (text: string): boolean => {
  stringToken.lastIndex = 0
  try {
    for (let match = stringToken.exec(text); match !== null; match = stringToken.exec(text)) {
      if (match[1] !== undefined && match[0].includes("\\")) return true
    }
    return false
  } finally {
    stringToken.lastIndex = 0
  }
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
  const rewritten = text.replace(stringToken, (token: string, colon: string | undefined) => {
    if (colon === undefined) return token
    const quoted = token.slice(0, token.length - colon.length)
    keys.push((quoted.includes("\\") ? undefined : plainKey(quoted)) ?? JSON.parse(quoted) as string)
    return `"${marker}${keys.length - 1}"${colon}`
  })
  return { text: rewritten, marker, keys }
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

/**
 * @internal
 */

// Every string token of a JSON text, in order (outside strings a JSON text has
// no `"`), with the `:` that makes it an object key. A string left open runs
// to the end of the text (a lone backslash at its end included): a match
// never fails once started, so a text that is not JSON, with many `"` in an
// open string, is read in one pass (not once from each `"`, quadratic).
const stringToken = /"(?:[^"\\]|\\[^])*(?:"([ \t\n\r]*:)?|\\?$)/g

/**
 * The text with every object key that holds an escape sequence replaced by a
 * plain marker key (`<marker><index>`; the marker occurs nowhere in the text,
 * so no other key can equal one), and those keys as read by `JSON.parse` as
 * string values. `undefined` when no key holds an escape sequence.
 *
 * @internal
 */
export const rewriteEscapedKeys = (
  text: string
): { readonly text: string; readonly marker: string; readonly keys: ReadonlyArray<string> } | undefined => {
  // longer than the longest run of U+F8FF in the text (one pass), so it occurs nowhere in it
  let run = 0
  let longest = 0
  for (let i = text.indexOf("\uf8ff"); i !== -1; i = text.indexOf("\uf8ff", i + 1)) {
    run = i > 0 && text.charCodeAt(i - 1) === 0xf8ff ? run + 1 : 1
    if (run > longest) longest = run
  }
  const marker = "\uf8ff".repeat(longest + 1)
  const keys: Array<string> = []
  const rewritten = text.replace(stringToken, (token: string, colon: string | undefined) => {
    if (colon === undefined || !token.includes("\\")) return token
    keys.push(JSON.parse(token.slice(0, token.length - colon.length)) as string)
    return `"${marker}${keys.length - 1}"${colon}`
  })
  return keys.length === 0 ? undefined : { text: rewritten, marker, keys }
}

const define = (out: Record<string, unknown>, key: string, value: unknown) => {
  // an own `__proto__` member, as `JSON.parse` makes it
  if (key === "__proto__") Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true })
  else out[key] = value
}

/**
 * The value with every marker key given back its own key: each object is
 * rebuilt member by member in its order, so key order and repeated keys come
 * out as `JSON.parse` makes them (the last value, at the first place).
 *
 * @internal
 */
export const restoreKeys = (value: unknown, marker: string, keys: ReadonlyArray<string>): unknown => {
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = restoreKeys(value[i], marker, keys)
    return value
  }
  const record = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(record)) {
    const original = key.startsWith(marker) ? keys[Number(key.slice(marker.length))]! : key
    define(out, original, restoreKeys(record[key], marker, keys))
  }
  return out
}

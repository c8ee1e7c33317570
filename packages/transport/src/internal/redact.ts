/**
 * The secrets a request carries, and server text with them taken out: a
 * server that echoes a credential in an error (`detail`, an OAuth
 * `error_description`) must not put it into the SDK's errors or logs.
 *
 * @internal
 */
import type { HttpClientRequest } from "effect/http"

const secretField = /secret|token|password|passwd|verifier|assertion|^code$/i

const decoder = new TextDecoder()

/** The Basic credential's parts, or `undefined`. */
const basicParts = (encoded: string): ReadonlyArray<string> => {
  try {
    const decoded = Buffer.from(encoded, "base64").toString("utf8")
    const colon = decoded.indexOf(":")
    return colon === -1 ? [decoded] : [decoded.slice(colon + 1), decoded]
  } catch {
    return []
  }
}

/** The form fields of a urlencoded body that hold secrets. */
const formSecrets = (request: HttpClientRequest.HttpClientRequest): ReadonlyArray<string> => {
  const body = request.body
  if (body._tag !== "Uint8Array" && body._tag !== "Raw") return []
  if (!(body.contentType ?? "").includes("application/x-www-form-urlencoded")) return []
  const text = body._tag === "Uint8Array" ? decoder.decode(body.body) : typeof body.body === "string" ? body.body : undefined
  if (text === undefined) return []
  const out: Array<string> = []
  for (const [key, value] of new URLSearchParams(text)) if (secretField.test(key)) out.push(value)
  return out
}

/**
 * The credentials in a request as sent: the bearer token, the Basic
 * credential (and its secret part), and secret form fields of its body.
 *
 * @internal
 */
export const secretsOf = (request: HttpClientRequest.HttpClientRequest): ReadonlyArray<string> => {
  const out: Array<string> = []
  const authorization = request.headers["authorization"]
  if (authorization !== undefined) {
    const space = authorization.indexOf(" ")
    const scheme = space === -1 ? "" : authorization.slice(0, space).toLowerCase()
    const value = space === -1 ? authorization : authorization.slice(space + 1).trim()
    out.push(value)
    if (scheme === "basic") out.push(...basicParts(value))
  }
  if (request.body._tag !== "Empty") out.push(...formSecrets(request))
  // too short to be a credential, and replacing it would garble the text
  return out.filter((secret) => secret.length >= 6)
}

/** Percent-encoding with lower-case hex digits (`%2f`), as some servers write it. */
const lowerHex = (text: string): string => text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase())

/**
 * The forms a server may echo `secret` in: as sent; percent-encoded
 * (`encodeURIComponent`) and form-encoded (`+` for a space), each with upper-
 * or lower-case hex digits; JSON-escaped, also with `\/` (PHP's default).
 */
const formsOf = (secret: string): ReadonlyArray<string> => {
  const uri = encodeURIComponent(secret)
  const form = new URLSearchParams([["", secret]]).toString().slice(1)
  const json = JSON.stringify(secret).slice(1, -1)
  return [secret, uri, lowerHex(uri), form, lowerHex(form), json, json.replaceAll("/", "\\/")]
}

const special = /[\\^$.*+?()[\]{}|/-]/g

/**
 * What takes a request's secrets out of server text.
 *
 * @internal
 */
export interface Scrubber {
  /** `text` with every form of each secret replaced by `<redacted>`. */
  readonly text: (text: string) => string
  /**
   * `json`, the value of the (scrubbed) `text`, with every string in it
   * (value or key) scrubbed once decoded: an escape (`\u002f`...) can spell
   * a secret that no form of it spells. Changed in place; a text without a
   * backslash decodes to the strings it spells, already scrubbed.
   */
  readonly json: (json: unknown, text: string) => unknown
}

const none: Scrubber = { text: (text) => text, json: (json) => json }

/**
 * The scrubber of `secrets`: one pass of one pattern over a text (every form
 * of every secret, longest first, so that a part never leaves the rest of a
 * longer one), linear in its length; a JSON value's strings each once.
 *
 * @internal
 */
export const scrubber = (secrets: ReadonlyArray<string>): Scrubber => {
  if (secrets.length === 0) return none
  const forms = [...new Set(secrets.flatMap(formsOf))].sort((a, b) => b.length - a.length)
  const pattern = new RegExp(forms.map((form) => form.replace(special, "\\$&")).join("|"), "g")
  const text = (value: string) => value.replace(pattern, "<redacted>")
  return { text, json: (json, source) => source.includes("\\") ? scrubStrings(json, text) : json }
}

/** Every string of a JSON value (values and keys) through `scrub`, in place, without recursion (any depth). */
const scrubStrings = (json: unknown, scrub: (text: string) => string): unknown => {
  if (typeof json === "string") return scrub(json)
  const pending: Array<unknown> = [json]
  while (pending.length > 0) {
    const node = pending.pop()
    if (typeof node !== "object" || node === null) continue
    const record = node as Record<string, unknown>
    const keyed = !Array.isArray(node)
    for (const key of Object.keys(record)) {
      const value = record[key]
      if (typeof value === "string") record[key] = scrub(value)
      else if (typeof value === "object" && value !== null) pending.push(value)
      const scrubbed = keyed ? scrub(key) : key
      if (scrubbed !== key) {
        Object.defineProperty(record, scrubbed, { value: record[key], enumerable: true, writable: true, configurable: true })
        delete record[key]
      }
    }
  }
  return json
}

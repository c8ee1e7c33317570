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

/** Percent-encoding of every character but the unreserved ones of RFC 3986 (PHP's `rawurlencode`). */
const strict = (text: string): string => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

/** HTML-escaped: `&`, `<`, `>`, `"` and `'` (as `&#39;` or `&#x27;`). */
const htmlEscaped = (text: string): ReadonlyArray<string> => {
  const escaped = text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\"", "&quot;")
  return [escaped.replaceAll("'", "&#39;"), escaped.replaceAll("'", "&#x27;")]
}

/**
 * The spellings a server may echo `secret` in: as sent; percent-encoded the
 * ways servers and libraries do it (`encodeURIComponent`, `encodeURI`,
 * RFC 3986 strict as PHP's `rawurlencode`, keeping `/` as Python's `quote`,
 * form-encoded with `+` for a space as `URLSearchParams` and PHP's
 * `urlencode`), each with upper- or lower-case hex digits, once or twice;
 * HTML-escaped; with `\/` (PHP's JSON). A JSON string's escapes (`\u002f`)
 * are read by parsing the body first.
 */
const formsOf = (secret: string): ReadonlyArray<string> => {
  const form = new URLSearchParams([["", secret]]).toString().slice(1)
  const encoded = [
    encodeURIComponent(secret),
    encodeURI(secret),
    strict(secret),
    strict(secret).replaceAll("%2F", "/"),
    form,
    form.replaceAll("*", "%2A")
  ]
  const percent = encoded.flatMap((e) => [e, lowerHex(e)])
  const twice = percent.filter((e) => e.includes("%")).map((e) => e.replaceAll("%", "%25"))
  return [secret, ...percent, ...twice, ...htmlEscaped(secret), secret.replaceAll("/", "\\/")]
}

const special = /[\\^$.*+?()[\]{}|/-]/g

/**
 * What takes a request's secrets out of server text.
 *
 * @internal
 */
export interface Scrubber {
  /** `text` with every spelling of each secret replaced by `<redacted>` (overlapping ones as one); itself when it holds none. */
  readonly text: (text: string) => string
  /**
   * `json`, a body's value as parsed (before any scrubbing of its text),
   * with every string in it (value or key) scrubbed: its escapes (`\u002f`,
   * `\/`...) read, so that any spelling of a secret is caught. Changed in
   * place.
   */
  readonly json: (json: unknown) => unknown
}

const none: Scrubber = { text: (text) => text, json: (json) => json }

/**
 * The scrubber of `secrets`: a text is tested once against one pattern of
 * every spelling of every secret (literals: a linear pass), and only a text
 * that holds one is cut, at every occurrence of every spelling, overlapping
 * ones merged (two secrets that share characters are both hidden whole).
 *
 * @internal
 */
export const scrubber = (secrets: ReadonlyArray<string>): Scrubber => {
  if (secrets.length === 0) return none
  const forms = [...new Set(secrets.flatMap(formsOf))].sort((a, b) => b.length - a.length)
  const holds = new RegExp(forms.map((form) => form.replace(special, "\\$&")).join("|"))
  const text = (value: string) => holds.test(value) ? redacted(value, forms) : value
  return { text, json: (json) => scrubStrings(json, text) }
}

/** `text` with every occurrence of every form replaced by `<redacted>`, overlapping or adjacent ones merged into one. */
const redacted = (text: string, forms: ReadonlyArray<string>): string => {
  const spans: Array<readonly [number, number]> = []
  for (const form of forms) {
    for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) spans.push([at, at + form.length])
  }
  spans.sort((a, b) => a[0] - b[0])
  let out = ""
  let from = 0
  for (let k = 0; k < spans.length;) {
    const start = spans[k]![0]
    let end = spans[k]![1]
    for (k++; k < spans.length && spans[k]![0] <= end; k++) end = Math.max(end, spans[k]![1])
    out += `${text.slice(from, start)}<redacted>`
    from = end
  }
  return out + text.slice(from)
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

/**
 * The secrets a request carries, and server text with them taken out: a
 * server that echoes a credential in an error (`detail`, an OAuth
 * `error_description`) must not put it into the SDK's errors or logs.
 *
 * @internal
 */
import type { HttpClientRequest } from "effect/http"
import { isCredentialHeader, isCredentialParameter } from "@connected-vehicle/schema/Redaction"

const secretField = /secret|token|password|passwd|verifier|assertion|^code$/i

const decoder = new TextDecoder()

/** A header value of a scheme and one credential (`Bearer <token>`, `Basic <base64>`). */
const withScheme = /^([A-Za-z][\w-]*)\s+(\S+)$/

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
  // every credential header (`authorization`, a gateway's key a `transformClient` adds, a cookie): its
  // value, the credential after a scheme (`Bearer ...`, and a Basic credential's parts), the values of
  // the cookies named as credentials (`session`, `*token*`...: not `theme=system`)
  for (const name in request.headers) {
    if (!isCredentialHeader(name)) continue
    const value = request.headers[name]!
    out.push(value)
    if (name === "cookie") {
      for (const pair of value.split(";")) {
        const equals = pair.indexOf("=")
        if (equals !== -1 && isCredentialParameter(pair.slice(0, equals).trim())) out.push(pair.slice(equals + 1).trim())
      }
      continue
    }
    const scheme = withScheme.exec(value)
    if (scheme !== null) {
      out.push(scheme[2]!)
      if (scheme[1]!.toLowerCase() === "basic") out.push(...basicParts(scheme[2]!))
    }
  }
  if (request.body._tag !== "Empty") out.push(...formSecrets(request))
  // too short to be a credential, and replacing it would garble the text
  return out.filter((secret) => secret.length >= 6)
}

/** The numeric HTML entities (decimal, hex) a server may write a character of a secret as. */
const numericEntity = /&#(?:(\d{1,7})|[xX]([0-9a-fA-F]{1,6}));/g

/** HTML entities read: the named ones of the characters HTML escapes (`&amp;` last), then the numeric ones. */
const decodeEntities = (text: string): string => {
  if (!text.includes("&")) return text
  const named = text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", "\"").replaceAll("&apos;", "'").replaceAll("&amp;", "&")
  return !named.includes("&#") ? named : named.replace(numericEntity, (whole, decimal: string | undefined, hex: string | undefined) => {
    const code = decimal !== undefined ? Number(decimal) : Number.parseInt(hex!, 16)
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole
  })
}

/** A run of percent-encoded bytes, hex digits of either case. */
const escapes = /(?:%[0-9a-fA-F]{2})+/g

/** One round of percent-decoding (in a run that is not UTF-8, the ASCII bytes only). */
const percentDecode = (text: string): string =>
  !text.includes("%") ? text : text.replace(escapes, (run) => {
    try {
      return decodeURIComponent(run)
    } catch {
      return run.replace(/%([0-7][0-9a-fA-F])/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    }
  })

/**
 * A text in the one form every spelling of a secret comes to: HTML entities
 * (named and numeric) and percent-encoding (hex digits of either case, every
 * character or only some: whatever subset an encoder escapes) read, in turn,
 * until nothing changes (three rounds at most),
 * `\/` as `/`, `+` as a space (form encoding). A JSON string's escapes
 * (`\u002f`) are read by parsing the body first.
 */
const normalize = (text: string): string => {
  // entities and percent-encoding in any order (a text HTML-escaped, then percent-encoded, or escaped twice), three rounds at most
  let out = text
  for (let round = 0; round < 3; round++) {
    const next = percentDecode(decodeEntities(out))
    if (next === out) break
    out = next
  }
  return out.replaceAll("\\/", "/").replaceAll("+", " ")
}

/** HTML-escaped: `&`, `<`, `>`, `"` and `'`. */
const htmlEscaped = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\"", "&quot;").replaceAll("'", "&#39;")

/**
 * What `secret` comes to once normalized, in each way a server may have
 * written it: as it is, percent-encoded once or twice, HTML-escaped (a secret
 * holding `%` or `&` normalizes differently in each). Keys too weak to tell
 * a secret from ordinary text (under 6 characters other than spaces) are
 * left out.
 */
const keysOf = (secret: string): ReadonlyArray<string> => spellingsOf(secret).map(normalize).filter(strong)

/** The ways a server may have written `secret`, as written: as it is, percent-encoded once or twice, HTML-escaped. */
const spellingsOf = (secret: string): ReadonlyArray<string> => {
  const once = encodeURIComponent(secret)
  return [secret, once, once.replaceAll("%", "%25"), htmlEscaped(secret)]
}

/** A key that tells a secret from ordinary text: 6 characters or more other than spaces. */
const strong = (key: string): boolean => key.replaceAll(" ", "").length >= 6

/** A character of an escape or an encoding `normalize` reads (or `htmlEscaped` writes). */
const escaping = /[%&\\+<>"']/

/**
 * `scrubber(secrets).text(text)`, for a short text read from every response
 * (a request id), without building the scrubber in the common case: a text
 * and secrets without a character of an escape or an encoding are their own
 * normal forms (every key of such a secret is the secret itself), so the
 * text holds a secret only if it holds it as it is.
 *
 * @internal
 */
export const scrubText = (secrets: ReadonlyArray<string>, text: string): string => {
  if (secrets.length === 0 || text.length < 6) return text
  if (!escaping.test(text) && !secrets.some((secret) => escaping.test(secret)) && !secrets.some((secret) => text.includes(secret))) return text
  return scrubber(secrets).text(text)
}

/**
 * What takes a request's secrets out of server text.
 *
 * @internal
 */
export interface Scrubber {
  /**
   * `text` itself when it holds no secret in any spelling; else its
   * normalized form (entities and percent-encoding read) with each secret
   * replaced by `<redacted>`, overlapping ones as one.
   */
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
 * The scrubber of `secrets`: a text is searched for each secret's spellings
 * as written (cut there first), then normalized once (linear in its length,
 * see {@link normalize}) and searched for each secret's keys (`includes`);
 * only a text that holds one is cut, at every occurrence of every key,
 * overlapping ones merged.
 *
 * @internal
 */
export const scrubber = (secrets: ReadonlyArray<string>): Scrubber => {
  if (secrets.length === 0) return none
  const keys = [...new Set(secrets.flatMap(keysOf))].sort((a, b) => b.length - a.length)
  if (keys.length === 0) return none
  // the spellings as written: normalizing a whole text reads an escape that a secret's neighbour
  // completes (`<secret>%4` before `1`, `...%` + `41<secret>`, a `\` before `/`), so that the
  // secret is no longer in it; found as it is first, each is cut before the text is normalized
  const raw = [...new Set(secrets.flatMap(spellingsOf).filter(strong))].sort((a, b) => b.length - a.length)
  // normalizing never lengthens a text: one shorter than every key holds none
  const shortest = keys.at(-1)!.length
  const text = (value: string) => {
    if (value.length < shortest) return value
    const cut = raw.some((spelling) => value.includes(spelling)) ? redacted(value, raw) : value
    const normal = normalize(cut)
    return cut !== value || keys.some((key) => normal.includes(key)) ? redacted(normal, keys) : value
  }
  return { text, json: (json) => scrubStrings(json, text) }
}

/** `text` with every occurrence of every key replaced by `<redacted>`, overlapping or adjacent ones merged into one. */
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

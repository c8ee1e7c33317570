/**
 * The secrets a request carries, and server text with them taken out: a
 * server that echoes a credential in an error (`detail`, an OAuth
 * `error_description`) must not put it into the SDK's errors or logs.
 *
 * @internal
 */
import type { HttpClientRequest } from "effect/http"
import { isCredentialHeader, isCredentialParameter } from "@connected-vehicle/schema/Redaction"
import { normalize, normalizeTraced } from "./normalize.ts"

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

/** HTML-escaped: `&`, `<`, `>`, `"` and `'`. */
const htmlEscaped = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\"", "&quot;").replaceAll("'", "&#39;")

/**
 * What `secret` comes to once normalized, in each way a server may have
 * written it: as it is, percent-encoded once or twice, HTML-escaped,
 * JSON-escaped (a secret holding `%`, `&` or `"` normalizes differently in
 * each; one escaped with `\uXXXX` or `\\` normalizes as it is). Keys too weak to tell
 * a secret from ordinary text (under 6 characters other than spaces) are
 * left out.
 */
const keysOf = (secret: string): ReadonlyArray<string> => spellingsOf(secret).map(normalize).filter(strong)

/**
 * The ways a server may have written `secret`, as written: as it is,
 * percent-encoded once or twice, HTML-escaped, as the inside of a JSON string
 * (its `"` and `\\` escaped: a JSON text echoed in a header).
 */
const spellingsOf = (secret: string): ReadonlyArray<string> => {
  const once = encodeURIComponent(secret)
  return [secret, once, once.replaceAll("%", "%25"), htmlEscaped(secret), JSON.stringify(secret).slice(1, -1)]
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
   * place. Its strings share one budget of tracing ({@link TRACE_BUDGET}):
   * past it, a string that holds a secret as written is withheld whole, so
   * that a body echoing a secret in many strings costs time in proportion
   * to its length.
   */
  readonly json: (json: unknown) => unknown
}

const none: Scrubber = { text: (text) => text, json: (json) => json }

/**
 * The scrubber of `secrets`: a text is normalized (linear in its length, see
 * {@link normalize}) and searched for each secret's keys (`includes`), and
 * searched for each secret's spellings as written (normalizing a whole text
 * reads an escape that a secret's neighbour completes, `<secret>%4` before
 * `1`, so that the secret is no longer in its normal form). Only a text that
 * holds one is cut, at the union of both: every spelling as written and,
 * traced back to the text, every key in its normal form (so a secret
 * overlapping another one found as written is hidden whole), then
 * normalized; such a text over 256 KiB is withheld whole, and so is one
 * of a body's strings past the body's budget (`json`).
 *
 * @internal
 */
export const scrubber = (secrets: ReadonlyArray<string>): Scrubber => {
  if (secrets.length === 0) return none
  const keys = [...new Set(secrets.flatMap(keysOf))].sort((a, b) => b.length - a.length)
  if (keys.length === 0) return none
  const raw = [...new Set(secrets.flatMap(spellingsOf).filter(strong))].sort((a, b) => b.length - a.length)
  // normalizing never lengthens a text: one shorter than every key and every spelling holds none
  const shortest = Math.min(keys.at(-1)!.length, raw.at(-1)!.length)
  const text = (value: string, budget?: Budget) => {
    if (value.length < shortest) return value
    if (!raw.some((spelling) => value.includes(spelling))) {
      const normal = normalize(value)
      return keys.some((key) => normal.includes(key)) ? redacted(normal, spansOf(normal, keys)) : value
    }
    // a spelling as written: cut it and every key of the normal form, traced back to the text; a text
    // past the budget is withheld whole (tracing it costs too much, and a cut inside it could split a
    // secret spelled otherwise beside one found as written)
    if (value.length > TRACE_BUDGET || !spend(budget, value.length)) return "<redacted>"
    const traced = normalizeTraced(value)
    const spans = spansOf(value, raw)
    for (const [start, end] of spansOf(traced.text, keys)) spans.push([traced.from[start]!, traced.to[end - 1]!])
    const normal = normalize(redacted(value, spans))
    return redacted(normal, spansOf(normal, keys))
  }
  return {
    text: (value) => text(value),
    json: (json) => {
      const budget: Budget = { left: TRACE_BUDGET }
      return scrubStrings(json, (value) => text(value, budget))
    }
  }
}

/** What is left of the tracing a body's strings share ({@link TRACE_BUDGET}). */
interface Budget {
  left: number
}

/**
 * Whether a text of `length` may be traced within `budget` (none: a text
 * alone, bounded by its length), taking its cost from it: its length, plus
 * {@link TRACE_COST} for the text itself.
 */
const spend = (budget: Budget | undefined, length: number): boolean => {
  if (budget === undefined) return true
  const cost = length + TRACE_COST
  if (cost > budget.left) return false
  budget.left -= cost
  return true
}

/**
 * The cost of tracing a text besides its characters (its setting up: some
 * microseconds, as much as some dozens of characters), so that many short
 * strings that each hold a secret spend a body's budget as one long text would.
 */
const TRACE_COST = 64

/**
 * The longest text the scrubber traces back ({@link scrubber}: one that
 * holds a secret as written: 256 KiB), and the budget of tracing a body's
 * strings share (`json`); a longer one, or one past the budget, is withheld whole (`<redacted>`:
 * more than the secret, never less), so that a hostile body echoing a
 * secret costs time in proportion to a bounded length.
 */
const TRACE_BUDGET = 1 << 18

/** Where each of `forms` occurs in `text`: `[start, end)`, overlapping ones included. */
const spansOf = (text: string, forms: ReadonlyArray<string>): Array<readonly [number, number]> => {
  const spans: Array<readonly [number, number]> = []
  for (const form of forms) {
    for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) spans.push([at, at + form.length])
  }
  return spans
}

/** `text` with each span replaced by `<redacted>`, overlapping or adjacent ones merged into one. */
const redacted = (text: string, spans: Array<readonly [number, number]>): string => {
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

/**
 * Every string of a JSON value (values and keys) through `scrub`, in place,
 * without recursion (any depth), in the order the body writes them (the
 * first of an envelope's items, which an error shows, before the others).
 */
const scrubStrings = (json: unknown, scrub: (text: string) => string): unknown => {
  if (typeof json === "string") return scrub(json)
  const pending: Array<unknown> = [json]
  while (pending.length > 0) {
    const node = pending.pop()
    if (typeof node !== "object" || node === null) continue
    const record = node as Record<string, unknown>
    const keyed = !Array.isArray(node)
    const inner: Array<unknown> = []
    for (const key of Object.keys(record)) {
      const value = record[key]
      if (typeof value === "string") record[key] = scrub(value)
      else if (typeof value === "object" && value !== null) inner.push(value)
      const scrubbed = keyed ? scrub(key) : key
      if (scrubbed !== key) {
        Object.defineProperty(record, scrubbed, { value: record[key], enumerable: true, writable: true, configurable: true })
        delete record[key]
      }
    }
    for (let k = inner.length - 1; k >= 0; k--) pending.push(inner[k])
  }
  return json
}

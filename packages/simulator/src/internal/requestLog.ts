/**
 * The request log of a simulator's `State`: a ring of the last requests,
 * each kept within a bounded size (URL, header count and characters), split
 * and redacted (credential headers and query parameters) when read.
 *
 * @internal
 */
import type { RequestLogEntry } from "../State.ts"
import { generatedRequestId } from "./stateRecords.ts"
import { isCredentialHeader, isCredentialParameter } from "@connected-vehicle/schema/Redaction"

/** A logged URL keeps at most this many characters; the rest is cut, with a marker. */
export const LOG_URL_CHARS = 1_024

/** A logged request keeps at most this many headers, the first it carried ... */
export const LOG_HEADER_COUNT = 16

/** ... and this many characters of their names and values in all; the value that goes over is cut, with a marker. */
export const LOG_HEADER_CHARS = 1_024

/**
 * Request headers as logged: Node's own record (a repeated header is an
 * array, joined with ", " when the log is read) or the application's.
 */
export type LoggedHeaders = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/**
 * A log slot: what the request carried, split and redacted when read. A
 * generated request id is kept as its number (`req-<seed>-<n>` when read).
 * The slot of a request logged once answered (`reusable`) is rewritten in
 * place when the ring comes round to it: no new object per request.
 */
interface LogSlot {
  method: string
  url: string
  /** The request's own headers, or a bounded copy as names and values in turn (fewer objects to keep). */
  headers: LoggedHeaders | ReadonlyArray<string>
  /** Whether the URL or headers were cut to the bounds above. */
  truncated: boolean
  requestId: string | number
  status: number
  readonly reusable: boolean
}

const valueOf = (value: string | ReadonlyArray<string>) => typeof value === "string" ? value : value.join(", ")

/** A header that may carry a credential (`isCredentialHeader` of `@connected-vehicle/schema/Redaction`) is logged as `<redacted>`. */
const shown = (key: string, value: string | ReadonlyArray<string>) => isCredentialHeader(key) ? "<redacted>" : valueOf(value)

/** The marker of a cut URL (see {@link cut}), kept when the value it ends is redacted. */
const CUT_MARKER = /\.\.\.\[\d+ more characters\]$/

const decodedName = (name: string): string => {
  try {
    return decodeURIComponent(name.replaceAll("+", " "))
  } catch {
    return name
  }
}

/**
 * A logged query with the value of each credential parameter
 * (`isCredentialParameter` of `@connected-vehicle/schema/Redaction`, the
 * transport's rule, tested on the decoded name) as `<redacted>`: parameters are separated by
 * `&` or `;`, and the names, the separators, the other parameters and their
 * order are kept as sent.
 */
export const redactQuery = (query: string): string => {
  let redacted = false
  // the parameters at even indexes, each separator after the one before it
  const parts = query.split(/([&;])/).map((part, index) => {
    const eq = part.indexOf("=")
    if (index % 2 === 1 || eq === -1 || !isCredentialParameter(decodedName(part.slice(0, eq)))) return part
    redacted = true
    return `${part.slice(0, eq)}=<redacted>${CUT_MARKER.exec(part.slice(eq + 1))?.[0] ?? ""}`
  })
  return redacted ? parts.join("") : query
}

/** Whether a request's URL and headers are within the bounds, so kept as they are (no copy). */
const withinBounds = (url: string, headers: LoggedHeaders): boolean => {
  if (url.length > LOG_URL_CHARS) return false
  let count = 0
  let chars = 0
  for (const key in headers) {
    const value = headers[key]
    if (value === undefined) continue
    chars += key.length + (typeof value === "string" ? value.length : valueOf(value).length)
    if (++count > LOG_HEADER_COUNT || chars > LOG_HEADER_CHARS) return false
  }
  return true
}

/**
 * The first `keep` characters of `text` and a marker of how many were cut, as
 * a string of its own (a slice of a long string would keep all of it alive),
 * one byte a character when it can be.
 */
const cut = (text: string, keep: number) => {
  const kept = `${text.slice(0, keep)}...[${text.length - keep} more characters]`
  const encoding = /[^\u0000-\u00ff]/.test(kept) ? "utf16le" : "latin1"
  return Buffer.from(kept, encoding).toString(encoding)
}

/**
 * A copy of a request's URL and headers within the bounds (see
 * {@link LOG_URL_CHARS}); a credential (`isCredentialHeader`) is kept as `<redacted>` (what a
 * read shows), and `truncated` says whether anything a read shows was cut.
 */
const bounded = (url: string, headers: LoggedHeaders) => {
  const kept: Array<string> = []
  let truncated = url.length > LOG_URL_CHARS
  let count = 0
  let left = LOG_HEADER_CHARS
  for (const key in headers) {
    const value = headers[key]
    if (value === undefined) continue
    const text = shown(key, value)
    if (count === LOG_HEADER_COUNT || key.length + Math.min(text.length, 1) > left) {
      truncated = true
      break
    }
    left -= key.length
    kept.push(key, text.length <= left ? text : cut(text, left))
    truncated ||= text.length > left
    left -= Math.min(text.length, left)
    count++
  }
  return { url: url.length > LOG_URL_CHARS ? cut(url, LOG_URL_CHARS) : url, headers: kept as ReadonlyArray<string>, truncated }
}

const entryOf = (seed: number, slot: LogSlot): RequestLogEntry => {
  const q = slot.url.indexOf("?")
  const headers: Record<string, string> = {}
  if (Array.isArray(slot.headers)) {
    for (let i = 0; i < slot.headers.length; i += 2) headers[slot.headers[i]!] = slot.headers[i + 1]!
  } else {
    const record = slot.headers as LoggedHeaders
    for (const key in record) {
      const value = record[key]
      if (value === undefined) continue
      headers[key] = shown(key, value)
    }
  }
  return {
    method: slot.method,
    path: q === -1 ? slot.url : slot.url.slice(0, q),
    query: q === -1 ? "" : redactQuery(slot.url.slice(q + 1)),
    headers,
    status: slot.status,
    requestId: typeof slot.requestId === "number" ? generatedRequestId(seed, slot.requestId) : slot.requestId,
    ...(slot.truncated ? { truncated: true } as const : {})
  }
}

/** A ring of at most `limit` slots; `logged` counts the requests since the last reset. */
export class RequestLog {
  private slots: Array<LogSlot> = []
  private logged = 0
  private readonly limit: number
  private readonly seed: number

  constructor(limit: number, seed: number) {
    this.limit = limit
    this.seed = seed
  }

  /** Logs a request (status 0 until the response sets it). */
  record(method: string, url: string, headers: LoggedHeaders, requestId: string): { status: number } {
    const kept = withinBounds(url, headers) ? { url, headers, truncated: false } : bounded(url, headers)
    return this.push({ method, ...kept, requestId, status: 0, reusable: false })
  }

  /** Logs a request already answered with `status`, in a slot rewritten in place when the ring comes round to it. */
  recordAnswered(method: string, url: string, headers: LoggedHeaders, requestId: string | number, status: number): void {
    if (!withinBounds(url, headers)) {
      this.push({ method, ...bounded(url, headers), requestId, status, reusable: false })
      return
    }
    const slot = this.slots.length < this.limit ? undefined : this.slots[this.logged % this.limit]
    if (slot === undefined || !slot.reusable) {
      this.push({ method, url, headers, truncated: false, requestId, status, reusable: true })
      return
    }
    slot.method = method
    slot.url = url
    slot.headers = headers
    slot.truncated = false
    slot.requestId = requestId
    slot.status = status
    this.logged++
  }

  private push(slot: LogSlot): LogSlot {
    if (this.slots.length < this.limit) this.slots.push(slot)
    else this.slots[this.logged % this.limit] = slot
    this.logged++
    return slot
  }

  /** The logged requests, oldest first: all, or the newest `newest`. */
  entries(newest = Infinity): ReadonlyArray<RequestLogEntry> {
    const n = this.slots.length
    const oldest = n < this.limit ? 0 : this.logged % this.limit
    const out: Array<RequestLogEntry> = []
    for (let i = Math.max(0, n - newest); i < n; i++) out.push(entryOf(this.seed, this.slots[(oldest + i) % n]!))
    return out
  }

  reset(): void {
    this.slots = []
    this.logged = 0
  }
}

/**
 * Where a request goes, as undici's `dispatch` takes it (origin, path with
 * query, and the whole URL), read off the request's URL string without
 * `new URL` when that string is already in the form the URL parser would
 * give back: a lowercase `http`/`https` scheme, a plain host (lowercase
 * ASCII labels, or a dotted IPv4 address in its canonical form), a port that
 * is not the default one, a path of characters the parser leaves as they
 * are and no dot segment, no query and no fragment in the string (the
 * request's `urlParams` are serialized as the parser's `searchParams` would
 * serialize them). Anything else is `undefined`: the caller parses it with
 * `Url.make`. A cold `new URL` costs several microseconds per request in a
 * client that waits on the network between requests (`docs/upstream.md`);
 * the test compares this with `Url.make` on generated URLs.
 *
 * @internal
 */
import type { Option } from "effect"
import { UrlParams } from "effect/http"

/** @internal */
export interface Target {
  readonly href: string
  readonly origin: string
  /** The path and the query, as undici's `dispatch` takes them. */
  readonly path: string
}

/** The origin of the last URL whose authority was found plain (`scheme://authority`, no slash). */
let lastOrigin: string | undefined = undefined

/**
 * The target of a request's URL, parameters and fragment, or `undefined`
 * when only the URL parser can tell.
 *
 * @internal
 */
export const targetOf = (url: string, params: UrlParams.UrlParams, hash: Option.Option<string>): Target | undefined => {
  if (hash._tag === "Some") return undefined
  const start = url.startsWith("http://") ? 7 : url.startsWith("https://") ? 8 : 0
  if (start === 0) return undefined
  const slash = url.indexOf("/", start)
  if (slash === -1) return undefined
  // the origin of the last URL read again (a client sends to one or a few): its check is not repeated
  const known = lastOrigin !== undefined && slash === lastOrigin.length && url.startsWith(lastOrigin)
  if (!known) {
    if (!plainAuthority(url, start, slash, start === 8 ? 443 : 80)) return undefined
    lastOrigin = url.slice(0, slash)
  }
  if (!plainPath(url, slash)) return undefined
  let search = ""
  if (params.params.length > 0) {
    try {
      search = `?${UrlParams.toString(params)}`
    } catch {
      // a value it cannot serialize (a wiped `Redacted`, say): the parser's answer, and its error
      return undefined
    }
  }
  return { href: url + search, origin: lastOrigin!, path: url.slice(slash) + search }
}

/** `host[:port]` between `start` and `end`: plain labels or a canonical IPv4 address, a port other than the default. */
const plainAuthority = (url: string, start: number, end: number, defaultPort: number): boolean => {
  // the host: labels of lowercase letters, digits and `-`, single dots between them
  let label = start
  let labels = 1
  let i = start
  for (; i < end; i++) {
    const c = url.charCodeAt(i)
    if (c === 46) {
      if (i === label) return false
      label = i + 1
      labels++
    } else if (c === 58) {
      break
    } else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45)) {
      return false
    }
  }
  const hostEnd = i
  if (hostEnd === label) return false
  if (hostEnd < end && !plainPort(url, hostEnd + 1, end, defaultPort)) return false
  // a host whose last label is a number is an IPv4 address to the parser:
  // only its canonical form is kept as it is
  if (isNumber(url, label, hostEnd)) return labels === 4 && canonicalIpv4(url, start, hostEnd)
  // a punycode label is checked (and may be refused) by the parser
  for (let l = start; l < hostEnd; l = url.indexOf(".", l) + 1 || hostEnd) {
    if (url.startsWith("xn--", l)) return false
  }
  return true
}

/** Digits only, no leading zero, at most 65535, not the scheme's default. */
const plainPort = (url: string, start: number, end: number, defaultPort: number): boolean => {
  if (end === start || end - start > 5 || url.charCodeAt(start) === 48) return false
  let port = 0
  for (let i = start; i < end; i++) {
    const c = url.charCodeAt(i)
    if (c < 48 || c > 57) return false
    port = port * 10 + c - 48
  }
  return port <= 65535 && port !== defaultPort
}

const isDigit = (c: number) => c >= 48 && c <= 57

/** A label the parser reads as a number: digits, or `0x` and hex digits. */
const isNumber = (url: string, start: number, end: number): boolean => {
  let i = start
  if (end - start >= 2 && url.charCodeAt(start) === 48 && url.charCodeAt(start + 1) === 120) i += 2
  for (; i < end; i++) {
    const c = url.charCodeAt(i)
    if (!(isDigit(c) || (i > start + 1 && url.charCodeAt(start + 1) === 120 && c >= 97 && c <= 102))) return false
  }
  return true
}

/** Four decimal parts (checked by the caller), each 0 to 255 without a leading zero. */
const canonicalIpv4 = (url: string, start: number, end: number): boolean => {
  let part = start
  for (let i = start; i <= end; i++) {
    if (i < end && url.charCodeAt(i) !== 46) {
      if (!isDigit(url.charCodeAt(i))) return false
      continue
    }
    const length = i - part
    if (length === 0 || length > 3 || (length > 1 && url.charCodeAt(part) === 48)) return false
    if (length === 3 && Number(url.slice(part, i)) > 255) return false
    part = i + 1
  }
  return true
}

/** The characters a path keeps as they are through the parser (no `?`, `#`, `\\`, space, quote, non-ASCII, ...). */
const pathCharacters = new Uint8Array(128)
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@%/") pathCharacters[c.charCodeAt(0)] = 1

/**
 * A path (from `start`, the first `/`) of characters the parser neither
 * encodes nor reads otherwise, without a dot segment (`.`, `..`, `%2e`, ...).
 */
const plainPath = (url: string, start: number): boolean => {
  let segment = start + 1
  for (let i = segment; i <= url.length; i++) {
    if (i < url.length) {
      const c = url.charCodeAt(i)
      if (c >= 128 || pathCharacters[c] === 0) return false
      if (c !== 47) continue
    }
    if (i - segment <= 6 && isDotSegment(url, segment, i)) return false
    segment = i + 1
  }
  return true
}

/** `.` or `..`, each dot written as `.` or `%2e` (any case). */
const isDotSegment = (url: string, start: number, end: number): boolean => {
  let dots = 0
  for (let i = start; i < end; i++) {
    if (url.charCodeAt(i) === 46) {
      dots++
    } else if (url.charCodeAt(i) === 37 && url.charCodeAt(i + 1) === 50 && (url.charCodeAt(i + 2) | 32) === 101 && i + 2 < end) {
      dots++
      i += 2
    } else {
      return false
    }
  }
  return dots === 1 || dots === 2
}

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
  if (slash === -1 || !plainAuthority(url, start, slash, start === 8 ? "443" : "80") || !plainPath(url, slash)) return undefined
  const search = params.params.length === 0 ? "" : `?${UrlParams.toString(params)}`
  return { href: url + search, origin: url.slice(0, slash), path: url.slice(slash) + search }
}

/** `host[:port]` between `start` and `end`: plain labels or a canonical IPv4 address, a port other than the default. */
const plainAuthority = (url: string, start: number, end: number, defaultPort: string): boolean => {
  const colon = url.indexOf(":", start)
  const hostEnd = colon === -1 || colon > end ? end : colon
  if (hostEnd < end) {
    const port = url.slice(hostEnd + 1, end)
    if (!/^[1-9][0-9]{0,4}$/.test(port) || Number(port) > 65535 || port === defaultPort) return false
  }
  const host = url.slice(start, hostEnd)
  if (!/^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/.test(host)) return false
  const last = host.slice(host.lastIndexOf(".") + 1)
  // a host whose last label is a number is an IPv4 address to the parser: only its canonical form is kept as is
  if (/^(?:[0-9]+|0x[0-9a-f]*)$/.test(last)) return /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])$/.test(host)
  // a punycode label is checked (and may be refused) by the parser
  return !/(?:^|\.)xn--/.test(host)
}

/**
 * A path (from `start`, the first `/`) of characters the parser neither
 * encodes nor reads otherwise, without a dot segment (`.`, `..`, `%2e`, ...).
 */
const plainPath = (url: string, start: number): boolean => {
  if (!/^(?:\/[A-Za-z0-9\-._~!$&'()*+,;=:@%]*)+$/.test(url.slice(start))) return false
  let segment = start + 1
  for (let i = segment; i <= url.length; i++) {
    if (i < url.length && url.charCodeAt(i) !== 47) continue
    if (i - segment <= 6) {
      const dots = url.slice(segment, i).replace(/%2e/gi, ".")
      if (dots === "." || dots === "..") return false
    }
    segment = i + 1
  }
  return true
}

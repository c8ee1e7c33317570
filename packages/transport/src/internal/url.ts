/**
 * URLs as the SDK shows them, in errors and log lines.
 *
 * @internal
 */
import type { UrlParams } from "effect/http"
import { isCredentialParameter } from "@connected-vehicle/schema/Redaction"

/** `a=1&b=2` with the value of each credential-like name replaced with `<redacted>`. */
const redactParams = (params: string): string =>
  params.split("&").map((pair) => {
    const eq = pair.indexOf("=")
    const name = eq === -1 ? pair : pair.slice(0, eq)
    let decoded = name
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, " "))
    } catch {
      // keep the raw name
    }
    return eq !== -1 && isCredentialParameter(decoded) ? `${name}=<redacted>` : pair
  }).join("&")

/**
 * A URL with the value of any query or fragment parameter named like a
 * credential (`access_token`, `client_secret`, `code`, `state`, `api_key`,
 * ...) replaced with `<redacted>` (an OAuth implicit redirect carries its
 * token in the fragment).
 *
 * @internal
 */
export const redactUrl = (url: string): string => {
  const hash = url.indexOf("#")
  const beforeHash = hash === -1 ? url : url.slice(0, hash)
  const query = beforeHash.indexOf("?")
  const path = query === -1 ? beforeHash : `${beforeHash.slice(0, query)}?${redactParams(beforeHash.slice(query + 1))}`
  if (hash === -1) return path
  // `#a=1&b=2`, or a client-side route with a query (`#/cb?code=...`)
  const fragment = url.slice(hash + 1)
  const inner = fragment.indexOf("?")
  const params = (part: string) => part.includes("=") ? redactParams(part) : part
  if (inner !== -1) return `${path}#${params(fragment.slice(0, inner))}?${redactParams(fragment.slice(inner + 1))}`
  return `${path}#${params(fragment)}`
}

/**
 * A URL as the SDK shows it (in errors and log lines): user info removed and
 * credential-like parameter values redacted ({@link redactUrl}). The SDK
 * sends no secret in a URL, but a redirect's `location` (an OAuth
 * callback's `code`, `state`), a configured root with user info or a URL
 * mapped by a `transformClient` hook may carry one.
 *
 * @internal
 */
export const withoutCredentials = (url: string, urlParams?: UrlParams.UrlParams): string => redactUrl(withoutUserInfo(url, urlParams))

const withoutUserInfo = (url: string, urlParams?: UrlParams.UrlParams): string => {
  try {
    const u = new URL(url)
    u.username = ""
    u.password = ""
    if (urlParams !== undefined) {
      for (const [key, value] of urlParams.params) {
        if (value !== undefined) u.searchParams.append(key, String(value))
      }
    }
    return u.toString()
  } catch {
    // the whole user information: up to the authority's last `@` (a password may hold one)
    return url.replace(/\/\/[^/?#]*@/, "//")
  }
}

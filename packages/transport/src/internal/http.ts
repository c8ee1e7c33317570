/**
 * @internal
 */
import type { UrlParams } from "effect/http"

/**
 * The URL of a request with user info removed (query kept: no secret is ever
 * sent in a query string by this SDK).
 *
 * @internal
 */
export const withoutCredentials = (url: string, urlParams?: UrlParams.UrlParams): string => {
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
    return url.replace(/\/\/[^@/]*@/, "//")
  }
}

/**
 * `Retry-After` as delay-seconds or an HTTP date, in milliseconds from `now`.
 *
 * @internal
 */
export const parseRetryAfter = (value: string, now: number): number | undefined => {
  const trimmed = value.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000)
  const date = Date.parse(trimmed)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}

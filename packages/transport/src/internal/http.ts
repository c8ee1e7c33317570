/**
 * @internal
 */
import { Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import type { HttpClient, UrlParams } from "effect/http"
import { redactUrl } from "./log.ts"

/**
 * `fetch`, following no redirect (the service never redirects; a 3xx is the
 * call's `UnexpectedStatus`).
 *
 * @internal
 */
export const layerFetch: Layer.Layer<HttpClient.HttpClient> = FetchHttpClient.layer.pipe(
  Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { redirect: "manual" }))
)

/**
 * A URL as the SDK shows it (in errors and log lines): user info removed and
 * the value of any query parameter named like a credential replaced with
 * `<redacted>` (see `redactUrl`). The SDK sends no secret in a query
 * string, but a redirect's `location` (an OAuth callback's `code`, `state`)
 * or a URL mapped by a `transformClient` hook may carry one.
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
    return url.replace(/\/\/[^@/]*@/, "//")
  }
}

/**
 * @internal
 */
import { Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import type { HttpClient, UrlParams } from "effect/http"

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

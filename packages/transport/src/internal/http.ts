/**
 * @internal
 */
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import type { HttpClient, UrlParams } from "effect/http"

/** Node itself (not Bun or Deno, whose `fetch` is native). */
const isNode = (): boolean => {
  const runtime = globalThis as { readonly process?: { readonly versions?: { readonly node?: unknown } } }
  return typeof runtime.process?.versions?.node === "string" && !("Bun" in globalThis) && !("Deno" in globalThis)
}

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
 * `UndiciHttpClient.layer()` on Node (imported when the layer is built, so
 * that other runtimes never load undici), else {@link layerFetch}.
 *
 * @internal
 */
export const platformHttpClient: Effect.Effect<Layer.Layer<HttpClient.HttpClient>> = Effect.suspend(() =>
  isNode()
    ? Effect.matchEffect(Effect.tryPromise(() => import("../UndiciHttpClient.ts")), {
      onSuccess: (module) => Effect.succeed(module.layer()),
      onFailure: (error) =>
        Effect.as(
          Effect.logWarning("undici cannot be loaded: the SDK uses FetchHttpClient").pipe(
            Effect.annotateLogs({ reason: String(error.cause) })
          ),
          layerFetch
        )
    })
    : Effect.succeed(layerFetch)
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

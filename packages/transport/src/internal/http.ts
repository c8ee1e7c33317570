/**
 * @internal
 */
import { Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import type { HttpClient } from "effect/http"

/**
 * `fetch`, following no redirect (the service never redirects; a 3xx is the
 * call's `UnexpectedStatus`).
 *
 * @internal
 */
export const layerFetch: Layer.Layer<HttpClient.HttpClient> = FetchHttpClient.layer.pipe(
  Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { redirect: "manual" }))
)

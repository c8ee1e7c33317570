/**
 * What an `HttpClient` says of a response body it refused because it is
 * larger than the client's size limit: the failure of the body's read (an
 * `HttpClientError`, a `DecodeError` say) has a {@link ResponseTooLarge} as
 * its `cause`. The transport makes such a 2xx an `InvalidResponse` naming
 * the limit (not retried), and an error status the reason of its status,
 * its detail naming the limit, whatever the client. `UndiciHttpClient`
 * reports its `maxResponseBytes` so; Effect's `FetchHttpClient` and
 * `NodeHttpClient` have no limit.
 *
 * @since 0.3.0
 */

/**
 * The cause of the failed read of a body over the client's size limit of
 * `limit` bytes.
 *
 * @example
 * ```ts
 * import { HttpClientError } from "effect/http"
 * import type { HttpClientResponse } from "effect/http"
 * import { ResponseTooLarge } from "@connected-vehicle/transport/ResponseTooLarge"
 *
 * const refused = (response: HttpClientResponse.HttpClientResponse, limit: number) => {
 *   const cause = new ResponseTooLarge(limit)
 *   return new HttpClientError.HttpClientError({
 *     reason: new HttpClientError.DecodeError({ request: response.request, response, description: cause.message, cause })
 *   })
 * }
 * ```
 * @since 0.3.0
 * @category models
 */
export class ResponseTooLarge extends Error {
  override readonly name = "ResponseTooLarge"
  /** The client's limit, in bytes. */
  readonly limit: number
  constructor(limit: number) {
    super(`The response body is larger than the limit of ${limit} bytes`)
    this.limit = limit
  }
}

/**
 * The {@link ResponseTooLarge} along the `cause` chain of a failure, if
 * there is one.
 *
 * @example
 * ```ts
 * import { ResponseTooLarge, tooLargeIn } from "@connected-vehicle/transport/ResponseTooLarge"
 *
 * tooLargeIn(new Error("read failed", { cause: new ResponseTooLarge(1024) }))?.limit // 1024
 * tooLargeIn(new Error("socket hang up")) // undefined
 * ```
 * @since 0.3.0
 * @category guards
 */
export const tooLargeIn = (cause: unknown): ResponseTooLarge | undefined => {
  // a bounded walk: a cause chain may loop
  for (let i = 0, error = cause; i < 8 && typeof error === "object" && error !== null; i++) {
    if (error instanceof ResponseTooLarge) return error
    error = (error as { readonly cause?: unknown }).cause
  }
  return undefined
}

/**
 * What an `HttpClient` says of a response body it refused because it is
 * larger than the client's size limit: the failure of the body's read (an
 * `HttpClientError`, a `DecodeError` say) has a {@link ResponseTooLarge} as
 * its `cause`. The transport makes such a 2xx an `InvalidResponse` naming
 * the limit (not retried), and an error status the reason of its status,
 * its detail naming the limit, whatever the client. `UndiciHttpClient`
 * reports its `maxResponseBytes` so; Effect's `node:http` client
 * (`NodeHttpClient.layerNodeHttp`) reads bodies up to
 * `HttpIncomingMessage.MaxBodySize` when that is set, and its read of a
 * larger one fails with `@effect/platform-node`'s `NodeStream.MaxBytesError`,
 * which the transport takes the same way ({@link tooLargeIn}). Effect's
 * `FetchHttpClient` and `NodeHttpClient.layerUndici` have no limit.
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
 * there is one; a `MaxBytesError` of `@effect/platform-node`'s `NodeStream`
 * (the failed read of a body over `HttpIncomingMessage.MaxBodySize`) is one
 * of its `maxBytes`. That class is told by its public `_tag` and `maxBytes`
 * (`@effect/platform-node` is an optional peer of the transport: not
 * imported).
 *
 * @example
 * ```ts
 * import { NodeStream } from "@effect/platform-node"
 * import { ResponseTooLarge, tooLargeIn } from "@connected-vehicle/transport/ResponseTooLarge"
 *
 * tooLargeIn(new Error("read failed", { cause: new ResponseTooLarge(1024) }))?.limit // 1024
 * tooLargeIn(new NodeStream.MaxBytesError(16))?.limit // 16
 * tooLargeIn(new Error("socket hang up")) // undefined
 * ```
 * @since 0.3.0
 * @category guards
 */
export const tooLargeIn = (cause: unknown): ResponseTooLarge | undefined => {
  // a bounded walk: a cause chain may loop
  for (let i = 0, error = cause; i < 8 && typeof error === "object" && error !== null; i++) {
    if (error instanceof ResponseTooLarge) return error
    if (isMaxBytesError(error)) return new ResponseTooLarge(error.maxBytes)
    error = (error as { readonly cause?: unknown }).cause
  }
  return undefined
}

/** `@effect/platform-node`'s `NodeStream.MaxBytesError` (`_tag` and `maxBytes` are its public fields). */
const isMaxBytesError = (error: object): error is Error & { readonly maxBytes: number } =>
  error instanceof Error && (error as { readonly _tag?: unknown })._tag === "MaxBytesError" &&
  typeof (error as { readonly maxBytes?: unknown }).maxBytes === "number"

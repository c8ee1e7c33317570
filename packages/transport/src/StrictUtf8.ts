/**
 * What an `HttpClient` says of its responses' `text`: that it decodes the
 * body as strict UTF-8, as the transport reads every body (JSON is UTF-8,
 * RFC 8259): a body that is not UTF-8 fails the read with a `DecodeError`
 * rather than holding U+FFFD in place of its bytes. The transport takes the
 * text of a response so marked as it is, a U+FFFD in it the body's own.
 * Without the mark (Effect's `FetchHttpClient` and `NodeHttpClient` decode
 * with U+FFFD), a text that holds U+FFFD is decoded again from the body's
 * bytes (`arrayBuffer`), to tell a body that holds U+FFFD from one that is
 * not UTF-8. `UndiciHttpClient` marks its responses.
 *
 * @since 0.3.0
 */
import type { HttpClientResponse } from "effect/http"

/**
 * The mark of a strict response as a property: a response class whose
 * `text` is always strict UTF-8 declares `[StrictUtf8.symbol]` as `true`
 * (on its prototype: nothing per response), so that each response is
 * {@link isMarkedStrictUtf8} without a {@link markStrictUtf8} call.
 *
 * @example
 * ```ts
 * import { symbol } from "@connected-vehicle/transport/StrictUtf8"
 *
 * class StrictResponse {
 *   get [symbol](): true {
 *     return true
 *   }
 * }
 * ```
 * @since 0.3.0
 * @category marks
 */
export const symbol: unique symbol = Symbol.for("@connected-vehicle/transport/StrictUtf8")

const marked = new WeakSet<HttpClientResponse.HttpClientResponse>()

/**
 * Notes that the `text` of `response` decodes its body as strict UTF-8 (a
 * body that is not UTF-8 fails it with a `DecodeError`): an `HttpClient`
 * calls it for each response it makes (or its response class declares
 * {@link symbol}).
 *
 * @example
 * ```ts
 * import type { HttpClientResponse } from "effect/http"
 * import { markStrictUtf8 } from "@connected-vehicle/transport/StrictUtf8"
 *
 * // in a client whose responses decode with `new TextDecoder("utf-8", { fatal: true })`
 * const made = (response: HttpClientResponse.HttpClientResponse) => {
 *   markStrictUtf8(response)
 *   return response
 * }
 * ```
 * @since 0.3.0
 * @category marks
 */
export const markStrictUtf8 = (response: HttpClientResponse.HttpClientResponse): void => {
  marked.add(response)
}

/**
 * Whether the `text` of `response` decodes its body as strict UTF-8
 * ({@link markStrictUtf8}).
 *
 * @example
 * ```ts
 * import { HttpClientRequest, HttpClientResponse } from "effect/http"
 * import { isMarkedStrictUtf8, markStrictUtf8 } from "@connected-vehicle/transport/StrictUtf8"
 *
 * const response = HttpClientResponse.fromWeb(HttpClientRequest.get("http://127.0.0.1:8080/v3/vehicles"), new Response("{}"))
 * isMarkedStrictUtf8(response) // false
 * markStrictUtf8(response)
 * isMarkedStrictUtf8(response) // true
 * ```
 * @since 0.3.0
 * @category marks
 */
export const isMarkedStrictUtf8 = (response: HttpClientResponse.HttpClientResponse): boolean =>
  (response as { readonly [symbol]?: unknown })[symbol] === true || marked.has(response)

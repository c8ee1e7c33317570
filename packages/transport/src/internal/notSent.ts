/**
 * The requests whose exchange was interrupted before any of it was written
 * (`RequestNotSent.markNotSent`): a mark speaks for one attempt, so the
 * transport clears it whenever it hands the request to the client again (a
 * request without a credential of the call's is the same object on every
 * attempt). The requests an exchange started writing are noted too, never
 * cleared: a request sent again within one attempt (a `transformClient`'s
 * own retry) is not marked once any of its exchanges may have written it.
 *
 * @internal
 */
import type { HttpClientRequest } from "effect/http"

const marked = new WeakSet<HttpClientRequest.HttpClientRequest>()
const started = new WeakSet<HttpClientRequest.HttpClientRequest>()

/** @internal */
export const mark = (request: HttpClientRequest.HttpClientRequest): void => {
  if (!started.has(request)) marked.add(request)
}

/** @internal */
export const start = (request: HttpClientRequest.HttpClientRequest): void => {
  started.add(request)
}

/** @internal */
export const isMarked = (request: HttpClientRequest.HttpClientRequest): boolean => marked.has(request)

/** @internal */
export const clear = (request: HttpClientRequest.HttpClientRequest): void => {
  marked.delete(request)
}

/**
 * The requests whose exchange was interrupted before any of it was written
 * (`RequestNotSent.markNotSent`): a mark speaks for one attempt, so the
 * transport clears it whenever it hands the request to the client again (a
 * request without a credential of the call's is the same object on every
 * attempt).
 *
 * @internal
 */
import type { HttpClientRequest } from "effect/http"

const marked = new WeakSet<HttpClientRequest.HttpClientRequest>()

/** @internal */
export const mark = (request: HttpClientRequest.HttpClientRequest): void => {
  marked.add(request)
}

/** @internal */
export const isMarked = (request: HttpClientRequest.HttpClientRequest): boolean => marked.has(request)

/** @internal */
export const clear = (request: HttpClientRequest.HttpClientRequest): void => {
  marked.delete(request)
}

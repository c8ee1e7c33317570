/**
 * @internal
 */
import { Effect } from "effect"
import type { HttpClientResponse } from "effect/http"

/**
 * An `onResponse` hook (see `CallOptions`).
 *
 * @internal
 */
export type Hook = (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<void>

/**
 * The hook with its failure, defect or throw ignored.
 *
 * @internal
 */
export const ignoring = (hook: Hook): Hook => (response) => Effect.ignoreCause(Effect.suspend(() => hook(response)))

/**
 * `first`, its failure, defect or throw ignored, then `second`.
 *
 * @internal
 */
export const andThen = (first: Hook | undefined, second: Hook | undefined): Hook | undefined => {
  if (first === undefined) return second
  if (second === undefined) return first
  const ignored = ignoring(first)
  return (response) => Effect.andThen(ignored(response), Effect.suspend(() => second(response)))
}

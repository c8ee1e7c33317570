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
 * The hook with its failure, defect or throw ignored (and its result, when
 * it is not an Effect).
 *
 * @internal
 */
export const ignoring = (hook: Hook): Hook => (response) => Effect.ignoreCause(Effect.suspend(() => effectOf(hook, response)))

// what the hook returns when it is an Effect, else nothing to run
const effectOf = (hook: Hook, response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> => {
  const effect: unknown = hook(response)
  return Effect.isEffect(effect) ? effect as Effect.Effect<void> : Effect.void
}

/**
 * `first`, its failure, defect or throw ignored, then `second`.
 *
 * @internal
 */
export const andThen = (first: Hook | undefined, second: Hook | undefined): Hook | undefined => {
  if (first === undefined) return second
  if (second === undefined) return first
  const ignored = ignoring(first)
  return (response) => Effect.andThen(ignored(response), Effect.suspend(() => effectOf(second, response)))
}

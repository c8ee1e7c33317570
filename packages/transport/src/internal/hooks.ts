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
 * it is not an Effect: a promise is not waited for, its rejection ignored).
 *
 * @internal
 */
export const ignoring = (hook: Hook): Hook => (response) => {
  const effect = effectOf(hook, response)
  return effect === Effect.void ? effect : Effect.ignoreCause(effect)
}

// what the hook returns when it is an Effect, else nothing to run (a throw included)
const effectOf = (hook: Hook, response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> => {
  let effect: unknown
  try {
    effect = hook(response)
  } catch {
    return Effect.void
  }
  if (Effect.isEffect(effect)) return effect as Effect.Effect<void>
  // a promise (an `async` hook, from JavaScript) is not waited for, and its
  // rejection is ignored as a throw would be (not left unhandled)
  // (a native promise of any realm, through `Promise.prototype.then`: another
  // thenable's own `then`, a lazy query builder's say, is never called, since
  // it could start what the hook did not; `then` throws for it, caught)
  if (typeof effect === "object" && effect !== null) {
    try {
      Promise.prototype.then.call(effect, undefined, () => {})
    } catch {
      // not a native promise: nothing to wait for either
    }
  }
  return Effect.void
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

/**
 * @internal
 */
import { Effect, Exit } from "effect"

/**
 * `Effect.flatMap(effect, f)`, with `f` applied at once to an effect that is
 * already a success (an `Exit`, such as the request an `HttpClient`'s
 * `preprocess` gives back): one step less on every request.
 *
 * @internal
 */
export const flatMapNow = <A, E, R, B, E2, R2>(
  effect: Effect.Effect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> => {
  if (Exit.isExit(effect)) {
    const exit = effect as Exit.Exit<A, E>
    if (Exit.isSuccess(exit)) return f(exit.value)
  }
  return Effect.flatMap(effect, f)
}

/**
 * What a call's own retry options (`retryWhile`, `retryWait` of
 * `Transport.CallOptions`) are told of each retry its policy is about to
 * make: the call keeps one retry loop (the transport's `Schedule`), and these
 * narrow it (which failures, within what window) or run its waits (told to
 * someone, interruptible...), for a call with a policy of its own beside the
 * configured one (the token grant of `@connected-vehicle/auth`).
 *
 * @since 0.3.0
 */
import type { Duration, Effect } from "effect"
import type { ConnectedVehicleError } from "./ConnectedVehicleError.ts"

/**
 * A retry the call's policy is about to make: the failure it follows, its
 * number (1 for the first retry), the wait before it (the backoff, or a
 * `Retry-After`) and the time since the call started (on the fiber's `Clock`).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { Retry } from "@connected-vehicle/transport/Retry"
 *
 * const startsWithin = (retry: Retry, window: Duration.Duration) =>
 *   Duration.toMillis(retry.elapsed) + Duration.toMillis(retry.delay) <= Duration.toMillis(window)
 * ```
 * @since 0.3.0
 * @category models
 */
export interface Retry {
  readonly error: ConnectedVehicleError
  readonly attempt: number
  readonly delay: Duration.Duration
  readonly elapsed: Duration.Duration
}

/**
 * Whether a retry the call's policy would make is made (`retryWhile`, like
 * the `while` of `Effect.retry`): asked once the policy chose it (a failure
 * that may pass, within `maxRetries`, `rateLimit.maxWait` and the call's
 * budget); `false`, or a throw, ends the call with that failure.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { While } from "@connected-vehicle/transport/Retry"
 *
 * // a 503 only, and no retry that starts later than 15 s after the call did
 * const only503: While = ({ delay, elapsed, error }) =>
 *   error.status === 503 && Duration.toMillis(elapsed) + Duration.toMillis(delay) <= 15_000
 * ```
 * @since 0.3.0
 * @category models
 */
export type While = (retry: Retry) => boolean

/**
 * Runs a wait between two attempts of a call (`retryWait`): given the wait
 * (a sleep of `delay` on the fiber's `Clock`) and the retry it comes before,
 * the effect to run in its place, to tell someone of it. The effect runs in
 * a fiber of its own, interruptible (nothing is in flight during a wait):
 * interrupting the call interrupts it, even inside an uninterruptible region
 * (a part of it made `Effect.uninterruptible` runs to its end first). A
 * throw of the function, a result that is not an `Effect`, or an effect that
 * fails or dies runs the wait itself (as the failures of an `onResponse` hook
 * are ignored); an interruption of its own interrupts the call. The call's
 * budget (`retry.maxElapsed`) bounds it: the effect is interrupted once too
 * little of the budget is left for an attempt, and a wait that ends then, or
 * later, ends the call with the failure the retry followed (nothing more is
 * sent).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Wait } from "@connected-vehicle/transport/Retry"
 *
 * const told: Wait = (wait, retry) => Effect.andThen(Effect.logInfo(`retry ${retry.attempt} after ${retry.error.message}`), wait)
 * ```
 * @since 0.3.0
 * @category models
 */
export type Wait = (wait: Effect.Effect<void>, retry: Retry) => Effect.Effect<void>

/**
 * The policies of one call (the configured ones with the call's overrides)
 * and its retry `Schedule`.
 *
 * @internal
 */
import { Cause, Duration, Effect, Option, Random, Schedule } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { RateLimitPolicy, RetryPolicy, TransportConfig } from "../TransportConfig.ts"
import type { AnyError } from "./responses.ts"

/**
 * The per-call overrides, as `Transport.CallOptions` declares them.
 *
 * @internal
 */
export interface Overrides {
  readonly timeout?: Duration.Input | undefined
  readonly maxRetries?: number | undefined
  readonly timeoutMillis?: number | undefined
  readonly retry?: { readonly [K in keyof RetryPolicy]?: RetryPolicy[K] | undefined } | undefined
  readonly rateLimit?: { readonly [K in keyof RateLimitPolicy]?: RateLimitPolicy[K] | undefined } | undefined
}

/** @internal */
export interface Policy {
  readonly retry: RetryPolicy
  readonly rateLimit: RateLimitPolicy
  readonly timeoutMillis: number
}

/**
 * The policies of one call: the configured ones with the call's overrides
 * (`undefined` fields are ignored); an override that is not valid is an
 * `InvalidArgument`.
 *
 * @internal
 */
export const resolve = (options: Overrides | undefined, config: TransportConfig["Service"]): Policy | InvalidArgument => {
  if (options === undefined) return config
  let retry = options.retry === undefined ? config.retry : { ...config.retry, ...defined(options.retry) } as RetryPolicy
  const rateLimit = options.rateLimit === undefined
    ? config.rateLimit
    : { ...config.rateLimit, ...defined(options.rateLimit) } as RateLimitPolicy
  let timeoutMillis = options.timeoutMillis ?? config.timeoutMillis
  if (options.timeout !== undefined) {
    const millis = millisOf(options.timeout)
    if (millis === undefined) return new InvalidArgument({ field: "timeout", message: "timeout: Expected a positive, finite duration" })
    timeoutMillis = millis
  }
  if (options.maxRetries !== undefined) {
    const maxRetries: unknown = options.maxRetries
    if (typeof maxRetries !== "number" || !Number.isSafeInteger(maxRetries) || maxRetries < 0) {
      return new InvalidArgument({ field: "maxRetries", message: "maxRetries: Expected an integer >= 0" })
    }
    retry = { ...retry, maxAttempts: maxRetries + 1 }
  }
  return { retry, rateLimit, timeoutMillis }
}

/** Whole milliseconds (rounded up) of a positive, finite duration input, else `undefined`. */
const millisOf = (input: Duration.Input): number | undefined => {
  let millis = Number.NaN
  try {
    const duration = Duration.fromInput(input)
    if (Option.isSome(duration)) millis = Duration.toMillis(duration.value)
  } catch {
    // not a duration input
  }
  return Number.isFinite(millis) && millis > 0 ? Math.ceil(millis) : undefined
}

const defined = <A extends object>(a: A): Partial<A> =>
  Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as Partial<A>

/**
 * The delay before retry `n` (1 for the first) after `error`, `undefined`
 * when it is not retried. The error's reason decides whether it may be
 * retried (`isRetryable`: a 429, a 500, 502, 503 or 504, a connection
 * failure or a timeout; never a `Credentials` reason, whose source has its
 * own bounds, nor an `InvalidArgument`); then a 429 waits its `Retry-After`
 * when the rate-limit policy says so, and anything else backs off
 * exponentially with "equal jitter" (half fixed, half random, so that delays
 * never collapse to zero). A request that is not idempotent is retried only
 * when the policy allows it.
 *
 * @internal
 */
export const delayOf = (
  policy: Policy,
  idempotent: boolean,
  error: AnyError,
  n: number
): Effect.Effect<number | undefined> => {
  if (!idempotent && !policy.retry.retryNonIdempotent) return Effect.succeed(undefined)
  if (error._tag !== "ConnectedVehicleError" || !error.isRetryable) return Effect.succeed(undefined)
  if (error.status === 429) {
    const after = error.retryAfter === undefined ? undefined : Duration.toMillis(error.retryAfter)
    const { maxWaitMillis, wait } = policy.rateLimit
    return Effect.succeed(wait && after !== undefined && after <= maxWaitMillis ? after : undefined)
  }
  const { factor, initialDelayMillis, maxDelayMillis } = policy.retry
  const exp = Math.min(maxDelayMillis, initialDelayMillis * Math.pow(factor, n - 1))
  return Effect.map(Random.next, (r) => Math.round(exp / 2 + (exp / 2) * r))
}

/**
 * The retry `Schedule` of a call: {@link delayOf} for each failure, at most
 * `maxAttempts` attempts in all, and no wait that would end at or past the
 * call's `deadline` (the `maxElapsedMillis` budget). `onRetry` runs before
 * each wait.
 *
 * @internal
 */
export const schedule = (
  policy: Policy,
  idempotent: boolean,
  deadline: number,
  onRetry: (error: AnyError, n: number, delayMillis: number) => Effect.Effect<void>
): Schedule.Schedule<number, AnyError> =>
  Schedule.fromStepWithMetadata(Effect.succeed((meta: Schedule.InputMetadata<AnyError>) => {
    const n = meta.attempt
    if (n >= policy.retry.maxAttempts) return Cause.done(n)
    return Effect.flatMap(delayOf(policy, idempotent, meta.input, n), (delay) =>
      delay === undefined || meta.now + delay >= deadline
        ? Cause.done(n)
        : Effect.as(onRetry(meta.input, n, delay), [n, Duration.millis(delay)] as [number, Duration.Duration]))
  }))

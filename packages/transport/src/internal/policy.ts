/**
 * The policies of one call (the configured ones with the call's overrides)
 * and its retry `Schedule`.
 *
 * @internal
 */
import { Cause, Clock, Duration, Effect, Exit, Fiber, Random, Schedule } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { CallOptions } from "../Transport.ts"
import type * as Retry from "../Retry.ts"
import type { RateLimitPolicy, RetryPolicy, TransportConfig } from "../TransportConfig.ts"
import { rateLimitPolicy, retryPolicy } from "../TransportConfig.ts"
import { duration, unset } from "./options.ts"
import type { ConnectedVehicleError, Reason } from "../ConnectedVehicleError.ts"
import type { AnyError } from "./responses.ts"


/**
 * The policies of one call, in milliseconds.
 *
 * @internal
 */
export interface Policy {
  readonly timeoutMillis: number
  readonly maxAttempts: number
  readonly initialDelayMillis: number
  readonly factor: number
  readonly maxDelayMillis: number
  readonly maxElapsedMillis: number
  readonly retryNonIdempotent: boolean
  readonly wait: boolean
  readonly maxWaitMillis: number
  /** The call's own say over its retries (`CallOptions`), if any. */
  readonly retryWhile?: Retry.While | undefined
  readonly retryWait?: Retry.Wait | undefined
}

const millisOf = (duration: Duration.Duration): number => Math.ceil(Duration.toMillis(duration))

/**
 * The policies of a configuration, in milliseconds.
 *
 * @internal
 */
export const fromConfig = (
  timeout: Duration.Duration,
  retry: RetryPolicy,
  rateLimit: RateLimitPolicy
): Policy => ({
  timeoutMillis: millisOf(timeout),
  maxAttempts: retry.maxAttempts,
  initialDelayMillis: millisOf(retry.initialDelay),
  factor: retry.factor,
  maxDelayMillis: millisOf(retry.maxDelay),
  maxElapsedMillis: millisOf(retry.maxElapsed),
  retryNonIdempotent: retry.retryNonIdempotent,
  wait: rateLimit.wait,
  maxWaitMillis: millisOf(rateLimit.maxWait)
})

/**
 * The policies of one call: the configured ones (`base`, of `config`) with
 * the call's overrides (`undefined` fields are ignored); an override that is
 * not valid is an `InvalidArgument` naming it.
 *
 * @internal
 */
export const resolve = (
  options: CallOptions | undefined,
  config: TransportConfig["Service"],
  base: Policy
): Policy | InvalidArgument => {
  if (options === undefined) return base
  // the caller's fields read once, here: a getter or a Proxy that throws is
  // the caller's unreadable options; what throws after is not blamed on them
  let given: CallOptions
  try {
    unset("options", options)
    given = {
      onResponse: options.onResponse,
      retryWhile: options.retryWhile,
      retryWait: options.retryWait,
      timeout: options.timeout,
      retry: shallowCopy(options.retry),
      maxRetries: options.maxRetries,
      rateLimit: shallowCopy(options.rateLimit)
    } as CallOptions
  } catch (error) {
    return error instanceof InvalidArgument
      ? error
      : new InvalidArgument({ field: "options", message: "options: Expected an object whose fields can be read" })
  }
  try {
    for (const field of ["onResponse", "retryWhile", "retryWait"] as const) {
      const hook: unknown = given[field]
      if (hook !== undefined && typeof hook !== "function") return new InvalidArgument({ field, message: `${field}: Expected a function` })
    }
    const timeout = duration("timeout", given.timeout, config.timeout, true)
    const retry = retryPolicy(config.retry, given.retry)
    const maxRetries: unknown = given.maxRetries
    if (maxRetries !== undefined && (typeof maxRetries !== "number" || !Number.isSafeInteger(maxRetries) || maxRetries < 0)) {
      return new InvalidArgument({ field: "maxRetries", message: "maxRetries: Expected an integer >= 0" })
    }
    const { retryWait, retryWhile } = given
    const policy: Policy = {
      ...fromConfig(timeout, retry, rateLimitPolicy(config.rateLimit, given.rateLimit)),
      ...(retryWhile === undefined ? {} : { retryWhile }),
      ...(retryWait === undefined ? {} : { retryWait })
    }
    return maxRetries === undefined ? policy : { ...policy, maxAttempts: maxRetries + 1 }
  } catch (error) {
    if (error instanceof InvalidArgument) return error
    throw error
  }
}

/** A plain object's own fields, read now (anything else as it is, for the checks to refuse). */
const shallowCopy = <A>(value: A): A =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? { ...value } : value

/** Whether nothing of the request was processed: its credential failed, or nothing of it was written. */
const notSent = (reason: Reason): boolean =>
  reason._tag === "Credentials" || ((reason._tag === "Connection" || reason._tag === "Timeout") && reason.sent === false)

/**
 * The delay before retry `n` (1 for the first) after `error`, `undefined`
 * when it is not retried. The error's reason decides whether it may be
 * retried (`isRetryable`: a 429, a 408, a 500, 502, 503 or 504, a connection
 * failure or a timeout, a `Credentials` reason only when the token store
 * failed before a token request, `transient`: a token request has its own retries; never an
 * `InvalidArgument`); then a 429 waits its `Retry-After`
 * when the rate-limit policy says so, and anything else backs off
 * exponentially with "equal jitter" (half fixed, half random, so that delays
 * never collapse to zero), and at least the `Retry-After` its response sent
 * (not retried when that is over `maxWait`).
 * A request that is not idempotent is retried only when the policy allows it,
 * or when what failed is its credential, or its connection (or its timeout)
 * before any of it was written (`sent: false`): nothing was processed.
 * The call's budget bounds every wait (see {@link schedule}).
 *
 * @internal
 */
export const delayOf = (
  policy: Policy,
  idempotent: boolean,
  error: AnyError,
  n: number
): Effect.Effect<number | undefined> => {
  if (error._tag !== "ConnectedVehicleError" || !error.isRetryable) return Effect.succeed(undefined)
  // a request that is not idempotent is sent again only when the policy allows it, or when the
  // attempt failed for want of its credential (the request was not sent, or was refused with a 401),
  // or before any of it was written (a connection never made, or one that ran out of time)
  if (!idempotent && !policy.retryNonIdempotent && !notSent(error.reason)) return Effect.succeed(undefined)
  const after = error.retryAfter === undefined ? undefined : Duration.toMillis(error.retryAfter)
  if (error.status === 429) {
    const { maxWaitMillis, wait } = policy
    return Effect.succeed(wait && after !== undefined && after <= maxWaitMillis ? after : undefined)
  }
  // a longer wait than `maxWait` is the caller's to schedule (the error carries it)
  if (after !== undefined && after > policy.maxWaitMillis) return Effect.succeed(undefined)
  const { factor, initialDelayMillis, maxDelayMillis } = policy
  const exp = Math.min(maxDelayMillis, initialDelayMillis * Math.pow(factor, n - 1))
  return Effect.map(Random.next, (r) => Math.max(after ?? 0, Math.round(exp / 2 + (exp / 2) * r)))
}

/**
 * The least of the call's budget a retry must leave to its attempt: a
 * quarter of the attempt's timeout (or of the budget, when smaller), at most
 * a second. An attempt started with less would most likely time out: the
 * call fails with the error it has (and its `Retry-After`) instead.
 *
 * @internal
 */
export const minAttemptMillis = (policy: Policy): number =>
  Math.min(Math.min(policy.timeoutMillis, policy.maxElapsedMillis) / 4, 1_000)

/**
 * The retry `Schedule` of a call: {@link delayOf} for each failure, at most
 * `maxAttempts` attempts in all, and no wait that would leave the next attempt
 * less than {@link minAttemptMillis} before the call's `deadline` (the
 * `maxElapsed` budget), nor one the call's `retryWhile` refuses. `onRetry`
 * runs before each wait; a call's `retryWait` runs the wait (in the step,
 * the schedule's own delay then zero), within the budget ({@link waitWithin}).
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
    if (n >= policy.maxAttempts) return Cause.done(n)
    return Effect.flatMap(delayOf(policy, idempotent, meta.input, n), (delay) => {
      if (delay === undefined || meta.now + delay + minAttemptMillis(policy) > deadline) return Cause.done(n)
      const { retryWait, retryWhile } = policy
      if (retryWhile === undefined && retryWait === undefined) {
        return Effect.as(onRetry(meta.input, n, delay), [n, Duration.millis(delay)] as [number, Duration.Duration])
      }
      // `delayOf` chose a retry: the failure is a `ConnectedVehicleError`
      const retry: Retry.Retry = {
        error: meta.input as ConnectedVehicleError,
        attempt: n,
        delay: Duration.millis(delay),
        elapsed: Duration.millis(Math.max(0, meta.now - (deadline - policy.maxElapsedMillis)))
      }
      if (retryWhile !== undefined && !allows(retryWhile, retry)) return Cause.done(n)
      const told = onRetry(meta.input, n, delay)
      if (retryWait === undefined) return Effect.as(told, [n, retry.delay] as [number, Duration.Duration])
      const waited = waitWithin(waitOf(retryWait, retry), deadline - minAttemptMillis(policy))
      return Effect.andThen(told, Effect.flatMap(waited, (inTime) => inTime ? Effect.succeed([n, Duration.zero] as [number, Duration.Duration]) : Cause.done(n)))
    })
  }))

/** What the call's `retryWhile` says of `retry` (a throw, or anything but `true`: no retry). */
const allows = (retryWhile: Retry.While, retry: Retry.Retry): boolean => {
  try {
    return retryWhile(retry) === true
  } catch {
    return false
  }
}

/**
 * Whether `wait` (a call's `retryWait`) ended by `latest` (the last moment,
 * on the fiber's `Clock`, an attempt may start with enough of the call's
 * budget left). It runs in a fiber of its own, interruptible (nothing is in
 * flight during a wait): interrupted at `latest`, or when the call is (even
 * an uninterruptible one). A wait cut there, or that ends later, is `false`:
 * the retries end, the call fails with the failure the retry followed. An
 * interruption of its own interrupts the call.
 *
 * @internal
 */
export const waitWithin = (wait: Effect.Effect<void>, latest: number): Effect.Effect<boolean> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    if (now >= latest) return Effect.succeed(false)
    let cut = false
    return Effect.flatMap(Effect.forkChild(wait, { startImmediately: true }), (waiting) =>
      Effect.flatMap(Effect.forkChild(Effect.andThen(Effect.sleep(Duration.millis(latest - now)), Effect.suspend(() => (cut = true, Fiber.interrupt(waiting))))), (timer) =>
        Effect.flatMap(
          Effect.ensuring(Effect.interruptible(Fiber.await(waiting)), Effect.andThen(Fiber.interrupt(timer), Fiber.interrupt(waiting))),
          (exit) => {
            if (cut) return Effect.succeed(false)
            if (Exit.isFailure(exit)) return Effect.failCause(exit.cause as Cause.Cause<never>)
            return Effect.map(Clock.currentTimeMillis, (end) => end <= latest)
          }
        )))
  })

/**
 * The wait before `retry` as the call's `retryWait` runs it: a throw, what is
 * not an `Effect`, or an effect that fails or dies runs the wait itself
 * (an interruption stays one).
 */
const waitOf = (retryWait: Retry.Wait, retry: Retry.Retry): Effect.Effect<void> => {
  const wait = Effect.sleep(retry.delay)
  let effect: unknown
  try {
    effect = retryWait(wait, retry)
  } catch {
    return wait
  }
  if (!Effect.isEffect(effect)) return wait
  return Effect.catchCause(effect as Effect.Effect<void>, (cause) => Cause.hasInterrupts(cause) ? Effect.failCause(cause) : wait)
}

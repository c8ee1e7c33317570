/**
 * How the Promise client runs its calls: one `ManagedRuntime` of the Effect
 * SDK, a fiber per call (tracked for `close`), an `AbortSignal` per call,
 * and every failure as a client error.
 */
import { Cause, Effect, Exit, Fiber, ManagedRuntime, Stream } from "effect"
import type { Layer } from "effect"
import type * as Transport from "@connected-vehicle/transport/Transport"
import type { Plain } from "../Client.ts"
import type { RequestOptions } from "../ClientOptions.ts"
import { AbortError, fromCause, InvalidArgumentError, InvalidResponseError } from "../ClientError.ts"
import type { Services } from "../ConnectedVehicle.ts"
import type { GivenOptions } from "./options.ts"
import { toCallOptions } from "./options.ts"
import { plain } from "./plain.ts"

/** @internal */
export type Make<A, E> = (callOptions: Transport.CallOptions | undefined, given: GivenOptions) => Effect.Effect<A, E, Services>

/**
 * The calls of a client: `run` (a value as it is, or mapped by `post`),
 * `call` (a value with its `DateTime`s as `Date`s), `iterable` (a stream as an
 * `AsyncIterable`), and `close`.
 *
 * @internal
 */
export interface Runner {
  readonly run: {
    <A, E>(options: RequestOptions | undefined, make: Make<A, E>): Promise<A>
    <A, E, B>(options: RequestOptions | undefined, make: Make<A, E>, post: (value: A) => B): Promise<B>
  }
  readonly call: <A, E>(options: RequestOptions | undefined, make: Make<A, E>) => Promise<Plain<A>>
  readonly iterable: <A, E>(
    options: RequestOptions | undefined,
    make: (callOptions: Transport.CallOptions | undefined, given: GivenOptions) => Stream.Stream<A, E, Services>
  ) => AsyncIterable<Plain<A>>
  readonly close: () => Promise<void>
}

/** Fails with `AbortError` when the signal fires (at once if it has). */
const whenAborted = (signal: AbortSignal): Effect.Effect<never, AbortError> =>
  Effect.callback<never, AbortError>((resume) => {
    const onAbort = () => resume(Effect.fail(abortError(signal)))
    if (signal.aborted) return onAbort()
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

const closedReason = "the client was closed"

const abortError = (signal: AbortSignal) => {
  const reason: unknown = signal.reason
  return new AbortError({
    message: reason === closedReason ? "The call was aborted: the client was closed" : "The call was aborted",
    ...(reason === undefined ? {} : { cause: reason })
  })
}

/** A decoded value the client could not give back (`post` threw): an `InvalidResponseError`, not a crash. */
const unconvertible = (error: unknown) =>
  new InvalidResponseError({
    message: `The response could not be converted: ${error instanceof Error ? error.message : String(error)}`,
    cause: error
  })

/** The runtime of a client, its closing signal and its calls in flight. */
interface Calls {
  readonly runtime: ManagedRuntime.ManagedRuntime<Services, never>
  readonly closing: AbortController
  /** The calls in flight, interrupted by `close`. */
  readonly inFlight: Set<Fiber.Fiber<unknown, unknown>>
}

/** A call's failure: `AbortError` once the client is closed or the call's signal fired. */
const failureOf = (calls: Calls, cause: Cause.Cause<unknown>, signal: AbortSignal | undefined) =>
  calls.closing.signal.aborted ? abortError(calls.closing.signal) : signal?.aborted ? abortError(signal) : fromCause(cause)

/**
 * A call's effect as a fiber on the runtime's context (tracked in `inFlight`
 * until it exits), its exit settling the promise: the value mapped by `post`
 * (a throw there an `InvalidResponseError`), or the failure.
 */
const settle = <A, E>(
  calls: Calls,
  effect: Effect.Effect<A, E, Services>,
  signal: AbortSignal | undefined,
  post: ((value: A) => unknown) | undefined
): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const runOptions = signal === undefined ? undefined : { signal }
    const context = calls.runtime.cachedContext
    const fiber: Fiber.Fiber<A, E> = context === undefined
      ? calls.runtime.runFork(effect, runOptions)
      : Effect.runForkWith(context)(effect, runOptions)
    calls.inFlight.add(fiber)
    fiber.addObserver((exit) => {
      calls.inFlight.delete(fiber)
      if (Exit.isFailure(exit)) return reject(failureOf(calls, exit.cause, signal))
      if (post === undefined) return resolve(exit.value)
      try {
        resolve(post(exit.value))
      } catch (error) {
        reject(unconvertible(error))
      }
    })
  })

/** @internal */
export const makeRunner = (layer: Layer.Layer<Services>): Runner => {
  const calls: Calls = { runtime: ManagedRuntime.make(layer), closing: new AbortController(), inFlight: new Set() }
  const { closing, inFlight, runtime } = calls
  let closed: Promise<void> | undefined

  /**
   * Runs one call: a rejected promise for bad options, an `AbortError` when
   * cancelled. Once the runtime is built, a call is a fiber on its context
   * (tracked here for `close`), with an abort listener only on the caller's
   * own signal, if any: no combined signal and no runtime bookkeeping per call.
   * `post` maps the value where the fiber's exit is observed (no effect of its
   * own); a throw while building the effect is a defect of the call, one in
   * `post` a `ResponseValidationError`, neither a raw rejection.
   */
  const run = <A, E>(options: RequestOptions | undefined, make: Make<A, E>, post?: (value: A) => unknown): Promise<unknown> => {
    // the options read once, here
    const given = toCallOptions(options)
    if (given instanceof InvalidArgumentError) return Promise.reject(given)
    if (closing.signal.aborted) return Promise.reject(abortError(closing.signal))
    const signal = given.signal
    if (signal?.aborted) return Promise.reject(abortError(signal))
    let effect: Effect.Effect<A, E, Services>
    try {
      effect = make(given.callOptions, given)
    } catch (error) {
      return Promise.reject(fromCause(Cause.die(error)))
    }
    return settle(calls, effect, signal, post)
  }

  /** A stream as an `AsyncIterable`: each `for await` runs it once, pulling pages as the loop asks. */
  const iterable: Runner["iterable"] = (options, make) => ({
    async *[Symbol.asyncIterator]() {
      const given = toCallOptions(options)
      if (given instanceof InvalidArgumentError) throw given
      const signal = given.signal === undefined ? closing.signal : AbortSignal.any([closing.signal, given.signal])
      if (signal.aborted) throw abortError(signal)
      const context = await runtime.context()
      const stream = Stream.unwrap(Effect.sync(() => make(given.callOptions, given))).pipe(
        Stream.map(plain),
        Stream.catchCause((cause) => Stream.fail(fromCause(cause))),
        Stream.interruptWhen(whenAborted(signal))
      )
      yield* Stream.toAsyncIterableWith(stream, context)
    }
  })

  const close = (): Promise<void> => {
    if (closed === undefined) {
      closing.abort(closedReason)
      closed = Effect.runPromise(Fiber.interruptAll([...inFlight])).then(() => runtime.dispose())
    }
    return closed
  }

  return {
    run: run as Runner["run"],
    call: <A, E>(options: RequestOptions | undefined, make: Make<A, E>) => run(options, make, plain) as Promise<Plain<A>>,
    iterable,
    close
  }
}

/**
 * An attempt's timeout that lets go of its timer as soon as the attempt ends.
 *
 * `Effect.timeoutOrElse` races the effect against a sleeping fiber and leaves
 * that fiber to be interrupted, and waited for, when the calling fiber ends:
 * on a loopback call that costs about 0.04x of a raw undici request more
 * than this (`docs/upstream.md`). Here the effect and the fiber's
 * `Clock.sleep` run in fibers of their own, started at once on the caller's
 * context; whichever ends first interrupts the other at once.
 *
 * @internal
 */
import { Clock, Duration, Effect, Fiber } from "effect"

/**
 * `self`, or `onTimeout()` when `self` has not ended within `millis` by the
 * calling fiber's `Clock`. `self` is interrupted then, and when the caller is
 * interrupted; its finalizers have run before either is over.
 *
 * @internal
 */
export const timeoutOrElse = <A, E, A2, E2>(
  self: Effect.Effect<A, E>,
  millis: number,
  onTimeout: () => Effect.Effect<A2, E2>
): Effect.Effect<A | A2, E | E2> =>
  Effect.withFiber((parent) =>
    Effect.callback<A | A2, E | E2>((resume) => {
      const work = Effect.runForkWith(parent.context)(self)
      // over at once (an invalid request, say): no timer
      const exit = work.pollUnsafe()
      if (exit !== undefined) return resume(exit)
      const timer = Effect.runForkWith(parent.context)(parent.getRef(Clock.Clock).sleep(Duration.millis(millis)))
      let done = false
      work.addObserver((exit) => {
        if (done) return
        done = true
        timer.interruptUnsafe(parent.id)
        resume(exit)
      })
      timer.addObserver(() => {
        if (done) return
        done = true
        work.interruptUnsafe(parent.id)
        resume(Effect.andThen(Fiber.await(work), onTimeout()))
      })
      return Effect.suspend(() => {
        done = true
        timer.interruptUnsafe(parent.id)
        work.interruptUnsafe(parent.id)
        return Fiber.await(work)
      })
    })
  )

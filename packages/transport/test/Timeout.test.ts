import { assert, describe, it } from "@effect/vitest"
import { Clock, Deferred, Effect, Exit, Fiber, Ref } from "effect"
import { TestClock } from "effect/testing"
import * as Timeout from "../src/internal/timeout.ts"

/**
 * The attempt's timeout (`src/internal/timeout.ts`) against Effect's own
 * `Effect.timeoutOrElse`: the same outcome in every case, under `TestClock`.
 */
const reference = <A, E>(self: Effect.Effect<A, E>, millis: number) =>
  Effect.timeoutOrElse(self, { duration: millis, orElse: () => Effect.fail("timeout" as const) })
const ours = <A, E>(self: Effect.Effect<A, E>, millis: number) =>
  Timeout.timeoutOrElse(self, millis, () => Effect.fail("timeout" as const))

const both = <A, E>(name: string, make: () => Effect.Effect<A, E>, millis: number, advance: number, expected: Exit.Exit<A, E | "timeout">) =>
  it.effect(name, () =>
    Effect.gen(function*() {
      for (const timeout of [reference, ours]) {
        const fiber = yield* Effect.forkChild(timeout(make(), millis))
        yield* TestClock.adjust(advance)
        const exit = yield* Fiber.await(fiber)
        assert.deepStrictEqual(exit, expected)
      }
    }))

describe("the attempt's timeout, against Effect.timeoutOrElse", () => {
  both("a synchronous success", () => Effect.succeed(1), 100, 0, Exit.succeed(1))
  both("a synchronous failure", () => Effect.fail("boom"), 100, 0, Exit.fail("boom"))
  both("a success before the limit", () => Effect.as(Effect.sleep(50), 2), 100, 60, Exit.succeed(2))
  both("a failure before the limit", () => Effect.andThen(Effect.sleep(50), Effect.fail("late")), 100, 60, Exit.fail("late"))
  both("the limit reached", () => Effect.as(Effect.sleep(500), 3), 100, 100, Exit.fail("timeout"))
  both("the limit reached by a never-ending effect", () => Effect.never, 100, 150, Exit.fail("timeout"))

  it.effect("the effect is interrupted at the limit, its finalizers run before the timeout's result", () =>
    Effect.gen(function*() {
      const finalized = yield* Ref.make(false)
      const fiber = yield* Effect.forkChild(
        ours(Effect.onInterrupt(Effect.never, () => Ref.set(finalized, true)), 100).pipe(
          Effect.catch(() => Ref.get(finalized))
        )
      )
      yield* TestClock.adjust(100)
      assert.isTrue(yield* Fiber.join(fiber))
    }))

  it.effect("interrupting the caller interrupts the effect and stops the timer", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const finalized = yield* Ref.make(0)
      const timedOut = yield* Ref.make(false)
      const fiber = yield* Effect.forkChild(
        Timeout.timeoutOrElse(
          Effect.andThen(Deferred.succeed(started, undefined), Effect.onInterrupt(Effect.never, () => Ref.update(finalized, (n) => n + 1))),
          100,
          () => Ref.set(timedOut, true)
        )
      )
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(yield* Ref.get(finalized), 1)
      yield* TestClock.adjust(1_000)
      assert.isFalse(yield* Ref.get(timedOut))
    }))

  it.effect("the timer ends with the effect: no sleep is left pending", () =>
    Effect.gen(function*() {
      // a clock that counts its pending sleeps
      const clock = yield* Clock.Clock
      let pending = 0
      const counting: Clock.Clock = {
        ...clock,
        sleep: (duration) => Effect.ensuring(Effect.suspend(() => (pending++, clock.sleep(duration))), Effect.sync(() => pending--))
      }
      const fiber = yield* Effect.forkChild(ours(Effect.as(Effect.sleep(10), 1), 10_000).pipe(Effect.provideService(Clock.Clock, counting)))
      yield* TestClock.adjust(5)
      assert.strictEqual(pending, 2) // the effect's sleep and the timer
      yield* TestClock.adjust(5)
      assert.deepStrictEqual(yield* Fiber.await(fiber), Exit.succeed(1))
      assert.strictEqual(pending, 0)
    }))
})

import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Clock, Deferred, Duration, Effect, Exit, Fiber, Ref } from "effect"
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

  it.effect("the timer ends with the effect: no sleep is left pending once idle for a short while of real time", () =>
    Effect.gen(function*() {
      const { counting, pending } = countingClock(yield* Clock.Clock)
      const fiber = yield* Effect.forkChild(ours(Effect.as(Effect.sleep(10), 1), 10_000).pipe(Effect.provideService(Clock.Clock, counting)))
      yield* TestClock.adjust(5)
      assert.strictEqual(pending(), 2) // the effect's sleep and the timer
      yield* TestClock.adjust(5)
      assert.deepStrictEqual(yield* Fiber.await(fiber), Exit.succeed(1))
      yield* idle
      assert.strictEqual(pending(), 0)
    }))

  it.effect("attempts one after the other share one sleep; each still times out at its own limit", () =>
    Effect.gen(function*() {
      const { counting, pending, started } = countingClock(yield* Clock.Clock)
      const attempts = Effect.gen(function*() {
        for (let i = 0; i < 50; i++) assert.strictEqual(yield* ours(Effect.promise(() => Promise.resolve(i)), 10_000), i)
        return [pending(), started()]
      }).pipe(Effect.provideService(Clock.Clock, counting))
      assert.deepStrictEqual(yield* attempts, [1, 1]) // one timer, kept for the next attempt
      const late = yield* Effect.forkChild(ours(Effect.never, 100).pipe(Effect.provideService(Clock.Clock, counting)))
      yield* TestClock.adjust(99)
      assert.isUndefined(late.pollUnsafe())
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(yield* Fiber.await(late), Exit.fail("timeout"))
      yield* idle
      assert.strictEqual(pending(), 0)
    }))

  it.effect("concurrent attempts time out in the order of their deadlines, an earlier one started later included", () =>
    Effect.gen(function*() {
      const order: Array<number> = []
      const start = (millis: number) =>
        Effect.forkChild(Timeout.timeoutOrElse(Effect.never, millis, () => Effect.sync(() => order.push(millis))))
      const fibers = [yield* start(300), yield* start(100), yield* start(200)]
      yield* TestClock.adjust(150)
      assert.deepStrictEqual(order, [100])
      fibers.push(yield* start(10)) // due at 160, before the 200 the timer sleeps until
      yield* TestClock.adjust(10)
      assert.deepStrictEqual(order, [100, 10])
      yield* TestClock.adjust(140)
      assert.deepStrictEqual(order, [100, 10, 200, 300])
      for (const fiber of fibers) assert.isTrue(Exit.isSuccess(yield* Fiber.await(fiber)))
    }))

  it.effect("a timeout whose fallback starts another attempt: the new deadline is kept", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(
        ours(Effect.never, 100).pipe(Effect.catch(() => ours(Effect.never, 50)), Effect.catch(() => Clock.currentTimeMillis))
      )
      const start = yield* Clock.currentTimeMillis
      yield* TestClock.adjust(1_000)
      assert.strictEqual((yield* Fiber.join(fiber)) - start, 150)
    }))

  it.effect("at a tie (an attempt ending at the instant of its limit, on TestClock), the shared sleep registered first wins: the attempt times out", () =>
    Effect.gen(function*() {
      const waiting = yield* Effect.forkChild(ours(Effect.never, 100))
      const tie = yield* Effect.forkChild(ours(Effect.as(Effect.sleep(100), "done"), 100))
      yield* TestClock.adjust(100)
      assert.deepStrictEqual(yield* Fiber.await(tie), Exit.fail("timeout" as const))
      assert.deepStrictEqual(yield* Fiber.await(waiting), Exit.fail("timeout"))
      // alone, as with Effect.timeoutOrElse, the attempt's own sleep comes first
      const alone = yield* Effect.forkChild(ours(Effect.as(Effect.sleep(100), "done"), 100))
      yield* TestClock.adjust(100)
      assert.deepStrictEqual(yield* Fiber.await(alone), Exit.succeed("done"))
    }))

  it.live("a caller's code that throws when its timeout fires surfaces as an uncaught exception; later timeouts still fire", () =>
    Effect.gen(function*() {
      const uncaught = yield* Deferred.make<unknown>()
      // the test runner's own handlers would report the exception: ours alone
      // meanwhile, the runner's given back however the test ends
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          const handlers = process.rawListeners("uncaughtException") as Array<(error: Error) => void>
          const ours = (error: Error) => Deferred.doneUnsafe(uncaught, Exit.succeed(error))
          process.removeAllListeners("uncaughtException")
          process.on("uncaughtException", ours)
          return { handlers, ours }
        }),
        ({ handlers, ours }) =>
          Effect.sync(() => {
            process.off("uncaughtException", ours)
            for (const handler of handlers) process.on("uncaughtException", handler)
          })
      )
      const thrower = Effect.runFork(ours(Effect.never, 20))
      thrower.addObserver(() => {
        throw new Error("an observer of the caller")
      })
      const error = yield* Deferred.await(uncaught).pipe(Effect.timeout("2 seconds"))
      assert.strictEqual(String(error), "Error: an observer of the caller")
      const later = yield* Effect.exit(ours(Effect.never, 30)).pipe(Effect.timeout("2 seconds"))
      assert.deepStrictEqual(later, Exit.fail("timeout"))
    }).pipe(Effect.scoped))

  it.effect("a fallback that throws is a defect of the caller, not a hang (as with Effect.timeoutOrElse)", () =>
    Effect.gen(function*() {
      for (const timeout of [
        (self: Effect.Effect<never>) => Effect.timeoutOrElse(self, { duration: 10, orElse: (): Effect.Effect<never> => { throw new Error("fallback") } }),
        (self: Effect.Effect<never>) => Timeout.timeoutOrElse(self, 10, (): Effect.Effect<never> => { throw new Error("fallback") })
      ]) {
        const fiber = yield* Effect.forkChild(timeout(Effect.never))
        yield* TestClock.adjust(10)
        const exit = yield* Fiber.await(fiber)
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause), String(exit))
      }
    }))

  it.effect("a limit that is not a number is no limit; another attempt's still fires", () =>
    Effect.gen(function*() {
      const unbounded = yield* Effect.forkChild(ours(Effect.as(Effect.sleep(1_000), "done"), Number.NaN))
      const bounded = yield* Effect.forkChild(ours(Effect.never, 100))
      yield* TestClock.adjust(100)
      assert.deepStrictEqual(yield* Fiber.await(bounded), Exit.fail("timeout"))
      yield* TestClock.adjust(900)
      assert.deepStrictEqual(yield* Fiber.await(unbounded), Exit.succeed("done"))
    }))

  it.live("on the real clock, no sleep outlives the attempts once they were idle for a short while", () =>
    Effect.gen(function*() {
      const { counting, pending, started } = countingClock(yield* Clock.Clock)
      for (let i = 0; i < 20; i++) {
        assert.strictEqual(yield* ours(Effect.as(Effect.sleep(1), i), 30_000).pipe(Effect.provideService(Clock.Clock, counting)), i)
      }
      // the attempts' own sleeps, and one timer for all of them
      assert.strictEqual(started(), 21)
      yield* idle
      assert.strictEqual(pending(), 0)
    }))

  it.live("the timer is kept through a gap shorter than the idle time, counted from the last attempt's end", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => Timeout.setIdleMillis(1_000)),
      () =>
        Effect.gen(function*() {
          const { counting, pending, started } = countingClock(yield* Clock.Clock)
          const attempt = (value: string) => ours(Effect.as(Effect.sleep(1), value), 30_000).pipe(Effect.provideService(Clock.Clock, counting))
          const wait = (millis: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))
          assert.strictEqual(yield* attempt("first"), "first")
          yield* wait(600)
          assert.strictEqual(pending(), 1) // kept for the next attempt
          assert.strictEqual(yield* attempt("second"), "second")
          assert.strictEqual(started(), 3) // two attempts' own sleeps, one shared timer
          yield* wait(550)
          // the idle time is over since the first attempt's end, not since the second's
          assert.strictEqual(pending(), 1)
          yield* wait(900)
          assert.strictEqual(pending(), 0)
        }),
      (former) => Effect.sync(() => Timeout.setIdleMillis(former))
    ))

  it.live("a process whose last attempt is over exits on its own, without waiting for the attempt's limit", () =>
    Effect.promise(() =>
      new Promise<void>((resolve, reject) => {
        execFile(process.execPath, [fileURLToPath(new URL("./fixtures/idleExit.ts", import.meta.url))], { timeout: 8_000 }, (error, stdout) => {
          const exited = Date.now()
          try {
            if (error) throw error
            const [value, at] = stdout.trim().split(" ")
            assert.strictEqual(value, "done")
            // the attempt's limit is 30 s; the timer is kept 20 ms once idle
            assert.isBelow(exited - Number(at), 5_000)
            resolve()
          } catch (failure) {
            reject(failure)
          }
        })
      })
    ), 15_000)
})

/** Longer than the sleeper is kept once no attempt is in flight (20 ms of real time). */
const idle = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 60)))

/** A clock that counts its pending sleeps. */
const countingClock = (clock: Clock.Clock) => {
  let pending = 0
  let started = 0
  // the clock's own methods through its prototype chain (the live clock is a class instance)
  const counting: Clock.Clock = Object.assign(Object.create(clock) as Clock.Clock, {
    sleep: (duration: Duration.Duration) =>
      Effect.ensuring(Effect.suspend(() => (started++, pending++, clock.sleep(duration))), Effect.sync(() => pending--))
  })
  return { counting, pending: () => pending, started: () => started }
}

import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Layer, Ref, Schedule, Schema } from "effect"
import * as DeadLetters from "@connected-vehicle/fleet/DeadLetters"
import { EventQueue, QueuedEvent } from "@connected-vehicle/fleet/EventQueue"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import * as Worker from "@connected-vehicle/fleet/Worker"
import { stateEvent } from "./fixtures.ts"

const embedded = (maxAttempts: number) => Layer.fresh(Ingestion.layerMemory({ maxAttempts, retrySchedule: Schedule.spaced("10 millis") }))

/** Waits (live clock) until `check` holds, or fails after `timeoutMs`. */
const eventually = <E, R>(check: Effect.Effect<boolean, E, R>, timeoutMs = 10_000) =>
  check.pipe(
    Effect.repeat({ until: (ok) => ok, schedule: Schedule.spaced("20 millis") }),
    Effect.timeout(timeoutMs),
    Effect.asVoid
  )

const offer = (id: string) => Effect.flatMap(EventQueue, (queue) => queue.offer(Schema.decodeUnknownSync(QueuedEvent)(stateEvent(id))))

/** Interrupts the fiber running it, as effect/cluster's `ClusterAbandon.interrupt` and `Workflow.suspend` do. */
const interruptSelf: Effect.Effect<never> = Effect.interruptible(Effect.callback<never>(() => {
  const fiber = Fiber.getCurrent()!
  fiber.interruptUnsafe(fiber.id)
}))

describe("Worker (in memory)", () => {
  it.live("a handler interrupting its own fiber is a failed attempt: retried, then a dead letter; every loop goes on", () =>
    Effect.gen(function*() {
      const runs = yield* Ref.make<ReadonlyArray<string>>([])
      const worker = yield* Effect.forkScoped(Worker.run({
        concurrency: 2,
        handler: (event, taken) =>
          Effect.andThen(
            Ref.update(runs, (r) => [...r, `${event.eventId}#${taken.attempts}`]),
            event.eventId === "evt_abandon" ? interruptSelf : Effect.void
          )
      }))
      yield* offer("evt_abandon")
      const letters = yield* DeadLetters.DeadLetters
      yield* eventually(Effect.map(letters.list(), (list) => list.length === 1))
      const [letter] = yield* letters.list()
      assert.strictEqual(letter!.attempts, 3)
      assert.include(letter!.cause, "the handler was interrupted")
      for (const id of ["evt_a", "evt_b", "evt_c"]) yield* offer(id)
      yield* eventually(Effect.map(Ref.get(runs), (r) => r.filter((run) => !run.startsWith("evt_abandon")).length === 3))
      assert.deepStrictEqual((yield* Ref.get(runs)).filter((run) => run.startsWith("evt_abandon")), [
        "evt_abandon#1",
        "evt_abandon#2",
        "evt_abandon#3"
      ])
      assert.isUndefined(worker.pollUnsafe())
    }).pipe(Effect.scoped, Effect.provide(embedded(3))))

  it.live("the worker's shutdown releases the event uncounted even when the handler's cleanup fails", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const worker = yield* Effect.forkChild(Worker.run({
        handler: () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.andThen(Effect.never),
            Effect.ensuring(Effect.die(new Error("cleanup failed")))
          )
      }))
      yield* offer("evt_slow")
      yield* Deferred.await(started)
      yield* Fiber.interrupt(worker).pipe(Effect.timeout("3 seconds"))
      const exit = worker.pollUnsafe()!
      assert.isTrue(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) // not "stopped unexpectedly"
      assert.deepStrictEqual(yield* (yield* DeadLetters.DeadLetters).list(), [])
      const again = yield* Deferred.make<number>()
      yield* Effect.forkScoped(Worker.run({ handler: (_event, taken) => Deferred.succeed(again, taken.attempts) }))
      assert.strictEqual(yield* Deferred.await(again).pipe(Effect.timeout("5 seconds")), 1)
    }).pipe(Effect.scoped, Effect.provide(embedded(1))))

  it.live("a handler running over handlerTimeout is interrupted and fails its attempt; the loop goes on", () =>
    Effect.gen(function*() {
      const runs = yield* Ref.make<ReadonlyArray<string>>([])
      yield* Effect.forkScoped(Worker.run({
        handlerTimeout: "200 millis",
        handler: (event, taken) =>
          Effect.andThen(
            Ref.update(runs, (r) => [...r, `${event.eventId}#${taken.attempts}`]),
            event.eventId === "evt_hung" ? Effect.never : Effect.void
          )
      }))
      yield* offer("evt_hung")
      const letters = yield* DeadLetters.DeadLetters
      yield* eventually(Effect.map(letters.list(), (list) => list.length === 1))
      assert.include((yield* letters.list())[0]!.cause, "handlerTimeout")
      yield* offer("evt_ok")
      yield* eventually(Effect.map(Ref.get(runs), (r) => r.includes("evt_ok#1")))
      assert.deepStrictEqual((yield* Ref.get(runs)).filter((run) => run.startsWith("evt_hung")), ["evt_hung#1", "evt_hung#2"])
    }).pipe(Effect.scoped, Effect.provide(embedded(2))))

  it.effect("a handlerTimeout that is not a finite positive duration is a Configuration FleetError naming it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Worker.run({ handler: () => Effect.void, handlerTimeout: -1 }))
      assert.strictEqual(error.reason._tag, "Configuration")
      assert.include(error.message, "handlerTimeout")
    }).pipe(Effect.provide(embedded(1))))
})

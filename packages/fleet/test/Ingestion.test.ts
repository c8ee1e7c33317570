import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Metric, Option, Ref, Schedule } from "effect"
import { TestClock } from "effect/testing"
import { DeadLetters } from "@connected-vehicle/fleet/DeadLetters"
import * as DurableReceiver from "@connected-vehicle/fleet/DurableReceiver"
import { EventQueue } from "@connected-vehicle/fleet/EventQueue"
import * as FleetMetrics from "@connected-vehicle/fleet/FleetMetrics"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import * as Worker from "@connected-vehicle/fleet/Worker"
import { Signature } from "@connected-vehicle/webhooks"
import { Redacted } from "effect"
import { delivery, secret, stateEvent, verifyEvent } from "./fixtures.ts"

const Embedded = Ingestion.layerMemory({ maxAttempts: 3, retrySchedule: Schedule.spaced("10 millis") })

/** Waits (live clock) until `check` holds, or fails after `timeoutMs`. */
const eventually = <E, R>(check: Effect.Effect<boolean, E, R>, timeoutMs = 10_000) =>
  check.pipe(
    Effect.repeat({ until: (ok) => ok, schedule: Schedule.spaced("20 millis") }),
    Effect.timeout(timeoutMs),
    Effect.asVoid
  )

describe("DurableReceiver (in memory)", () => {
  it.live("a verified event is stored and answered 200; a duplicate is answered 200 and handled once", () =>
    Effect.gen(function*() {
      const receiver = yield* DurableReceiver.make({ secret })
      const handled = yield* Ref.make<ReadonlyArray<string>>([])
      yield* Effect.forkScoped(Worker.run({ handler: (event) => Ref.update(handled, (ids) => [...ids, event.eventId]) }))
      for (let i = 0; i < 3; i++) {
        const reply = yield* receiver.receive(delivery(stateEvent("evt_1")))
        assert.strictEqual(reply.status, 200)
      }
      assert.strictEqual((yield* receiver.receive(delivery(stateEvent("evt_2")))).status, 200)
      yield* eventually(Effect.map(Ref.get(handled), (ids) => ids.length === 2))
      yield* Effect.sleep("100 millis")
      assert.deepStrictEqual([...(yield* Ref.get(handled))].sort(), ["evt_1", "evt_2"])
      assert.strictEqual((yield* Metric.value(FleetMetrics.handlersRunning)).value, 0)
    }).pipe(Effect.scoped, Effect.provide(Embedded)))

  it.effect("VERIFY is answered by the receiver; a bad signature is 401 and nothing is stored", () =>
    Effect.gen(function*() {
      const receiver = yield* DurableReceiver.make({ secret })
      const challenge = yield* receiver.receive(delivery(verifyEvent("c4a1")))
      assert.strictEqual(challenge.status, 200)
      assert.deepStrictEqual(JSON.parse(challenge.body), { challenge: Signature.challengeResponse("c4a1", secret) })
      const forged = yield* receiver.receive(delivery(stateEvent("evt_forged"), Redacted.make("another-secret")))
      assert.strictEqual(forged.status, 401)
      const queue = yield* EventQueue
      const taken = yield* Effect.timeoutOption(queue.take((event) => Effect.succeed(event.eventId)), "50 millis").pipe(
        Effect.forkChild
      )
      yield* TestClock.adjust("1 second")
      assert.isTrue(Option.isNone(yield* Fiber.join(taken)))
    }).pipe(Effect.provide(Embedded)))

  it.effect("an empty secret is a Configuration FleetError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(DurableReceiver.make({ secret: "" }))
      assert.strictEqual(error.reason._tag, "Configuration")
    }).pipe(Effect.provide(Embedded)))
})

describe("Worker (in memory)", () => {
  it.live("a failing handler is retried, then dead-lettered with its cause; a replay handles it", () =>
    Effect.gen(function*() {
      const receiver = yield* DurableReceiver.make({ secret })
      const attempts = yield* Ref.make(0)
      const healthy = yield* Ref.make(false)
      const handled = yield* Ref.make(0)
      const deadBefore = (yield* Metric.value(FleetMetrics.deadLettered)).count
      yield* Effect.forkScoped(Worker.run({
        handler: () =>
          Effect.gen(function*() {
            if (yield* Ref.get(healthy)) return yield* Ref.update(handled, (n) => n + 1)
            yield* Ref.update(attempts, (n) => n + 1)
            return yield* Effect.fail(new Error("the vehicle database is down"))
          })
      }))
      yield* receiver.receive(delivery(stateEvent("evt_poison")))
      const letters = yield* DeadLetters
      yield* eventually(Effect.map(letters.list(), (list) => list.length === 1))
      const [letter] = yield* letters.list()
      assert.strictEqual(letter!.eventId, "evt_poison")
      assert.strictEqual(letter!.attempts, 3)
      assert.strictEqual(yield* Ref.get(attempts), 3)
      assert.include(letter!.cause, "the vehicle database is down")
      assert.strictEqual((yield* Metric.value(FleetMetrics.deadLettered)).count - deadBefore, 1)

      yield* Ref.set(healthy, true)
      assert.strictEqual(yield* Ingestion.replay("evt_poison"), "evt_poison:replay:1")
      yield* eventually(Effect.map(Ref.get(handled), (n) => n === 1))
      assert.deepStrictEqual(yield* letters.list(), [])
      const again = yield* Effect.flip(Ingestion.replay("evt_poison"))
      assert.deepStrictEqual([again.reason._tag, again.isRetryable, again.message], [
        "DeadLetterNotFound",
        false,
        "DeadLetterNotFound: no dead letter of event evt_poison awaits a replay"
      ])
    }).pipe(Effect.scoped, Effect.provide(Embedded)))

  it.live("a worker layer keeps running after handler defects", () =>
    Effect.gen(function*() {
      const receiver = yield* DurableReceiver.make({ secret })
      const handled = yield* Ref.make<ReadonlyArray<string>>([])
      const Workers = Worker.layer({
        concurrency: 2,
        handler: (event) =>
          event.eventId === "evt_defect"
            ? Effect.die(new Error("bug"))
            : Ref.update(handled, (ids) => [...ids, event.eventId])
      })
      yield* Effect.gen(function*() {
        yield* receiver.receive(delivery(stateEvent("evt_defect")))
        yield* receiver.receive(delivery(stateEvent("evt_ok")))
        yield* eventually(Effect.map(Ref.get(handled), (ids) => ids.includes("evt_ok")))
        const letters = yield* DeadLetters
        yield* eventually(Effect.map(letters.list(), (list) => list.length === 1))
        assert.include((yield* letters.list())[0]!.cause, "bug")
      }).pipe(Effect.provide(Workers))
    }).pipe(Effect.provide(Layer.fresh(Embedded))))
})

import { assert, describe, it } from "@effect/vitest"
import { NodeHttpServer } from "@effect/platform-node"
import { createServer } from "node:http"
import { HttpRouter, HttpServer } from "effect/http"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Metric, Option, Ref, Schedule, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as DeadLetters from "@connected-vehicle/fleet/DeadLetters"
import { DeadLetterStore, FleetError } from "@connected-vehicle/fleet/FleetError"
import * as DurableReceiver from "@connected-vehicle/fleet/DurableReceiver"
import { EventQueue, QueuedEvent } from "@connected-vehicle/fleet/EventQueue"
import * as FleetMetrics from "@connected-vehicle/fleet/FleetMetrics"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import * as Worker from "@connected-vehicle/fleet/Worker"
import { Signature } from "@connected-vehicle/webhooks"
import { Redacted } from "effect"
import { marksOf } from "../src/internal/attemptMarks.ts"
import { delivery, post, secret, stateEvent, verifyEvent } from "./fixtures.ts"

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

  it.live("layerRoute over loopback: a delivery is stored; any other method is 405 with Allow: POST, never the router's 404", () =>
    Effect.gen(function*() {
      const services = yield* Layer.build(
        HttpRouter.serve(DurableReceiver.layerRoute({ secret, path: "/hooks" }), { disableListenLog: true }).pipe(
          Layer.provideMerge(Embedded),
          Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1", gracefulShutdownTimeout: 0 }))
        )
      )
      const address = Context.get(services, HttpServer.HttpServer).address
      const url = `http://127.0.0.1:${"port" in address ? address.port : 0}/hooks`
      const stored = yield* Effect.promise(() => post(url, stateEvent("evt_route")))
      assert.strictEqual(stored.status, 200)
      const queue = Context.get(services, EventQueue)
      assert.strictEqual(yield* queue.take((event) => Effect.succeed(event.eventId)), "evt_route")
      for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
        const answer = yield* Effect.promise(() => fetch(url, { method }))
        assert.strictEqual(answer.status, 405, method)
        assert.strictEqual(answer.headers.get("allow"), "POST", method)
        yield* Effect.promise(() => answer.arrayBuffer())
      }
    }).pipe(Effect.scoped))

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
      const letters = yield* DeadLetters.DeadLetters
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
        const letters = yield* DeadLetters.DeadLetters
        yield* eventually(Effect.map(letters.list(), (list) => list.length === 1))
        assert.include((yield* letters.list())[0]!.cause, "bug")
      }).pipe(Effect.provide(Workers))
    }).pipe(Effect.provide(Layer.fresh(Embedded))))

  it.live("a handler ending in an interruption of its own is a failed attempt: retried, then a dead letter saying so; every worker goes on", () =>
    Effect.gen(function*() {
      const receiver = yield* DurableReceiver.make({ secret })
      const handled = yield* Ref.make<ReadonlyArray<string>>([])
      const poisonRuns = yield* Ref.make<ReadonlyArray<number>>([])
      const worker = yield* Effect.forkScoped(Worker.run({
        concurrency: 4,
        handler: (event, taken) =>
          event.eventId === "evt_poison"
            // joins a child fiber that was interrupted (a lost race, a resource shut down), or interrupts itself
            ? Effect.andThen(
              Ref.update(poisonRuns, (runs) => [...runs, taken.attempts]),
              taken.attempts === 1
                ? Effect.flatMap(Effect.forkChild(Effect.never), (child) => Effect.andThen(Fiber.interrupt(child), Fiber.join(child)))
                : Effect.interrupt
            )
            : Ref.update(handled, (ids) => [...ids, event.eventId])
      }))
      yield* receiver.receive(delivery(stateEvent("evt_poison")))
      const letters = yield* DeadLetters.DeadLetters
      yield* eventually(Effect.map(letters.list(), (list) => list.length === 1))
      for (const id of ["evt_a", "evt_b", "evt_c"]) {
        assert.strictEqual((yield* receiver.receive(delivery(stateEvent(id)))).status, 200)
      }
      yield* eventually(Effect.map(Ref.get(handled), (ids) => ids.length === 3))
      assert.deepStrictEqual([...(yield* Ref.get(handled))].sort(), ["evt_a", "evt_b", "evt_c"])
      assert.deepStrictEqual(yield* Ref.get(poisonRuns), [1, 2, 3])
      const [letter] = yield* letters.list()
      assert.strictEqual(letter!.attempts, 3)
      assert.include(letter!.cause, "the handler was interrupted (an interruption of its own, not the worker's shutdown)")
      assert.isUndefined(worker.pollUnsafe())
    }).pipe(Effect.scoped, Effect.provide(Layer.fresh(Embedded))))

  it.live("the worker's own interruption releases the event it runs: not an attempt, no dead letter; the next worker takes it", () =>
    Effect.gen(function*() {
      const receiver = yield* DurableReceiver.make({ secret })
      const started = yield* Deferred.make<void>()
      const first = yield* Effect.forkChild(Worker.run({ handler: () => Effect.andThen(Deferred.succeed(started, undefined), Effect.never) }))
      yield* receiver.receive(delivery(stateEvent("evt_slow")))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(first)
      assert.isTrue(Exit.hasInterrupts(first.pollUnsafe()!))
      assert.deepStrictEqual(yield* (yield* DeadLetters.DeadLetters).list(), [])
      const again = yield* Deferred.make<number>()
      yield* Effect.forkScoped(Worker.run({ handler: (_event, taken) => Deferred.succeed(again, taken.attempts) }))
      assert.strictEqual(yield* Deferred.await(again).pipe(Effect.timeout("5 seconds")), 1)
    }).pipe(Effect.scoped, Effect.provide(Layer.fresh(Embedded))))

  it.effect("a concurrency that is not a positive integer is a Configuration FleetError naming it", () =>
    Effect.gen(function*() {
      for (const concurrency of [Number.NaN, 0, -2, 1.5, Infinity]) {
        const error = yield* Effect.flip(Worker.run({ handler: () => Effect.void, concurrency }))
        assert.strictEqual(error.reason._tag, "Configuration")
        assert.include(error.message, `concurrency: expected a positive integer, got ${concurrency}`)
        const built = yield* Effect.flip(Layer.build(Worker.layer({ handler: () => Effect.void, concurrency })).pipe(Effect.scoped))
        assert.include(built.message, "concurrency")
      }
    }).pipe(Effect.provide(Layer.fresh(Embedded))))

  it.effect("a maxAttempts that is not a positive integer is a Configuration FleetError naming it", () =>
    Effect.gen(function*() {
      for (const maxAttempts of [Number.NaN, 0, -1, 2.5, Infinity]) {
        const error = yield* Effect.flip(Layer.build(Ingestion.layerMemory({ maxAttempts })).pipe(Effect.scoped))
        assert.strictEqual(error.reason._tag, "Configuration")
        assert.include(error.message, `maxAttempts: expected a positive integer, got ${maxAttempts}`)
      }
    }))

  it.live("a dead letter whose write failed is written with its real cause by the next take, over maxAttempts", () =>
    Effect.gen(function*() {
      const store = yield* DeadLetters.makeMemory
      const failures = yield* Ref.make(1)
      const flaky = DeadLetters.DeadLetters.of({
        ...store,
        add: (letter) =>
          Effect.flatMap(Ref.getAndUpdate(failures, (n) => n - 1), (left) =>
            left > 0 ? Effect.fail(new FleetError({ reason: new DeadLetterStore({ description: "the store blinked" }) })) : store.add(letter))
      })
      const runs = yield* Ref.make(0)
      yield* Effect.forkScoped(Worker.run({
        handler: () => Effect.andThen(Ref.update(runs, (n) => n + 1), Effect.fail(new Error("the vehicle database is down")))
      }).pipe(Effect.provideService(DeadLetters.DeadLetters, flaky)))
      yield* (yield* EventQueue).offer(Schema.decodeUnknownSync(QueuedEvent)(stateEvent("evt_poison")))
      yield* eventually(Effect.map(store.list(), (list) => list.length === 1))
      const [letter] = yield* store.list()
      assert.strictEqual(letter!.attempts, 3)
      assert.include(letter!.cause, "the vehicle database is down")
      assert.strictEqual(yield* Ref.get(runs), 3)
    }).pipe(Effect.scoped, Effect.provide(Layer.fresh(Embedded))))

  it.live("a dead letter written already (the event's completion failed) is kept by the next take, over maxAttempts", () =>
    Effect.gen(function*() {
      const queue = yield* EventQueue
      const letters = yield* DeadLetters.DeadLetters
      const event = Schema.decodeUnknownSync(QueuedEvent)(stateEvent("evt_poison"))
      yield* queue.offer(event)
      // the last attempt wrote its letter, then failed to complete the event (each failure marked, as a worker marks it)
      for (let attempt = 1; attempt <= 3; attempt++) {
        yield* Effect.exit(queue.take(() => Effect.fail(new Error("the vehicle database is down"))))
        yield* marksOf(queue).mark("evt_poison", attempt, "failed")
      }
      yield* letters.add({ event, attempts: 3, cause: "Error: the vehicle database is down" })
      const runs = yield* Ref.make(0)
      yield* Effect.forkScoped(Worker.run({ handler: () => Ref.update(runs, (n) => n + 1) }))
      yield* Effect.sleep("200 millis")
      const [letter] = yield* letters.list()
      assert.strictEqual(letter!.cause, "Error: the vehicle database is down")
      assert.strictEqual(yield* Ref.get(runs), 0)
    }).pipe(Effect.scoped, Effect.provide(Layer.fresh(Embedded))))
  it.live("an event whose previous attempt had no outcome runs alone: the handlers running end first, none starts beside it", () =>
    Effect.gen(function*() {
      const queue = yield* EventQueue
      yield* queue.offer(Schema.decodeUnknownSync(QueuedEvent)(stateEvent("p_1")))
      // attempt 1 of p_1 ends with nothing marked: to the worker, an attempt with no outcome (as when its worker died)
      yield* Effect.exit(queue.take(() => Effect.fail(new Error("lost"))))
      for (const id of ["p_2", "p_3", "p_4"]) yield* queue.offer(Schema.decodeUnknownSync(QueuedEvent)(stateEvent(id)))
      const running = new Set<string>()
      const overlaps: Array<string> = []
      const runs: Array<string> = []
      yield* Effect.forkScoped(Worker.run({
        concurrency: 4,
        handler: (event, taken) =>
          Effect.sync(() => {
            if (running.size > 0 && (event.eventId === "p_1" || running.has("p_1"))) overlaps.push(`${event.eventId} beside ${[...running]}`)
            running.add(event.eventId)
            runs.push(`${event.eventId}#${taken.attempts}`)
          }).pipe(Effect.andThen(Effect.sleep("50 millis")), Effect.ensuring(Effect.sync(() => running.delete(event.eventId))))
      }))
      yield* eventually(Effect.sync(() => runs.length === 4))
      yield* Effect.sleep("100 millis")
      assert.deepStrictEqual(overlaps, [])
      assert.deepStrictEqual([...runs].sort(), ["p_1#2", "p_2#1", "p_3#1", "p_4#1"])
      assert.deepStrictEqual(yield* (yield* DeadLetters.DeadLetters).list(), [])
    }).pipe(Effect.scoped, Effect.provide(Layer.fresh(Embedded))))
  it.live("an event taken twice maxAttempts times, its attempts without outcome beside other events, is a dead letter saying so, without a run", () =>
    Effect.gen(function*() {
      const queue = yield* EventQueue
      yield* queue.offer(Schema.decodeUnknownSync(QueuedEvent)(stateEvent("evt_unlucky")))
      // two attempts that end with nothing marked: to the worker, no outcome, not alone (as when a neighbour crashed the process)
      for (let attempt = 1; attempt <= 2; attempt++) {
        yield* Effect.exit(queue.take(() => Effect.fail(new Error("lost"))))
        yield* Effect.sleep("20 millis")
      }
      const runs = yield* Ref.make(0)
      yield* Effect.forkScoped(Worker.run({ handler: () => Ref.update(runs, (n) => n + 1) }))
      const letters = yield* DeadLetters.DeadLetters
      yield* eventually(Effect.map(letters.list(), (list) => list.length === 1))
      const [letter] = yield* letters.list()
      assert.strictEqual(letter!.attempts, 2)
      assert.include(letter!.cause, "no outcome: taken 2 times, the most an event is (2: twice maxAttempts), 0 of them counted")
      assert.include(letter!.cause, "while other events ran beside it")
      assert.strictEqual(yield* Ref.get(runs), 0)
    }).pipe(Effect.scoped, Effect.provide(Layer.fresh(Ingestion.layerMemory({ maxAttempts: 1, retrySchedule: Schedule.spaced("10 millis") })))))
})

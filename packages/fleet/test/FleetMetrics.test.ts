/**
 * The observability metrics move (in memory): the queue depth counts each
 * stored event once (duplicates not) until it is finished, every take is
 * counted (retries included), the lag of each event's first take is
 * recorded from its receipt, and an element stored without `receivedAt` is
 * still read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Metric, Ref, Schedule } from "effect"
import { TestClock } from "effect/testing"
import { PersistedQueue } from "effect/persistence"
import * as DeadLetters from "@connected-vehicle/fleet/DeadLetters"
import * as EventQueue from "@connected-vehicle/fleet/EventQueue"
import * as FleetMetrics from "@connected-vehicle/fleet/FleetMetrics"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import * as Worker from "@connected-vehicle/fleet/Worker"
import { Schema } from "effect"
import { stateEvent } from "./fixtures.ts"

const snapshot = Effect.all({
  depth: Effect.map(Metric.value(FleetMetrics.queueDepth), (s) => s.value),
  taken: Effect.map(Metric.value(FleetMetrics.eventsTaken), (s) => s.count),
  lags: Effect.map(Metric.value(FleetMetrics.eventLag), (s) => s.count),
  maxLag: Effect.map(Metric.value(FleetMetrics.eventLag), (s) => s.max),
  retries: Effect.map(Metric.value(FleetMetrics.handlerRetries), (s) => s.count),
  dead: Effect.map(Metric.value(FleetMetrics.deadLettered), (s) => s.count)
})

const decodeEvent = Schema.decodeUnknownSync(EventQueue.QueuedEvent)

describe("FleetMetrics (in memory)", () => {
  it.live("depth, takes, lag, retries and dead letters move as events are offered, retried and finished", () =>
    Effect.gen(function*() {
      const start = yield* snapshot
      const queue = yield* EventQueue.EventQueue
      for (const id of ["evt_m1", "evt_m2", "evt_m3", "evt_m1"]) yield* queue.offer(decodeEvent(stateEvent(id)))
      assert.strictEqual((yield* snapshot).depth - start.depth, 3) // the duplicate is stored once
      yield* Effect.sleep("60 millis") // the events wait in the queue: their lag
      const failures = yield* Ref.make(0)
      yield* Effect.forkScoped(Worker.run({
        handler: (event) =>
          Effect.gen(function*() {
            if (event.eventId === "evt_m3") return yield* Effect.fail("always")
            if (event.eventId === "evt_m2" && (yield* Ref.getAndUpdate(failures, (n) => n + 1)) === 0) {
              return yield* Effect.fail("once")
            }
          })
      }))
      yield* snapshot.pipe(
        Effect.repeat({ until: (now) => now.depth === start.depth, schedule: Schedule.spaced("20 millis") }),
        Effect.timeout("10 seconds")
      )
      const end = yield* snapshot
      // evt_m1 once, evt_m2 twice, evt_m3 three times (maxAttempts 3)
      assert.strictEqual(end.taken - start.taken, 6)
      assert.strictEqual(end.lags - start.lags, 3) // first takes only
      assert.isAtLeast(end.maxLag, 50)
      assert.strictEqual(end.retries - start.retries, 3)
      assert.strictEqual(end.dead - start.dead, 1)
      assert.deepStrictEqual((yield* (yield* DeadLetters.DeadLetters).list()).map((l) => l.eventId), ["evt_m3"])
    }).pipe(Effect.scoped, Effect.provide(Ingestion.layerMemory({ maxAttempts: 3, retrySchedule: Schedule.spaced("10 millis") }))))

  it.effect("in memory a finished event is forgotten once the retention passed: its id offered again is stored, and counted, again", () =>
    Effect.gen(function*() {
      const start = yield* snapshot
      const queue = yield* EventQueue.EventQueue
      const depth = Effect.map(snapshot, (now) => now.depth - start.depth)
      yield* queue.offer(decodeEvent(stateEvent("evt_kept")))
      assert.strictEqual(yield* depth, 1)
      yield* queue.take(() => Effect.void)
      yield* queue.offer(decodeEvent(stateEvent("evt_kept"))) // within the retention: a duplicate
      assert.strictEqual(yield* depth, 0)
      yield* TestClock.adjust("2 minutes") // the cleanup runs every 15 seconds
      yield* queue.offer(decodeEvent(stateEvent("evt_kept")))
      assert.strictEqual(yield* depth, 1)
      assert.strictEqual(yield* queue.take((event, taken) => Effect.succeed(`${event.eventId} ${taken.attempts}`)), "evt_kept 1")
      assert.strictEqual(yield* depth, 0)
    }).pipe(Effect.scoped, Effect.provide(Ingestion.layerMemory({ retention: "1 minute" }))))

  it.live("without countDepth (a queue shared by many processes) the depth is left alone; takes and receivedAt still are", () =>
    Effect.gen(function*() {
      const start = yield* snapshot
      const queue = yield* EventQueue.make()
      yield* queue.offer(decodeEvent(stateEvent("evt_uncounted")))
      assert.strictEqual((yield* snapshot).depth, start.depth)
      const taken = yield* queue.take((event, taken) => Effect.succeed([event.eventId, taken.attempts, typeof taken.receivedAt]))
      assert.deepStrictEqual(taken, ["evt_uncounted", 1, "number"])
      assert.strictEqual((yield* snapshot).taken - start.taken, 1)
      assert.strictEqual((yield* snapshot).lags - start.lags, 1)
    }).pipe(Effect.provide(PersistedQueue.layer.pipe(Layer.provide(PersistedQueue.layerStoreMemory)))))

  it.live("an element stored as a bare event (no receivedAt) is taken, and no lag is recorded for it", () =>
    Effect.gen(function*() {
      const start = yield* snapshot
      const bare = yield* PersistedQueue.make({ name: EventQueue.defaultName, schema: EventQueue.QueuedEvent })
      yield* bare.offer(decodeEvent(stateEvent("evt_bare")), { id: "evt_bare" })
      const queue = yield* EventQueue.make()
      const taken = yield* queue.take((event, taken) => Effect.succeed([event.eventId, taken.receivedAt]))
      assert.deepStrictEqual(taken, ["evt_bare", undefined])
      assert.strictEqual((yield* snapshot).lags, start.lags)
    }).pipe(Effect.provide(PersistedQueue.layer.pipe(Layer.provide(PersistedQueue.layerStoreMemory)))))
})

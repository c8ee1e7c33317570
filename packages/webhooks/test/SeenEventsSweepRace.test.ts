/**
 * A sweep of one process never removes a mark another process has just
 * written: two stores on one backend whose removals take 50 ms (a remote
 * backend); the first's handler died (its in-flight mark expired), a sweep
 * of the second starts as the service's retry is claimed and handled by the
 * first: that handled mark survives, a duplicate delivery is a duplicate.
 * A mark expired longer than the grace is removed.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { KeyValueStore } from "effect/persistence"
import { TestClock } from "effect/testing"
import * as SeenEvents from "@connected-vehicle/webhooks/SeenEvents"

/** The backend of the test, each removal landing 50 ms after it was asked (a remote backend). */
const slowRemove = Effect.map(Effect.service(KeyValueStore.KeyValueStore), (inner) =>
  KeyValueStore.make({
    get: (key) => inner.get(key),
    getUint8Array: (key) => inner.getUint8Array(key),
    set: (key, value) => inner.set(key, value),
    remove: (key) => Effect.andThen(Effect.sleep("50 millis"), inner.remove(key)),
    clear: inner.clear,
    size: inner.size,
    keys: inner.keys
  }))

describe("SeenEvents on a KeyValueStore: sweeps of several processes", () => {
  it.live("a sweep started as another process claims and completes an event whose mark had expired leaves its handled mark", () =>
    Effect.gen(function*() {
      const kv = yield* slowRemove
      const options = { ttl: "1 hour", inFlightTimeout: "100 millis" } as const
      const b = yield* SeenEvents.makeKeyValueStore(options).pipe(Effect.provideService(KeyValueStore.KeyValueStore, kv))
      // B's handler process dies: its in-flight mark expires
      assert.strictEqual(yield* b.claim("evt-1", "first"), "claimed")
      yield* Effect.sleep("150 millis")
      // process A starts: its first sweep reads evt-1's expired mark
      yield* Effect.forkChild(SeenEvents.makeKeyValueStore(options).pipe(Effect.provideService(KeyValueStore.KeyValueStore, kv)))
      yield* Effect.sleep("10 millis")
      // the service's retry reaches B: claimed, handled, completed
      assert.strictEqual(yield* b.claim("evt-1", "retry"), "claimed")
      yield* b.complete("evt-1", "retry")
      yield* Effect.sleep("150 millis")
      assert.strictEqual(yield* b.claim("evt-1", "dup"), "duplicate")
    }).pipe(Effect.provide(KeyValueStore.layerMemory)), 10_000)

  it.effect("a mark expired longer than the grace is removed by a sweep", () =>
    Effect.gen(function*() {
      const kv = yield* KeyValueStore.KeyValueStore
      const options = { ttl: "1 hour", inFlightTimeout: "1 minute" } as const
      const a = yield* SeenEvents.makeKeyValueStore(options)
      assert.strictEqual(yield* a.claim("evt-2", "first"), "claimed")
      yield* TestClock.adjust("12 minutes")
      // a new store's first sweep: the in-flight mark expired 11 minutes ago
      yield* SeenEvents.makeKeyValueStore(options)
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* kv.size, 0)
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))
})

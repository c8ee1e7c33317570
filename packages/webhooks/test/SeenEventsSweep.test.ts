/**
 * The `KeyValueStore` store's sweep of expired marks runs in the background:
 * a claim answers while the backend is still listing its keys, never two
 * sweeps run at once, removals run a few at a time, and the layer's sweep
 * ends with the layer. (The store's time is the test clock; the backend's
 * delays are real time.)
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Layer, Scope } from "effect"
import { KeyValueStore } from "effect/persistence"
import { TestClock } from "effect/testing"
import * as SeenEvents from "../src/SeenEvents.ts"
import { eventually, pause } from "./utils.ts"

/**
 * A backend in memory whose listings after the first (made when the store
 * is built) wait for `open`, counting listings and the removals in
 * progress; a removal takes 20 ms.
 */
const slowBackend = Effect.gen(function*() {
  const gate = yield* Deferred.make<void>()
  const entries = new Map<string, string>()
  const stats = { listings: 0, removing: 0, mostRemoving: 0, interrupted: false }
  const kv = KeyValueStore.makeStringOnly({
    get: (key) => Effect.sync(() => entries.get(key)),
    set: (key, value) => Effect.sync(() => void entries.set(key, value)),
    remove: (key) =>
      Effect.sync(() => {
        stats.removing++
        stats.mostRemoving = Math.max(stats.mostRemoving, stats.removing)
      }).pipe(
        Effect.andThen(pause(20)),
        Effect.andThen(Effect.sync(() => void entries.delete(key))),
        Effect.ensuring(Effect.sync(() => void stats.removing--))
      ),
    clear: Effect.sync(() => entries.clear()),
    size: Effect.sync(() => entries.size),
    keys: Effect.suspend(() => ++stats.listings === 1 ? Effect.void : Deferred.await(gate)).pipe(
      Effect.onInterrupt(() => Effect.sync(() => void (stats.interrupted = true))),
      Effect.andThen(Effect.sync(() => [...entries.keys()]))
    )
  })
  return { kv, entries, stats, open: Deferred.succeed(gate, undefined) }
})

/** A claim's answer, or a note that none came within a second (real time). */
const promptly = <A, E>(claim: Effect.Effect<A, E>) =>
  Effect.raceFirst(claim, Effect.as(pause(1000), "no answer within a second"))

const expired = JSON.stringify({ state: "done", expiresAt: 1 })

describe("SeenEvents.makeKeyValueStore sweep", () => {
  it.effect("a claim answers while the sweep is still listing the backend; the sweep then removes the expired marks, 8 at a time", () =>
    Effect.gen(function*() {
      const backend = yield* slowBackend
      const store = yield* SeenEvents.makeKeyValueStore({ ttl: "1 hour" }).pipe(Effect.provideService(KeyValueStore.KeyValueStore, backend.kv))
      for (let i = 0; i < 40; i++) backend.entries.set(`webhooks/seen/1000/evt_old_${i}`, expired)
      backend.entries.set("webhooks/seen/evt_stale", JSON.stringify({ state: "in-flight", expiresAt: 1 }))
      backend.entries.set("other/1000/evt_old", expired)
      // a sweep is due (half the TTL passed)
      yield* TestClock.adjust("31 minutes")
      assert.strictEqual(yield* promptly(store.claim("evt_1", "A")), "claimed")
      yield* eventually("the sweep is listing", () => backend.stats.listings === 2)
      // deduplication holds while the sweep runs
      assert.strictEqual(yield* promptly(store.claim("evt_1", "B")), "in-flight")
      yield* store.complete("evt_1", "A")
      assert.strictEqual(yield* promptly(store.claim("evt_1", "C")), "duplicate")
      yield* backend.open
      yield* eventually("the sweep removed the expired marks", () => backend.entries.size === 2)
      assert.sameMembers([...backend.entries.keys()], ["other/1000/evt_old", "webhooks/seen/evt_1"])
      assert.strictEqual(yield* store.claim("evt_1", "D"), "duplicate")
      assert.isAbove(backend.stats.mostRemoving, 1)
      assert.isAtMost(backend.stats.mostRemoving, 8)
    }))

  it.effect("never two sweeps at once: a claim due for a sweep while one runs starts none; the next one after it ends does", () =>
    Effect.gen(function*() {
      const backend = yield* slowBackend
      // a sweep is due every millisecond
      const store = yield* SeenEvents.makeKeyValueStore({ ttl: "2 millis" }).pipe(Effect.provideService(KeyValueStore.KeyValueStore, backend.kv))
      backend.entries.set("webhooks/seen/1/evt_old", expired)
      yield* TestClock.adjust("10 millis")
      assert.strictEqual(yield* promptly(store.claim("evt_1")), "claimed")
      yield* eventually("the sweep is listing", () => backend.stats.listings === 2)
      yield* TestClock.adjust("10 millis")
      assert.strictEqual(yield* promptly(store.claim("evt_2")), "claimed")
      yield* pause(50)
      assert.strictEqual(backend.stats.listings, 2)
      yield* backend.open
      yield* eventually("the sweep ended", () => !backend.entries.has("webhooks/seen/1/evt_old") && backend.stats.removing === 0)
      yield* pause(20)
      yield* TestClock.adjust("10 millis")
      assert.strictEqual(yield* promptly(store.claim("evt_3")), "claimed")
      yield* eventually("the next sweep started", () => backend.stats.listings === 3)
    }))

  it.effect("layerKeyValueStore: a claim does not wait for the sweep, which ends when the layer is released", () =>
    Effect.gen(function*() {
      const backend = yield* slowBackend
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        SeenEvents.layerKeyValueStore().pipe(Layer.provide(Layer.succeed(KeyValueStore.KeyValueStore, backend.kv))),
        scope
      )
      const store = Context.get(context, SeenEvents.SeenEvents)
      yield* TestClock.adjust("13 hours")
      assert.strictEqual(yield* promptly(store.claim("evt_1")), "claimed")
      yield* eventually("the sweep is listing", () => backend.stats.listings === 2)
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(backend.stats.interrupted)
    }))
})

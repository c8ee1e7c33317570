import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { KeyValueStore } from "effect/persistence"
import { TestClock } from "effect/testing"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Receiver from "../src/Receiver.ts"
import * as SeenEvents from "../src/SeenEvents.ts"
import { secret, signed, vehicleStateEvent } from "./samples.ts"

const lifecycle = (store: SeenEvents.SeenEventsStore, ttl: Duration.Duration) =>
  Effect.gen(function*() {
    assert.strictEqual(yield* store.claim("evt_1"), "claimed")
    assert.strictEqual(yield* store.claim("evt_1"), "in-flight")
    // a failed handler releases its claim: the retry runs it again
    yield* store.release("evt_1")
    assert.strictEqual(yield* store.claim("evt_1"), "claimed")
    yield* store.complete("evt_1")
    assert.strictEqual(yield* store.claim("evt_1"), "duplicate")
    // release after completion changes nothing
    yield* store.release("evt_1")
    assert.strictEqual(yield* store.claim("evt_1"), "duplicate")
    // other events are independent
    assert.strictEqual(yield* store.claim("evt_2"), "claimed")
    // the duplicate is forgotten after the TTL
    yield* TestClock.adjust(Duration.subtract(ttl, Duration.millis(1)))
    assert.strictEqual(yield* store.claim("evt_1"), "duplicate")
    yield* TestClock.adjust(Duration.millis(1))
    assert.strictEqual(yield* store.claim("evt_1"), "claimed")
  })

describe("SeenEvents", () => {
  it.effect("in memory: claim, in-flight, release, complete, duplicate, expiry", () =>
    Effect.gen(function*() {
      const store = yield* SeenEvents.makeMemory({ ttl: "1 hour" })
      yield* lifecycle(store, Duration.hours(1))
    }))

  it.effect("in memory: the default TTL is 24 hours", () =>
    Effect.gen(function*() {
      const store = yield* SeenEvents.makeMemory()
      yield* lifecycle(store, SeenEvents.defaultTtl)
    }))

  it.effect("in memory: at most maxEntries handled events are remembered, the oldest forgotten first (a fraction rounded down)", () =>
    Effect.gen(function*() {
      for (const maxEntries of [2, 2.9]) {
        const store = yield* SeenEvents.makeMemory({ maxEntries })
        for (const id of ["a", "b", "c"]) {
          yield* store.claim(id)
          yield* store.complete(id)
        }
        assert.strictEqual(yield* store.claim("c"), "duplicate")
        assert.strictEqual(yield* store.claim("b"), "duplicate")
        assert.strictEqual(yield* store.claim("a"), "claimed")
      }
    }))

  it.effect("KeyValueStore: the same lifecycle, and an abandoned in-flight mark expires", () =>
    Effect.gen(function*() {
      const store = yield* SeenEvents.makeKeyValueStore({ ttl: "2 hours", inFlightTimeout: "30 seconds" })
      yield* lifecycle(store, Duration.hours(2))
      assert.strictEqual(yield* store.claim("evt_3"), "claimed")
      yield* TestClock.adjust("29 seconds")
      assert.strictEqual(yield* store.claim("evt_3"), "in-flight")
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* store.claim("evt_3"), "claimed")
      const kv = yield* KeyValueStore.KeyValueStore
      const keys = yield* kv.keys
      assert.isTrue(keys.every((key) => key.startsWith("webhooks/seen/")), keys.join())
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("KeyValueStore: a handled event stays a duplicate for a new store on the same backend (a restart)", () =>
    Effect.gen(function*() {
      const before = yield* SeenEvents.makeKeyValueStore()
      assert.strictEqual(yield* before.claim("evt_1"), "claimed")
      yield* before.complete("evt_1")
      const after = yield* SeenEvents.makeKeyValueStore()
      assert.strictEqual(yield* after.claim("evt_1"), "duplicate")
      // a corrupt entry counts as absent
      const kv = yield* KeyValueStore.KeyValueStore
      yield* kv.set("webhooks/seen/evt_2", "not json")
      assert.strictEqual(yield* after.claim("evt_2"), "claimed")
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("KeyValueStore: concurrent claims of one event give one claim", () =>
    Effect.gen(function*() {
      const store = yield* SeenEvents.makeKeyValueStore()
      const claims = yield* Effect.all(Array.from({ length: 20 }, () => store.claim("evt_1")), { concurrency: "unbounded" })
      assert.strictEqual(claims.filter((c) => c === "claimed").length, 1)
      assert.strictEqual(claims.filter((c) => c === "in-flight").length, 19)
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("KeyValueStore: a claimant whose mark expired releases nothing of the next claimant's (its owner)", () =>
    Effect.gen(function*() {
      const store = yield* SeenEvents.makeKeyValueStore({ inFlightTimeout: "60 seconds" })
      assert.strictEqual(yield* store.claim("e", "A"), "claimed")
      yield* TestClock.adjust("75 seconds")
      assert.strictEqual(yield* store.claim("e", "B"), "claimed")
      yield* store.release("e", "A") // A's handler failed, after its mark expired
      assert.strictEqual(yield* store.claim("e", "C"), "in-flight")
      yield* store.release("e", "B")
      assert.strictEqual(yield* store.claim("e", "C"), "claimed")
      // a completion marks the event handled, whoever holds the mark (it was handled)
      yield* store.complete("e", "A")
      assert.strictEqual(yield* store.claim("e", "D"), "duplicate")
      yield* store.release("e", "C")
      assert.strictEqual(yield* store.claim("e", "D"), "duplicate")
      // anonymous claims and releases pair up as before; an anonymous release
      // (a caller written for the previous interface) forgets any in-flight mark
      assert.strictEqual(yield* store.claim("f"), "claimed")
      yield* store.release("f")
      assert.strictEqual(yield* store.claim("f", "G"), "claimed")
      yield* store.release("f")
      assert.strictEqual(yield* store.claim("f"), "claimed")
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("in memory: a release with an owner only forgets that owner's in-flight mark; one without, any", () =>
    Effect.gen(function*() {
      const store = yield* SeenEvents.makeMemory()
      assert.strictEqual(yield* store.claim("e", "A"), "claimed")
      yield* store.release("e", "B")
      assert.strictEqual(yield* store.claim("e", "C"), "in-flight")
      yield* store.release("e", "A")
      assert.strictEqual(yield* store.claim("e", "C"), "claimed")
      yield* store.release("e", "A") // a second release by A: C's mark stays
      assert.strictEqual(yield* store.claim("e", "D"), "in-flight")
      yield* store.release("e") // a caller written for the previous interface
      assert.strictEqual(yield* store.claim("e", "D"), "claimed")
    }))

  it.effect("KeyValueStore: a failing backend is a SeenEventsError", () =>
    Effect.gen(function*() {
      const failing = KeyValueStore.make({
        get: (key) => Effect.fail(new KeyValueStore.KeyValueStoreError({ message: "down", method: "get", key })),
        getUint8Array: () => Effect.succeed(undefined),
        set: () => Effect.void,
        remove: () => Effect.void,
        clear: Effect.void,
        size: Effect.succeed(0),
        keys: Effect.succeed([])
      })
      const store = yield* SeenEvents.makeKeyValueStore().pipe(Effect.provideService(KeyValueStore.KeyValueStore, failing))
      const error = yield* Effect.flip(store.claim("evt_1"))
      assert.strictEqual(error._tag, "SeenEventsError")
      assert.strictEqual(error.operation, "claim")
      assert.strictEqual(error.eventId, "evt_1")
    }))

  it.live("KeyValueStore on the file system: every eventId a receiver accepts is handled once, then a duplicate; a service id is its key", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "webhooks-seen-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      const uuid = "0f8fad5b-d9cb-469f-a165-70867728950e"
      const ids = [
        uuid,
        "a".repeat(128),
        "a".repeat(129),
        "a".repeat(238),
        "a".repeat(Receiver.maxEventIdLength),
        "€".repeat(30),
        "€".repeat(Receiver.maxEventIdLength),
        "evt/1:2 3?",
        `sha256:${"0".repeat(64)}`
      ]
      const handled: Array<string> = []
      const receiver = Receiver.make({ secret, handler: (event) => Effect.sync(() => handled.push(event.eventId)) })
      const store = SeenEvents.layerKeyValueStore().pipe(
        Layer.provide(KeyValueStore.layerFileSystem(dir)),
        Layer.provide([NodeFileSystem.layer, NodePath.layer])
      )
      for (const id of ids) {
        const delivery = signed(JSON.stringify(vehicleStateEvent(id)))
        const first = yield* receiver.receive(delivery).pipe(Effect.provide(store))
        assert.strictEqual(first.status, 200, `${id.length} characters: ${first.body}`)
        // a new store on the same directory (a restart) finds it handled
        const retry = yield* receiver.receive(delivery).pipe(Effect.provide(store))
        assert.strictEqual(retry.body, "{\"status\":\"duplicate\"}", `${id.length} characters`)
      }
      assert.deepStrictEqual(handled, ids)
      const files = readdirSync(dir)
      assert.strictEqual(files.length, ids.length)
      // a handled event is kept under the prefix and keyOf (the service's ids, and every short plain id, as they are)
      const names = files.map((file) => decodeURIComponent(file))
      for (const name of names) assert.match(name, /^webhooks\/seen\/[^/]+$/)
      assert.include(names, `webhooks/seen/${uuid}`)
      assert.include(names, `webhooks/seen/${"a".repeat(128)}`)
      assert.strictEqual(SeenEvents.keyOf(uuid), uuid)
      assert.match(SeenEvents.keyOf("a".repeat(129)), /^sha256:[0-9a-f]{64}$/)
      // an id written as a hashed key is hashed too: no plain id is ever taken for a hashed one
      assert.match(SeenEvents.keyOf(`sha256:${"0".repeat(64)}`), /^sha256:[0-9a-f]{64}$/)
      assert.notStrictEqual(SeenEvents.keyOf(`sha256:${"0".repeat(64)}`), `sha256:${"0".repeat(64)}`)
      for (const file of files) assert.isAtMost(Buffer.byteLength(file), 255, file)
    }).pipe(Effect.provide(Receiver.layerHandlerScope)))
})

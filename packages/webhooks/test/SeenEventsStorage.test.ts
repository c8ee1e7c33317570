/**
 * The `KeyValueStore` store's storage: bounded by the events of about one
 * TTL (expired marks are removed, on the file system as anywhere), marks of
 * earlier versions and of other options still read, and one built store
 * shared by two adapters in one process.
 */
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { KeyValueStore } from "effect/persistence"
import { TestClock } from "effect/testing"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeAdapter from "../src/NodeAdapter.ts"
import * as SeenEvents from "../src/SeenEvents.ts"
import * as WebAdapter from "../src/WebAdapter.ts"
import { secret, signed, vehicleStateEvent } from "./samples.ts"
import { answerOf, eventually, fetchTarget, listen, requestInit } from "./utils.ts"

const fileSystem = (dir: string) =>
  KeyValueStore.layerFileSystem(dir).pipe(Layer.provide([NodeFileSystem.layer, NodePath.layer]), Layer.orDie)

const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "webhooks-seen-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

describe("SeenEvents.makeKeyValueStore storage", () => {
  it.effect("on the file system, the files stay bounded by the events of about one TTL over many TTLs; a duplicate within the TTL is still one after a restart", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const kv = fileSystem(dir)
      const options = { ttl: "1 second", prefix: "s/" } as const
      const store = yield* SeenEvents.makeKeyValueStore(options).pipe(Effect.provide(kv))
      // 10 events every 100 ms for 5 TTLs: 500 events, 100 per TTL
      let most = 0
      for (let step = 0; step < 50; step++) {
        for (let i = 0; i < 10; i++) {
          const id = `evt_${step}_${i}`
          assert.strictEqual(yield* store.claim(id, "A"), "claimed")
          yield* store.complete(id, "A")
        }
        most = Math.max(most, readdirSync(dir).length)
        yield* TestClock.adjust("100 millis")
      }
      // at most the events of two TTLs (a window of half a TTL, swept every half TTL)
      assert.isAtMost(most, 210, `files kept: ${most}`)
      // the events of the last TTL are duplicates, for a new store on the directory (a restart) too
      const restarted = yield* SeenEvents.makeKeyValueStore(options).pipe(Effect.provide(kv))
      assert.strictEqual(yield* restarted.claim("evt_49_9"), "duplicate")
      assert.strictEqual(yield* restarted.claim("evt_41_0"), "duplicate")
      assert.strictEqual(yield* restarted.claim("evt_39_0"), "claimed")
      yield* restarted.release("evt_39_0")
      // its first sweep (in the background) read every mark and removed those expired more than a grace
      // ago (a tenth of the TTL here): those of the events of the last TTL and of that grace are left
      yield* eventually("the first sweep removed the expired marks", () => readdirSync(dir).length === 100)
      // once quiet for a TTL, the next claim leaves its own mark only
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* restarted.claim("evt_new"), "claimed")
      // (the sweep runs in the background)
      yield* eventually("the sweep removed the others", () => readdirSync(dir).length === 1)
      assert.deepStrictEqual(readdirSync(dir), [encodeURIComponent("s/evt_new")])
    }).pipe(Effect.scoped), 20_000)

  it.effect("a handled mark of an earlier version (under the prefix and keyOf) is read, then removed once expired", () =>
    Effect.gen(function*() {
      const kv = yield* KeyValueStore.KeyValueStore
      yield* kv.set("webhooks/seen/evt_old", JSON.stringify({ state: "done", expiresAt: 3_600_000 }))
      yield* kv.set("webhooks/seen/evt_older", JSON.stringify({ state: "done", expiresAt: 60_000 }))
      yield* kv.set("other/evt_old", JSON.stringify({ state: "done", expiresAt: 1 }))
      const store = yield* SeenEvents.makeKeyValueStore()
      assert.strictEqual(yield* store.claim("evt_old"), "duplicate")
      assert.strictEqual(yield* store.claim("evt_older"), "duplicate")
      yield* TestClock.adjust("12 hours")
      assert.strictEqual(yield* store.claim("evt_old"), "claimed")
      const keys = () => Effect.runSync(kv.keys)
      yield* eventually("the sweep removed the expired mark", () => keys().length === 2)
      assert.deepStrictEqual([...keys()].sort(), ["other/evt_old", "webhooks/seen/evt_old"])
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.effect("a store made with another TTL on the same backend (a restart with new options) finds the events handled before", () =>
    Effect.gen(function*() {
      const before = yield* SeenEvents.makeKeyValueStore({ ttl: "2 hours" })
      assert.strictEqual(yield* before.claim("evt_1"), "claimed")
      yield* before.complete("evt_1")
      yield* TestClock.adjust("90 minutes")
      const after = yield* SeenEvents.makeKeyValueStore({ ttl: "10 hours" })
      assert.strictEqual(yield* after.claim("evt_1"), "duplicate")
      yield* TestClock.adjust("30 minutes")
      assert.strictEqual(yield* after.claim("evt_1"), "claimed")
    }).pipe(Effect.provide(KeyValueStore.layerMemory)))

  it.live("one built store given to a Node and a Web adapter: concurrent deliveries of an event run its handler once", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      // built once (and released with the application), then given to each adapter as a layer
      const stores = ManagedRuntime.make(SeenEvents.layerKeyValueStore({ prefix: "s/" }).pipe(Layer.provide(fileSystem(dir))))
      yield* Effect.addFinalizer(() => Effect.promise(() => stores.dispose()))
      const seenEvents = Layer.succeed(SeenEvents.SeenEvents, yield* Effect.promise(() => stores.runPromise(Effect.service(SeenEvents.SeenEvents))))
      let runs = 0
      const handler = () => Effect.sleep("100 millis").pipe(Effect.andThen(Effect.sync(() => void runs++)))
      const node = NodeAdapter.make({ secret, handler, seenEvents })
      const web = WebAdapter.make({ secret, handler, seenEvents })
      yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all([node.dispose(), web.dispose()])))
      const toNode = fetchTarget(`http://127.0.0.1:${yield* listen(createServer(node))}/webhooks`)
      const toWeb = (send: ReturnType<typeof signed>) => web(new Request("http://receiver.test/webhooks", requestInit(send))).then(answerOf)
      for (let i = 0; i < 5; i++) {
        const delivery = signed(JSON.stringify(vehicleStateEvent(`evt_two_${i}`)))
        const answers = yield* Effect.promise(() => Promise.all([toNode(delivery), toWeb(delivery)]))
        assert.sameMembers(answers.map((a) => a.status), [200, 409])
      }
      assert.strictEqual(runs, 5)
    }))
})

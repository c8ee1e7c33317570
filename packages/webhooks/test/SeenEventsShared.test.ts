/**
 * The `KeyValueStore` store shared by processes on one backend: an event
 * handled by one is a duplicate for every other, whatever their `ttl` (a
 * rolling deploy that changes it), until the handling process's `ttl` ends,
 * on memory and on the file system, also after their sweeps; and every
 * `eventId` fits the file system with an empty prefix (ids of dots only
 * included).
 */
import { NodeFileSystem, NodePath } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { type Duration, Effect, Layer, ManagedRuntime } from "effect"
import { KeyValueStore } from "effect/persistence"
import { TestClock } from "effect/testing"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeAdapter from "../src/NodeAdapter.ts"
import * as SeenEvents from "../src/SeenEvents.ts"
import { secret, signed, vehicleStateEvent } from "./samples.ts"
import { fetchTarget, listen, pause } from "./utils.ts"

const fileSystem = (dir: string) =>
  KeyValueStore.layerFileSystem(dir).pipe(Layer.provide([NodeFileSystem.layer, NodePath.layer]), Layer.orDie)

const temporaryDirectory = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "webhooks-shared-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** Runs `test` on one backend shared by every store it makes. */
const backends: ReadonlyArray<readonly [string, <A, E>(test: Effect.Effect<A, E, KeyValueStore.KeyValueStore>) => Effect.Effect<A, E>]> = [
  ["memory", (test) => Effect.provide(test, KeyValueStore.layerMemory)],
  ["the file system", (test) => Effect.scoped(Effect.flatMap(temporaryDirectory, (dir) => Effect.provide(test, fileSystem(dir))))]
]

/** Waits (real time) until the backend's keys are `expected`, for at most 5 seconds: for the sweeps in the background. */
const keysBecome = (what: string, expected: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const kv = yield* KeyValueStore.KeyValueStore
    const sorted = [...expected].sort().join()
    for (let i = 0; i < 500; i++) {
      if ([...yield* kv.keys].sort().join() === sorted) return
      yield* pause(10)
    }
    assert.sameMembers([...yield* kv.keys], [...expected], `not within 5 seconds: ${what}`)
  })

/** The order of a rolling deploy: the new TTL shorter, or longer. */
const orders = [
  { handler: "24 hours", other: "12 hours", ttlHours: 24 },
  { handler: "12 hours", other: "24 hours", ttlHours: 12 }
] as const

describe("SeenEvents.makeKeyValueStore shared by processes with different TTLs", () => {
  for (const [backend, on] of backends) {
    for (const { handler, other, ttlHours } of orders) {
      it.effect(`on ${backend}: an event handled by a store with a TTL of ${handler} is a duplicate for one with ${other}, until ${handler} passed`, () =>
        on(Effect.gen(function*() {
          // both processes run before the event arrives (a rolling deploy)
          const handling = yield* SeenEvents.makeKeyValueStore({ ttl: handler })
          const retried = yield* SeenEvents.makeKeyValueStore({ ttl: other })
          assert.strictEqual(yield* handling.claim("evt_x", "h"), "claimed")
          // its acknowledgement is lost: the retry lands on the other process
          assert.strictEqual(yield* retried.claim("evt_x", "r"), "in-flight")
          yield* handling.complete("evt_x", "h")
          assert.strictEqual(yield* retried.claim("evt_x", "r"), "duplicate")
          assert.strictEqual(yield* handling.claim("evt_x", "h2"), "duplicate")
          yield* TestClock.adjust(`${ttlHours * 60 - 1} minutes`)
          assert.strictEqual(yield* retried.claim("evt_x", "r2"), "duplicate")
          assert.strictEqual(yield* handling.claim("evt_x", "h3"), "duplicate")
          yield* TestClock.adjust("1 minute")
          assert.strictEqual(yield* retried.claim("evt_x", "r3"), "claimed")
          assert.strictEqual(yield* handling.claim("evt_x", "h4"), "in-flight")
        })))
    }

    it.effect(`on ${backend}: across the sweeps of both, each handled event stays a duplicate for both for its own TTL, and is then removed`, () =>
      on(Effect.gen(function*() {
        const short = yield* SeenEvents.makeKeyValueStore({ ttl: "12 hours" })
        const long = yield* SeenEvents.makeKeyValueStore({ ttl: "24 hours" })
        for (const [store, id] of [[short, "evt_short"], [long, "evt_long"]] as const) {
          assert.strictEqual(yield* store.claim(id), "claimed")
          yield* store.complete(id)
        }
        // both stores are due for a sweep (half of either TTL passed): a claim starts each
        yield* TestClock.adjust("13 hours")
        assert.strictEqual(yield* short.claim("evt_a"), "claimed")
        assert.strictEqual(yield* long.claim("evt_b"), "claimed")
        yield* keysBecome("the sweeps removed the expired mark", ["webhooks/seen/evt_long", "webhooks/seen/evt_a", "webhooks/seen/evt_b"])
        // the event handled with the longer TTL is still a duplicate for both, after their sweeps
        assert.strictEqual(yield* short.claim("evt_long"), "duplicate")
        assert.strictEqual(yield* long.claim("evt_long"), "duplicate")
        assert.strictEqual(yield* long.claim("evt_short"), "claimed")
        yield* long.complete("evt_short")
        assert.strictEqual(yield* short.claim("evt_short"), "duplicate")
        // the next sweeps, once the longer TTL passed, remove its mark and the abandoned in-flight ones
        yield* TestClock.adjust("12 hours")
        assert.strictEqual(yield* long.claim("evt_c"), "claimed")
        assert.strictEqual(yield* short.claim("evt_d"), "claimed")
        yield* keysBecome("the sweeps removed the expired marks", ["webhooks/seen/evt_c", "webhooks/seen/evt_d", "webhooks/seen/evt_short"])
        assert.strictEqual(yield* short.claim("evt_long"), "claimed")
        assert.strictEqual(yield* short.claim("evt_short"), "duplicate")
      })))
  }

  it.live("over loopback, two Node adapters with stores of different TTLs on one directory (a rolling deploy): a retry landing on the other one is a duplicate", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      let runs = 0
      const handler = () => Effect.sync(() => void runs++)
      const receiverWith = (ttl: Duration.Input) =>
        Effect.gen(function*() {
          const stores = ManagedRuntime.make(SeenEvents.layerKeyValueStore({ ttl, prefix: "s/" }).pipe(Layer.provide(fileSystem(dir))))
          yield* Effect.addFinalizer(() => Effect.promise(() => stores.dispose()))
          const seenEvents = Layer.succeed(SeenEvents.SeenEvents, yield* Effect.promise(() => stores.runPromise(Effect.service(SeenEvents.SeenEvents))))
          const adapter = NodeAdapter.make({ secret, handler, seenEvents })
          yield* Effect.addFinalizer(() => Effect.promise(() => adapter.dispose()))
          return fetchTarget(`http://127.0.0.1:${yield* listen(createServer(adapter))}/webhooks`)
        })
      const receivers = [yield* receiverWith("24 hours"), yield* receiverWith("12 hours")]
      for (let i = 0; i < 10; i++) {
        // the first attempt lands on one, its acknowledgement is lost, the retry lands on the other
        const delivery = signed(JSON.stringify(vehicleStateEvent(`evt_deploy_${i}`)))
        const first = yield* Effect.promise(() => receivers[i % 2]!(delivery))
        const retry = yield* Effect.promise(() => receivers[(i + 1) % 2]!(delivery))
        assert.deepStrictEqual([first.status, first.json], [200, { status: "handled" }], `evt_deploy_${i}`)
        assert.deepStrictEqual([retry.status, retry.json], [200, { status: "duplicate" }], `evt_deploy_${i}`)
      }
      assert.strictEqual(runs, 10)
    }).pipe(Effect.scoped))

  it.effect("on the file system with an empty prefix: ids of dots only are handled once, then duplicates (after a restart too)", () =>
    Effect.gen(function*() {
      const dir = yield* temporaryDirectory
      const ids = [".", "..", "...", ".a", "a."]
      const store = yield* SeenEvents.makeKeyValueStore({ prefix: "" }).pipe(Effect.provide(fileSystem(dir)))
      for (const id of ids) {
        assert.strictEqual(yield* store.claim(id, "A"), "claimed", id)
        assert.strictEqual(yield* store.claim(id, "B"), "in-flight", id)
        yield* store.complete(id, "A")
        assert.strictEqual(yield* store.claim(id, "C"), "duplicate", id)
      }
      const restarted = yield* SeenEvents.makeKeyValueStore({ prefix: "" }).pipe(Effect.provide(fileSystem(dir)))
      for (const id of ids) assert.strictEqual(yield* restarted.claim(id, "D"), "duplicate", id)
      assert.strictEqual(readdirSync(dir).length, ids.length)
      for (const id of [".", "..", "..."]) assert.match(SeenEvents.keyOf(id), /^sha256:[0-9a-f]{64}$/)
      for (const id of [".a", "a.", "a..b"]) assert.strictEqual(SeenEvents.keyOf(id), id)
    }).pipe(Effect.scoped))
})

/**
 * `SharedRedis.layer` on the project's Redis through a proxy that can be
 * frozen (a stalled Redis: the connection open, no answers): closing the
 * layer with an answer still owed ends within `connectTimeout`, and waits
 * for answers that do come, leaving no timer; `maxPending` bounds the
 * commands owed an answer, those whose callers stopped waiting included.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Context, Effect, Exit, Fiber, Layer, Option, Redacted, Schedule, Scope } from "effect"
import { Redis } from "effect/persistence"
import { inject } from "vitest"
import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
import * as SharedToken from "@connected-vehicle/fleet/SharedToken"
import { freezableProxy } from "./proxy.ts"

/** A proxy to the project's Redis, and its URL. */
const proxied = Effect.gen(function*() {
  const url = new URL(inject("redisUrl"))
  const proxy = yield* freezableProxy(Number(url.port))
  url.port = String(proxy.port)
  return { proxy, url: Redacted.make(url.toString()) }
})

/** The timers keeping this process alive. */
const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length

describe("SharedRedis", () => {
  it.live("closed while Redis stalls, an answer owed to a get that timed out: the layer closes within connectTimeout", () =>
    Effect.gen(function*() {
      const { proxy, url } = yield* proxied
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(SharedRedis.layer({ url, connectTimeout: "1 second" }), scope)
      const store = yield* Effect.provideContext(SharedToken.make({ timeout: "200 millis" }), context)
      proxy.freeze()
      const error = yield* Effect.flip(store.get("application"))
      assert.strictEqual(error._tag, "TokenStoreError")
      // the close cannot be interrupted: without its bound only Redis' answers end it, and they come after 8 s
      const thaw = setTimeout(proxy.thaw, 8_000)
      const started = yield* Clock.currentTimeMillis
      yield* Scope.close(scope, Exit.void)
      clearTimeout(thaw)
      const took = (yield* Clock.currentTimeMillis) - started
      assert.isAtLeast(took, 900, "the answers owed are waited for first")
      assert.isBelow(took, 2_500)
    }).pipe(Effect.scoped), 20_000)

  it.live("closed while an answer is on its way: the close waits for it (the command succeeds), and leaves no timer", () =>
    Effect.gen(function*() {
      const { proxy, url } = yield* proxied
      const before = timers()
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(SharedRedis.layer({ url, connectTimeout: "5 seconds" }), scope)
      proxy.freeze()
      const ping = yield* Effect.forkChild(Context.get(context, Redis.Redis).send<string>("PING"))
      yield* Effect.sleep("50 millis")
      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      yield* Effect.sleep("300 millis")
      proxy.thaw()
      yield* Fiber.join(closing)
      assert.strictEqual(yield* Fiber.join(ping), "PONG")
      yield* Effect.sleep("50 millis") // the sockets' own close
      assert.strictEqual(timers(), before)
    }).pipe(Effect.scoped), 20_000)

  it.live("maxPending: one command more than that owed an answer fails at once (timed out ones count); the answers free the room", () =>
    Effect.gen(function*() {
      const { proxy, url } = yield* proxied
      const redis = Context.get(yield* Layer.build(SharedRedis.layer({ url, maxPending: SharedRedis.minMaxPending })), Redis.Redis)
      proxy.freeze()
      const gaveUp = yield* Effect.forEach(
        Array.from({ length: SharedRedis.minMaxPending }),
        () => Effect.timeoutOption(redis.send("PING"), "100 millis"),
        { concurrency: "unbounded" }
      )
      assert.isTrue(gaveUp.every(Option.isNone))
      const started = yield* Clock.currentTimeMillis
      const refused = yield* Effect.timeoutOption(Effect.flip(redis.send("PING")), "2 seconds")
      assert.isTrue(Option.isSome(refused), "the fourth command waited")
      assert.isBelow((yield* Clock.currentTimeMillis) - started, 500)
      proxy.thaw()
      const pong = yield* redis.send<string>("PING").pipe(Effect.retry({ schedule: Schedule.spaced("20 millis"), times: 100 }))
      assert.strictEqual(pong, "PONG")
    }).pipe(Effect.scoped, Effect.timeout("15 seconds")), 20_000)

  it.live("maxPending not an integer of at least 100: a Configuration error naming it", () =>
    Effect.gen(function*() {
      for (const maxPending of [0, 99, 100.5, Number.NaN]) {
        const error = yield* Layer.build(SharedRedis.layer({ url: Redacted.make(inject("redisUrl")), maxPending })).pipe(Effect.scoped, Effect.flip)
        assert.strictEqual(error.reason._tag, "Configuration", String(maxPending))
        assert.include(error.message, "maxPending")
      }
    }))
})

import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber } from "effect"
import { NodeHttpClient } from "@effect/platform-node"
import { CompatibilityApi } from "@connected-vehicle/schema/Api"
import type { Timeout } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import { COMPAT, compat, fast, flipReason, inject, logged, loopback as loopbackOn } from "./utils.ts"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"

const loopback = (options?: Parameters<typeof loopbackOn>[0]) => loopbackOn(options)

describe("the default client (UndiciHttpClient.layer()) on Node", () => {
  it.live("no response head in time is a RequestTimeout without status, and the next attempt succeeds", () =>
    Effect.gen(function*() {
      yield* inject(COMPAT, [{ _tag: "Delay", delay: "1500 millis" }])
      const error = yield* flipReason(compat)
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual(Duration.toMillis((error as Timeout).timeout), 300)
      assert.isUndefined((error as Timeout).status)
      const result = yield* compat
      assert.strictEqual(result.status, 200)
    }).pipe(Effect.provide(loopbackOn({ ...fast, timeout: 300, retry: { maxAttempts: 1 } }, UndiciHttpClient.layer()))))

  it.live("a shorter timeout armed after a longer one still fires first", () =>
    Effect.gen(function*() {
      yield* inject(COMPAT, [{ _tag: "StallBody" }, { _tag: "StallBody" }])
      const compatWith = (options: Transport.CallOptions) =>
        Effect.flatMap(Transport.publicClient(CompatibilityApi, "compatibility"), (c) => c.list({}, options))
      const long = yield* Effect.forkChild(compatWith({ timeout: "60 seconds", maxRetries: 0 }))
      while ((yield* logged(COMPAT)).length === 0) yield* Effect.sleep("5 millis")
      const short = yield* flipReason(compatWith({ timeout: 300, maxRetries: 0 }))
      assert.strictEqual(short._tag, "Timeout")
      assert.strictEqual(Duration.toMillis((short as Timeout).timeout), 300)
      // the long one is still waiting for its body; interrupting it aborts it
      assert.isUndefined(long.pollUnsafe())
      const exit = yield* Fiber.interrupt(long).pipe(Effect.andThen(Fiber.await(long)))
      assert.isTrue(Exit.hasInterrupts(exit))
      const result = yield* compat
      assert.strictEqual(result.status, 200)
    }).pipe(Effect.provide(loopbackOn({ ...fast, retry: { maxAttempts: 1 } }, UndiciHttpClient.layer()))))

  it.live("with fiber-level undici options, an attempt is timed the same, body included", () =>
    Effect.gen(function*() {
      yield* inject(COMPAT, [{ _tag: "StallBody" }])
      const error = yield* flipReason(compat.pipe(Effect.provideService(NodeHttpClient.UndiciOptions, { reset: false })))
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual((error as Timeout).status, 200)
      const result = yield* compat.pipe(Effect.provideService(NodeHttpClient.UndiciOptions, { reset: false }))
      assert.isTrue(result.value.data.length > 0)
    }).pipe(Effect.provide(loopbackOn({ ...fast, timeout: 300, retry: { maxAttempts: 1 } }, UndiciHttpClient.layer()))))
})

describe("per-call options with the Promise client's names, on a v3 call over loopback", () => {
  const compatWith = (options: Transport.CallOptions) =>
    Effect.flatMap(Transport.publicClient(CompatibilityApi, "compatibility"), (c) => c.list({}, options))

  it.live("timeout: a Duration input per call, winning over the configured one", () =>
    Effect.gen(function*() {
      yield* inject(COMPAT, [{ _tag: "StallBody" }, { _tag: "StallBody" }])
      const error = yield* flipReason(compatWith({ timeout: "300 millis", maxRetries: 0 }))
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual(Duration.toMillis((error as Timeout).timeout), 300)
      const millis = yield* flipReason(compatWith({ timeout: 250, maxRetries: 0 }))
      assert.strictEqual(Duration.toMillis((millis as Timeout).timeout), 250)
      assert.strictEqual((yield* logged(COMPAT)).length, 2)
    }).pipe(Effect.provide(loopback({ ...fast, timeout: 60_000 }))))

  it.live("maxRetries: retries after the first attempt, winning over retry.maxAttempts", () =>
    Effect.gen(function*() {
      yield* inject(COMPAT, [{ _tag: "Status", status: 500 }, { _tag: "Status", status: 500 }, { _tag: "Status", status: 500 }])
      const error = yield* flipReason(compatWith({ maxRetries: 1, retry: { maxAttempts: 5 } }))
      assert.strictEqual(error._tag, "Server")
      assert.deepStrictEqual((yield* logged(COMPAT)).map((e) => e.status), [500, 500])
      // one 500 left: with 2 retries the call succeeds on its second attempt
      const result = yield* compatWith({ maxRetries: 2 })
      assert.strictEqual(result.status, 200)
      assert.deepStrictEqual((yield* logged(COMPAT)).map((e) => e.status), [500, 500, 500, 200])
      yield* inject(COMPAT, [{ _tag: "Status", status: 500 }])
      assert.strictEqual((yield* flipReason(compatWith({ maxRetries: 0 })))._tag, "Server")
      assert.strictEqual((yield* logged(COMPAT)).length, 5)
    }).pipe(Effect.provide(loopback({ retry: { ...fast.retry, maxAttempts: 5 } }))))

  it.live("an invalid timeout or maxRetries is an InvalidArgument naming it, and nothing is sent", () =>
    Effect.gen(function*() {
      for (const timeout of [0, -1, Number.NaN, "soon" as "1 second", Number.POSITIVE_INFINITY]) {
        const error = yield* flipReason(compatWith({ timeout }))
        assert.strictEqual(error._tag, "InvalidArgument")
        assert.strictEqual((error as { readonly field: string }).field, "timeout")
      }
      for (const maxRetries of [-1, 1.5, Number.NaN, "2" as unknown as number]) {
        const error = yield* flipReason(compatWith({ maxRetries }))
        assert.strictEqual(error._tag, "InvalidArgument")
        assert.strictEqual((error as { readonly field: string }).field, "maxRetries")
      }
      assert.strictEqual((yield* logged(COMPAT)).length, 0)
    }).pipe(Effect.provide(loopback(fast))))
})

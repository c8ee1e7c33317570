/**
 * The `Retry-After` of any error status (not only a 429): kept by the
 * reason, reported by `error.retryAfter`, and waited (at least) before the
 * next attempt, within the call's budget. Over loopback: the simulator's
 * scripted faults (the bodies it does not send:
 * `packages/transport/test/RetryAfterStatus.test.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import type { Server } from "@connected-vehicle/schema/ServiceReason"
import { COMPAT, compat, fast, inject, logged, loopback } from "./utils.ts"

const millis = (d: Duration.Duration | undefined) => d === undefined ? undefined : Duration.toMillis(d)

describe("Retry-After of any error status", () => {
  it.live("a 503 with retry-after: 1 is retried after at least 1 s (not the short backoff), and succeeds", () =>
    Effect.gen(function*() {
      yield* inject(COMPAT, [{ _tag: "Status", status: 503, retryAfter: "1" }])
      const start = Date.now()
      const result = yield* compat
      const elapsed = Date.now() - start
      assert.strictEqual(result.status, 200)
      assert.isAtLeast(elapsed, 1_000)
      assert.deepStrictEqual((yield* logged(COMPAT)).map((e) => e.status), [503, 200])
    }).pipe(Effect.provide(loopback(fast))), 10_000)

  it.live("the last error of 503s carries the retryAfter (the reason's and the error's), each retry waiting it", () =>
    Effect.gen(function*() {
      yield* inject(COMPAT, [{ _tag: "Status", status: 503, retryAfter: "1" }, { _tag: "Status", status: 503, retryAfter: "1" }])
      const start = Date.now()
      const error = yield* Effect.flip(compat)
      const elapsed = Date.now() - start
      assert.strictEqual(error._tag, "ConnectedVehicleError")
      if (error._tag !== "ConnectedVehicleError") return
      assert.strictEqual(error.reason._tag, "Server")
      assert.strictEqual(millis((error.reason as Server).retryAfter), 1_000)
      assert.strictEqual(millis(error.retryAfter), 1_000)
      assert.isAtLeast(elapsed, 1_000)
      assert.strictEqual((yield* logged(COMPAT)).length, 2)
    }).pipe(Effect.provide(loopback({ retry: { ...fast.retry, maxAttempts: 2 } }))), 10_000)

  it.live("a Retry-After beyond what is left of the budget stops retrying at once, with the error (as a 429 does)", () =>
    Effect.gen(function*() {
      const date = new Date(Date.now() + 60_000).toUTCString()
      yield* inject(COMPAT, [
        { _tag: "Status", status: 503, retryAfter: "30" },
        { _tag: "Status", status: 500, retryAfter: date },
        { _tag: "Status", status: 429, retryAfter: "30" }
      ])
      const start = Date.now()
      const seconds = yield* Effect.flip(compat)
      const dated = yield* Effect.flip(compat)
      const limited = yield* Effect.flip(compat)
      assert.isBelow(Date.now() - start, 1_500)
      assert.strictEqual(millis(seconds._tag === "ConnectedVehicleError" ? seconds.retryAfter : undefined), 30_000)
      const after = millis(dated._tag === "ConnectedVehicleError" ? dated.retryAfter : undefined)!
      assert.isTrue(after > 55_000 && after <= 60_000, String(after))
      assert.strictEqual(limited._tag === "ConnectedVehicleError" ? limited.reason._tag : limited._tag, "RateLimit")
      assert.deepStrictEqual((yield* logged(COMPAT)).map((e) => e.status), [503, 500, 429])
    }).pipe(Effect.provide(loopback({ retry: { ...fast.retry, maxElapsed: 2_000 }, rateLimit: { wait: true, maxWait: 60_000 } }))), 10_000)

  it.live("a Retry-After over rateLimit.maxWait is not waited, even within the budget: the error carries it", () =>
    Effect.gen(function*() {
      yield* inject(COMPAT, [{ _tag: "Status", status: 503, retryAfter: "3" }])
      const start = Date.now()
      const error = yield* Effect.flip(compat)
      assert.isBelow(Date.now() - start, 1_500)
      assert.strictEqual(millis(error._tag === "ConnectedVehicleError" ? error.retryAfter : undefined), 3_000)
      assert.deepStrictEqual((yield* logged(COMPAT)).map((e) => e.status), [503])
    }).pipe(Effect.provide(loopback({ retry: { ...fast.retry, maxElapsed: 60_000 }, rateLimit: { maxWait: 2_000 } }))), 10_000)
})

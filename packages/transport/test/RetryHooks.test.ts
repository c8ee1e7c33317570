/**
 * A call's own say over its retries (`retryWhile`, `retryWait`): they narrow
 * and run the transport's one retry loop, over a `node:http` server on
 * 127.0.0.1 that answers 503 to every request.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer } from "effect"
import { CompatibilityApi } from "@connected-vehicle/schema/Api"
import * as Pagination from "@connected-vehicle/transport/Pagination"
import type * as Retry from "@connected-vehicle/transport/Retry"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { server } from "./utils.ts"

const unavailable = server((_, response) => {
  response.writeHead(503, { "content-type": "application/json" })
  response.end(JSON.stringify({ error: "unavailable" }))
})

const on = (origin: string, retry: TransportConfig.RetryOptions) =>
  Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(origin, { retry }), UndiciHttpClient.layer()]))

const list = (options: Transport.CallOptions) =>
  Effect.flatMap(Transport.publicClient(CompatibilityApi, "compatibility"), (compatibility) => compatibility.list({ query: { "filter[region]": "US" } }, options))

describe("CallOptions: retryWhile and retryWait", () => {
  it.live("retryWhile is asked for each retry the policy would make (its failure, number, wait, time since the start); false ends the call with that failure", () =>
    Effect.gen(function*() {
      const { origin, requests } = yield* unavailable
      const asked: Array<Retry.Retry> = []
      const error = yield* Effect.flip(list({ retryWhile: (retry) => (asked.push(retry), retry.attempt < 2) }).pipe(
        Effect.provide(on(origin, { maxAttempts: 5, initialDelay: "5 millis", maxDelay: "5 millis" }))
      ))
      assert.strictEqual(error._tag === "ConnectedVehicleError" ? error.status : undefined, 503)
      assert.strictEqual(requests.length, 2)
      assert.deepStrictEqual(asked.map((retry) => [retry.attempt, retry.error.status]), [[1, 503], [2, 503]])
      for (const retry of asked) assert.isAtMost(Duration.toMillis(retry.delay), 5)
      assert.isAbove(Duration.toMillis(asked[1]!.elapsed), Duration.toMillis(asked[0]!.elapsed))
    }).pipe(Effect.scoped))

  it.live("retryWait runs each wait: made interruptible, it ends an uninterruptible call's 5 s backoff at once", () =>
    Effect.gen(function*() {
      const { origin, requests } = yield* unavailable
      const waits: Array<number> = []
      const retryWait: Retry.Wait = (wait, retry) => Effect.andThen(Effect.sync(() => waits.push(Duration.toMillis(retry.delay))), Effect.interruptible(wait))
      const call = yield* Effect.forkChild(Effect.uninterruptible(list({ retryWait }).pipe(
        Effect.provide(on(origin, { initialDelay: "5 seconds", maxDelay: "5 seconds", maxElapsed: "1 minute" }))
      )))
      while (waits.length === 0) yield* Effect.sleep("10 millis")
      const started = Date.now()
      yield* Fiber.interrupt(call)
      assert.isBelow(Date.now() - started, 2_000)
      assert.strictEqual(requests.length, 1)
      assert.strictEqual(waits.length, 1)
      assert.isAtLeast(waits[0]!, 2_500)
    }).pipe(Effect.scoped))

  it.live("a retryWhile or retryWait that is not a function is an InvalidArgument naming it, nothing sent; streams keep them", () =>
    Effect.gen(function*() {
      const { origin, requests } = yield* unavailable
      for (const field of ["retryWhile", "retryWait"] as const) {
        const error = yield* Effect.flip(list({ [field]: "yes" } as unknown as Transport.CallOptions).pipe(Effect.provide(on(origin, {}))))
        assert.strictEqual(error._tag, "InvalidArgument")
        assert.strictEqual(error._tag === "InvalidArgument" ? error.field : undefined, field)
      }
      assert.strictEqual(requests.length, 0)
      const retryWhile: Retry.While = () => false
      const retryWait: Retry.Wait = (wait) => wait
      const copy = Pagination.readOptions({ retryWhile, retryWait })
      assert.isTrue(copy !== undefined && !(copy instanceof Error) && copy.retryWhile === retryWhile && copy.retryWait === retryWait)
    }).pipe(Effect.scoped))
  it.live("the call's budget bounds retryWait: a wait past it ends the call with the failure it followed, nothing more sent", () =>
    Effect.gen(function*() {
      const { origin, requests } = yield* unavailable
      const retry = { maxAttempts: 3, initialDelay: 1, maxDelay: 1, maxElapsed: "1 second" } as const
      for (const retryWait of [(wait) => Effect.andThen(wait, Effect.sleep("1500 millis")), () => Effect.never] as Array<Retry.Wait>) {
        requests.length = 0
        const started = Date.now()
        const error = yield* Effect.flip(list({ retryWait }).pipe(Effect.provide(on(origin, retry)), Effect.timeout("5 seconds")))
        assert.isTrue(error._tag === "ConnectedVehicleError", "the call ended with its own error")
        if (error._tag !== "ConnectedVehicleError") continue
        assert.strictEqual(error.reason._tag, "Server")
        assert.strictEqual(error.status, 503)
        assert.strictEqual(requests.length, 1)
        assert.isBelow(Date.now() - started, 1_200)
      }
    }).pipe(Effect.scoped))

  it.live("a retryWait that fails or dies is ignored: the wait itself is run, the retries go on", () =>
    Effect.gen(function*() {
      const { origin, requests } = yield* unavailable
      const retry = { maxAttempts: 3, initialDelay: "5 millis", maxDelay: "5 millis" } as const
      const failing = [() => Effect.fail("boom") as unknown as Effect.Effect<void>, () => Effect.die(new Error("boom"))] as Array<Retry.Wait>
      for (const retryWait of failing) {
        requests.length = 0
        const error = yield* Effect.flip(list({ retryWait }).pipe(Effect.provide(on(origin, retry))))
        assert.strictEqual(error._tag === "ConnectedVehicleError" ? error.status : error, 503)
        assert.strictEqual(requests.length, 3)
      }
    }).pipe(Effect.scoped))
})

/**
 * The `Retry-After` of any error status (not only a 429): kept by the
 * reason, reported by `error.retryAfter`, and waited (at least) before the
 * next attempt, within the call's budget. Over loopback: the simulator's
 * scripted faults, and small `node:http` servers for the bodies it does not
 * send.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Redacted } from "effect"
import { NodeHttpClient } from "@effect/platform-node"
import { VehicleApi } from "@connected-vehicle/schema/Api"
import type { Server } from "@connected-vehicle/schema/ServiceReason"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import type { MalformedBody, Timeout } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { COMPAT, compat, fast, flipReason, inject, logged, loopback, server } from "./utils.ts"

const millis = (d: Duration.Duration | undefined) => d === undefined ? undefined : Duration.toMillis(d)

const on = (origin: string, options?: Omit<TransportConfig.Options, "roots">) =>
  Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("the-token"))).pipe(
    Layer.provide([TransportConfig.layerOrigin(origin, options), NodeHttpClient.layerUndici])
  )

const getSignal = Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
  signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } }))

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

  it.live("a 503 without the envelope (MalformedBody) keeps its Retry-After and is retried after it", () =>
    Effect.gen(function*() {
      let n = 0
      const service = yield* server((_, response) => {
        if (n++ === 0) {
          response.writeHead(503, { "content-type": "text/plain", "retry-after": "1" })
          response.end("busy")
        } else {
          response.writeHead(502, { "content-type": "text/html", "retry-after": "1" })
          response.end("<html>bad gateway</html>")
        }
      })
      const start = Date.now()
      const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, { retry: { ...fast.retry, maxAttempts: 2 } }))))
      assert.isAtLeast(Date.now() - start, 1_000)
      assert.strictEqual(error._tag, "MalformedBody")
      assert.strictEqual((error as MalformedBody).status, 502)
      assert.strictEqual(millis((error as MalformedBody).retryAfter), 1_000)
      assert.strictEqual(service.requests.length, 2)
    }).pipe(Effect.scoped), 10_000)

  it.live("an error response whose body stalls: the Timeout keeps the status and the Retry-After of its head", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(503, { "content-type": "application/json", "retry-after": "7" })
        response.write("{\"errors\":")
      })
      const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, { timeout: 200, retry: { maxAttempts: 1 } }))))
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual((error as Timeout).status, 503)
      assert.strictEqual(millis((error as Timeout).retryAfter), 7_000)
    }).pipe(Effect.scoped))

  it.live("a non-retryable 404 keeps its Retry-After and is not retried", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(404, { "content-type": "application/json", "retry-after": "1" })
        response.end(JSON.stringify({
          errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail: "no such vehicle" }]
        }))
      })
      const error = yield* Effect.flip(getSignal.pipe(Effect.provide(on(service.origin, fast))))
      assert.strictEqual(error._tag === "ConnectedVehicleError" ? error.reason._tag : error._tag, "NotFound")
      assert.strictEqual(millis(error._tag === "ConnectedVehicleError" ? error.retryAfter : undefined), 1_000)
      assert.strictEqual(service.requests.length, 1)
    }).pipe(Effect.scoped))
})

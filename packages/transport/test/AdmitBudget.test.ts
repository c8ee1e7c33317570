/**
 * The token read again after `admit` is bounded by what is left of the
 * call's budget: a request is never sent after the budget ran out. On
 * `TestClock`, with a client that records when it is asked to send.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { HttpClient, HttpClientResponse } from "effect/http"
import { VehicleApi } from "@connected-vehicle/schema/Api"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"

describe("the token read again after admit", () => {
  it.effect("ends with the call's budget: the request goes before it ran out, with the token read before the wait", () =>
    Effect.gen(function*() {
      const sentAt: Array<readonly [number, string | undefined]> = []
      const client = HttpClient.make((request) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          sentAt.push([now, request.headers["authorization"]])
          return HttpClientResponse.fromWeb(request, new Response("{}", { status: 404, headers: { "content-type": "application/json" } }))
        }))
      let reads = 0
      // the first read at once, the one after the wait never
      const credentials: Credentials["Service"] = {
        token: Effect.suspend(() => ++reads === 1 ? Effect.succeed(Redacted.make("t-1")) : Effect.never),
        refresh: () => Effect.succeed(false)
      }
      const layer = Layer.mergeAll(Transport.layerWith({ admit: () => Effect.sleep(195) }), Layer.succeed(Credentials, credentials)).pipe(Layer.provide([
        TransportConfig.layerOrigin("http://service.test", { retry: { maxAttempts: 1, maxElapsed: "200 millis" } }),
        Layer.succeed(HttpClient.HttpClient, client)
      ]))
      const start = yield* Clock.currentTimeMillis
      const call = yield* Effect.forkChild(Effect.exit(Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
        signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } })).pipe(Effect.provide(layer))))
      for (let i = 0; i < 300; i++) {
        yield* TestClock.adjust("1 millis")
        yield* Effect.yieldNow
      }
      yield* Fiber.join(call)
      assert.strictEqual(reads, 2)
      assert.strictEqual(sentAt.length, 1)
      assert.isAtMost(sentAt[0]![0] - start, 200)
      assert.strictEqual(sentAt[0]![1], "Bearer t-1")
    }))
})

import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Stream } from "effect"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import type { Timeout } from "@connected-vehicle/transport/ConnectedVehicleError"
import { Compatibility } from "@connected-vehicle/v3/Compatibility"
import { Connections } from "@connected-vehicle/v3/Connections"
import { Signals } from "@connected-vehicle/v3/Signals"
import { Subscriptions } from "@connected-vehicle/v3/Subscriptions"
import { Webhooks } from "@connected-vehicle/v3/Webhooks"
import { flipReason, layerLoopback, requestsTo } from "./utils.ts"

const unavailable = (n: number) => Array.from({ length: n }, () => ({ _tag: "Status" as const, status: 503 }))

// the configured policies: a 30 s timeout and 4 attempts, so that only the
// per-call options can explain a timeout of 300 ms or a single attempt
const configured = { timeout: 30_000, retry: { maxAttempts: 4, initialDelay: 5, maxDelay: 20 } }

describe("per-call options", () => {
  it.live("timeout of one call: a stalled connection list ends in Timeout at that timeout", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      // the application token first: the 300 ms below are the request's, not the token request's too
      yield* (yield* Webhooks).list()
      yield* sim.injectFaults({ path: "/v3/connections", faults: [{ _tag: "StallBody" }] })
      const error = yield* flipReason((yield* Connections).list({ pageSize: 5 }, { timeout: 300, retry: { maxAttempts: 1 } }))
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual(Duration.toMillis((error as Timeout).timeout), 300)
      assert.strictEqual((yield* requestsTo(/^\/v3\/connections$/)).length, 1)
      // the next call has the configured policies again
      const page = yield* (yield* Connections).list({ pageSize: 5 })
      assert.strictEqual(page.data.length, 5)
    }).pipe(Effect.provide(layerLoopback({ transport: configured }))))

  it.live("retry.maxAttempts of one call: 1 gives up at the first 503, the default retries", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const webhooks = yield* Webhooks
      yield* sim.injectFaults({ path: "/v3/webhooks", faults: unavailable(2) })
      const error = yield* flipReason(webhooks.list({}, { retry: { maxAttempts: 1 } }))
      assert.strictEqual(error._tag, "Server")
      assert.deepStrictEqual((yield* requestsTo(/^\/v3\/webhooks$/)).map((r) => r.status), [503])
      const page = yield* webhooks.list()
      assert.strictEqual(page.meta.totalCount, sim.data.webhooks.length)
      assert.deepStrictEqual((yield* requestsTo(/^\/v3\/webhooks$/)).map((r) => r.status), [503, 503, 200])
    }).pipe(Effect.provide(layerLoopback({ transport: configured }))))

  it.live("every get, every stream page and the signals of a vehicle take the options", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const once = { retry: { maxAttempts: 1 } }
      const vehicleId = sim.data.vehicleIds[0]!
      const connection = sim.data.connectionOf(vehicleId)!
      const target = { vehicleId, userId: connection.userId }

      const failsOnce = <A, E extends { readonly _tag: string }, R>(path: string, effect: Effect.Effect<A, E, R>) =>
        Effect.gen(function*() {
          yield* sim.injectFaults({ path, faults: unavailable(1) })
          const error = yield* flipReason(effect)
          assert.strictEqual(error._tag, "Server", path)
        })

      yield* failsOnce(`/v3/connections/${connection.connectionId}`, (yield* Connections).get(connection.connectionId, once))
      yield* failsOnce(`/v3/webhooks/${sim.data.webhooks[0]!.id}`, (yield* Webhooks).get(sim.data.webhooks[0]!.id, once))
      const subscriptionId = (yield* (yield* Subscriptions).list({ pageSize: 1 })).data[0]!.id
      yield* failsOnce(`/v3/subscriptions/${subscriptionId}`, (yield* Subscriptions).get(subscriptionId, once))
      yield* failsOnce(`/v3/vehicles/${vehicleId}/signals`, (yield* Signals).list(target, once))
      yield* failsOnce(`/v3/vehicles/${vehicleId}/signals/odometer`, (yield* Signals).get({ ...target, code: "odometer" }, once))
      yield* failsOnce("/v3/subscriptions", Stream.runCount((yield* Subscriptions).stream({}, once)))
      yield* failsOnce(`/v3/vehicles/${vehicleId}/signals`, Stream.runCount((yield* Signals).pages(target, once)))
      yield* failsOnce("/v3/connections", Stream.runCount((yield* Connections).pages({}, once)))
      yield* failsOnce("/v3/webhooks", Stream.runCount((yield* Webhooks).stream({}, once)))

      // without options, the same faults are retried
      yield* sim.injectFaults({ path: "/v3/subscriptions", faults: unavailable(1) })
      assert.strictEqual(yield* Stream.runCount((yield* Subscriptions).stream()), sim.data.subscriptionCount)
    }).pipe(Effect.provide(layerLoopback({ transport: configured }))))

  it.live("compatibility: the options govern a fetch; a fresh cached listing is served whatever they say", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const compatibility = yield* Compatibility
      const compat = () => requestsTo(/^\/v3\/compatible-vehicles$/)
      yield* sim.injectFaults({ path: "/v3/compatible-vehicles", faults: [{ _tag: "StallBody" }] })
      const error = yield* flipReason(compatibility.list({ region: "US" }, { timeout: 300, retry: { maxAttempts: 1 } }))
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual(Duration.toMillis((error as Timeout).timeout), 300)
      // not cached: fetched again, with options, and this result is cached
      const page = yield* compatibility.list({ region: "US" }, { retry: { maxAttempts: 1 } })
      assert.isTrue(page.data.length > 0)
      const cached = yield* compatibility.list({ region: "US" })
      const cachedWithOptions = yield* compatibility.list({ region: "US" }, { timeout: 1 })
      assert.deepStrictEqual(cached, page)
      assert.deepStrictEqual(cachedWithOptions, page)
      assert.strictEqual((yield* compat()).length, 2)
    }).pipe(Effect.provide(layerLoopback({ transport: configured }))))
})

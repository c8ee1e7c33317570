/**
 * Every loopback control route that takes a JSON body refuses a member it
 * does not take (at any depth) and a member of the wrong type: a 400 envelope
 * whose detail names it, nothing changed; the body its README documents is
 * still taken. (The webhook routes: `webhooks-rotation.test.ts`.)
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer } from "node:http"
import * as NodeAdapter from "@connected-vehicle/webhooks/NodeAdapter"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { call, isEnvelope, listening } from "./helpers.ts"
import type { Reply } from "./helpers.ts"

const Loopback = Layer.mergeAll(simulatorLayer({ port: 0, seed: 17 }), FetchHttpClient.layer)

const refused = (reply: Reply, name: string) => {
  assert.strictEqual(reply.status, 400, reply.text)
  assert.isTrue(isEnvelope(reply.json), reply.text)
  assert.include(reply.json.errors[0].detail, `"${name}"`, reply.text)
}

/** A receiver of the simulator's secret on 127.0.0.1: a webhook to it is verified. */
const verifiedWebhook = Effect.gen(function*() {
  const sim = yield* Simulator
  const handler = NodeAdapter.make({ secret: sim.webhookSecret, layer: Logger.layer([]), handler: () => Effect.void })
  const port = yield* listening(createServer(handler), () => handler.dispose())
  const created = yield* call("POST", "/_simulator/webhooks", {
    json: { name: "Strict", callbackUri: `http://127.0.0.1:${port}/hooks`, triggers: ["odometer-traveleddistance"], data: [] }
  })
  assert.strictEqual(created.status, 201, created.text)
  assert.strictEqual(created.json.verification, "succeeded", created.text)
  return created.json.id as string
})

describe("control route bodies", () => {
  it.effect("POST /_simulator/faults and PUT /_simulator/rate-limits: an unknown member or a wrong type is a 400 naming it", () =>
    Effect.gen(function*() {
      const faults = (json: unknown) => call("POST", "/_simulator/faults", { json })
      refused(yield* faults({ faults: ["status=500"], pathh: "/v3/vehicles" }), "pathh")
      refused(yield* faults({ faults: ["status=500"], method: 5 }), "method")
      // nothing was queued: the next request is answered normally
      assert.strictEqual((yield* call("GET", "/v3/vehicles")).status, 401)
      const queued = yield* faults({ faults: ["status=503"], path: "/v3/vehicles", method: "GET" })
      assert.strictEqual(queued.status, 201, queued.text)
      assert.strictEqual((yield* call("GET", "/v3/vehicles")).status, 503)

      const limits = (json: unknown) => call("PUT", "/_simulator/rate-limits", { json })
      refused(yield* limits({ perVehicle: { limit: 10, window: 1000 }, perApp: { limit: 1, window: 1 } }), "perApp")
      refused(yield* limits({ perVehicle: { limit: 10, window: 1000, burst: 2 } }), "burst")
      refused(yield* limits({ perVehicle: { limit: "10", window: 1000 } }), "limit")
      assert.deepStrictEqual((yield* call("GET", "/_simulator/rate-limits")).json.limits.perVehicle ?? null, null)
      const set = yield* limits({ perVehicle: { limit: 10, window: 1000 }, perApplication: { limit: 50, window: "1 second" } })
      assert.strictEqual(set.status, 200, set.text)
      assert.strictEqual(set.json.limits.perVehicle.limit, 10)
    }).pipe(Effect.provide(Loopback)))

  it.live("subscriptions, vehicle errors and bursts: an unknown member or a wrong type is a 400 naming it", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[0]!
      const { userId } = sim.data.connectionOf(vehicleId)!
      const webhookId = yield* verifiedWebhook

      const subscribe = (json: unknown) => call("POST", "/_simulator/subscriptions", { json })
      refused(yield* subscribe({ webhookId, userId, vehicleId, triggers: [] }), "triggers")
      refused(yield* subscribe({ webhookId, userId: 5, vehicleId }), "userId")
      assert.strictEqual((yield* subscribe({ webhookId, userId, vehicleId })).status, 201)

      const inject = (json: unknown) => call("POST", `/_simulator/vehicles/${vehicleId}/errors`, { json })
      refused(yield* inject({ code: "E1", severity: "high" }), "severity")
      refused(yield* inject({ signals: "odometer-traveleddistance" }), "signals")
      const injected = yield* inject({
        type: "COMPATIBILITY",
        code: "E1",
        description: "d",
        suggestedUserMessage: "m",
        resolution: "r",
        signals: ["odometer-traveleddistance"]
      })
      assert.strictEqual(injected.status, 201, injected.text)

      const burst = (json: unknown) => call("POST", "/_simulator/bursts", { json })
      const input = { events: 2, vehicles: 1, ratePerSecond: 1_000, seed: 3, webhookIds: [webhookId], retryDelays: [10, "20 millis"] }
      refused(yield* burst({ ...input, ratePerSec: 10 }), "ratePerSec")
      refused(yield* burst({ ...input, failover: "yes" }), "failover")
      assert.strictEqual((yield* call("GET", "/_simulator/bursts/current")).status, 404, "no burst was started")
      const started = yield* burst({ ...input, duplicateRatio: 0, lostAckRatio: 0, reorderWindow: 1, failover: false, maxInFlight: 4 })
      assert.strictEqual(started.status, 201, started.text)
      const done = yield* call("GET", "/_simulator/bursts/current?wait=1")
      assert.strictEqual(done.json.delivered, 2, done.text)
    }).pipe(Effect.provide(Loopback)))
})

/**
 * A control route's error that names a value the request sent (a body
 * member, an id of the path) shows it by one rule (`oauthText.quoted`):
 * single-quoted, its first 40 characters (`...` after them when there are
 * more), a bidirectional formatting or control character, `'` and `%`
 * percent-encoded; never the whole value (a 200 KB `window` was a 200 KB
 * 400). Over a loopback connection.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer } from "node:http"
import * as NodeAdapter from "@connected-vehicle/webhooks/NodeAdapter"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call, isEnvelope, listening } from "./helpers.ts"
import type { CallOptions } from "./helpers.ts"

const Loopback = Layer.mergeAll(simulatorLayer({ port: 0, seed: 23 }), FetchHttpClient.layer)

/** 40 characters of `w` after a right-to-left override, as `quoted` shows them: the override percent-encoded. */
const long = (length: number) => "\u202e" + "w".repeat(length - 1)
const shownLong = `'%E2%80%AE${"w".repeat(39)}'...`

/** The refusal's detail: the status, short, the value shown by the rule, no raw override. */
const refusedShowing = (status: number, method: string, path: string, options: CallOptions = {}, shown = shownLong) =>
  Effect.gen(function*() {
    const reply = yield* call(method, path, options)
    assert.strictEqual(reply.status, status, `${method} ${path.slice(0, 60)}: ${reply.text.slice(0, 300)}`)
    assert.isTrue(isEnvelope(reply.json), reply.text.slice(0, 300))
    const detail: string = reply.json.errors[0].detail
    assert.isBelow(detail.length, 1000, detail.slice(0, 300))
    assert.notInclude(detail, "\u202e")
    assert.include(detail, shown)
    return detail
  })

describe("control routes: an echoed value is cut short and escaped", () => {
  it.effect("PUT /_simulator/rate-limits: a 200 KB window", () =>
    Effect.gen(function*() {
      const detail = yield* refusedShowing(400, "PUT", "/_simulator/rate-limits", {
        json: { perVehicle: { limit: 5, window: long(200_000) } }
      })
      assert.include(detail, "perVehicle.window must be a duration")
      assert.isNull((yield* call("GET", "/_simulator/rate-limits")).json.limits.perVehicle)
    }).pipe(Effect.provide(Loopback)))

  it.effect("the ids of a path or a body in a 404, a signal code, a callback URI, a burst's values", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[0]!
      const { userId } = sim.data.connectionOf(vehicleId)!
      const id = long(3000)
      const webhookId = long(5000)
      assert.include(
        yield* refusedShowing(404, "POST", "/_simulator/subscriptions", { json: { webhookId, userId, vehicleId } }),
        "No webhook with id"
      )
      assert.include(yield* refusedShowing(404, "POST", `/_simulator/webhooks/${encodeURIComponent(id)}`, { json: {} }), "No webhook with id")
      assert.include(yield* refusedShowing(404, "DELETE", `/_simulator/webhooks/${encodeURIComponent(id)}`), "No webhook with id")
      assert.include(
        yield* refusedShowing(404, "POST", `/_simulator/vehicles/${encodeURIComponent(id)}/errors`, { json: {} }),
        "No vehicle with id"
      )
      assert.include(
        yield* refusedShowing(404, "DELETE", `/_simulator/vehicles/${vehicleId}/errors/${encodeURIComponent(id)}`),
        "No open error"
      )
      assert.include(
        yield* refusedShowing(404, "POST", `/_simulator/vehicles/${vehicleId}/signals/${encodeURIComponent(id)}`, { json: { value: 1 } }),
        "has no signal"
      )
      assert.include(
        yield* refusedShowing(404, "GET", `/_simulator/${encodeURIComponent(id)}`, {}, `'/_simulator/%E2%80%AE${"w".repeat(27)}'...`),
        "No control route GET"
      )
      assert.include(
        yield* refusedShowing(400, "POST", `/_simulator/vehicles/${vehicleId}/errors`, { json: { signals: [long(1000)] } }),
        "unknown signal code"
      )
      assert.include(
        yield* refusedShowing(400, "POST", "/_simulator/webhooks", {
          json: { name: "Echo", callbackUri: long(2000), triggers: ["odometer-traveleddistance"], data: [] }
        }),
        "must be an absolute http or https URL"
      )
      assert.include(
        yield* refusedShowing(400, "POST", "/_simulator/faults", { json: { faults: ["500"], path: `/${long(200)}?` } }, `'/%E2%80%AE${"w".repeat(38)}'...`),
        "can never match"
      )
    }).pipe(Effect.provide(Loopback)))

  it.live("POST /_simulator/bursts: a webhook id, a signal code, a retry delay", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const handler = NodeAdapter.make({ secret: sim.webhookSecret, layer: Logger.layer([]), handler: () => Effect.void })
      const port = yield* listening(createServer(handler), () => handler.dispose())
      const created = yield* call("POST", "/_simulator/webhooks", {
        json: { name: "Echo", callbackUri: `http://127.0.0.1:${port}/hooks`, triggers: ["odometer-traveleddistance"], data: [] }
      })
      assert.strictEqual(created.json.verification, "succeeded", created.text)
      const burst = { events: 1, vehicles: 1, ratePerSecond: 1 }
      assert.include(yield* refusedShowing(404, "POST", "/_simulator/bursts", { json: { ...burst, webhookIds: [long(5000)] } }), "No created webhook")
      assert.include(yield* refusedShowing(400, "POST", "/_simulator/bursts", { json: { ...burst, signals: [long(1000)] } }), "not a burst signal")
      assert.include(yield* refusedShowing(400, "POST", "/_simulator/bursts", { json: { ...burst, retryDelays: [long(1000)] } }), "retryDelays")
    }).pipe(Effect.provide(Loopback)))
})

describe("service routes: an echoed value is cut short and escaped too", () => {
  it.effect("a filter that is not a UUID, a sc-user-id header that names no one user", () =>
    Effect.gen(function*() {
      const token = yield* appToken
      yield* refusedShowing(400, "GET", `/v3/connections?filter[userId]=${encodeURIComponent(long(5_000))}`, { headers: bearer(token) })
      const detail = yield* refusedShowing(400, "GET", `/v3/connections?filter[vehicleId]=${"v".repeat(5_000)}`, { headers: bearer(token) }, `'${"v".repeat(40)}'...`)
      assert.include(detail, "filter[vehicleId] must be a UUID")
    }).pipe(Effect.provide(Loopback)))
})


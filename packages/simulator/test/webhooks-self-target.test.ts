/**
 * A webhook's callback that points at the simulator's own control routes, over
 * loopback: its `VERIFY` is refused there (403, the webhook `failed`), so it
 * never resets the simulator, whatever the host is written as; and a callback
 * with a fragment is a 400 naming the field.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { DELIVERY_HEADER } from "../src/App.ts"
import { layer, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call } from "./helpers.ts"

const Loopback = Layer.mergeAll(layer({ port: 0, seed: 7 }), FetchHttpClient.layer)

const base = { name: "self", triggers: ["odometer-traveleddistance"], data: [] }

describe("a webhook's callback on the simulator's own control routes", () => {
  it.effect("its VERIFY is refused there: nothing is reset", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const port = new URL(sim.url).port
      // the state a reset would wipe: a webhook, a token, the delivery log
      const first = yield* call("POST", "/_simulator/webhooks", { json: { ...base, callbackUri: `${sim.url}/hooks` } })
      assert.strictEqual(first.status, 201)
      const token = yield* appToken
      const spellings = [
        `${sim.url}/_simulator/reset`,
        `http://localhost:${port}/_simulator/reset`,
        `http://127.1:${port}/_simulator/reset`,
        `http://127.0.0.1:${port}//_simulator/reset`,
        `http://127.0.0.1:${port}/_SIMULATOR/reset`,
        `http://127.0.0.1:${port}/_simulator/%72eset`
      ]
      for (const callbackUri of spellings) {
        const created = yield* call("POST", "/_simulator/webhooks", { json: { ...base, callbackUri } })
        assert.strictEqual(created.status, 201, callbackUri)
        assert.strictEqual(created.json.verification, "failed", callbackUri)
      }
      const created = yield* sim.createWebhook({ ...base, callbackUri: `${sim.url}/_simulator/reset` })
      assert.strictEqual(created.verification, "failed")
      const log = yield* sim.deliveries
      assert.strictEqual(log.length, spellings.length + 2)
      assert.deepStrictEqual(log.slice(1).map((entry) => entry.status), [...spellings, 0].map(() => 403))
      const listed = yield* call("GET", "/v3/webhooks?limit=100", { headers: bearer(token) })
      assert.strictEqual(listed.status, 200)
      assert.include(listed.json.data.map((w: { id: string }) => w.id), first.json.id)
    }).pipe(Effect.provide(Loopback)))

  it.effect("a request that carries the delivery header is refused by every control route", () =>
    Effect.gen(function*() {
      const refused = yield* call("POST", "/_simulator/reset", { headers: { [DELIVERY_HEADER]: "1" } })
      assert.strictEqual(refused.status, 403)
      assert.include(refused.json.errors[0].detail, "webhook deliveries")
      assert.strictEqual((yield* call("GET", "/_simulator/requests")).status, 200)
    }).pipe(Effect.provide(Loopback)))

  it.effect("a callback with a fragment is a 400 naming the field", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      for (const fragment of ["#x", "#"]) {
        const callback = yield* call("POST", "/_simulator/webhooks", {
          json: { ...base, callbackUri: `http://127.0.0.1:9/hooks${fragment}` }
        })
        assert.strictEqual(callback.status, 400)
        assert.include(callback.json.errors[0].detail, "callbackUri")
        const error = yield* call("POST", "/_simulator/webhooks", {
          json: { ...base, callbackUri: "http://127.0.0.1:9/hooks", errorCallbackUri: `http://127.0.0.1:9/errors${fragment}` }
        })
        assert.strictEqual(error.status, 400)
        assert.include(error.json.errors[0].detail, "errorCallbackUri")
      }
      const made = yield* call("POST", "/_simulator/webhooks", { json: { ...base, callbackUri: `${sim.url}/hooks` } })
      const patched = yield* call("POST", `/_simulator/webhooks/${made.json.id}`, { json: { callbackUri: `${sim.url}/hooks#x` } })
      assert.strictEqual(patched.status, 400)
      assert.include(patched.json.errors[0].detail, "callbackUri")
      const direct = yield* Effect.flip(sim.createWebhook({ ...base, callbackUri: "http://127.0.0.1:9/hooks#x" }))
      assert.strictEqual(direct.status, 400)
    }).pipe(Effect.provide(Loopback)))
})

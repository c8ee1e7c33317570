/**
 * A callback naming port 0 over loopback: Node's `http.request` takes port 0
 * for the scheme's default, so such a callback would be delivered to port 80
 * or 443 while the log says `:0`. It is refused (a 400 naming the field, on
 * create and update), and an attempt never goes to a port its URL does not
 * name.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer } from "node:http"
import * as NodeAdapter from "@connected-vehicle/webhooks/NodeAdapter"
import { post } from "../src/internal/post.ts"
import { layer, Simulator } from "../src/Simulator.ts"
import { call, listening } from "./helpers.ts"

const Loopback = Layer.mergeAll(layer({ port: 0, seed: 7 }), FetchHttpClient.layer)

const base = { name: "zero", triggers: ["odometer-traveleddistance"], data: [] }

const refusedNaming = (reply: { readonly status: number; readonly text: string; readonly json: any }, field: string) => {
  assert.strictEqual(reply.status, 400, reply.text)
  const detail: string = reply.json.errors[0].detail
  assert.isTrue(detail.startsWith(`${field} `), detail)
  assert.include(detail, "port 0")
}

describe("a callback naming port 0", () => {
  it.effect("is a 400 naming callbackUri or errorCallbackUri, on create and on update; nothing is sent", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const zeros = ["http://127.0.0.1:0/zero-port", "http://127.0.0.1:00/zero-port", "https://localhost:0/hooks", "http://[::1]:0/"]
      for (const uri of zeros) {
        refusedNaming(yield* call("POST", "/_simulator/webhooks", { json: { ...base, callbackUri: uri } }), "callbackUri")
        const error = yield* call("POST", "/_simulator/webhooks", {
          json: { ...base, callbackUri: "http://127.0.0.1:9/hooks", errorCallbackUri: uri }
        })
        refusedNaming(error, "errorCallbackUri")
      }
      assert.deepStrictEqual(yield* sim.deliveries, [])

      // a verified webhook: its callbacks cannot be changed to port 0 either
      const handler = NodeAdapter.make({ secret: sim.webhookSecret, layer: Logger.layer([]), handler: () => Effect.void })
      const port = yield* listening(createServer(handler), () => handler.dispose())
      const made = yield* call("POST", "/_simulator/webhooks", { json: { ...base, callbackUri: `http://127.0.0.1:${port}/hooks` } })
      assert.strictEqual(made.json.verification, "succeeded", made.text)
      const id: string = made.json.id
      refusedNaming(yield* call("POST", `/_simulator/webhooks/${id}`, { json: { callbackUri: zeros[0] } }), "callbackUri")
      refusedNaming(yield* call("POST", `/_simulator/webhooks/${id}`, { json: { errorCallbackUri: zeros[0] } }), "errorCallbackUri")
      const direct = yield* Effect.flip(sim.updateWebhook(id, { callbackUri: zeros[0] }))
      assert.strictEqual(direct.status, 400)
      assert.isTrue((yield* sim.deliveries).every((entry) => !entry.url.includes(":0/")))
    }).pipe(Effect.provide(Loopback)))

  it.live("an attempt to a URL naming port 0 is not sent (Node would send it to port 80)", () =>
    Effect.gen(function*() {
      const failure = yield* Effect.flip(post(new URL("http://127.0.0.1:0/zero-port"), new Uint8Array(2), {}, () => false))
      assert.include(failure.reason, "port 0")

      // a port the URL names is the port used
      let hits = 0
      const port = yield* listening(createServer((_, res) => {
        hits++
        res.writeHead(204).end()
      }), () => Promise.resolve())
      const answer = yield* post(new URL(`http://127.0.0.1:${port}/hooks`), new Uint8Array(2), {}, () => false)
      assert.strictEqual(answer.status, 204)
      assert.strictEqual(hits, 1)
    }))
})

/**
 * A burst's attempts wait for a permit (`maxInFlight`) before they are sent:
 * each looks at the run and the webhook once its turn comes, so an attempt
 * queued behind others is not sent after its webhook was disabled or the
 * simulator reset meanwhile. A loopback receiver that answers each event
 * after 300 ms, a burst of 5 with one in flight.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { createServer } from "node:http"
import { DEFAULT_WEBHOOK_SECRET } from "../src/Delivery.ts"
import { layer, Simulator } from "../src/Simulator.ts"

const wall = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

/** A receiver that verifies and answers every event after 300 ms. */
const slowReceiver = Effect.acquireRelease(
  Effect.promise(() => new Promise<{ url: string; hits: Array<string>; close: () => void }>((resolve) => {
    const hits: Array<string> = []
    const server = createServer((req, res) => {
      let text = ""
      req.on("data", (c: Buffer) => text += c)
      req.on("end", () => {
        const event = JSON.parse(text)
        if (event.eventType === "VERIFY") {
          const challenge = createHmac("sha256", DEFAULT_WEBHOOK_SECRET).update(event.data.challenge).digest("hex")
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ challenge }))
          return
        }
        hits.push(req.url ?? "")
        setTimeout(() => res.writeHead(200).end(), 300)
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as any).port}`, hits, close: () => { server.closeAllConnections(); server.close() } }))
  })),
  (r) => Effect.sync(r.close)
)

const start = Effect.gen(function*() {
  const r = yield* slowReceiver
  const sim = yield* Simulator
  const w = yield* sim.createWebhook({ name: "b", callbackUri: `${r.url}/hook`, triggers: ["odometer-traveleddistance"], data: [] })
  assert.strictEqual(w.verification, "succeeded")
  yield* sim.startBurst({ events: 5, vehicles: 5, ratePerSecond: 1000, maxInFlight: 1, webhookIds: [w.id] })
  while (r.hits.length < 1) yield* wall(10)
  return { r, sim, w }
})

describe("burst attempts queued on a permit", () => {
  it.live("disabled while attempts wait for a permit", () =>
    Effect.gen(function*() {
      const { r, sim, w } = yield* start
      yield* sim.updateWebhook(w.id, { isEnabled: false })
      const at = r.hits.length
      yield* wall(2500)
      assert.strictEqual(r.hits.length, at)
    }).pipe(Effect.provide(layer({ port: 0, seed: 7 }))), 20_000)

  it.live("reset while attempts wait for a permit", () =>
    Effect.gen(function*() {
      const { r, sim } = yield* start
      yield* sim.reset
      const at = r.hits.length
      yield* wall(2500)
      assert.strictEqual(r.hits.length, at)
    }).pipe(Effect.provide(layer({ port: 0, seed: 7 }))), 20_000)
})

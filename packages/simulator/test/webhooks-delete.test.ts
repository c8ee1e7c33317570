/**
 * Deleting a created webhook over loopback (`DELETE /_simulator/webhooks/:id`
 * and `sim.deleteWebhook`): 204, its subscriptions gone, the retries of its
 * deliveries still due logged `dropped` at once and never sent; 404 for an
 * unknown id; another method on a delivery control path is a 405 with
 * `Allow`. The retry schedule runs on `TestClock`; the HTTP is real.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { createHmac } from "node:crypto"
import { createServer } from "node:http"
import { DEFAULT_WEBHOOK_SECRET } from "../src/Delivery.ts"
import { layer, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call, listening, waitFor } from "./helpers.ts"

const Loopback = Layer.mergeAll(layer({ port: 0, seed: 7 }), FetchHttpClient.layer)

/** A real-time pause, to see that nothing more happens. */
const pause = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))

/** A receiver on 127.0.0.1: answers each `VERIFY`; an event on `/fail*` is answered 500, any other 200. Records the events' paths. */
const receiver = Effect.gen(function*() {
  const hits: Array<{ readonly path: string; readonly eventId: string }> = []
  const server = createServer((req, res) => {
    let text = ""
    req.on("data", (chunk: Buffer) => text += chunk.toString("utf8"))
    req.on("end", () => {
      const event = JSON.parse(text) as { eventId: string; eventType: string; data: { challenge?: string } }
      if (event.eventType === "VERIFY") {
        const challenge = createHmac("sha256", DEFAULT_WEBHOOK_SECRET).update(event.data.challenge!).digest("hex")
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ challenge }))
        return
      }
      hits.push({ path: req.url ?? "", eventId: event.eventId })
      res.writeHead(req.url?.startsWith("/fail") ? 500 : 200).end()
    })
  })
  const port = yield* listening(server, () => Promise.resolve())
  return { url: `http://127.0.0.1:${port}`, hits }
})

/** A verified webhook on `path`, the first connected vehicle subscribed: the FIRST_DELIVERY's id. */
const subscribedOn = (url: string, path: string) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    const vehicleId = sim.data.vehicleIds[0]!
    const { userId } = sim.data.connectionOf(vehicleId)!
    const webhook = yield* sim.createWebhook({ name: path, callbackUri: `${url}${path}`, triggers: ["odometer-traveleddistance"], data: [] })
    assert.strictEqual(webhook.verification, "succeeded")
    const { firstDeliveryEventId } = yield* sim.subscribe({ webhookId: webhook.id, userId, vehicleId })
    return { id: webhook.id, vehicleId, eventId: firstDeliveryEventId! }
  })

const entriesOf = (sim: Simulator["Service"], eventId: string) =>
  Effect.map(sim.deliveries, (log) => log.filter((e) => e.eventId === eventId))

describe("deleting a created webhook", () => {
  it.effect("DELETE /_simulator/webhooks/:id: 204, its subscriptions gone, its retries dropped (logged at once, never sent)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const r = yield* receiver
      const doomed = yield* subscribedOn(r.url, "/fail")
      const kept = yield* subscribedOn(r.url, "/ok")
      yield* waitFor("the first attempts", () =>
        Effect.runSync(sim.deliveries).filter((e) => e.eventId === doomed.eventId || e.eventId === kept.eventId).length === 2)
      const [first] = yield* entriesOf(sim, doomed.eventId)
      assert.strictEqual(first!.outcome, "retrying")

      const deleted = yield* call("DELETE", `/_simulator/webhooks/${doomed.id}`)
      assert.strictEqual(deleted.status, 204, deleted.text)
      // the retry that was waiting is logged dropped when the DELETE is answered
      const entries = yield* entriesOf(sim, doomed.eventId)
      assert.strictEqual(entries.length, 2)
      assert.deepStrictEqual(
        [entries[1]!.attempt, entries[1]!.outcome, entries[1]!.status, entries[1]!.error, entries[1]!.webhookId],
        [2, "dropped", null, "not sent: the webhook was deleted", doomed.id]
      )

      // gone from the lists; the other webhook and its subscription stay
      const token = yield* appToken
      const webhooks = yield* call("GET", "/v3/webhooks?pageSize=100", { headers: bearer(token) })
      const ids: Array<string> = webhooks.json.data.map((w: { id: string }) => w.id)
      assert.notInclude(ids, doomed.id)
      assert.include(ids, kept.id)
      const subscriptions = yield* call("GET", "/v3/subscriptions?pageSize=100", { headers: bearer(token) })
      const of: Array<string> = subscriptions.json.data.map((s: any) => s.relationships.webhook.data.id)
      assert.notInclude(of, doomed.id)
      assert.include(of, kept.id)

      // no more attempt, and no event from a signal change
      yield* sim.setSignal(doomed.vehicleId, "odometer-traveleddistance", { unit: "km", value: 4242 })
      yield* TestClock.adjust(Duration.seconds(200))
      yield* pause
      assert.strictEqual((yield* entriesOf(sim, doomed.eventId)).length, 2)
      assert.deepStrictEqual(r.hits.filter((h) => h.path === "/fail").map((h) => h.eventId), [doomed.eventId])

      // once deleted, unknown: 404 (the section 7 envelope)
      const again = yield* call("DELETE", `/_simulator/webhooks/${doomed.id}`)
      assert.strictEqual(again.status, 404, again.text)
      assert.include(again.json.errors[0].detail, doomed.id)
      assert.strictEqual((yield* call("DELETE", "/_simulator/webhooks/no-such-webhook")).status, 404)
    }).pipe(Effect.provide(Loopback)))

  it.effect("sim.deleteWebhook: the same, in process; an unknown id is a 404 WebhookControlError", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const r = yield* receiver
      const { eventId, id, vehicleId } = yield* subscribedOn(r.url, "/fail-direct")
      yield* waitFor("the first attempt", () => Effect.runSync(entriesOf(sim, eventId)).length === 1)
      yield* sim.deleteWebhook(id)
      const entries = yield* entriesOf(sim, eventId)
      assert.deepStrictEqual(entries.map((e) => e.outcome), ["retrying", "dropped"])
      const missing = yield* Effect.flip(sim.deleteWebhook(id))
      assert.strictEqual(missing.status, 404)
      // its vehicle can no longer be subscribed to it
      const { userId } = sim.data.connectionOf(vehicleId)!
      assert.strictEqual((yield* Effect.flip(sim.subscribe({ webhookId: id, userId, vehicleId }))).status, 404)
    }).pipe(Effect.provide(Loopback)))

  it.effect("another method on a delivery control path is a 405 with Allow; a path no route has stays 404", () =>
    Effect.gen(function*() {
      for (
        const [method, path, allow] of [
          ["PUT", "/_simulator/webhooks/wh-1", "POST, DELETE"],
          ["PATCH", "/_simulator/webhooks/wh-1", "POST, DELETE"],
          ["GET", "/_simulator/webhooks/wh-1", "POST, DELETE"],
          ["GET", "/_simulator/webhooks", "POST"],
          ["GET", "/_simulator/subscriptions", "POST"],
          ["PUT", "/_simulator/deliveries", "GET, DELETE"],
          ["GET", "/_simulator/vehicles/v-1/errors/e-1", "DELETE"]
        ] as const
      ) {
        const reply = yield* call(method, path)
        assert.strictEqual(reply.status, 405, `${method} ${path}: ${reply.text}`)
        assert.strictEqual(reply.headers["allow"], allow)
        assert.include(reply.json.errors[0].detail, method)
      }
      const nowhere = yield* call("DELETE", "/_simulator/webhooks/wh-1/extra")
      assert.strictEqual(nowhere.status, 404, nowhere.text)
      assert.isUndefined(nowhere.headers["allow"])
    }).pipe(Effect.provide(Loopback)))
})

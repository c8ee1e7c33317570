/**
 * Rotating a webhook's secret over loopback: `POST /_simulator/webhooks/:id
 * {"secret"}` (the service's rotation) against a receiver of
 * `@connected-vehicle/webhooks` deployed with `[new, old]`, then with the new
 * one alone; and the webhook routes refusing members they do not take. The
 * retry schedule runs on the simulator's Clock (`TestClock`), the HTTP is real.
 */
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Logger } from "effect"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import * as NodeAdapter from "@connected-vehicle/webhooks/NodeAdapter"
import type { Secrets } from "@connected-vehicle/webhooks/Signature"
import { isValid } from "@connected-vehicle/webhooks/Signature"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { call, isEnvelope, listening, waitFor } from "./helpers.ts"

const oldSecret = "rotation-old-4b1f0c9e7d"
const newSecret = "rotation-new-93a6e2d815"
const thirdSecret = "rotation-third-5c7e0b2a44"

const Loopback = Layer.mergeAll(simulatorLayer({ port: 0, seed: 11 }), FetchHttpClient.layer)

interface Seen {
  readonly signature: string
  readonly body: string
  status?: number
}

/**
 * A receiver on 127.0.0.1:0: the Node adapter with the secrets `deploy` was
 * last given (a redeployment), behind a gate that answers 500 itself
 * (`failNext`); every request's signature, body and answered status recorded.
 */
const receiver = Effect.gen(function*() {
  const handled: Array<DeliveredEvent> = []
  const seen: Array<Seen> = []
  const gate = { failNext: 0 }
  const quiet = Logger.layer([]) // the rejected deliveries' warnings are expected here
  let current: NodeAdapter.NodeHandler | undefined
  const deployed: Array<NodeAdapter.NodeHandler> = []
  const deploy = (secret: Secrets) => {
    current = NodeAdapter.make({ secret, layer: quiet, handler: (event) => Effect.sync(() => handled.push(event)) })
    deployed.push(current)
  }
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      const entry: Seen = { signature: String(req.headers["sc-signature"]), body: body.toString("utf8") }
      seen.push(entry)
      res.on("finish", () => entry.status = res.statusCode)
      if (!body.includes("\"VERIFY\"") && gate.failNext > 0) {
        gate.failNext--
        res.writeHead(500).end()
        return
      }
      ;(req as IncomingMessage & { rawBody?: Buffer }).rawBody = body
      current!(req, res)
    })
  })
  const port = yield* listening(server, async () => {
    await Promise.all(deployed.map((handler) => handler.dispose()))
  })
  return { url: `http://127.0.0.1:${port}`, handled, seen, gate, deploy }
})

/** The request that carried `eventId`'s attempt `n` (1-based). */
const attempt = (seen: ReadonlyArray<Seen>, eventId: string, n: number) =>
  waitFor(`attempt ${n} of ${eventId}`, () => seen.filter((s) => s.body.includes(eventId) && s.status !== undefined)[n - 1])

describe("webhook secret rotation over loopback", () => {
  it.effect("[new, old] accepts both during the rotation, the update signs the next attempts and retries, a third secret is 401", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const recv = yield* receiver
      const vehicleId = sim.data.vehicleIds[0]!
      const userId = sim.data.connectionOf(vehicleId)!.userId
      const odometer = (value: number) =>
        Effect.map(sim.setSignal(vehicleId, "odometer-traveleddistance", { unit: "km", value }), (c) => c.eventIds[0]!)

      // before the rotation: the webhook and the receivers share the old secret
      recv.deploy(oldSecret)
      const created = yield* call("POST", "/_simulator/webhooks", {
        json: { name: "Rotated", callbackUri: `${recv.url}/hooks`, triggers: ["odometer-traveleddistance"], data: [], secret: oldSecret }
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.strictEqual(created.json.verification, "succeeded")
      const webhookId: string = created.json.id
      const subscription = yield* sim.subscribe({ webhookId, userId, vehicleId })
      yield* waitFor("FIRST_DELIVERY", () => recv.handled.find((e) => e.eventId === subscription.firstDeliveryEventId))

      // 1. the receivers are deployed with [new, old]: the service still signs with the old one
      recv.deploy([newSecret, oldSecret])
      const before = yield* odometer(1)
      const signedOld = yield* attempt(recv.seen, before, 1)
      assert.strictEqual(signedOld.status, 200)
      assert.isTrue(isValid(signedOld.body, signedOld.signature, oldSecret))
      // an attempt that fails before the rotation, retried after it
      recv.gate.failNext = 1
      const retried = yield* odometer(2)
      assert.strictEqual((yield* attempt(recv.seen, retried, 1)).status, 500)

      // 2. the rotation at the service
      const rotated = yield* call("POST", `/_simulator/webhooks/${webhookId}`, { json: { secret: newSecret } })
      assert.strictEqual(rotated.status, 200, rotated.text)
      assert.notInclude(rotated.text, newSecret)
      const after = yield* odometer(3)
      const signedNew = yield* attempt(recv.seen, after, 1)
      assert.strictEqual(signedNew.status, 200)
      assert.isTrue(isValid(signedNew.body, signedNew.signature, newSecret))
      assert.isFalse(isValid(signedNew.body, signedNew.signature, oldSecret))
      yield* TestClock.adjust(Duration.seconds(25))
      const retry = yield* attempt(recv.seen, retried, 2)
      assert.strictEqual(retry.status, 200)
      assert.isTrue(isValid(retry.body, retry.signature, newSecret))
      // a VERIFY (a new callback) is answered with the secret that signed it, the new one the service now holds
      const moved = yield* call("POST", `/_simulator/webhooks/${webhookId}`, { json: { callbackUri: `${recv.url}/moved` } })
      assert.strictEqual(moved.json.verification, "succeeded", moved.text)

      // 3. the old one is dropped
      recv.deploy(newSecret)
      assert.strictEqual((yield* attempt(recv.seen, yield* odometer(4), 1)).status, 200)
      for (const eventId of [before, retried, after]) {
        assert.strictEqual(recv.handled.filter((e) => e.eventId === eventId).length, 1, eventId)
      }

      // a secret the receivers do not hold: refused 401, never handled
      assert.strictEqual((yield* call("POST", `/_simulator/webhooks/${webhookId}`, { json: { secret: thirdSecret } })).status, 200)
      const forged = yield* odometer(5)
      assert.strictEqual((yield* attempt(recv.seen, forged, 1)).status, 401)
      const logged = yield* waitFor("the 401 logged", () =>
        Effect.runSync(sim.deliveries).find((e) => e.eventId === forged && e.attempt === 1))
      assert.strictEqual(logged.status, 401)
      assert.strictEqual(logged.outcome, "retrying")
      assert.isUndefined(recv.handled.find((e) => e.eventId === forged))
    }).pipe(Effect.provide(Loopback)))

  it.effect("a member the webhook routes do not take is a 400 naming it, on create and update; no detail quotes a secret", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const recv = yield* receiver
      recv.deploy(sim.webhookSecret)
      const base = { name: "Strict", callbackUri: `${recv.url}/hooks`, triggers: ["odometer-traveleddistance"], data: [] }
      const refused = (reply: { readonly status: number; readonly text: string; readonly json: any }, member: string) => {
        assert.strictEqual(reply.status, 400, reply.text)
        assert.isTrue(isEnvelope(reply.json), reply.text)
        assert.include(reply.json.errors[0].detail, `"${member}"`)
      }
      const create = (json: unknown) => call("POST", "/_simulator/webhooks", { json })
      refused(yield* create({ bogus: 1 }), "bogus")
      refused(yield* create({ ...base, bogus: 1 }), "bogus")
      const carrying = yield* create({ ...base, secret: newSecret, isEnabld: false })
      refused(carrying, "isEnabld")
      assert.notInclude(carrying.text, newSecret)
      assert.isUndefined(recv.seen.find((s) => s.body.includes("VERIFY")), "nothing created")

      const created = yield* create(base)
      assert.strictEqual(created.status, 201, created.text)
      const update = (json: unknown) => call("POST", `/_simulator/webhooks/${created.json.id}`, { json })
      refused(yield* update({ bogus: 1 }), "bogus")
      const typo = yield* update({ name: "Renamed", secret: newSecret, isEnabld: false })
      refused(typo, "isEnabld")
      assert.notInclude(typo.text, newSecret)
      // a lone surrogate would sign as U+FFFD: no receiver could hold the secret as given
      for (const json of [{ secret: "" }, { secret: "s".repeat(1_025) }, { secret: 5 }, { secret: "\ud800abc-secret" }]) {
        const reply = yield* update(json)
        assert.strictEqual(reply.status, 400, reply.text)
        assert.include(reply.json.errors[0].detail, "secret")
        assert.notInclude(reply.text, "s".repeat(1_025))
        assert.notInclude(reply.text, "abc-secret")
      }
      // nothing was changed: the name, and the secret (a delivery still verifies with the simulator's)
      const unchanged = yield* update({})
      assert.strictEqual(unchanged.json.name, "Strict")
      const { userId } = sim.data.connectionOf(sim.data.vehicleIds[0]!)!
      const subscription = yield* sim.subscribe({ webhookId: created.json.id, userId, vehicleId: sim.data.vehicleIds[0]! })
      yield* waitFor("FIRST_DELIVERY", () => recv.handled.find((e) => e.eventId === subscription.firstDeliveryEventId))
    }).pipe(Effect.provide(Loopback)))
})

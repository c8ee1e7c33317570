/**
 * The `VERIFY` handshake and the answer head over loopback: a secret rotated
 * while a `VERIFY` waits for its answer (the challenge is checked with the key
 * that signed it), a webhook whose verification failed verified again when
 * its callback is named again, and an unsolicited `101 Switching Protocols`
 * decided at once (a failure with status 101, the socket released). The test
 * clock does not move: an attempt that waits for the 15 s limit never ends.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { createHmac } from "node:crypto"
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { layer, Simulator } from "../src/Simulator.ts"
import { listening, waitFor } from "./helpers.ts"

const oldSecret = "old-secret"
const newSecret = "new-secret"

const wallSleep = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

/** Fails the test if `effect` is still waiting after `millis` of wall-clock time. */
const within = <A, E, R>(millis: number, what: string, effect: Effect.Effect<A, E, R>) =>
  Effect.raceFirst(effect, Effect.andThen(wallSleep(millis), Effect.die(new Error(`${what}: still waiting after ${millis} ms`))))

const hmac = (key: string, text: string) => createHmac("sha256", key).update(text).digest("hex")

/**
 * A receiver on 127.0.0.1:0 deployed with `[new, old]`: it answers a `VERIFY`
 * with the secret that signed it (its `SC-Signature`), at once, or after 1 s
 * on `/slow`, with a wrong answer while `broken`. `/upgrade` answers any
 * request with a bare `101 Switching Protocols` head and keeps the socket
 * open. Every other event is answered 200 and recorded.
 */
const receiver = Effect.gen(function*() {
  const events: Array<{ readonly path: string; readonly eventId: string; readonly eventType: string }> = []
  const verifies: Array<string> = []
  const state = { broken: false }
  const sockets = new Set<Socket>()
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      const event = JSON.parse(text) as { eventId: string; eventType: string; data: { challenge?: string } }
      const path = req.url ?? ""
      if (path === "/upgrade") {
        req.socket.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
        return
      }
      if (event.eventType !== "VERIFY") {
        events.push({ path, eventId: event.eventId, eventType: event.eventType })
        return void res.writeHead(200).end()
      }
      verifies.push(path)
      const signature = String(req.headers["sc-signature"])
      const key = [newSecret, oldSecret].find((secret) => hmac(secret, text) === signature)
      const challenge = key === undefined || state.broken ? "0".repeat(64) : hmac(key, event.data.challenge!)
      const answer = () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ challenge }))
      if (path === "/slow") setTimeout(answer, 1_000)
      else answer()
    })
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  const port = yield* listening(server, async () => {})
  return { url: `http://127.0.0.1:${port}`, events, verifies, state, open: () => sockets.size }
})

const Loopback = layer({ port: 0, seed: 7 })

const webhookOn = (url: string, name: string) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    return yield* sim.createWebhook({ name, callbackUri: url, triggers: ["odometer-traveleddistance"], data: [], secret: oldSecret })
  })

describe("the VERIFY handshake", () => {
  it.effect("a secret rotated while a VERIFY waits for its answer: the answer is checked with the key that signed the challenge", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const r = yield* receiver
      const webhook = yield* webhookOn(`${r.url}/hooks`, "rotating")
      assert.strictEqual(webhook.verification, "succeeded")
      const moved = yield* Effect.forkChild(sim.updateWebhook(webhook.id, { callbackUri: `${r.url}/slow` }))
      yield* wallSleep(300)
      // the rotation, while the receiver has not answered yet
      const rotated = yield* sim.updateWebhook(webhook.id, { secret: newSecret })
      assert.strictEqual(rotated.verification, "pending")
      const view = yield* within(5_000, "the VERIFY", Fiber.join(moved))
      assert.strictEqual(view.verification, "succeeded")
      const entry = (yield* sim.deliveries).find((e) => e.eventType === "VERIFY" && e.url === `${r.url}/slow`)!
      assert.strictEqual(entry.outcome, "verified")
      assert.isNull(entry.error)
      // the next attempts are signed with the new secret: a VERIFY of a new callback too
      const again = yield* sim.updateWebhook(webhook.id, { callbackUri: `${r.url}/again` })
      assert.strictEqual(again.verification, "succeeded")
    }).pipe(Effect.provide(Loopback)))

  it.effect("a webhook whose VERIFY failed is verified again when its callback is named again; a verified one is not", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const r = yield* receiver
      r.state.broken = true
      const webhook = yield* webhookOn(`${r.url}/hooks`, "retried")
      assert.strictEqual(webhook.verification, "failed")
      const vehicleId = sim.data.vehicleIds[0]!
      const { userId } = sim.data.connectionOf(vehicleId)!
      const subscription = yield* sim.subscribe({ webhookId: webhook.id, userId, vehicleId })
      assert.isUndefined(subscription.firstDeliveryEventId)
      // another change leaves the handshake alone
      assert.strictEqual((yield* sim.updateWebhook(webhook.id, { name: "renamed" })).verification, "failed")
      assert.strictEqual(r.verifies.length, 1)

      // the receiver fixed, the same URL named again: a new handshake
      r.state.broken = false
      const retried = yield* sim.updateWebhook(webhook.id, { callbackUri: `${r.url}/hooks` })
      assert.strictEqual(retried.verification, "succeeded")
      assert.strictEqual(r.verifies.length, 2)
      const outcomes = (yield* sim.deliveries).filter((e) => e.eventType === "VERIFY").map((e) => e.outcome)
      assert.deepStrictEqual(outcomes, ["unverified", "verified"])
      // the subscription's FIRST_DELIVERY follows the handshake
      yield* waitFor("FIRST_DELIVERY", () => r.events.find((e) => e.eventType === "VEHICLE_STATE"), 5_000)

      // verified: naming the same callback again sends no VERIFY
      assert.strictEqual((yield* sim.updateWebhook(webhook.id, { callbackUri: `${r.url}/hooks` })).verification, "succeeded")
      assert.strictEqual(r.verifies.length, 2)
    }).pipe(Effect.provide(Loopback)))
})

describe("an unsolicited 101 Switching Protocols", () => {
  it.effect("fails a delivery at once with status 101 (retried later) and a VERIFY at once; the socket is released", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const r = yield* receiver
      const webhook = yield* webhookOn(`${r.url}/hooks`, "upgraded")
      const vehicleId = sim.data.vehicleIds[0]!
      const { userId } = sim.data.connectionOf(vehicleId)!
      yield* sim.subscribe({ webhookId: webhook.id, userId, vehicleId })
      yield* waitFor("FIRST_DELIVERY", () => r.events.length === 1, 5_000)
      const moved = yield* within(5_000, "a VERIFY answered 101", sim.updateWebhook(webhook.id, { callbackUri: `${r.url}/upgrade` }))
      assert.strictEqual(moved.verification, "failed")
      const verify = (yield* sim.deliveries).find((e) => e.eventType === "VERIFY" && e.url === `${r.url}/upgrade`)!
      assert.deepStrictEqual([verify.status, verify.error, verify.outcome], [101, "HTTP 101", "unverified"])

      // a verified webhook whose receiver answers its events 101
      const upgraded = yield* sim.createWebhook({
        name: "events upgraded",
        callbackUri: `${r.url}/hooks`,
        errorCallbackUri: `${r.url}/upgrade`,
        triggers: ["odometer-traveleddistance"],
        data: [],
        secret: oldSecret
      })
      yield* sim.subscribe({ webhookId: upgraded.id, userId, vehicleId })
      const { eventIds: [eventId] } = yield* sim.injectVehicleError(vehicleId, { code: "ASLEEP" })
      const entry = yield* waitFor(
        "the 101 logged",
        () => Effect.runSync(sim.deliveries).find((e) => e.eventId === eventId && e.webhookId === upgraded.id),
        5_000
      )
      assert.deepStrictEqual([entry.status, entry.error, entry.outcome], [101, "HTTP 101", "retrying"])
      assert.isBelow(Duration.toMillis(entry.latency), 5_000)
      yield* waitFor("the receiver's connections closed", () => r.open() === 0, 5_000)
    }).pipe(Effect.provide(Loopback)))
})

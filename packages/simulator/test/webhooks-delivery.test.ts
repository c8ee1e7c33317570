/**
 * Webhook deliveries over loopback: the simulator (on 127.0.0.1:0) delivers
 * to a receiver of `@connected-vehicle/webhooks` (its Node adapter on another
 * port), so the simulator's signing (`node:crypto`) is checked against the
 * receiver's verification. The retry schedule runs on the simulator's Clock:
 * these tests run under `TestClock` (`it.effect`) and move it with
 * `TestClock.adjust`, while the HTTP itself is real.
 */
import type { DeliveredEvent, VehicleErrorEvent, VehicleStateEvent } from "@connected-vehicle/schema/WebhookEvent"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Logger, Redacted, References } from "effect"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { inspect } from "node:util"
import * as NodeAdapter from "@connected-vehicle/webhooks/NodeAdapter"
import { verify } from "@connected-vehicle/webhooks/Signature"
import type { DeliveryLogEntry } from "../src/Delivery.ts"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call, listening, waitFor } from "./helpers.ts"

const secretText = "mgmt-token-sim-3e9b1c7a5d2f4086b1e3"
const secret = Redacted.make(secretText)

const Loopback = (options: { readonly webhookSecret?: string } = {}) =>
  Layer.mergeAll(
    simulatorLayer({ port: 0, seed: 7, webhookSecret: options.webhookSecret ?? secretText }),
    FetchHttpClient.layer
  )


/** A real-time pause, to see that nothing more happens. */
const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 200)))

interface Seen {
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

/**
 * A receiver on 127.0.0.1:0: the webhooks package's Node adapter on `/hooks`
 * and `/errors` (each with its handled events), behind a gate that can answer
 * 500 by itself (`failNext`, `failAlways`) and that records every request.
 */
const receiver = (key: Redacted.Redacted<string> = secret) =>
  Effect.gen(function*() {
    const handled: Array<DeliveredEvent> = []
    const errors: Array<DeliveredEvent> = []
    const seen: Array<Seen> = []
    const gate = { failNext: 0, failAlways: false, script: [] as Array<"302" | "hang"> }
    const quiet = Logger.layer([]) // the receiver's warnings (a rejected signature) are expected here
    const hooks = NodeAdapter.make({ secret: key, layer: quiet, handler: (event) => Effect.sync(() => handled.push(event)) })
    const errorHooks = NodeAdapter.make({ secret: key, layer: quiet, handler: (event) => Effect.sync(() => errors.push(event)) })
    const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const body = Buffer.concat(chunks)
        seen.push({ path: req.url ?? "", headers: req.headers, body: body.toString("utf8") })
        const isVerify = body.includes("\"VERIFY\"")
        const scripted = isVerify ? undefined : gate.script.shift()
        if (scripted === "302") {
          res.writeHead(302, { location: "/elsewhere" }).end()
          return
        }
        if (scripted === "hang") return // never answered
        if (!isVerify && (gate.failAlways || gate.failNext > 0)) {
          gate.failNext = Math.max(0, gate.failNext - 1)
          res.writeHead(500, { "content-type": "application/json" }).end("{\"error\":\"down\"}")
          return
        }
        ;(req as IncomingMessage & { rawBody?: Buffer }).rawBody = body
        ;(req.url === "/errors" ? errorHooks : hooks)(req, res)
      })
    })
    const port = yield* listening(server, async () => {
      await hooks.dispose()
      await errorHooks.dispose()
    })
    return { url: `http://127.0.0.1:${port}`, handled, errors, seen, gate }
  })

/** A connected vehicle and its user (the first connection). */
const connected = Effect.gen(function*() {
  const sim = yield* Simulator
  const vehicleId = sim.data.vehicleIds[0]!
  return { vehicleId, userId: sim.data.connectionOf(vehicleId)!.userId, vehicle: sim.data.vehicle(vehicleId)! }
})

const dataCodes = ["odometer-traveleddistance", "location-preciselocation", "vehicleidentification-vin"]

/** A webhook on the receiver, verified, and a subscription whose FIRST_DELIVERY arrived. */
const subscribed = (recv: Effect.Success<ReturnType<typeof receiver>>) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    const { userId, vehicle, vehicleId } = yield* connected
    const webhook = yield* sim.createWebhook({
      name: "Fleet telemetry",
      callbackUri: `${recv.url}/hooks`,
      errorCallbackUri: `${recv.url}/errors`,
      triggers: ["odometer-traveleddistance"],
      data: dataCodes
    })
    assert.strictEqual(webhook.verification, "succeeded")
    const subscription = yield* sim.subscribe({ webhookId: webhook.id, userId, vehicleId })
    assert.isString(subscription.firstDeliveryEventId)
    yield* waitFor("FIRST_DELIVERY", () => recv.handled.find((e) => e.eventId === subscription.firstDeliveryEventId))
    return { webhook, subscription, userId, vehicle, vehicleId }
  })

const attemptsOf = (sim: Simulator["Service"], eventId: string) =>
  Effect.map(sim.deliveries, (log) => log.filter((entry) => entry.eventId === eventId))

/** Every log line of the simulator's fibers, at every level. */
const lines: Array<string> = []
const capture = Logger.make((options) => {
  lines.push(Logger.formatJson.log(options))
})

describe("webhook deliveries over loopback", () => {
  it.effect("VERIFY handshake, FIRST_DELIVERY, and a signal change delivered as a verified VEHICLE_STATE", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const recv = yield* receiver()
      const { userId, vehicle, vehicleId, webhook } = yield* subscribed(recv)

      // the VERIFY: signed, answered by the receiver, logged as verified
      const log = yield* sim.deliveries
      const verifyEntry = log.find((e) => e.eventType === "VERIFY")!
      assert.strictEqual(verifyEntry.outcome, "verified")
      assert.strictEqual(verifyEntry.status, 200)
      assert.strictEqual(verifyEntry.webhookId, webhook.id)

      // the created webhook and subscription are in the normal lists
      const token = yield* appToken
      const webhooks = yield* call("GET", "/v3/webhooks?pageSize=100", { headers: bearer(token) })
      assert.strictEqual(webhooks.status, 200, webhooks.text)
      assert.strictEqual(webhooks.json.data[0].id, webhook.id)
      assert.strictEqual(webhooks.json.data[0].attributes.callbackUri, `${recv.url}/hooks`)
      assert.deepStrictEqual(webhooks.json.data[0].attributes.data.map((s: { code: string }) => s.code), dataCodes)
      const one = yield* call("GET", `/v3/webhooks/${webhook.id}`, { headers: bearer(token) })
      assert.strictEqual(one.json.data.attributes.name, "Fleet telemetry")
      const subscriptions = yield* call("GET", `/v3/subscriptions?filter[webhookId]=${webhook.id}`, { headers: bearer(token) })
      assert.strictEqual(subscriptions.status, 200, subscriptions.text)
      assert.strictEqual(subscriptions.json.meta.totalCount, 1)
      assert.strictEqual(subscriptions.json.data[0].relationships.vehicle.data.id, vehicleId)

      // the first delivery
      const first = recv.handled[0] as VehicleStateEvent
      assert.strictEqual(first.eventType, "VEHICLE_STATE")
      assert.deepStrictEqual(first.data.triggers, [{ code: "FIRST_DELIVERY" }])

      // a change of a data signal that is not a trigger: no event
      const quiet = yield* call("POST", `/_simulator/vehicles/${vehicleId}/signals/location-preciselocation`, {
        json: { latitude: 48.85, longitude: 2.35, heading: 90 }
      })
      assert.strictEqual(quiet.status, 200, quiet.text)
      assert.deepStrictEqual(quiet.json, { changed: true, eventIds: [] })

      // the trigger changes (control route): one event, every data signal
      const change = yield* call("POST", `/_simulator/vehicles/${vehicleId}/signals/odometer-traveleddistance`, {
        json: { unit: "km", value: 123456.7 }
      })
      assert.strictEqual(change.status, 200, change.text)
      assert.isTrue(change.json.changed)
      const eventId = (change.json.eventIds as Array<string>)[0]!
      const event = (yield* waitFor("VEHICLE_STATE", () => recv.handled.find((e) => e.eventId === eventId))) as VehicleStateEvent
      assert.strictEqual(event.eventType, "VEHICLE_STATE")
      assert.strictEqual(event.vehicleId, vehicleId)
      assert.strictEqual(event.data.user.id, userId)
      assert.deepStrictEqual(event.data.vehicle, { id: vehicleId, make: vehicle.make, model: vehicle.model, year: vehicle.year })
      assert.deepStrictEqual(event.data.triggers, [{ code: "odometer-traveleddistance", name: "Traveled Distance", group: "Odometer" }])
      assert.deepStrictEqual(event.data.signals.map((s) => s.code), dataCodes)
      const odometer = event.data.signals[0]!
      assert.isTrue("body" in odometer)
      if ("body" in odometer) assert.deepStrictEqual(odometer.body, { unit: "km", value: 123456.7 })
      assert.strictEqual(event.meta.version, "4.0")
      assert.strictEqual(event.meta.webhookId, webhook.id)
      assert.strictEqual(event.meta.webhookName, "Fleet telemetry")
      assert.strictEqual(event.meta.signalCount, 3)
      assert.strictEqual(event.meta.mode, vehicle.mode === "live" ? "LIVE" : "SIMULATED")
      assert.match(event.meta.deliveryId, /^dlv_/)

      // the wire: POST, JSON, User-Agent, a signature the receiver package verifies over the bytes
      const wire = recv.seen.find((s) => s.body.includes(eventId))!
      assert.strictEqual(wire.headers["content-type"], "application/json")
      assert.match(wire.headers["user-agent"] ?? "", /^connected-vehicle-simulator\/\d+\.\d+\.\d+$/)
      assert.match(String(wire.headers["sc-signature"]), /^[0-9a-f]{64}$/)
      yield* verify(wire.body, String(wire.headers["sc-signature"]), secret)
      assert.isBelow(Buffer.byteLength(wire.body), 50_000)

      // the same body again: not a change, no event
      const same = yield* sim.setSignal(vehicleId, "odometer-traveleddistance", { unit: "km", value: 123456.7 })
      assert.deepStrictEqual(same, { changed: false, eventIds: [] })

      // the log: one delivered attempt per event (recorded once the receiver's
      // answer is read, which may be after the handler ran)
      yield* waitFor("the delivered attempt in the log", () => Effect.runSync(attemptsOf(sim, eventId!)).find((e) => e.attempt === 1))
      const entries = yield* attemptsOf(sim, eventId!)
      assert.strictEqual(entries.length, 1)
      assert.strictEqual(entries[0]!.outcome, "delivered")
      assert.strictEqual(entries[0]!.url, `${recv.url}/hooks`)
      assert.strictEqual(entries[0]!.deliveryId, event.meta.deliveryId)
    }).pipe(Effect.provide(Loopback())))

  it.effect("an injected vehicle error is a VEHICLE_ERROR on the error callback, then RESOLVED", () =>
    Effect.gen(function*() {
      const recv = yield* receiver()
      const { userId, vehicleId } = yield* subscribed(recv)
      const injected = yield* call("POST", `/_simulator/vehicles/${vehicleId}/errors`, {
        json: { type: "CONNECTED_SERVICES_ACCOUNT", code: "VEHICLE_AUTHENTICATION_EXPIRED", resolution: "REAUTHENTICATE", signals: ["odometer-traveleddistance"] }
      })
      assert.strictEqual(injected.status, 201, injected.text)
      const { errorId, eventIds } = injected.json as { errorId: string; eventIds: Array<string> }
      assert.strictEqual(eventIds.length, 1)
      const error = (yield* waitFor("VEHICLE_ERROR", () => recv.errors.find((e) => e.eventId === eventIds[0]))) as VehicleErrorEvent
      assert.strictEqual(error.eventType, "VEHICLE_ERROR")
      assert.strictEqual(error.vehicleId, vehicleId)
      assert.strictEqual(error.data.user?.id, userId)
      const entry = error.data.errors[0]!
      assert.strictEqual(entry.state, "ERROR")
      assert.strictEqual(entry.type, "CONNECTED_SERVICES_ACCOUNT")
      assert.strictEqual(entry.code, "VEHICLE_AUTHENTICATION_EXPIRED")
      assert.deepStrictEqual(entry.resolution, { type: "REAUTHENTICATE" })
      assert.deepStrictEqual(entry.signals, [{ code: "odometer-traveleddistance", name: "Traveled Distance", group: "Odometer" }])
      assert.isFalse(recv.handled.some((e) => e.eventType === "VEHICLE_ERROR"))

      const resolved = yield* call("DELETE", `/_simulator/vehicles/${vehicleId}/errors/${errorId}`)
      assert.strictEqual(resolved.status, 200, resolved.text)
      const cleared = (yield* waitFor("RESOLVED", () => recv.errors.find((e) => e.eventId === resolved.json.eventIds[0]))) as VehicleErrorEvent
      assert.strictEqual(cleared.data.errors[0]!.state, "RESOLVED")
      assert.strictEqual(cleared.data.errors[0]!.code, "VEHICLE_AUTHENTICATION_EXPIRED")
      const again = yield* call("DELETE", `/_simulator/vehicles/${vehicleId}/errors/${errorId}`)
      assert.strictEqual(again.status, 404)
    }).pipe(Effect.provide(Loopback())))

  it.effect("500 twice: the third attempt at +75 s delivers; eventId stable, deliveryId new, the handler runs once", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const recv = yield* receiver()
      const { vehicleId } = yield* subscribed(recv)
      recv.gate.failNext = 2
      const { eventIds: [eventId] } = yield* sim.setSignal(vehicleId, "odometer-traveleddistance", { unit: "km", value: 1 })
      const first = yield* waitFor("attempt 1", () => Effect.runSync(attemptsOf(sim, eventId!)).find((e) => e.attempt === 1))
      assert.strictEqual(first.status, 500)
      assert.strictEqual(first.outcome, "retrying")

      yield* TestClock.adjust(Duration.seconds(24))
      yield* settle
      assert.strictEqual((yield* attemptsOf(sim, eventId!)).length, 1)
      yield* TestClock.adjust(Duration.seconds(1))
      const second = yield* waitFor("attempt 2", () => Effect.runSync(attemptsOf(sim, eventId!)).find((e) => e.attempt === 2))
      assert.strictEqual(second.status, 500)
      yield* TestClock.adjust(Duration.seconds(50))
      const third = yield* waitFor("attempt 3", () => Effect.runSync(attemptsOf(sim, eventId!)).find((e) => e.attempt === 3))
      assert.strictEqual(third.status, 200)
      assert.strictEqual(third.outcome, "delivered")

      const at = (e: DeliveryLogEntry) => Date.parse(e.at)
      assert.strictEqual(at(second) - at(first), 25_000)
      assert.strictEqual(at(third) - at(first), 75_000)
      assert.strictEqual(new Set([first.deliveryId, second.deliveryId, third.deliveryId]).size, 3)

      yield* TestClock.adjust(Duration.seconds(1_000))
      yield* settle
      assert.strictEqual((yield* attemptsOf(sim, eventId!)).length, 3)
      assert.strictEqual(recv.handled.filter((e) => e.eventId === eventId).length, 1)
      const bodies = recv.seen.filter((s) => s.body.includes(eventId!)).map((s) => JSON.parse(s.body))
      assert.strictEqual(bodies.length, 3)
      assert.deepStrictEqual(bodies.map((b) => b.meta.deliveryId), [first.deliveryId, second.deliveryId, third.deliveryId])
    }).pipe(Effect.provide(Loopback())))

  it.effect("a receiver that never succeeds sees exactly 4 attempts (+0, +25, +75, +175 s), then the event is dropped", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const recv = yield* receiver()
      const { vehicleId } = yield* subscribed(recv)
      recv.gate.failAlways = true
      const { eventIds: [eventId] } = yield* sim.setSignal(vehicleId, "odometer-traveleddistance", { unit: "km", value: 2 })
      for (const [n, wait] of [[2, 25], [3, 50], [4, 100]] as const) {
        yield* waitFor(`attempt ${n - 1}`, () => Effect.runSync(attemptsOf(sim, eventId!)).length === n - 1 || undefined)
        yield* TestClock.adjust(Duration.seconds(wait))
      }
      const attempts = yield* waitFor("attempt 4", () => {
        const entries = Effect.runSync(attemptsOf(sim, eventId!))
        return entries.length === 4 ? entries : undefined
      })
      yield* TestClock.adjust(Duration.seconds(10_000))
      yield* settle
      assert.strictEqual((yield* attemptsOf(sim, eventId!)).length, 4)
      assert.deepStrictEqual(attempts.map((e) => e.outcome), ["retrying", "retrying", "retrying", "dropped"])
      assert.deepStrictEqual(attempts.map((e) => e.attempt), [1, 2, 3, 4])
      const start = Date.parse(attempts[0]!.at)
      assert.deepStrictEqual(attempts.map((e) => (Date.parse(e.at) - start) / 1000), [0, 25, 75, 175])
      assert.strictEqual(recv.seen.filter((s) => s.body.includes(eventId!)).length, 4)
      assert.isFalse(recv.handled.some((e) => e.eventId === eventId))
    }).pipe(Effect.provide(Loopback())))

  it.effect("a 3xx and no answer within 15 s are failures too (TestClock moves the 15 s)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const recv = yield* receiver()
      const { vehicleId } = yield* subscribed(recv)
      recv.gate.script = ["302", "hang"]
      const { eventIds: [eventId] } = yield* sim.setSignal(vehicleId, "odometer-traveleddistance", { unit: "km", value: 5 })
      const first = yield* waitFor("attempt 1", () => Effect.runSync(attemptsOf(sim, eventId!)).find((e) => e.attempt === 1))
      assert.strictEqual(first.status, 302)
      assert.strictEqual(first.outcome, "retrying")
      yield* TestClock.adjust(Duration.seconds(25))
      // the second attempt reached the receiver, which does not answer
      yield* waitFor("attempt 2 received", () => recv.seen.filter((s) => s.body.includes(eventId!)).length === 2 || undefined)
      yield* TestClock.adjust(Duration.seconds(15))
      const second = yield* waitFor("attempt 2 timed out", () => Effect.runSync(attemptsOf(sim, eventId!)).find((e) => e.attempt === 2))
      assert.isNull(second.status)
      assert.strictEqual(second.error, "no answer within 15 s")
      assert.strictEqual(second.outcome, "retrying")
      yield* TestClock.adjust(Duration.seconds(35)) // +75 s
      const third = yield* waitFor("attempt 3", () => Effect.runSync(attemptsOf(sim, eventId!)).find((e) => e.attempt === 3))
      assert.strictEqual(third.outcome, "delivered")
      assert.strictEqual(Date.parse(third.at) - Date.parse(first.at), 75_000)
      yield* waitFor("handled", () => recv.handled.find((e) => e.eventId === eventId))
    }).pipe(Effect.provide(Loopback())))

  it.effect("a receiver with another secret fails the VERIFY: the webhook gets no events", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const recv = yield* receiver(Redacted.make("not-the-management-token"))
      const { userId, vehicleId } = yield* connected
      const webhook = yield* sim.createWebhook({
        name: "Wrong key",
        callbackUri: `${recv.url}/hooks`,
        triggers: ["odometer-traveleddistance"],
        data: ["odometer-traveleddistance"]
      })
      assert.strictEqual(webhook.verification, "failed")
      const entry = (yield* sim.deliveries).find((e) => e.webhookId === webhook.id)!
      assert.strictEqual(entry.outcome, "unverified")
      assert.strictEqual(entry.status, 401)
      const subscription = yield* sim.subscribe({ webhookId: webhook.id, userId, vehicleId })
      assert.isUndefined(subscription.firstDeliveryEventId)
      const change = yield* sim.setSignal(vehicleId, "odometer-traveleddistance", { unit: "km", value: 3 })
      assert.deepStrictEqual(change.eventIds, [])

      // a callback that answers correctly: verified again, and the first delivery follows
      const good = yield* receiver()
      const updated = yield* sim.updateWebhook(webhook.id, { callbackUri: `${good.url}/hooks` })
      assert.strictEqual(updated.verification, "succeeded")
      yield* waitFor("FIRST_DELIVERY after the new callback", () => good.handled.find((e) => e.eventType === "VEHICLE_STATE"))
    }).pipe(Effect.provide(Loopback())))

  it.effect("bad control input is a clear 4xx envelope", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId, vehicleId } = yield* connected
      const create = (json: unknown) => call("POST", "/_simulator/webhooks", { json })
      const base = { name: "x", callbackUri: "http://127.0.0.1:9/hooks", triggers: ["odometer-traveleddistance"], data: [] }
      const unknownCode = yield* create({ ...base, triggers: ["warp-drive"] })
      assert.strictEqual(unknownCode.status, 400)
      assert.include(unknownCode.json.errors[0].detail, "warp-drive")
      assert.strictEqual((yield* create({ ...base, triggers: [] })).status, 400)
      assert.strictEqual((yield* create({ ...base, callbackUri: "ftp://example.com" })).status, 400)
      assert.strictEqual((yield* create({ name: 1 })).status, 400)
      assert.strictEqual((yield* call("POST", "/_simulator/webhooks", { body: "{", contentType: "application/json" })).status, 400)
      const seeded = yield* call("POST", "/_simulator/subscriptions", {
        json: { webhookId: sim.data.webhooks[0]!.id, userId, vehicleId }
      })
      assert.strictEqual(seeded.status, 400)
      assert.include(seeded.json.errors[0].detail, "seeded")
      const missing = yield* call("POST", `/_simulator/vehicles/00000000-0000-4000-8000-000000000000/signals/odometer-traveleddistance`, {
        json: { value: 1 }
      })
      assert.strictEqual(missing.status, 404)
      const notObject = yield* call("POST", `/_simulator/vehicles/${vehicleId}/signals/odometer-traveleddistance`, { json: [1] })
      assert.strictEqual(notObject.status, 400)
      const badUnit = yield* call("POST", `/_simulator/vehicles/${vehicleId}/signals/odometer-traveleddistance`, { json: { unit: 5 } })
      assert.strictEqual(badUnit.status, 400)
      const unknownSignal = yield* call("POST", `/_simulator/vehicles/${vehicleId}/signals/warp-drive`, { json: { value: 1 } })
      assert.strictEqual(unknownSignal.status, 404)
      // a vehicle of another user
      const other = sim.data.vehicleIds.find((id) => sim.data.connectionOf(id) !== undefined && sim.data.connectionOf(id)!.userId !== userId)!
      const webhook = yield* sim.createWebhook({ ...base, callbackUri: "http://127.0.0.1:9/hooks" })
      const notConnected = yield* Effect.flip(sim.subscribe({ webhookId: webhook.id, userId, vehicleId: other }))
      assert.strictEqual(notConnected._tag, "WebhookControlError")
      assert.strictEqual(notConnected.status, 400)
      const list = yield* call("GET", "/_simulator/deliveries")
      assert.strictEqual(list.status, 200)
      assert.isArray(list.json.deliveries)
    }).pipe(Effect.provide(Loopback())))

  it.effect("the secret appears in no log line, error, answer, view or delivery log", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const recv = yield* receiver()
      const own = "per-webhook-secret-5a1d9e"
      const ownRecv = yield* receiver(Redacted.make(own))
      const outputs: Array<string> = []
      const { vehicleId, webhook } = yield* subscribed(recv)
      // a webhook created over HTTP with its own secret: verified with it
      const created = yield* call("POST", "/_simulator/webhooks", {
        json: { name: "Own key", callbackUri: `${ownRecv.url}/hooks`, triggers: ["odometer-traveleddistance"], data: [], secret: own }
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.strictEqual(created.json.verification, "succeeded")
      outputs.push(created.text)
      // bad bodies that carry the secret
      for (const json of [{ name: 5, secret: own }, { ...created.json, triggers: "x", secret: own }, { secret: own }]) {
        const reply = yield* call("POST", "/_simulator/webhooks", { json })
        assert.strictEqual(reply.status, 400)
        outputs.push(reply.text)
      }
      // failing deliveries, a failing handshake, errors
      recv.gate.failAlways = true
      yield* sim.setSignal(vehicleId, "odometer-traveleddistance", { unit: "km", value: 4 })
      yield* waitFor("a failed attempt", () => Effect.runSync(sim.deliveries).find((e) => e.outcome === "retrying"))
      const wrong = yield* receiver(Redacted.make("wrong"))
      const failed = yield* sim.updateWebhook(webhook.id, { callbackUri: `${wrong.url}/hooks` })
      outputs.push(JSON.stringify(failed))
      outputs.push(inspect(yield* Effect.flip(sim.updateWebhook("nope", {}))))
      outputs.push(JSON.stringify(yield* sim.deliveries))
      outputs.push((yield* call("GET", "/_simulator/deliveries")).text)
      outputs.push(JSON.stringify(yield* sim.requests))
      outputs.push(inspect(sim.webhookSecret), String(sim.webhookSecret), JSON.stringify(sim.webhookSecret))
      outputs.push(...lines)
      const all = outputs.join("\n")
      assert.notInclude(all, secretText)
      assert.notInclude(all, own)
      assert.strictEqual(Redacted.value(sim.webhookSecret), secretText)
    }).pipe(
      Effect.provide(Loopback()),
      Effect.provide(Logger.layer([capture])),
      Effect.provideService(References.MinimumLogLevel, "All")
    ))
})

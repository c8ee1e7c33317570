/**
 * The connection's permissions in webhook events over loopback: a signal the
 * vehicle's connection may not read is carried in a `FIRST_DELIVERY`, a
 * `VEHICLE_STATE` and a burst's events as the REST reads show it (`ERROR` /
 * `FORBIDDEN`, no body), whatever was set; with `enforcePermissions: false`
 * it carries its value, as REST answers it.
 */
import type { DeliveredEvent, VehicleStateEvent } from "@connected-vehicle/schema/WebhookEvent"
import { isFailedSignal, WebhookEventFromJson } from "@connected-vehicle/schema/WebhookEvent"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { createHmac } from "node:crypto"
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import { signalCatalog } from "../src/Data.ts"
import { DEFAULT_WEBHOOK_SECRET } from "../src/Delivery.ts"
import { layer, Simulator } from "../src/Simulator.ts"
import type { SimulatorOptions } from "../src/Simulator.ts"
import { appToken, bearer, call, listening, waitFor } from "./helpers.ts"

const options: SimulatorOptions & { readonly port: number } = { port: 0, seed: 5, connections: 80, vehicles: 90, users: 6 }
const Enforced = Layer.mergeAll(layer(options), FetchHttpClient.layer)
const Ignored = Layer.mergeAll(layer({ ...options, enforcePermissions: false }), FetchHttpClient.layer)

const decode = Schema.decodeUnknownSync(WebhookEventFromJson)
const location = "location-preciselocation"
const odometer = "odometer-traveleddistance"
const battery = "tractionbattery-stateofcharge"
const fuel = "internalcombustionengine-fuellevel"

/** A receiver on 127.0.0.1:0: answers each VERIFY, records every other event (decoded). */
const receiver = Effect.gen(function*() {
  const events: Array<DeliveredEvent> = []
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      const event = decode(text)
      if (event.eventType === "VERIFY") {
        const challenge = createHmac("sha256", DEFAULT_WEBHOOK_SECRET).update(event.data.challenge).digest("hex")
        return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ challenge }))
      }
      events.push(event as DeliveredEvent)
      res.writeHead(200).end()
    })
  })
  const port = yield* listening(server, async () => {})
  return { url: `http://127.0.0.1:${port}/hooks`, events }
})

/** A connected vehicle whose connection lacks `permission`, its owner, and the app's headers for it. */
const lacking = (permission: string) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    const vehicleId = sim.data.vehicleIds.slice(0, sim.data.connectionCount)
      .find((id) => !sim.data.connectionOf(id)!.permissions.includes(permission as never))
    assert.isDefined(vehicleId)
    const { userId } = sim.data.connectionOf(vehicleId!)!
    return { vehicleId: vehicleId!, userId, headers: { ...bearer(yield* appToken), "sc-user-id": userId } }
  })

const signalOf = (event: DeliveredEvent, code: string) =>
  (event as VehicleStateEvent).data.signals.find((s) => s.code === code)!

/** Subscribes the vehicle lacking read_location to a webhook carrying location and odometer, sets both: the events. */
const stateEvents = Effect.gen(function*() {
  const sim = yield* Simulator
  const r = yield* receiver
  const v = yield* lacking("read_location")
  const webhook = yield* sim.createWebhook({ name: "perm", callbackUri: r.url, triggers: [odometer], data: [location, odometer] })
  assert.strictEqual(webhook.verification, "succeeded")
  const { firstDeliveryEventId } = yield* sim.subscribe({ webhookId: webhook.id, userId: v.userId, vehicleId: v.vehicleId })
  yield* sim.setSignal(v.vehicleId, location, { latitude: 52.5, longitude: 13.4, heading: 0, direction: "N" })
  const { eventIds: [stateId] } = yield* sim.setSignal(v.vehicleId, odometer, { unit: "km", value: 20_100 })
  const first = yield* waitFor("FIRST_DELIVERY", () => r.events.find((e) => e.eventId === firstDeliveryEventId), 5_000)
  const state = yield* waitFor("VEHICLE_STATE", () => r.events.find((e) => e.eventId === stateId), 5_000)
  const rest = yield* call("GET", `/v3/vehicles/${v.vehicleId}/signals/${location}`, { headers: v.headers })
  return { first, state, rest }
})

describe("webhook events and the connection's permissions", () => {
  it.effect("a signal the connection may not read is FORBIDDEN in FIRST_DELIVERY and VEHICLE_STATE, as REST answers it 403", () =>
    Effect.gen(function*() {
      const { first, rest, state } = yield* stateEvents
      assert.strictEqual(rest.status, 403, rest.text)
      assert.strictEqual(rest.json.errors[0].code, "FORBIDDEN")
      for (const event of [first, state]) {
        const denied = signalOf(event, location)
        assert.isTrue(isFailedSignal(denied), JSON.stringify(denied))
        assert.deepStrictEqual((denied as any).status, { value: "ERROR", error: { code: "FORBIDDEN", type: "AUTHENTICATION" } })
        assert.notProperty(denied, "body")
        assert.isFalse(isFailedSignal(signalOf(event, odometer)))
      }
      assert.deepStrictEqual((signalOf(state, odometer) as any).body, { unit: "km", value: 20_100 })
    }).pipe(Effect.provide(Enforced)))

  it.effect("a trigger on a signal the connection may not read fires nothing: no event, the value still stored", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const r = yield* receiver
      const v = yield* lacking("read_location")
      const webhook = yield* sim.createWebhook({ name: "hidden", callbackUri: r.url, triggers: [location, odometer], data: [odometer] })
      const { firstDeliveryEventId } = yield* sim.subscribe({ webhookId: webhook.id, userId: v.userId, vehicleId: v.vehicleId })
      yield* waitFor("FIRST_DELIVERY", () => r.events.find((e) => e.eventId === firstDeliveryEventId), 5_000)
      const hidden = yield* sim.setSignal(v.vehicleId, location, { latitude: 48.1, longitude: 11.6, heading: 0, direction: "N" })
      assert.isTrue(hidden.changed)
      assert.deepStrictEqual(hidden.eventIds, [])
      const { eventIds: [stateId] } = yield* sim.setSignal(v.vehicleId, odometer, { unit: "km", value: 30_000 })
      const state = yield* waitFor("VEHICLE_STATE", () => r.events.find((e) => e.eventId === stateId), 5_000)
      // only the readable trigger fired: the events received are FIRST_DELIVERY and that one
      assert.deepStrictEqual(r.events.map((e) => e.eventId), [firstDeliveryEventId, stateId])
      assert.deepStrictEqual((state as VehicleStateEvent).data.triggers.map((t) => t.code), [odometer])
    }).pipe(Effect.provide(Enforced)))

  it.effect("enforcePermissions: false: the event carries the value, as REST answers it", () =>
    Effect.gen(function*() {
      const { first, rest, state } = yield* stateEvents
      assert.strictEqual(rest.status, 200, rest.text)
      assert.isFalse(isFailedSignal(signalOf(first, location)))
      assert.deepStrictEqual((signalOf(state, location) as any).body, rest.json.data.attributes.body)
    }).pipe(Effect.provide(Ignored)))

  it.live("a burst: a signal the connection may not read is FORBIDDEN, left out of the ground truth", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const r = yield* receiver
      yield* sim.createWebhook({ name: "burst", callbackUri: r.url, triggers: [odometer], data: [] })
      yield* sim.startBurst({ events: 300, vehicles: 80, ratePerSecond: 100_000, seed: 1, signals: [odometer, battery] })
      const done = yield* sim.awaitBurst
      assert.strictEqual(done.delivered, 300)
      const readsBattery = (vehicleId: string) => sim.data.connectionOf(vehicleId)!.permissions.includes("read_battery")
      let forbidden = 0
      let carried = 0
      for (const event of r.events as ReadonlyArray<VehicleStateEvent>) {
        // only what the connection may read triggers, and something always does
        const triggers = event.data.triggers.map((t) => t.code)
        assert.isAbove(triggers.length, 0, event.eventId)
        assert.isTrue(!triggers.includes(battery) || readsBattery(event.vehicleId), `${event.eventId} ${triggers.join()}`)
        for (const signal of event.data.signals) {
          const denied = signal.code === battery && !readsBattery(event.vehicleId)
          assert.strictEqual(isFailedSignal(signal), denied, `${event.vehicleId} ${signal.code}`)
          if (denied) forbidden++
          else if (signal.code === battery) carried++
          if (isFailedSignal(signal)) assert.deepStrictEqual(signal.status.error, { code: "FORBIDDEN", type: "AUTHENTICATION" })
        }
      }
      assert.isAbove(forbidden, 0)
      assert.isAbove(carried, 0)
      const truth = yield* sim.burstTruth
      for (const value of [...truth.latest, ...truth.events.flatMap((e) => e.signals.map((s) => ({ ...s, vehicleId: e.vehicleId })))]) {
        assert.isTrue(value.code !== battery || readsBattery(value.vehicleId), `${value.vehicleId} ${value.code}`)
      }
      // a burst of signals some connections may not read: a vehicle whose connection may read neither gets no event
      const reads = (vehicleId: string, code: string) =>
        sim.data.connectionOf(vehicleId)!.permissions.includes(signalCatalog.find((s) => s.code === code)!.permission)
      const codes = [battery, fuel]
      const before = r.events.length
      yield* sim.startBurst({ events: 200, vehicles: 80, ratePerSecond: 100_000, seed: 2, signals: codes })
      assert.strictEqual((yield* sim.awaitBurst).delivered, 200)
      const events = r.events.slice(before) as ReadonlyArray<VehicleStateEvent>
      assert.strictEqual(events.length, 200)
      const has = (id: string, code: string) => sim.data.vehicle(id)!.signalCodes.includes(code)
      const blind = sim.data.vehicleIds.slice(0, 80).filter((id) => !codes.some((code) => has(id, code) && reads(id, code)))
      assert.isAbove(blind.length, 0)
      for (const event of events) {
        assert.notInclude(blind, event.vehicleId)
        const triggers = event.data.triggers.map((t) => t.code)
        assert.isAbove(triggers.length, 0, event.eventId)
        for (const code of triggers) assert.isTrue(reads(event.vehicleId, code), `${event.eventId} ${code}`)
      }
    }).pipe(Effect.provide(Enforced)))
})

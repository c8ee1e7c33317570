/**
 * Bursts of webhook deliveries over loopback: the simulator delivers to
 * receivers of `@connected-vehicle/webhooks` (its Node adapter verifies every
 * signature) on other ports; each receiver records every delivery as it
 * arrived. The ground truth the simulator reports is checked against the
 * newest value per (vehicle, signal) computed here from what arrived, and the
 * duplicates, lost acknowledgements, reordering, poison events, failover,
 * rate, cancel and the refusals are each seen.
 */
import type { VehicleStateEvent } from "@connected-vehicle/schema/WebhookEvent"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Logger, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import * as NodeAdapter from "@connected-vehicle/webhooks/NodeAdapter"
import { MAX_BURST_EVENTS } from "../src/Burst.ts"
import type { BurstInput, GroundTruth } from "../src/Burst.ts"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call } from "./helpers.ts"

const secretText = "burst-secret-0c6f1e2a9b7d"

const Loopback = Layer.mergeAll(
  simulatorLayer({ port: 0, seed: 11, vehicles: 40, connections: 40, users: 8, webhookSecret: secretText }),
  FetchHttpClient.layer
)

/** A receiver on 127.0.0.1:0: every delivery (parsed) as it arrived; `failing` answers 500 to every event. */
const receiver = Effect.gen(function*() {
  const arrived: Array<VehicleStateEvent> = []
  const gate = { failing: false }
  const hooks = NodeAdapter.make({
    secret: Redacted.make(secretText),
    layer: Logger.layer([]),
    handler: () => Effect.void
  })
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      const event = JSON.parse(body.toString("utf8"))
      if (event.eventType !== "VERIFY") {
        if (gate.failing) return void res.writeHead(500).end()
        arrived.push(event)
      }
      ;(req as IncomingMessage & { rawBody?: Buffer }).rawBody = body
      hooks(req, res)
    })
  })
  const port = yield* Effect.acquireRelease(
    Effect.callback<number>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as { port: number }).port)))
    }),
    () =>
      Effect.promise(async () => {
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
        await hooks.dispose()
      })
  )
  return { url: `http://127.0.0.1:${port}/hooks`, arrived, gate }
})

/** Two receivers, each behind a created (verified) webhook. */
const twoReceivers = Effect.gen(function*() {
  const sim = yield* Simulator
  const a = yield* receiver
  const b = yield* receiver
  const webhookOf = (url: string, name: string) =>
    sim.createWebhook({ name, callbackUri: url, triggers: ["odometer-traveleddistance"], data: [] })
  const wa = yield* webhookOf(a.url, "A")
  const wb = yield* webhookOf(b.url, "B")
  assert.deepStrictEqual([wa.verification, wb.verification], ["succeeded", "succeeded"])
  return { a, b, wa, wb }
})

/** The newest value per (vehicle, signal) of what arrived, poison events left out. */
const newestOf = (events: ReadonlyArray<VehicleStateEvent>, poison: ReadonlySet<string>) => {
  const latest = new Map<string, { readonly at: string; readonly value: unknown; readonly eventId: string }>()
  for (const event of events) {
    if (poison.has(event.eventId)) continue
    for (const signal of event.data.signals as ReadonlyArray<any>) {
      const key = `${event.vehicleId} ${signal.code}`
      const known = latest.get(key)
      if (known === undefined || known.at < signal.meta.oemUpdatedAt) {
        latest.set(key, { at: signal.meta.oemUpdatedAt, value: signal.body.value, eventId: event.eventId })
      }
    }
  }
  return latest
}

const truthMap = (truth: GroundTruth) =>
  new Map(truth.latest.map((l) => [`${l.vehicleId} ${l.code}`, { at: l.oemUpdatedAt, value: l.body.value, eventId: l.eventId }]))

describe("bursts of webhook deliveries", () => {
  it.live("duplicates, lost acknowledgements, reordering and poison events; the ground truth matches what arrived", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { a, b, wa, wb } = yield* twoReceivers
      const started = yield* sim.startBurst({
        events: 400,
        vehicles: 12,
        ratePerSecond: 4000,
        duplicateRatio: 0.2,
        lostAckRatio: 0.1,
        reorderWindow: 25,
        seed: 3,
        retryDelays: ["20 millis", 50],
        poisonEventIds: ["poison-1", "poison-2"]
      })
      assert.deepStrictEqual(started.webhookIds, [wa.id, wb.id])
      const done = yield* sim.awaitBurst
      assert.isTrue(done.done)
      assert.strictEqual(done.events, 400)
      assert.strictEqual(done.poisonEvents, 2)
      assert.strictEqual(done.deliveries, 402 + done.duplicates)
      assert.isAbove(done.duplicates, 40)
      assert.isAbove(done.lostAcks, 10)
      assert.deepStrictEqual([done.delivered, done.dropped, done.retries], [done.deliveries, 0, done.lostAcks])
      const arrived = [...a.arrived, ...b.arrived]
      // every lost acknowledgement is a second arrival of the same delivery's event
      assert.strictEqual(arrived.length, done.deliveries + done.lostAcks)
      const ids = new Set(arrived.map((e) => e.eventId))
      assert.strictEqual(ids.size, 402)
      // a vehicle's events go to one webhook (vehicle k of the burst to webhook k mod 2)
      for (const [events, webhook] of [[a.arrived, wa], [b.arrived, wb]] as const) {
        assert.isTrue(events.every((e) => e.meta.webhookId === webhook.id))
      }
      const vehiclesOfA = new Set(a.arrived.map((e) => e.vehicleId))
      assert.isTrue(b.arrived.every((e) => !vehiclesOfA.has(e.vehicleId)))
      // out of order: some signal of some vehicle arrived after a newer value of it
      const newestSeen = new Map<string, string>()
      let reordered = 0
      for (const event of arrived) {
        for (const signal of event.data.signals as ReadonlyArray<any>) {
          const key = `${event.vehicleId} ${signal.code}`
          const seen = newestSeen.get(key)
          if (seen !== undefined && seen > signal.meta.oemUpdatedAt) reordered++
          else newestSeen.set(key, signal.meta.oemUpdatedAt)
        }
      }
      assert.isAbove(reordered, 0)
      const truth = yield* sim.burstTruth
      assert.strictEqual(truth.events.length, 402)
      assert.deepStrictEqual(truth.poisonEventIds, ["poison-1", "poison-2"])
      assert.deepStrictEqual(newestOf(arrived, new Set(truth.poisonEventIds)), truthMap(truth))
      // the REST endpoints serve the newest value (fast path and full application alike)
      const token = yield* appToken
      const latest = truth.latest[0]!
      const headers = { ...bearer(token), "sc-user-id": sim.data.connectionOf(latest.vehicleId)!.userId }
      for (const extra of [{}, { "x-simulator-fault": "delay=0" }]) {
        const read = yield* call("GET", `/v3/vehicles/${latest.vehicleId}/signals/${latest.code}`, { headers: { ...headers, ...extra } })
        assert.strictEqual(read.json.data.attributes.body.value, latest.body.value)
        assert.strictEqual(read.json.data.meta.oemUpdatedAt, latest.oemUpdatedAt)
      }
    }).pipe(Effect.provide(Loopback)))

  it.live("failover: retries of a failing receiver's events go to the other webhook; without it they are dropped", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { a, b } = yield* twoReceivers
      b.gate.failing = true
      const input: BurstInput = { events: 60, vehicles: 6, ratePerSecond: 5000, seed: 9, retryDelays: ["10 millis"] }
      const over = yield* Effect.andThen(sim.startBurst({ ...input, failover: true }), sim.awaitBurst)
      assert.deepStrictEqual([over.delivered, over.dropped], [60, 0])
      assert.isAbove(over.retries, 0)
      assert.strictEqual(new Set(a.arrived.map((e) => e.eventId)).size, 60)
      const stuck = yield* Effect.andThen(sim.startBurst(input), sim.awaitBurst)
      assert.strictEqual(stuck.delivered + stuck.dropped, 60)
      assert.isAbove(stuck.dropped, 0)
      assert.strictEqual(stuck.retries, stuck.dropped)
      // event ids differ from one burst to the next
      assert.strictEqual(new Set(a.arrived.map((e) => e.eventId)).size, 60 + stuck.delivered)
    }).pipe(Effect.provide(Loopback)))

  it.effect("the rate follows the simulator's Clock; cancel; one burst at a time", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      yield* twoReceivers
      const started = yield* sim.startBurst({ events: 50, vehicles: 4, ratePerSecond: 10 })
      assert.strictEqual(started.started, 0)
      yield* TestClock.adjust("250 millis")
      assert.strictEqual((yield* sim.burst).started, 3)
      const busy = yield* Effect.flip(sim.startBurst({ events: 1, vehicles: 1, ratePerSecond: 1 }))
      assert.strictEqual(busy.status, 409)
      const waiting = yield* Effect.forkChild(sim.awaitBurst)
      const cancelled = yield* sim.cancelBurst
      assert.isTrue(cancelled.cancelled)
      assert.isTrue((yield* Fiber.join(waiting)).cancelled)
      yield* TestClock.adjust("10 seconds")
      assert.isAtMost((yield* sim.burst).started, 4)
      yield* sim.reset
      assert.strictEqual((yield* Effect.flip(sim.burst)).status, 404)
    }).pipe(Effect.provide(Loopback)))

  it.effect("values are what JSON carries: no -0 (a negative value rounded to zero is 0)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      yield* twoReceivers
      yield* sim.startBurst({ events: 3_000, vehicles: 40, ratePerSecond: 1, seed: 23 })
      const truth = yield* sim.burstTruth
      yield* sim.cancelBurst
      const values = truth.events.flatMap((event) => event.signals.map((signal) => signal.body.value))
      assert.isTrue(values.some((value) => value === 0))
      assert.isFalse(values.some((value) => Object.is(value, -0)))
    }).pipe(Effect.provide(Loopback)))

  it.live("control routes: start, progress, wait, truth; clear refusals", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { wa } = yield* twoReceivers
      const none = yield* call("GET", "/_simulator/bursts/current")
      assert.strictEqual(none.status, 404)
      const refusals: ReadonlyArray<readonly [unknown, number, string]> = [
        [{ events: MAX_BURST_EVENTS + 1, vehicles: 1, ratePerSecond: 1 }, 400, "events must be an integer from 1 to 100000"],
        [{ events: 1, vehicles: 41, ratePerSecond: 1 }, 400, "vehicles must be an integer from 1 to 40"],
        [{ events: 1, vehicles: 1, ratePerSecond: 0 }, 400, "ratePerSecond"],
        [{ events: 1, vehicles: 1, ratePerSecond: 1, duplicateRatio: 2 }, 400, "duplicateRatio"],
        [{ events: 1, vehicles: 1, ratePerSecond: 1, signals: ["location-preciselocation"] }, 400, "not a burst signal"],
        [{ events: 1, vehicles: 1, ratePerSecond: 1, retryDelays: ["later"] }, 400, "retryDelays"],
        [{ events: 1, vehicles: 1, ratePerSecond: 1, webhookIds: ["nope"] }, 404, "No created webhook"],
        [{ events: 1, vehicles: 1, ratePerSecond: 1, poisonEventIds: ["p", "p"] }, 400, "same id twice"],
        [{ events: "many" }, 400, "Expected {events"]
      ]
      for (const [json, status, detail] of refusals) {
        const refused = yield* call("POST", "/_simulator/bursts", { json })
        assert.strictEqual(refused.status, status, JSON.stringify(json))
        assert.include(refused.json.errors[0].detail, detail)
      }
      const started = yield* call("POST", "/_simulator/bursts", {
        json: { events: 30, vehicles: 3, ratePerSecond: 1000, webhookIds: [wa.id], duplicateRatio: 0.5, seed: 1 }
      })
      assert.strictEqual(started.status, 201)
      const done = yield* call("GET", "/_simulator/bursts/current?wait=1")
      assert.deepStrictEqual([done.status, done.json.done, done.json.delivered], [200, true, done.json.deliveries])
      const truth = yield* call("GET", "/_simulator/bursts/current/truth")
      assert.strictEqual(truth.json.events.length, 30)
      assert.deepStrictEqual(truth.json, JSON.parse(JSON.stringify(yield* sim.burstTruth)))
      assert.strictEqual((yield* call("DELETE", "/_simulator/bursts/current")).json.cancelled, true)
    }).pipe(Effect.provide(Loopback)))
})

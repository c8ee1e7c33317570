/**
 * The connection's permissions (spec sections 2.3, 2.6, 4.7 and 5.1): a read
 * whose permission the vehicle's connection lacks is a 403 (a per-signal
 * ERROR in the signals list, a 403 item in a batch), unless
 * `enforcePermissions: false`.
 */
import { SignalResponse, SignalsPage } from "@connected-vehicle/schema/Signal"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { allPermissions } from "../src/Data.ts"
import { layer, Simulator } from "../src/Simulator.ts"
import type { SimulatorOptions } from "../src/Simulator.ts"
import { appToken, bearer, call, isEnvelope, userTokens } from "./helpers.ts"
import type { Reply } from "./helpers.ts"

const options: SimulatorOptions = { seed: 5, connections: 80, vehicles: 90, users: 6 }
const Enforced = Layer.mergeAll(layer(options), FetchHttpClient.layer)
const Ignored = Layer.mergeAll(layer({ ...options, enforcePermissions: false }), FetchHttpClient.layer)

const forbidden = (reply: Reply, permission: string) => {
  assert.strictEqual(reply.status, 403, reply.text)
  assert.isTrue(isEnvelope(reply.json), reply.text)
  const [error] = reply.json.errors
  assert.deepStrictEqual([error.status, error.type, error.code], ["403", "AUTHENTICATION", "FORBIDDEN"])
  assert.include(error.detail, permission)
}

/** A vehicle whose connection lacks read_tires, its owner, and the owner's vehicle holding every permission. */
const vehicles = Effect.gen(function*() {
  const sim = yield* Simulator
  const connected = sim.data.vehicleIds.slice(0, sim.data.connectionCount)
  const lacking = connected.find((id) => !sim.data.connectionOf(id)!.permissions.includes("read_tires"))!
  const userId = sim.data.connectionOf(lacking)!.userId
  const full = sim.data.vehiclesOf(userId).find((id) => sim.data.connectionOf(id)!.permissions.length === allPermissions.length)!
  assert.isDefined(lacking)
  assert.isDefined(full)
  return { lacking, full, userId }
})

/** The v3 signal and list, the legacy read and a batch on both vehicles: twice each (the loopback fast path's caches). */
const reads = Effect.gen(function*() {
  const { full, lacking, userId } = yield* vehicles
  const app = { ...bearer(yield* appToken), "sc-user-id": userId }
  const user = bearer((yield* userTokens({ userId })).access)
  const out = []
  for (let round = 0; round < 2; round++) {
    out.push({
      signal: yield* call("GET", `/v3/vehicles/${lacking}/signals/wheel-tirepressures`, { headers: app }),
      signalFull: yield* call("GET", `/v3/vehicles/${full}/signals/wheel-tirepressures`, { headers: app }),
      list: yield* call("GET", `/v3/vehicles/${lacking}/signals?pageSize=100`, { headers: app }),
      tires: yield* call("GET", `/v2.0/vehicles/${lacking}/tires/pressure`, { headers: user }),
      tiresFull: yield* call("GET", `/v2.0/vehicles/${full}/tires/pressure`, { headers: user }),
      odometer: yield* call("GET", `/v2.0/vehicles/${lacking}/odometer`, { headers: user }),
      batch: yield* call("POST", `/v2.0/vehicles/${lacking}/batch`, {
        headers: user,
        json: { requests: [{ path: "/odometer" }, { path: "/tires/pressure" }] }
      })
    })
  }
  return out
})

describe("connection permissions", () => {
  it.effect("enforced by default: 403 for a signal or legacy read the connection lacks", () =>
    Effect.gen(function*() {
      for (const r of yield* reads) {
        forbidden(r.signal, "read_tires")
        assert.strictEqual(r.signalFull.status, 200, r.signalFull.text)
        Schema.decodeUnknownSync(SignalResponse)(r.signalFull.json)
        forbidden(r.tires, "read_tires")
        assert.strictEqual(r.tiresFull.status, 200, r.tiresFull.text)
        assert.strictEqual(r.odometer.status, 200, r.odometer.text)
        assert.strictEqual(r.batch.status, 200, r.batch.text)
        assert.deepStrictEqual(r.batch.json.responses.map((item: any) => item.code), [200, 403])
        assert.include(r.batch.json.responses[1].body.errors[0].detail, "read_tires")
      }
    }).pipe(Effect.provide(Enforced)))

  it.effect("the signals list reports a signal the connection lacks as a per-signal FORBIDDEN error", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { lacking } = yield* vehicles
      const held = sim.data.connectionOf(lacking)!.permissions
      for (const { list } of yield* reads) {
        assert.strictEqual(list.status, 200, list.text)
        const page = Schema.decodeUnknownSync(SignalsPage)(list.json)
        const tires = page.data.find((s) => s.id === "wheel-tirepressures")!
        assert.strictEqual(tires.attributes.status.value, "ERROR")
        assert.strictEqual(tires.attributes.status.error?.code, "FORBIDDEN")
        assert.strictEqual(tires.attributes.status.error?.type, "AUTHENTICATION")
        assert.include(tires.attributes.status.error?.detail, "read_tires")
        assert.deepStrictEqual(list.json.data.find((s: any) => s.id === "wheel-tirepressures").attributes.body, {})
        assert.strictEqual(sim.data.signalStatus(lacking, "wheel-tirepressures"), "ERROR")
        const odometer = page.data.find((s) => s.id === "odometer-traveleddistance")!
        assert.notStrictEqual(odometer.attributes.status.error?.code, "FORBIDDEN")
        assert.isTrue(held.includes("read_odometer"))
      }
    }).pipe(Effect.provide(Enforced)))

  it.effect("enforcePermissions: false lets every connection read (the token's scopes still count)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      for (const r of yield* reads) {
        for (const reply of [r.signal, r.signalFull, r.tires, r.tiresFull, r.odometer, r.list]) {
          assert.strictEqual(reply.status, 200, reply.text)
        }
        assert.deepStrictEqual(r.batch.json.responses.map((item: any) => item.code), [200, 200])
        assert.isFalse(r.list.json.data.some((s: any) => s.attributes.status.error?.code === "FORBIDDEN"))
      }
      const { lacking, userId } = yield* vehicles
      assert.notStrictEqual(sim.data.signalStatus(lacking, "wheel-tirepressures"), undefined)
      const narrow = bearer((yield* userTokens({ userId, scope: "read_vin" })).access)
      forbidden(yield* call("GET", `/v2.0/vehicles/${lacking}/tires/pressure`, { headers: narrow }), "read_tires")
    }).pipe(Effect.provide(Ignored)))
})

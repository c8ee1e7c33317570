/**
 * A reading set through the control surface (`POST
 * /_simulator/vehicles/:id/signals/:code`, `Simulator.setSignal`) is what the
 * REST reads answer, over loopback: the v3 list and get (the page cache of
 * the list is invalidated, even within one clock millisecond) and the legacy
 * read of the same datum; a reset brings the seeded readings back.
 */
import { SignalsPage } from "@connected-vehicle/schema/Signal"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { FetchHttpClient } from "effect/http"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call, isEnvelope, userTokens } from "./helpers.ts"

const Loopback = Layer.mergeAll(simulatorLayer({ seed: 11, connections: 12, vehicles: 12, users: 4 }), FetchHttpClient.layer)

const encoderBytes = (text: string) =>
  JSON.stringify(Schema.encodeSync(SignalsPage)(Schema.decodeUnknownSync(SignalsPage)(JSON.parse(text))))

const KM_PER_MILE = 1.609344

layer(Loopback)("readings set through the control surface", (it) => {
  it.effect("v3 list and get, the legacy read of the same datum, the page cache, reset", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      // vehicle 0: its second signal is seeded ERROR, its third UNAVAILABLE
      const vehicleId = sim.data.vehicleIds[0]!
      const userId = sim.data.connectionOf(vehicleId)!.userId
      const codes = sim.data.vehicle(vehicleId)!.signalCodes
      const v3 = { ...bearer(yield* appToken), "sc-user-id": userId }
      const legacy = bearer((yield* userTokens({ userId })).access)
      const listPath = `/v3/vehicles/${vehicleId}/signals?pageSize=100`
      const byCode = (page: any, code: string) => (page.data as Array<any>).find((s) => s.id === code)

      const before = yield* call("GET", listPath, { headers: v3 })
      assert.strictEqual(before.status, 200, before.text)
      assert.include(codes, "odometer-traveleddistance")
      const seededOdometer = byCode(before.json, "odometer-traveleddistance").attributes.body
      const seededDistance = (yield* call("GET", `/v2.0/vehicles/${vehicleId}/odometer`, { headers: legacy })).json.distance
      assert.strictEqual(seededDistance, seededOdometer.value)

      // set the odometer (control route) and a seeded-ERROR signal (service)
      const set = yield* call("POST", `/_simulator/vehicles/${vehicleId}/signals/odometer-traveleddistance`, {
        json: { value: 12345.6, unit: "km" }
      })
      assert.strictEqual(set.status, 200, set.text)
      const failing = codes[1]!
      assert.strictEqual(byCode(before.json, failing).attributes.status.value, "ERROR")
      yield* sim.setSignal(vehicleId, failing, { unit: "x", value: 7, extra: "kept" })

      // same clock millisecond as `before` (TestClock): the cached page must not be served
      const after = yield* call("GET", listPath, { headers: v3 })
      assert.strictEqual(after.status, 200, after.text)
      assert.notStrictEqual(after.text, before.text)
      assert.strictEqual(after.text, encoderBytes(after.text))
      const odometer = byCode(after.json, "odometer-traveleddistance")
      assert.deepStrictEqual(odometer.attributes.status, { value: "SUCCESS" })
      assert.deepStrictEqual(odometer.attributes.body, { unit: "km", value: 12345.6 })
      const setAt = odometer.meta.oemUpdatedAt as string
      assert.strictEqual(Date.parse(setAt), Date.parse(odometer.meta.retrievedAt))
      const fixed = byCode(after.json, failing)
      assert.deepStrictEqual(fixed.attributes.status, { value: "SUCCESS" })
      assert.deepStrictEqual(fixed.attributes.body, { unit: "x", value: 7, extra: "kept" })
      // the other signals are untouched
      for (const code of codes.filter((c) => c !== failing && c !== "odometer-traveleddistance")) {
        assert.deepStrictEqual(byCode(after.json, code), byCode(before.json, code))
      }

      const one = yield* call("GET", `/v3/vehicles/${vehicleId}/signals/odometer-traveleddistance`, { headers: v3 })
      assert.strictEqual(one.status, 200, one.text)
      assert.deepStrictEqual(one.json.data, odometer)

      // the legacy read of the same datum, in both unit systems
      const metric = yield* call("GET", `/v2.0/vehicles/${vehicleId}/odometer`, { headers: legacy })
      assert.strictEqual(metric.status, 200, metric.text)
      assert.deepStrictEqual(metric.json, { distance: 12345.6 })
      assert.strictEqual(metric.headers["sc-data-age"], setAt)
      const imperial = yield* call("GET", `/v2.0/vehicles/${vehicleId}/odometer`, {
        headers: { ...legacy, "sc-unit-system": "imperial" }
      })
      assert.deepStrictEqual(imperial.json, { distance: Math.round((12345.6 / KM_PER_MILE) * 100) / 100 })
      const batch = yield* call("POST", `/v2.0/vehicles/${vehicleId}/batch`, {
        headers: legacy,
        json: { requests: [{ path: "/odometer" }] }
      })
      assert.deepStrictEqual(batch.json.responses[0].body, { distance: 12345.6 })

      // a reading given in miles reaches the legacy read converted
      yield* sim.setSignal(vehicleId, "odometer-traveleddistance", { unit: "miles", value: 1000 })
      assert.deepStrictEqual(
        (yield* call("GET", `/v2.0/vehicles/${vehicleId}/odometer`, { headers: legacy })).json,
        { distance: 1609.34 }
      )
      assert.deepStrictEqual(
        (yield* call("GET", `/v2.0/vehicles/${vehicleId}/odometer`, { headers: { ...legacy, "sc-unit-system": "imperial" } })).json,
        { distance: 1000 }
      )

      // any JSON value is a v3 signal body's value (section 2.1 shows only the sample's number): served as set
      const text = yield* call("POST", `/_simulator/vehicles/${vehicleId}/signals/odometer-traveleddistance`, {
        json: { unit: "km", value: "far" }
      })
      assert.strictEqual(text.status, 200, text.text)
      const served = yield* call("GET", `/v3/vehicles/${vehicleId}/signals/odometer-traveleddistance`, { headers: v3 })
      assert.deepStrictEqual(served.json.data.attributes.body, { unit: "km", value: "far" })
      // a body the v3 REST endpoints could not serve (no JSON value) is refused
      const bad = yield* Effect.flip(sim.setSignal(vehicleId, "odometer-traveleddistance", { unit: "km", value: Number.NaN }))
      assert.strictEqual(bad.status, 400, bad.detail)

      // reset: the seeded readings again
      assert.strictEqual((yield* call("POST", "/_simulator/reset")).status, 204)
      const v3Again = { ...bearer(yield* appToken), "sc-user-id": userId }
      const reset = yield* call("GET", listPath, { headers: v3Again })
      assert.strictEqual(reset.text, before.text)
      const legacyAgain = bearer((yield* userTokens({ userId })).access)
      assert.strictEqual(
        (yield* call("GET", `/v2.0/vehicles/${vehicleId}/odometer`, { headers: legacyAgain })).json.distance,
        seededDistance
      )
    }))

  it.effect("a legacy read whose reading it cannot express keeps its generated value", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[1]!
      const userId = sim.data.connectionOf(vehicleId)!.userId
      const legacy = bearer((yield* userTokens({ userId })).access)
      const seeded = (yield* call("GET", `/v2.0/vehicles/${vehicleId}/odometer`, { headers: legacy })).json
      yield* sim.setSignal(vehicleId, "odometer-traveleddistance", { unit: "furlongs", value: 3 })
      assert.deepStrictEqual((yield* call("GET", `/v2.0/vehicles/${vehicleId}/odometer`, { headers: legacy })).json, seeded)
      const v3 = { ...bearer(yield* appToken), "sc-user-id": userId }
      const one = yield* call("GET", `/v3/vehicles/${vehicleId}/signals/odometer-traveleddistance`, { headers: v3 })
      assert.deepStrictEqual(one.json.data.attributes.body, { unit: "furlongs", value: 3 })
      yield* sim.reset
    }))

  it.effect("a reading with a null unit is served as set, and the page round-trips through the schema's encoder", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[3]!
      const userId = sim.data.connectionOf(vehicleId)!.userId
      const v3 = { ...bearer(yield* appToken), "sc-user-id": userId }
      const set = yield* call("POST", `/_simulator/vehicles/${vehicleId}/signals/odometer-traveleddistance`, {
        json: { unit: null, value: 3 }
      })
      assert.strictEqual(set.status, 200, set.text)
      const page = yield* call("GET", `/v3/vehicles/${vehicleId}/signals?pageSize=100`, { headers: v3 })
      assert.strictEqual(page.status, 200, page.text)
      assert.strictEqual(page.text, encoderBytes(page.text))
      const odometer = (page.json.data as Array<any>).find((s) => s.id === "odometer-traveleddistance")
      assert.deepStrictEqual(odometer.attributes.body, { unit: null, value: 3 })
      yield* sim.reset
    }))

  it.effect("a signal body nested too deep is a 400 envelope (never a 500) and changes nothing", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[2]!
      const userId = sim.data.connectionOf(vehicleId)!.userId
      const v3 = { ...bearer(yield* appToken), "sc-user-id": userId }
      const path = `/v3/vehicles/${vehicleId}/signals/odometer-traveleddistance`
      const before = (yield* call("GET", path, { headers: v3 })).json.data.attributes.body
      const nested = (depth: number) => `{"unit":"km","value":1,"x":${"[".repeat(depth)}${"]".repeat(depth)}}`
      // 63 arrays inside the body: 64 levels, the most a body may nest
      const deepest = yield* call("POST", `/_simulator/vehicles/${vehicleId}/signals/odometer-traveleddistance`, {
        body: nested(63),
        contentType: "application/json"
      })
      assert.strictEqual(deepest.status, 200, deepest.text)
      yield* sim.reset
      for (const depth of [64, 10_000]) {
        const refused = yield* call("POST", `/_simulator/vehicles/${vehicleId}/signals/odometer-traveleddistance`, {
          body: nested(depth),
          contentType: "application/json"
        })
        assert.strictEqual(refused.status, 400, `depth ${depth}: ${refused.text}`)
        assert.isTrue(isEnvelope(refused.json), refused.text)
        assert.include(refused.json.errors[0].detail, "at most 64 levels")
      }
      const v3Again = { ...bearer(yield* appToken), "sc-user-id": userId }
      assert.deepStrictEqual((yield* call("GET", path, { headers: v3Again })).json.data.attributes.body, before)
    }))

  it.effect("generated readings are the last report's: v3 and legacy agree until the next report, five minutes on", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      yield* TestClock.setTime(Date.UTC(2026, 10, 24, 12, 0, 0))
      const vehicleId = sim.data.vehicleIds.find((id) => sim.data.signalStatus(id, "odometer-traveleddistance") === "SUCCESS")!
      const userId = sim.data.connectionOf(vehicleId)!.userId
      const v3 = { ...bearer(yield* appToken), "sc-user-id": userId }
      const legacy = bearer((yield* userTokens({ userId })).access)
      const read = Effect.gen(function*() {
        const one = yield* call("GET", `/v3/vehicles/${vehicleId}/signals/odometer-traveleddistance`, { headers: v3 })
        const old = yield* call("GET", `/v2.0/vehicles/${vehicleId}/odometer`, { headers: legacy })
        assert.strictEqual(one.status, 200, one.text)
        assert.strictEqual(old.status, 200, old.text)
        const { meta, attributes } = one.json.data
        assert.strictEqual(old.json.distance, attributes.body.value)
        assert.strictEqual(Date.parse(old.headers["sc-data-age"]!), Date.parse(meta.oemUpdatedAt))
        const age = Date.parse(meta.retrievedAt) - Date.parse(meta.oemUpdatedAt)
        assert.isTrue(age >= 0 && age < 300_000, `data age ${age} ms`)
        return { value: attributes.body.value as number, reportedAt: Date.parse(meta.oemUpdatedAt), age }
      })
      const first = yield* read
      // a millisecond before the next report: the same datum
      yield* TestClock.adjust(300_000 - first.age - 1)
      const later = yield* read
      assert.deepStrictEqual([later.value, later.reportedAt], [first.value, first.reportedAt])
      assert.strictEqual(later.age, 299_999)
      // the next report: five minutes on, a longer distance
      yield* TestClock.adjust(1)
      const next = yield* read
      assert.strictEqual(next.reportedAt, first.reportedAt + 300_000)
      assert.strictEqual(next.age, 0)
      assert.isAbove(next.value, first.value)
    }))
})

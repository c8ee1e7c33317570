import { BatchResponse, decodeBatchBody, EngineOil, Location, Odometer, ServiceHistory, TirePressure, VehicleList, Vin } from "@connected-vehicle/schema/Legacy"
import type { LegacyPath } from "@connected-vehicle/schema/Legacy"
import { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { allPermissions } from "../src/Data.ts"
import { layer, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call, isEnvelope, userTokens } from "./helpers.ts"
import type { Reply } from "./helpers.ts"

const Loopback = Layer.mergeAll(layer({ seed: 5, connections: 80, vehicles: 90, users: 6 }), FetchHttpClient.layer)

const fails = (reply: Reply, status: number, type: string) => {
  assert.strictEqual(reply.status, status, reply.text)
  assert.isTrue(isEnvelope(reply.json), reply.text)
  assert.strictEqual(reply.json.errors[0].type, type)
}

/**
 * A user owning both a vehicle with service history whose connection holds
 * every permission, and one without service history whose connection may
 * read the odometer, VIN and tires.
 */
const mixedOwner = Effect.gen(function*() {
  const sim = yield* Simulator
  const holds = (id: string, permissions: ReadonlyArray<string>) =>
    permissions.every((p) => sim.data.connectionOf(id)!.permissions.includes(p))
  for (const user of sim.data.users) {
    const vehicles = sim.data.vehiclesOf(user.id).map((id) => sim.data.vehicle(id)!)
    const supported = vehicles.find((v) => v.supportsServiceHistory && holds(v.id, allPermissions))
    const unsupported = vehicles.find((v) => !v.supportsServiceHistory && holds(v.id, ["read_odometer", "read_vin", "read_tires"]))
    if (supported && unsupported) return { user, supported, unsupported, vehicles }
  }
  return yield* Effect.die("no user with both kinds of vehicle")
})

describe("legacy v2.0", () => {
  it.effect("vehicle list: limit default 10, max 50, offset", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { user, vehicles } = yield* mixedOwner
      const { access } = yield* userTokens({ userId: user.id })
      const first = yield* call("GET", "/v2.0/vehicles", { headers: bearer(access) })
      assert.strictEqual(first.status, 200)
      Schema.decodeUnknownSync(VehicleList)(first.json)
      assert.deepStrictEqual(first.json.paging, { count: vehicles.length, offset: 0 })
      assert.deepStrictEqual(first.json.vehicles, sim.data.vehiclesOf(user.id).slice(0, 10))
      const offset = yield* call("GET", "/v2.0/vehicles?offset=2&limit=3", { headers: bearer(access) })
      assert.deepStrictEqual(offset.json.vehicles, sim.data.vehiclesOf(user.id).slice(2, 5))
      assert.strictEqual(offset.json.paging.offset, 2)
      const max = yield* call("GET", "/v2.0/vehicles?limit=50", { headers: bearer(access) })
      assert.strictEqual(max.status, 200)
      for (const q of ["limit=51", "limit=0", "offset=-1", "limit=ten"]) {
        fails(yield* call("GET", `/v2.0/vehicles?${q}`, { headers: bearer(access) }), 400, "VALIDATION")
      }
      fails(yield* call("GET", "/v2.0/vehicles"), 401, "AUTHENTICATION")
      fails(yield* call("GET", "/v2.0/vehicles", { headers: bearer(yield* appToken) }), 403, "AUTHENTICATION")
    }).pipe(Effect.provide(Loopback)))

  it.effect("reads: shapes, response headers, imperial units", () =>
    Effect.gen(function*() {
      const { supported, user } = yield* mixedOwner
      const { access } = yield* userTokens({ userId: user.id })
      const id = supported.id
      const read = (path: string, unit?: string) =>
        call("GET", `/v2.0/vehicles/${id}${path}`, { headers: { ...bearer(access), ...(unit ? { "sc-unit-system": unit } : {}) } })
      for (const [path, schema] of [["/odometer", Odometer], ["/location", Location], ["/vin", Vin], ["/engine/oil", EngineOil], ["/tires/pressure", TirePressure], ["/service/history", ServiceHistory]] as const) {
        const reply = yield* read(path)
        assert.strictEqual(reply.status, 200, `${path}: ${reply.text}`)
        Schema.decodeUnknownSync(schema as Schema.Codec<unknown, unknown>)(reply.json)
        assert.strictEqual(reply.headers["sc-unit-system"], "metric")
        assert.isFalse(Number.isNaN(Date.parse(reply.headers["sc-data-age"]!)), path)
      }
      assert.strictEqual((yield* read("/vin")).json.vin, supported.vin)
      const km = (yield* read("/odometer")).json.distance
      const miles = yield* read("/odometer", "imperial")
      assert.strictEqual(miles.headers["sc-unit-system"], "imperial")
      assert.closeTo(miles.json.distance, km / 1.609344, 0.01)
      const kpa = (yield* read("/tires/pressure")).json
      const psi = (yield* read("/tires/pressure", "imperial")).json
      assert.closeTo(psi.frontLeft, kpa.frontLeft / 6.894757, 0.06)
      assert.isAbove(kpa.frontLeft, 180)
      const oil = (yield* read("/engine/oil")).json.lifeRemaining
      assert.isAtLeast(oil, 0)
      assert.isAtMost(oil, 1)
      const history = (yield* read("/service/history")).json
      assert.isAbove(history.length, 0)
      assert.include(["DEALERSHIP", "OWNER"], history[0].serviceType)
      // section 2.8: the service odometer is in kilometers whatever the unit system
      const imperialHistory = yield* read("/service/history", "imperial")
      assert.strictEqual(imperialHistory.headers["sc-unit-system"], "imperial")
      assert.deepStrictEqual(imperialHistory.json.map((r: any) => r.odometerDistance), history.map((r: any) => r.odometerDistance))
      assert.isTrue(history.every((r: any) => r.odometerDistance === null || r.odometerDistance >= 9000))
      fails(yield* read("/odometer", "furlongs"), 400, "VALIDATION")
    }).pipe(Effect.provide(Loopback)))

  it.effect("errors: 409 compatibility, 403 permission and ownership, 404, 401", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { unsupported, supported, user } = yield* mixedOwner
      const full = yield* userTokens({ userId: user.id })
      const history = yield* call("GET", `/v2.0/vehicles/${unsupported.id}/service/history`, { headers: bearer(full.access) })
      fails(history, 409, "COMPATIBILITY")
      assert.strictEqual(history.json.errors[0].status, "409")
      const narrow = yield* userTokens({ userId: user.id, scope: "read_vin" })
      assert.strictEqual((yield* call("GET", `/v2.0/vehicles/${supported.id}/vin`, { headers: bearer(narrow.access) })).status, 200)
      const denied = yield* call("GET", `/v2.0/vehicles/${supported.id}/odometer`, { headers: bearer(narrow.access) })
      fails(denied, 403, "AUTHENTICATION")
      assert.match(denied.json.errors[0].detail, /read_odometer/)
      const someoneElse = sim.data.vehicleIds.find((id) => sim.data.connectionOf(id) !== undefined && sim.data.connectionOf(id)!.userId !== user.id)!
      fails(yield* call("GET", `/v2.0/vehicles/${someoneElse}/odometer`, { headers: bearer(full.access) }), 403, "AUTHENTICATION")
      fails(yield* call("GET", `/v2.0/vehicles/00000000-0000-4000-8000-000000000000/odometer`, { headers: bearer(full.access) }), 404, "RESOURCE_NOT_FOUND")
      fails(yield* call("GET", `/v2.0/vehicles/${supported.id}/odometer`), 401, "AUTHENTICATION")
      fails(yield* call("GET", `/v2.0/vehicles/${supported.id}/odometer`, { headers: bearer(yield* appToken) }), 403, "AUTHENTICATION")
      fails(yield* call("GET", `/v2.0/vehicles/${supported.id}/fuel`, { headers: bearer(full.access) }), 404, "RESOURCE_NOT_FOUND")
    }).pipe(Effect.provide(Loopback)))

  it.effect("batch: each sub-request answered on its own", () =>
    Effect.gen(function*() {
      const { unsupported, user } = yield* mixedOwner
      const tokens = yield* userTokens({ userId: user.id, scope: "read_odometer read_vin read_service_history read_tires" })
      const reply = yield* call("POST", `/v2.0/vehicles/${unsupported.id}/batch`, {
        headers: { ...bearer(tokens.access), "sc-unit-system": "imperial" },
        json: { requests: [{ path: "/odometer" }, { path: "/vin" }, { path: "/location" }, { path: "/warp/core" }, { path: "/service/history" }, { path: "/tires/pressure" }] }
      })
      assert.strictEqual(reply.status, 200, reply.text)
      const batch = Schema.decodeUnknownSync(BatchResponse)(reply.json)
      assert.deepStrictEqual(batch.responses.map((r) => [r.path, r.code]), [
        ["/odometer", 200], ["/vin", 200], ["/location", 403], ["/warp/core", 404], ["/service/history", 409], ["/tires/pressure", 200]
      ])
      for (const item of batch.responses) {
        if (item.code === 200) {
          Schema.decodeUnknownSync(decodeBatchBody(item.path as LegacyPath) as Schema.Codec<unknown, unknown>)(item.body)
          assert.strictEqual(item.headers["sc-unit-system"], "imperial")
          assert.isString(item.headers["sc-data-age"])
        } else {
          const envelope = Schema.decodeUnknownSync(ErrorEnvelope)(item.body)
          assert.strictEqual(envelope.errors[0].status, String(item.code))
          // an error response's headers (the official SDK reads a body without a JSON content type as text: "Unknown error")
          assert.strictEqual(item.headers["content-type"], "application/json", item.path)
          assert.strictEqual(item.headers["sc-request-id"], reply.headers["sc-request-id"], item.path)
          assert.strictEqual(item.headers["x-request-id"], reply.headers["x-request-id"], item.path)
          assert.strictEqual(envelope.errors[0].meta?.debug?.requestId, reply.headers["x-request-id"], item.path)
        }
      }
      const odometer = yield* call("GET", `/v2.0/vehicles/${unsupported.id}/odometer`, { headers: { ...bearer(tokens.access), "sc-unit-system": "imperial" } })
      assert.deepStrictEqual(batch.responses[0]!.body, odometer.json)
      fails(yield* call("POST", `/v2.0/vehicles/${unsupported.id}/batch`, { headers: bearer(tokens.access), json: { requests: [] } }), 400, "VALIDATION")
      fails(yield* call("POST", `/v2.0/vehicles/${unsupported.id}/batch`, { headers: bearer(tokens.access), body: "{not json", contentType: "application/json" }), 400, "VALIDATION")
      fails(yield* call("POST", `/v2.0/vehicles/00000000-0000-4000-8000-000000000000/batch`, { headers: bearer(tokens.access), json: { requests: [{ path: "/vin" }] } }), 404, "RESOURCE_NOT_FOUND")
      fails(yield* call("POST", `/v2.0/vehicles/${unsupported.id}/batch`, { json: { requests: [{ path: "/vin" }] } }), 401, "AUTHENTICATION")
    }).pipe(Effect.provide(Loopback)))
})

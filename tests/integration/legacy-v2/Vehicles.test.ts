import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Result, Stream } from "effect"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
import { busiestUser, flipReason, layerLoopback, requestsTo } from "./utils.ts"

const simulator = { users: 4, seed: 7 }

/** The signed-in user's vehicles, split by service-history support. */
const fleet = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const ids = sim.data.vehiclesOf(busiestUser(sim))
  const supported = ids.filter((id) => sim.data.vehicle(id)!.supportsServiceHistory)
  const unsupported = ids.filter((id) => !sim.data.vehicle(id)!.supportsServiceHistory)
  return { sim, ids, supported, unsupported }
})

describe("Vehicles list", () => {
  it.live("lists one page with limit and offset, and streams every id across pages", () =>
    Effect.gen(function*() {
      const { ids } = yield* fleet
      const vehicles = yield* Vehicles
      assert.isTrue(ids.length >= 5)
      const page = yield* vehicles.list({ limit: 2, offset: 1 })
      assert.deepStrictEqual(page.vehicles, ids.slice(1, 3))
      assert.deepStrictEqual(page.paging, { count: ids.length, offset: 1 })
      const defaults = yield* vehicles.list()
      assert.deepStrictEqual(defaults.vehicles, ids.slice(0, 10))

      const all = yield* Stream.runCollect(vehicles.stream({ limit: 2 }))
      assert.deepStrictEqual(all, [...ids])
      const log = yield* requestsTo(/^\/v2\.0\/vehicles$/)
      assert.strictEqual(log.length, 2 + Math.ceil(ids.length / 2))
      assert.deepStrictEqual(new URLSearchParams(log[2]!.query).get("limit"), "2")
    }).pipe(Effect.provide(layerLoopback({ simulator }))))

  it.live("rejects a limit outside 1..50 or a negative offset without a request", () =>
    Effect.gen(function*() {
      const vehicles = yield* Vehicles
      for (const args of [{ limit: 0 }, { limit: 51 }, { offset: -1 }, { limit: 1.5 }]) {
        const error = yield* flipReason(vehicles.list(args))
        assert.strictEqual(error._tag, "InvalidArgument")
        if (error._tag === "InvalidArgument") assert.strictEqual(error.field, Object.keys(args)[0])
      }
      const streamed = yield* flipReason(Stream.runDrain(vehicles.stream({ limit: 100 })))
      assert.strictEqual(streamed._tag, "InvalidArgument")
      assert.strictEqual((yield* requestsTo(/./)).length, 0)
    }).pipe(Effect.provide(layerLoopback({ simulator }))))
})

describe("Vehicle reads", () => {
  it.live("reads every endpoint with its data age and unit system (metric by default)", () =>
    Effect.gen(function*() {
      const { sim, supported } = yield* fleet
      const vehicles = yield* Vehicles
      const id = supported[0]!
      const odometer = yield* vehicles.odometer(id)
      const location = yield* vehicles.location(id)
      const vin = yield* vehicles.vin(id)
      const oil = yield* vehicles.engineOil(id)
      const tires = yield* vehicles.tirePressure(id)
      const history = yield* vehicles.serviceHistory(id)
      assert.isTrue(odometer.value.distance > 0)
      assert.isTrue(Math.abs(location.value.latitude) <= 90)
      assert.strictEqual(vin.value.vin, sim.data.vehicle(id)!.vin)
      assert.isTrue(oil.value.lifeRemaining >= 0 && oil.value.lifeRemaining <= 1)
      assert.isTrue(tires.value.frontLeft > 100, "kilopascals")
      assert.isTrue(history.value.length > 0)
      for (const reading of [odometer, location, vin, oil, tires, history]) {
        assert.strictEqual(reading.unitSystem, "metric")
        assert.isTrue(DateTime.isDateTime(reading.dataAge))
        assert.isTrue(DateTime.toEpochMillis(reading.dataAge!) <= Date.now())
      }
      const log = yield* requestsTo(/^\/v2\.0\/vehicles\/.+/)
      assert.deepStrictEqual(log.map((r) => r.path.slice(`/v2.0/vehicles/${id}`.length)), [
        "/odometer",
        "/location",
        "/vin",
        "/engine/oil",
        "/tires/pressure",
        "/service/history"
      ])
      assert.isTrue(log.every((r) => r.headers["sc-unit-system"] === "metric"))
    }).pipe(Effect.provide(layerLoopback({ simulator }))))

  it.live("sends the unit system asked for, per call or per layer", () =>
    Effect.gen(function*() {
      const { ids } = yield* fleet
      const vehicles = yield* Vehicles
      const metric = yield* vehicles.odometer(ids[0]!, { unitSystem: "metric" })
      const imperial = yield* vehicles.odometer(ids[0]!)
      assert.strictEqual(imperial.unitSystem, "imperial")
      assert.strictEqual(metric.unitSystem, "metric")
      assert.closeTo(imperial.value.distance, metric.value.distance / 1.609344, 0.01)
      const tires = yield* vehicles.tirePressure(ids[0]!)
      assert.isTrue(tires.value.frontLeft < 100, "psi")
      const sent = (yield* requestsTo(/odometer|tires/)).map((r) => r.headers["sc-unit-system"])
      assert.deepStrictEqual(sent, ["metric", "imperial", "imperial"])

      const invalid = yield* flipReason(vehicles.vin(ids[0]!, { unitSystem: "nautical" as "metric" }))
      assert.strictEqual(invalid._tag, "InvalidArgument")
      assert.strictEqual((yield* requestsTo(/vin/)).length, 0)
    }).pipe(Effect.provide(layerLoopback({ simulator, unitSystem: "imperial" }))))

  it.live("fails with the service's typed errors", () =>
    Effect.gen(function*() {
      const { sim, unsupported } = yield* fleet
      const vehicles = yield* Vehicles
      const incompatible = yield* flipReason(vehicles.serviceHistory(unsupported[0]!))
      assert.strictEqual(incompatible._tag, "Compatibility")
      const missing = yield* flipReason(vehicles.odometer("no-such-vehicle"))
      assert.strictEqual(missing._tag, "NotFound")
      const foreign = sim.data.vehicleIds.find((id) => !sim.data.vehiclesOf(busiestUser(sim)).includes(id))!
      const forbidden = yield* flipReason(vehicles.location(foreign))
      assert.strictEqual(forbidden._tag, "PermissionDenied")
      if (forbidden._tag === "PermissionDenied") assert.strictEqual(forbidden.status, 403)
    }).pipe(Effect.provide(layerLoopback({ simulator }))))
})

describe("Batch", () => {
  it.live("types each entry by its path and isolates failing entries", () =>
    Effect.gen(function*() {
      const { sim, unsupported } = yield* fleet
      const vehicles = yield* Vehicles
      const id = unsupported[0]!
      const result = yield* vehicles.batch(id, ["/odometer", "/vin", "/service/history", "/tires/pressure", "/odometer"])

      const odometer = result["/odometer"]
      assert.isTrue(Result.isSuccess(odometer))
      if (Result.isSuccess(odometer)) {
        assert.isTrue(odometer.success.value.distance > 0)
        assert.strictEqual(odometer.success.unitSystem, "metric")
        assert.isTrue(DateTime.isDateTime(odometer.success.dataAge))
      }
      const tires = result["/tires/pressure"]
      assert.isTrue(Result.isSuccess(tires) && tires.success.value.backRight > 0)

      const vin = result["/vin"]
      assert.isTrue(Result.isFailure(vin))
      const denied = Result.isFailure(vin) ? reasonOf(vin.failure) : undefined
      assert.strictEqual(denied?._tag, "PermissionDenied")
      if (denied?._tag === "PermissionDenied") {
        assert.strictEqual(denied.status, 403)
        assert.strictEqual(denied.code, "FORBIDDEN")
        assert.include(denied.detail, "read_vin")
      }
      const history = Result.isFailure(result["/service/history"]) ? reasonOf(result["/service/history"].failure) : undefined
      assert.strictEqual(history?._tag, "Compatibility")
      if (history?._tag === "Compatibility") {
        assert.strictEqual(history.status, 409)
        assert.strictEqual(history.code, "MAKE_NOT_COMPATIBLE")
        assert.include(history.detail, sim.data.vehicle(id)!.make)
      }

      const log = yield* requestsTo(/\/v2\.0\//)
      assert.strictEqual(log.length, 1, "one request for the whole batch")
      assert.strictEqual(log[0]!.method, "POST")
      assert.strictEqual(log[0]!.path, `/v2.0/vehicles/${id}/batch`)
    }).pipe(Effect.provide(layerLoopback({
      simulator,
      scope: "read_odometer read_tires read_service_history read_location"
    }))))

  it.live("decodes imperial entries with the entry headers and rejects unknown paths before sending", () =>
    Effect.gen(function*() {
      const { supported } = yield* fleet
      const vehicles = yield* Vehicles
      const result = yield* vehicles.batch(supported[0]!, ["/service/history", "/engine/oil", "/location"], {
        unitSystem: "imperial"
      })
      const entries: ReadonlyArray<Result.Result<{ readonly unitSystem: string }, unknown>> = [
        result["/service/history"],
        result["/engine/oil"],
        result["/location"]
      ]
      for (const entry of entries) {
        assert.isTrue(Result.isSuccess(entry))
        if (Result.isSuccess(entry)) assert.strictEqual(entry.success.unitSystem, "imperial")
      }
      const history = result["/service/history"]
      if (Result.isSuccess(history)) assert.isTrue(history.success.value.length > 0)
      const [request] = yield* requestsTo(/batch$/)
      assert.strictEqual(request!.headers["sc-unit-system"], "imperial")

      const invalid = yield* flipReason(vehicles.batch(supported[0]!, ["/odometer", "/fuel" as "/odometer"]))
      assert.strictEqual(invalid._tag, "InvalidArgument")
      assert.strictEqual((yield* requestsTo(/batch$/)).length, 1)
    }).pipe(Effect.provide(layerLoopback({ simulator }))))
})

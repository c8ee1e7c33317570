import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Stream } from "effect"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { decode } from "@connected-vehicle/legacy-v2/Batch"
import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
import { layerLoopback, requestsTo } from "./utils.ts"

describe("legacy request ids", () => {
  it.live("a reading carries the simulator's request id (x-request-id, read when sc-request-id is absent)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const vehicles = yield* Vehicles.Vehicles
      const id = (yield* Stream.runCollect(Stream.take(vehicles.stream(), 1)))[0]!
      yield* sim.resetLog
      const reading = yield* vehicles.odometer(id)
      const [entry] = yield* requestsTo(/\/odometer$/)
      assert.isDefined(reading.requestId)
      assert.strictEqual(reading.requestId, entry!.requestId)
    }).pipe(Effect.provide(layerLoopback())))

  it("a batch entry's request id: sc-request-id first, else x-request-id, with the transport's default headers", () => {
    const result = decode(
      {
        responses: [
          { path: "/odometer", code: 200, body: { distance: 1 }, headers: { "x-request-id": "x-1", "sc-request-id": "sc-1" } },
          { path: "/vin", code: 200, body: { vin: "1FTFW1E50NFA00001" }, headers: { "x-request-id": "x-2" } }
        ]
      },
      ["/odometer", "/vin"],
      {
        vehicleUrl: "http://127.0.0.1:4010/v2.0/vehicles/veh_1",
        unitSystem: "metric",
        requestIdHeader: ["sc-request-id", "x-request-id"],
        now: 0
      }
    )
    const odometer = result["/odometer"]
    const vin = result["/vin"]
    assert.strictEqual(Result.isSuccess(odometer) ? odometer.success.requestId : odometer.failure._tag, "sc-1")
    assert.strictEqual(Result.isSuccess(vin) ? vin.success.requestId : vin.failure._tag, "x-2")
  })
})

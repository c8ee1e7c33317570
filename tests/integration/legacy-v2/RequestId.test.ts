import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
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
})

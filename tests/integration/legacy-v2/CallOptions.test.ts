import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Result, Stream } from "effect"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import type { Timeout } from "@connected-vehicle/transport/ConnectedVehicleError"
import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
import { busiestUser, flipReason, layerLoopback, requestsTo } from "./utils.ts"

const unavailable = (n: number) => Array.from({ length: n }, () => ({ _tag: "Status" as const, status: 503 }))

const firstVehicle = Effect.map(Effect.service(Simulator.Simulator), (sim) => sim.data.vehiclesOf(busiestUser(sim))[0]!)

describe("per-call options", () => {
  it.live("timeout of one read: a stalled odometer ends in Timeout at that timeout", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const vehicles = yield* Vehicles
      const id = yield* firstVehicle
      yield* sim.injectFaults({ path: `/v2.0/vehicles/${id}/odometer`, faults: [{ _tag: "StallBody" }] })
      const error = yield* flipReason(vehicles.odometer(id, { unitSystem: "imperial", timeout: 300, retry: { maxAttempts: 1 } }))
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual(Duration.toMillis((error as Timeout).timeout), 300)
      const reading = yield* vehicles.odometer(id, { unitSystem: "imperial" })
      assert.strictEqual(reading.unitSystem, "imperial")
      assert.strictEqual((yield* requestsTo(/\/odometer$/)).length, 2)
    }).pipe(Effect.provide(layerLoopback())))

  it.live("retry.maxAttempts of one call: the list, the stream and a read give up at the first 503", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const vehicles = yield* Vehicles
      const id = yield* firstVehicle
      const once = { retry: { maxAttempts: 1 } }
      yield* sim.injectFaults({ path: "/v2.0/vehicles", faults: unavailable(1) })
      assert.strictEqual((yield* flipReason(vehicles.list({ limit: 2 }, once)))._tag, "Server")
      yield* sim.injectFaults({ path: "/v2.0/vehicles", faults: unavailable(1) })
      assert.strictEqual((yield* flipReason(Stream.runCollect(vehicles.stream({ limit: 2 }, once))))._tag, "Server")
      yield* sim.injectFaults({ path: `/v2.0/vehicles/${id}/vin`, faults: unavailable(1) })
      assert.strictEqual((yield* flipReason(vehicles.vin(id, once)))._tag, "Server")
      assert.deepStrictEqual((yield* requestsTo(/^\/v2\.0\//)).map((r) => r.status), [503, 503, 503])
      // without options the same fault is retried
      yield* sim.injectFaults({ path: `/v2.0/vehicles/${id}/vin`, faults: unavailable(1) })
      const vin = yield* vehicles.vin(id)
      assert.strictEqual(vin.value.vin, sim.data.vehicle(id)!.vin)
      assert.deepStrictEqual((yield* requestsTo(/\/vin$/)).map((r) => r.status), [503, 503, 200])
    }).pipe(Effect.provide(layerLoopback())))

  it.live("a batch (POST, not retried by default) is retried when the call asks for it", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const vehicles = yield* Vehicles
      const id = yield* firstVehicle
      const batchPath = `/v2.0/vehicles/${id}/batch`
      yield* sim.injectFaults({ path: batchPath, faults: unavailable(1) })
      assert.strictEqual((yield* flipReason(vehicles.batch(id, ["/odometer"])))._tag, "Server")
      yield* sim.injectFaults({ path: batchPath, faults: unavailable(1) })
      const batch = yield* vehicles.batch(id, ["/odometer"], { unitSystem: "metric", retry: { retryNonIdempotent: true } })
      assert.isTrue(Result.isSuccess(batch["/odometer"]))
      assert.deepStrictEqual((yield* requestsTo(/\/batch$/)).map((r) => r.status), [503, 503, 200])
    }).pipe(Effect.provide(layerLoopback())))
})

import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { HttpClient } from "effect/http"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
import { busiestUser, flipReason, layerLoopback, requestsTo } from "./utils.ts"

// every request that reaches the legacy client's HttpClient (token requests go through another client)
let sent = 0
const counting = HttpClient.tapRequest(() => Effect.sync(() => void sent++))

/** Vehicle ids every legacy call refuses, with the reason in the message. */
const bad: ReadonlyArray<readonly [string, string]> = [
  ["", "Expected a non-empty string"],
  ["veh\r\n1", "Expected a string without control characters"],
  ["\u007f", "Expected a string without control characters"],
  [".", "Expected a string other than \".\" and \"..\""],
  ["..", "Expected a string other than \".\" and \"..\""],
  ["a/b", "Expected a string without \"/\""],
  ["../vehicles", "Expected a string without \"/\""]
]

describe("legacy identifiers", () => {
  it.live("an empty id, a control character, \".\", \"..\" or a \"/\": InvalidArgument on vehicleId, nothing sent", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const vehicles = yield* Vehicles.Vehicles
      sent = 0
      for (const [id, reason] of bad) {
        const calls: ReadonlyArray<Effect.Effect<unknown, Vehicles.ReadError>> = [
          vehicles.odometer(id),
          vehicles.location(id, { unitSystem: "imperial" }),
          vehicles.vin(id),
          vehicles.engineOil(id),
          vehicles.tirePressure(id),
          vehicles.serviceHistory(id),
          vehicles.batch(id, ["/odometer", "/vin"])
        ]
        for (const call of calls) {
          const error = yield* flipReason(call)
          assert.strictEqual(error._tag, "InvalidArgument", JSON.stringify(id))
          const { field, message } = error as unknown as { readonly field: string; readonly message: string }
          assert.strictEqual(field, "vehicleId")
          assert.strictEqual(message, `vehicleId: ${reason}, got ${JSON.stringify(id)}`)
        }
      }
      assert.strictEqual(sent, 0)
      assert.deepStrictEqual(yield* requestsTo(/^\/v2\.0\//), [])
      // a valid id goes through the counted client
      const first = (yield* Stream.runCollect(Stream.take(vehicles.stream(), 1)))[0]!
      assert.include(sim.data.vehiclesOf(busiestUser(sim)), first)
      yield* vehicles.odometer(first)
      assert.isTrue(sent >= 2)
    }).pipe(Effect.provide(layerLoopback({ transformClient: counting }))))
})

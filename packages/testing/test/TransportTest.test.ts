import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { CompatibilityApi } from "@connected-vehicle/schema/Api"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import { layerSimulator } from "@connected-vehicle/testing/TransportTest"

describe("TransportTest", () => {
  it.effect("layerSimulator runs the transport on the in-memory simulator", () =>
    Effect.gen(function*() {
      const compatibility = yield* Transport.publicClient(CompatibilityApi, "compatibility")
      const all = yield* compatibility.list()
      const call = compatibility.list({ query: { "filter[region]": "US" } })
      // the error type of a call reads in a hover: InvalidArgument | ConnectedVehicleError (checked by tsc)
      type Expected = InvalidArgument | ConnectedVehicleError
      const short: [Effect.Error<typeof call>] extends [Expected] ? [Expected] extends [Effect.Error<typeof call>] ? true : false
        : false = true
      assert.isTrue(short)
      const us = yield* call
      assert.isTrue(all.value.data.length >= us.value.data.length)
      assert.isTrue(us.value.data.every((entry) => entry.attributes.region === "US"))
    }).pipe(Effect.provide(layerSimulator())))
})

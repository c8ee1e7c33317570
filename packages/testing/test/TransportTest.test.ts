import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { CompatibilityApi } from "@connected-vehicle/schema/Api"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { CredentialsError } from "@connected-vehicle/transport/TransportError"
import { layerSimulator } from "@connected-vehicle/testing/TransportTest"

describe("TransportTest", () => {
  it.effect("layerSimulator runs the transport on the in-memory simulator", () =>
    Effect.gen(function*() {
      const compatibility = yield* Transport.publicClient(CompatibilityApi, "compatibility")
      const all = yield* compatibility.list()
      const call = compatibility.list({ query: { "filter[region]": "US" } })
      // no credential is used, so CredentialsError is not in the error union (checked by tsc)
      const noCredentialsError: [Extract<Effect.Error<typeof call>, CredentialsError>] extends [never] ? true : false = true
      assert.isTrue(noCredentialsError)
      const us = yield* call
      assert.isTrue(all.value.data.length >= us.value.data.length)
      assert.isTrue(us.value.data.every((entry) => entry.attributes.region === "US"))
    }).pipe(Effect.provide(layerSimulator())))
})

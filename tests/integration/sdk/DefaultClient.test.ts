/**
 * The convenience layers of the SDK send on the transport package's
 * `UndiciHttpClient` unless given another client (the transport itself names
 * none): its per-effect response size limit (`UndiciHttpClient.MaxResponseBytes`)
 * applies to their calls, and only to theirs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { Compatibility } from "@connected-vehicle/v3/Compatibility"

const sdkOn = (options?: ConnectedVehicle.Options) =>
  Layer.unwrap(Effect.map(Simulator.Simulator, (sim) =>
    ConnectedVehicle.layer({
      transport: { roots: TransportConfig.rootsFromOrigin(sim.url), retry: { maxAttempts: 1 } },
      oauth: { clientId: sim.clientId, clientSecret: sim.clientSecret },
      ...options
    })))

/** The public compatibility listing, with a response size limit of `limit` bytes for undici's client. */
const listWithLimit = (limit: number) =>
  Effect.flatMap(Compatibility, (compatibility) => compatibility.list({ region: "US" })).pipe(
    Effect.provideService(UndiciHttpClient.MaxResponseBytes, limit)
  )

describe("the default HttpClient of ConnectedVehicle.layer", () => {
  it.live("is UndiciHttpClient: its response size limit applies", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(listWithLimit(16))
      assert.strictEqual(reasonOf(error)._tag, "InvalidResponse")
      assert.include(error.message, "16 bytes")
      // within the limit, the same call succeeds
      const listed = yield* listWithLimit(UndiciHttpClient.defaultMaxResponseBytes)
      assert.isAbove(listed.data.length, 0)
    }).pipe(Effect.provide(sdkOn().pipe(Layer.provideMerge(Simulator.layer({ port: 0 }))))))

  it.live("is the one given: another client ignores undici's limit", () =>
    Effect.gen(function*() {
      const listed = yield* listWithLimit(16)
      assert.isAbove(listed.data.length, 0)
    }).pipe(Effect.provide(sdkOn({ httpClient: FetchHttpClient.layer }).pipe(Layer.provideMerge(Simulator.layer({ port: 0 }))))))
})

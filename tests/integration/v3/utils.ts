/**
 * Test wiring: the SDK against the simulator, over loopback (`layerLoopback`)
 * or in memory (`layerTest`). The simulator is a dependency of no product
 * package, so these layers live here.
 */
import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as V3 from "@connected-vehicle/v3/V3"

const sdk = (options?: V3.Options & { readonly transport?: Omit<TransportConfig.Options, "roots"> }) =>
  Layer.unwrap(Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const http = Layer.succeed(HttpClient.HttpClient, yield* HttpClient.HttpClient)
    const TransportLive = Transport.layer.pipe(
      Layer.provide([
        TransportConfig.layerOrigin(sim.url === "" ? Simulator.TEST_ORIGIN : sim.url, {
          retry: { initialDelay: 5, maxDelay: 20 },
          ...options?.transport
        }),
        http
      ])
    )
    const CredentialsLive = Session.layerApplication().pipe(
      Layer.provide([
        TokenStore.layerMemory,
        OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret }),
        TransportLive
      ])
    )
    return V3.layer(options).pipe(Layer.provideMerge(Layer.mergeAll(TransportLive, CredentialsLive)))
  }))

/**
 * The v3 services on the simulator listening on 127.0.0.1 (port 0), through
 * the `fetch` client, with the simulator service for its request log.
 */
export const layerLoopback = (
  options?: V3.Options & {
    readonly simulator?: Simulator.SimulatorOptions
    readonly transport?: Omit<TransportConfig.Options, "roots">
  }
): Layer.Layer<V3.Services | Simulator.Simulator | Transport.Transport | Credentials> =>
  sdk(options).pipe(
    Layer.provideMerge(Layer.mergeAll(Simulator.layer({ ...options?.simulator, port: 0 }), FetchHttpClient.layer))
  )

/**
 * The v3 services on the in-memory simulator (no socket).
 */
export const layerTest = (
  options?: V3.Options & { readonly simulator?: Simulator.SimulatorOptions }
): Layer.Layer<V3.Services | Simulator.Simulator | Transport.Transport | Credentials> =>
  sdk(options).pipe(Layer.provideMerge(Simulator.layerTest(options?.simulator)))

/** Requests the simulator saw for paths matching `path` (token requests excluded by default). */
export const requestsTo = (path: RegExp) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    return (yield* sim.requests).filter((entry) => path.test(entry.path))
  })

/** The failure of `self`, its reason when it is a `ConnectedVehicleError`. */
export const flipReason = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.map(Effect.flip(self), (e) => reasonOf(e))

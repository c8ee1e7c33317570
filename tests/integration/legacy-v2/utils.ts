/**
 * Test wiring: the legacy client against the simulator, over loopback
 * (`layerLoopback`) or in memory (`layerTest`), signed in as one user through
 * the real consent redirect and code exchange. The simulator is a
 * dependency of no product package, so these layers live here.
 */
import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Simulated from "@connected-vehicle/testing/Simulated"
import * as SignIn from "@connected-vehicle/testing/SignIn"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"

/** Options of the test layers. */
export interface TestOptions extends Vehicles.Options {
  readonly simulator?: Simulator.SimulatorOptions
  /** Space-separated permissions granted at consent (all of them by default). */
  readonly scope?: string
  /** The user to sign in (default: the one with the most vehicles). */
  readonly userId?: (sim: Simulator.Simulator["Service"]) => string
}

/** The user with the most connected vehicles. */
export const busiestUser = (sim: Simulator.Simulator["Service"]) => Simulated.busiestUser(sim.data)

const sdk = (options: TestOptions) =>
  Layer.unwrap(Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const httpClient = yield* HttpClient.HttpClient
    const origin = sim.url === "" ? Simulator.TEST_ORIGIN : sim.url
    const http = Layer.succeed(HttpClient.HttpClient, httpClient)
    const TransportLive = Transport.layer.pipe(
      Layer.provide([TransportConfig.layerOrigin(origin, { retry: { initialDelay: 5, maxDelay: 20 } }), http])
    )
    const OAuthLive = OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret })
    const userId = (options.userId ?? busiestUser)(sim)
    const StoreLive = Layer.effect(
      TokenStore.TokenStore,
      Effect.gen(function*() {
        const store = yield* TokenStore.makeMemory
        const code = yield* SignIn.authorizationCode(userId, { scope: options.scope }).pipe(
          Effect.provideService(HttpClient.HttpClient, httpClient),
          Effect.provideService(Simulator.Simulator, sim)
        )
        yield* Session.login(userId, { code, redirectUri: SignIn.redirectUri }).pipe(
          Effect.provideService(TokenStore.TokenStore, store),
          Effect.orDie
        )
        yield* sim.resetLog
        return store
      })
    ).pipe(Layer.provide([OAuthLive, TransportLive]))
    return Vehicles.layer(options).pipe(
      Layer.provide(Session.layerUser(userId)),
      Layer.provide(Layer.mergeAll(StoreLive, OAuthLive, TransportLive))
    )
  }))

/** The legacy client on the simulator listening on 127.0.0.1 (port 0), through `fetch`. */
export const layerLoopback = (options: TestOptions = {}): Layer.Layer<Vehicles.Vehicles | Simulator.Simulator> =>
  sdk(options).pipe(
    Layer.provideMerge(Layer.mergeAll(Simulator.layer({ ...options.simulator, port: 0 }), FetchHttpClient.layer))
  )

/** The legacy client on the in-memory simulator (no socket). */
export const layerTest = (options: TestOptions = {}): Layer.Layer<Vehicles.Vehicles | Simulator.Simulator> =>
  sdk(options).pipe(Layer.provideMerge(Simulator.layerTest(options.simulator)))

/** Requests the simulator saw for paths matching `path`. */
export const requestsTo = (path: RegExp) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    return (yield* sim.requests).filter((entry) => path.test(entry.path))
  })

/** The failure of `self`, its reason when it is a `ConnectedVehicleError`. */
export const flipReason = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.map(Effect.flip(self), (e) => reasonOf(e))

/**
 * The whole SDK on the simulator (`@connected-vehicle/simulator`), for tests
 * and demos: the layers of `ConnectedVehicle` wired to a simulator in memory
 * or on 127.0.0.1, with the simulator's own client and a signed-in user.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { HttpClient } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as SignIn from "./SignIn.ts"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"

/**
 * Options of {@link layer}.
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/testing/Simulated"
 *
 * const options: Options = { loopback: true, simulator: { seed: 7 }, signIn: false }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options extends Omit<ConnectedVehicle.Options, "httpClient"> {
  readonly simulator?: Simulator.SimulatorOptions | undefined
  /**
   * `true`: the simulator listens on 127.0.0.1 (a free port) and the SDK
   * talks to it through `options.httpClient` (default `UndiciHttpClient.layer()`); `false`
   * (default): in memory, no socket.
   */
  readonly loopback?: boolean | undefined
  /** The HTTP client for `loopback` (default `UndiciHttpClient.layer()`). */
  readonly httpClient?: Layer.Layer<HttpClient.HttpClient> | undefined
  /** Transport policies (roots come from the simulator). */
  readonly transport?: Omit<TransportConfig.Options, "roots"> | undefined
  /**
   * Sign a user in before the layer is ready (consent with `login_hint`, then
   * the code exchange), storing the tokens under `userKey`: the given user id,
   * a function choosing one from the dataset, or `false` to leave the store
   * empty (default: the user with the most connected vehicles).
   */
  readonly signIn?: string | ((data: Simulator.SimulatorData) => string) | false | undefined
}

/**
 * The user with the most connected vehicles.
 *
 * @example
 * ```ts
 * import * as Simulated from "@connected-vehicle/testing/Simulated"
 *
 * const Test = Simulated.layer({ signIn: Simulated.busiestUser })
 * ```
 * @since 0.1.0
 * @category users
 */
export const busiestUser = (data: Simulator.SimulatorData): string =>
  data.users.reduce((best, u) => data.vehiclesOf(u.id).length > data.vehiclesOf(best.id).length ? u : best).id

/**
 * The whole SDK on the simulator, with the simulator service (request log,
 * fault injection, dataset): in memory by default, or on 127.0.0.1 with
 * `loopback: true`. The simulator's client id and secret are used, and a
 * user is signed in (see {@link Options} `signIn`).
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
 * import { Signals } from "@connected-vehicle/v3/Signals"
 * import * as Simulated from "@connected-vehicle/testing/Simulated"
 *
 * const program = Effect.gen(function*() {
 *   const ids = yield* Stream.runCollect((yield* Vehicles).stream())
 *   return ids.length
 * })
 * Effect.runPromise(program.pipe(Effect.provide(Simulated.layer({ loopback: true }))))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<ConnectedVehicle.Services | Simulator.Simulator> => {
  const SimulatorLive: Layer.Layer<Simulator.Simulator | HttpClient.HttpClient> = options?.loopback === true
    ? Layer.merge(Simulator.layer({ ...options.simulator, port: 0 }), options.httpClient ?? UndiciHttpClient.layer())
    : Simulator.layerTest(options?.simulator)
  const sdk = Layer.unwrap(Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const httpClient = yield* HttpClient.HttpClient
    const origin = sim.url === "" ? Simulator.TEST_ORIGIN : sim.url
    const Sdk = ConnectedVehicle.layerWith(
      TransportConfig.layerOrigin(origin, options?.transport),
      OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret }),
      { ...options, httpClient: Layer.succeed(HttpClient.HttpClient, httpClient) }
    )
    const signIn = options?.signIn ?? busiestUser
    if (signIn === false) return Sdk
    const SignedIn = Layer.effectDiscard(Effect.gen(function*() {
      const userId = typeof signIn === "string" ? signIn : signIn(sim.data)
      const code = yield* SignIn.authorizationCode(userId).pipe(
        Effect.provideService(Simulator.Simulator, sim),
        Effect.provideService(HttpClient.HttpClient, httpClient)
      )
      yield* Session.login(options?.userKey ?? "user", { code, redirectUri: SignIn.redirectUri }).pipe(Effect.orDie)
      yield* sim.resetLog
    }))
    return Layer.provideMerge(SignedIn, Sdk)
  }))
  return sdk.pipe(Layer.provideMerge(SimulatorLive))
}

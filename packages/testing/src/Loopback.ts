/**
 * The simulator on 127.0.0.1 (a free port, closed with the scope) and the
 * transport talking to it over a real socket: what a test of the wire needs
 * (connection reuse, stalls, cut bodies, timeouts).
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import type { HttpClient } from "effect/http"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"

/**
 * Options of {@link layer}.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "effect/http"
 * import type { Options } from "@connected-vehicle/testing/Loopback"
 *
 * const options: Options = { simulator: { seed: 7 }, transport: { timeout: "500 millis" }, httpClient: FetchHttpClient.layer }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The simulator's dataset and behaviour (it always listens on 127.0.0.1, a free port). */
  readonly simulator?: Simulator.SimulatorOptions | undefined
  /** Transport policies (the roots are the simulator's origin). */
  readonly transport?: Omit<TransportConfig.Options, "roots"> | undefined
  /** The HTTP client of the transport (default `UndiciHttpClient.layer()`). */
  readonly httpClient?: Layer.Layer<HttpClient.HttpClient> | undefined
}

/**
 * The simulator listening on 127.0.0.1 (a free port; the server closes with
 * the layer's scope), the transport configured with its origin, and the
 * `HttpClient` the transport uses (for raw requests in a test).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CompatibilityApi } from "@connected-vehicle/schema/Api"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 * import * as Loopback from "@connected-vehicle/testing/Loopback"
 *
 * const program = Effect.gen(function*() {
 *   const compatibility = yield* Transport.publicClient(CompatibilityApi, "compatibility")
 *   return (yield* compatibility.list()).value.data.length
 * }).pipe(Effect.provide(Loopback.layer({ transport: { timeout: "1 second" } })))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options?: Options
): Layer.Layer<Transport.Transport | TransportConfig.TransportConfig | Simulator.Simulator | HttpClient.HttpClient> => {
  const simulator = Simulator.layer({ ...options?.simulator, host: "127.0.0.1", port: 0 })
  const httpClient = options?.httpClient ?? UndiciHttpClient.layer()
  const config = Layer.unwrap(
    Effect.map(Effect.service(Simulator.Simulator), (sim) => TransportConfig.layerOrigin(sim.url, options?.transport))
  ).pipe(Layer.provide(simulator))
  return Layer.mergeAll(Transport.layerFrom(config, { httpClient }), simulator, httpClient)
}

/**
 * The transport without a network: on a recording mock `HttpClient`
 * ({@link layerTest}), or on the simulator's in-memory `HttpClient`
 * ({@link layerSimulator}).
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import type { HttpClient } from "effect/http"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as RecordingHttpClient from "./RecordingHttpClient.ts"

/**
 * The transport on a recording mock (`RecordingHttpClient.layer`), every root
 * under `http://mock.test`.
 *
 * @example
 * ```ts
 * import { layerTest } from "@connected-vehicle/testing/TransportTest"
 *
 * const Test = layerTest(() => ({ status: 404, json: { errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail: "none" }] } }))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerTest = (
  respond: RecordingHttpClient.Respond,
  options?: Omit<TransportConfig.Options, "roots">
): Layer.Layer<Transport.Transport | RecordingHttpClient.RecordingHttpClient | TransportConfig.TransportConfig> => {
  const config = TransportConfig.layerOrigin("http://mock.test", options)
  const recording = RecordingHttpClient.layer(respond)
  return Layer.mergeAll(Transport.layerFrom(config, { httpClient: recording }), recording)
}

/**
 * The transport on the simulator's in-memory client (`Simulator.layerTest`, no
 * socket): provides the transport, its configuration, the simulator (request
 * log, fault injection, dataset) and the raw `HttpClient`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CompatibilityApi } from "@connected-vehicle/schema/Api"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 * import { layerSimulator } from "@connected-vehicle/testing/TransportTest"
 *
 * const program = Effect.gen(function*() {
 *   const compatibility = yield* Transport.publicClient(CompatibilityApi, "compatibility")
 *   return yield* compatibility.list()
 * }).pipe(Effect.provide(layerSimulator()))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerSimulator = (options?: {
  readonly simulator?: Simulator.SimulatorOptions | undefined
  readonly transport?: Omit<TransportConfig.Options, "roots"> | undefined
}): Layer.Layer<
  Transport.Transport | TransportConfig.TransportConfig | Simulator.Simulator | HttpClient.HttpClient
> => {
  const simulator = Simulator.layerTest(options?.simulator)
  const config = Layer.unwrap(
    Effect.map(
      Effect.service(Simulator.Simulator),
      (sim) => TransportConfig.layerOrigin(sim.url === "" ? Simulator.TEST_ORIGIN : sim.url, options?.transport)
    )
  ).pipe(Layer.provide(simulator))
  return Layer.mergeAll(Transport.layerFrom(config, { httpClient: simulator }), simulator)
}

/**
 * Overhead of the transport pipeline (contract encoding, credentials, error
 * classification, decoding) over a raw `HttpClient` GET plus JSON parse, on
 * the in-memory simulator (no socket). Prints medians and their ratio.
 *
 *   pnpm --filter @connected-vehicle/integration-tests run bench
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpClient } from "effect/http"
import { CompatibilityApi } from "@connected-vehicle/schema/Api"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"

const { TEST_ORIGIN } = Simulator
const simulator = Simulator.layerTest()
const runtime = ManagedRuntime.make(
  Layer.merge(Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(TEST_ORIGIN), simulator])), simulator)
)
const client = await runtime.runPromise(Transport.publicClient(CompatibilityApi, "compatibility"))
const http = await runtime.runPromise(Effect.service(HttpClient.HttpClient))

const median = async (name: string, run: () => Promise<unknown>, iterations = 300) => {
  for (let i = 0; i < 30; i++) await run()
  const times: Array<number> = []
  for (let i = 0; i < iterations; i++) {
    const start = performance.now()
    await run()
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  const m = times[Math.floor(times.length / 2)]!
  console.log(`${name.padEnd(40)} median ${m.toFixed(3)} ms`)
  return m
}

const raw = await median("raw HttpClient + JSON.parse", () =>
  runtime.runPromise(Effect.flatMap(http.get(`${TEST_ORIGIN}/v3/compatible-vehicles?filter%5Bregion%5D=US`), (r) => r.json)))
const transport = await median("Transport client", () =>
  runtime.runPromise(client.list({ query: { "filter[region]": "US" } })))
console.log(`ratio transport / raw: ${(transport / raw).toFixed(2)}`)
await runtime.dispose()

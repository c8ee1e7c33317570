import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { NodeHttpClient } from "@effect/platform-node"
import { Agent, interceptors } from "undici"
import type { Dispatcher } from "undici"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { suite, suiteInProcess } from "@connected-vehicle/testing/HttpClientBehaviour"
import * as RecordingHttpClient from "@connected-vehicle/testing/RecordingHttpClient"

// every HttpClient the SDK ships or documents, over loopback
suite("UndiciHttpClient.layer", UndiciHttpClient.layer(), { maxResponseBytes: UndiciHttpClient.defaultMaxResponseBytes })
suite("UndiciHttpClient.layer, maxResponseBytes 64 KiB", UndiciHttpClient.layer({ maxResponseBytes: 64 * 1024 }), {
  maxResponseBytes: 64 * 1024,
  concurrency: 50
})
// tracing off, as the transport runs it (httpSpans off): the exchange without HttpClient.make's wrapper
suite(
  "UndiciHttpClient.layer, tracing off",
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) => HttpClient.transform(client, (effect) => Effect.provideService(effect, HttpClient.TracerDisabledWhen, () => true)))
  ).pipe(Layer.provide(UndiciHttpClient.layer())),
  { maxResponseBytes: UndiciHttpClient.defaultMaxResponseBytes }
)
// a dispatcher with interceptors that do not retry (undici's dns, and one adding a header): UndiciHttpClient.make
let intercepted = 0
const tagged: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) => {
  intercepted++
  return dispatch({ ...options, headers: { ...(options.headers as Record<string, string>), "x-intercepted": "1" } }, handler)
}
suite(
  "UndiciHttpClient.make, a dispatcher with non-retrying interceptors",
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(
      Effect.acquireRelease(Effect.sync(() => new Agent().compose(interceptors.dns(), tagged)), (agent) => Effect.promise(() => agent.destroy())),
      (agent) => UndiciHttpClient.make(agent)
    )
  ),
  { maxResponseBytes: UndiciHttpClient.defaultMaxResponseBytes }
)
describe("UndiciHttpClient.make, a dispatcher with non-retrying interceptors", () => {
  it("its interceptors saw the suite's requests", () => assert.isAbove(intercepted, 30))
})
suite("NodeHttpClient.layerUndici", NodeHttpClient.layerUndici)
suite("NodeHttpClient.layerNodeHttp", NodeHttpClient.layerNodeHttp)
suite(
  "FetchHttpClient, redirect: manual",
  FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { redirect: "manual" })))
)
suite("FetchHttpClient (follows redirects)", FetchHttpClient.layer, { followsRedirects: true })

// the clients answered in process: the simulator in memory (Simulated.layer, TransportTest.layerSimulator)
// and the scripted mock (TransportTest.layerTest), given the simulator's faults
suiteInProcess("Simulator.layerTest", Simulator.layerTest(), { origin: Simulator.TEST_ORIGIN, path: "/v3/compatible-vehicles?region=US" })
suiteInProcess(
  "RecordingHttpClient.layer",
  RecordingHttpClient.layer((request) => {
    const headers = { "x-request-id": request.headers["x-request-id"] ?? "" }
    const fault = request.headers["x-simulator-fault"]
    if (fault === "stall") return { status: 200, headers, stallBody: true }
    if (fault === "drop") return { status: 200, drop: true }
    if (fault?.startsWith("delay=")) return Effect.as(Effect.sleep(Number(fault.slice(6))), { status: 200, headers, text: "{}" })
    return { status: 200, headers, text: "{}" }
  }),
  { origin: "http://mock.test", path: "/v3/anything" }
)

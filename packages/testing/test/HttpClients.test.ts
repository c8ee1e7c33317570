import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { NodeHttpClient } from "@effect/platform-node"
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
suite("NodeHttpClient.layerUndici", NodeHttpClient.layerUndici)
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

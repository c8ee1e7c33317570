/**
 * Test support: the transport on the simulator's in-memory `HttpClient`
 * (no socket), and a recording mock `HttpClient` that answers from a script
 * and keeps every request it saw (authorization redacted). The simulator is
 * an optional peer dependency, needed only by {@link layerSimulator}.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import type { HttpClientRequest } from "effect/http"
// type-only: the simulator (an optional peer) is loaded by `layerSimulator`
// when it is built, so the other exports work without it
import type * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Transport from "./Transport.ts"
import * as TransportConfig from "./TransportConfig.ts"

/**
 * A request the mock received. `headers.authorization` is `<redacted>`; the
 * credential itself is kept as `Redacted` in `authorization`.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { RecordedRequest } from "@connected-vehicle/transport/TransportTest"
 *
 * const bearer = (request: RecordedRequest) => request.authorization === undefined ? undefined : Redacted.value(request.authorization)
 * ```
 * @since 0.1.0
 */
export interface RecordedRequest {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly authorization: Redacted.Redacted<string> | undefined
  readonly body: string | undefined
}

/**
 * A scripted answer: `json` is serialized, `text` is sent as is.
 *
 * @example
 * ```ts
 * import type { MockResponse } from "@connected-vehicle/transport/TransportTest"
 *
 * const slowDown: MockResponse = { status: 429, headers: { "retry-after": "2" }, text: "busy" }
 * ```
 * @since 0.1.0
 */
export interface MockResponse {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly json?: unknown
  readonly text?: string | undefined
  /** Send the status and headers, then a body that never ends. */
  readonly stallBody?: boolean | undefined
}

/**
 * The requests seen by the mock.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RecordingHttpClient } from "@connected-vehicle/transport/TransportTest"
 *
 * const count = Effect.gen(function*() {
 *   const recording = yield* RecordingHttpClient
 *   return (yield* recording.requests).length
 * })
 * ```
 * @since 0.1.0
 */
export class RecordingHttpClient extends Context.Service<RecordingHttpClient, {
  readonly requests: Effect.Effect<ReadonlyArray<RecordedRequest>>
}>()("@connected-vehicle/transport/TransportTest/RecordingHttpClient") {}

const bodyText = (request: HttpClientRequest.HttpClientRequest): string | undefined => {
  const body = request.body
  switch (body._tag) {
    case "Uint8Array":
      return new TextDecoder().decode(body.body)
    case "Raw":
      return typeof body.body === "string" ? body.body : undefined
    default:
      return undefined
  }
}

/**
 * An `HttpClient` answering with `respond(request, index)` and recording every request.
 *
 * @example
 * ```ts
 * import { layerRecording } from "@connected-vehicle/transport/TransportTest"
 *
 * const Mock = layerRecording((_request, index) =>
 *   index === 0 ? { status: 500, json: { errors: [] } } : { status: 200, json: { data: [] } }
 * )
 * ```
 * @since 0.1.0
 */
export const layerRecording = (
  respond: (request: RecordedRequest, index: number) => MockResponse | Effect.Effect<MockResponse>
): Layer.Layer<RecordingHttpClient | HttpClient.HttpClient> =>
  Layer.unwrap(Effect.sync(() => {
  const seen: Array<RecordedRequest> = []
  const client = HttpClient.make((request, url) =>
    Effect.gen(function*() {
      const headers: Record<string, string> = {}
      let authorization: Redacted.Redacted<string> | undefined
      for (const [k, v] of Object.entries(request.headers)) {
        if (k === "authorization") {
          authorization = Redacted.make(v)
          headers[k] = "<redacted>"
        } else {
          headers[k] = v
        }
      }
      const recorded: RecordedRequest = { method: request.method, url: url.toString(), headers, authorization, body: bodyText(request) }
      const index = seen.length
      seen.push(recorded)
      const answer = respond(recorded, index)
      const r = Effect.isEffect(answer) ? yield* answer : answer
      const body = r.stallBody === true
        ? new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => {}) })
        : r.text ?? (r.json === undefined ? null : JSON.stringify(r.json))
      return HttpClientResponse.fromWeb(
        request,
        new Response(body, {
          status: r.status,
          headers: { ...(r.json === undefined ? {} : { "content-type": "application/json" }), ...r.headers }
        })
      )
    })
  )
  return Layer.mergeAll(
    Layer.succeed(HttpClient.HttpClient, client),
    Layer.succeed(RecordingHttpClient, { requests: Effect.sync(() => seen.slice()) })
  )
}))

/**
 * The transport on a recording mock, every root under `http://mock.test`.
 *
 * @example
 * ```ts
 * import { layerTest } from "@connected-vehicle/transport/TransportTest"
 *
 * const Test = layerTest(() => ({ status: 404, json: { errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail: "none" }] } }))
 * ```
 * @since 0.1.0
 */
export const layerTest = (
  respond: (request: RecordedRequest, index: number) => MockResponse | Effect.Effect<MockResponse>,
  options?: Omit<TransportConfig.Options, "roots">
): Layer.Layer<Transport.Transport | RecordingHttpClient | TransportConfig.TransportConfig> => {
  const config = TransportConfig.layerOrigin("http://mock.test", options)
  const recording = layerRecording(respond)
  return Layer.mergeAll(Transport.layer.pipe(Layer.provide([config, recording])), recording, config)
}

/**
 * The transport on the simulator's in-memory client (`Simulator.layerTest`):
 * provides the transport, its configuration, the simulator (request log,
 * fault injection, dataset) and the raw `HttpClient`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CompatibilityApi } from "@connected-vehicle/schema/Api"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 * import { layerSimulator } from "@connected-vehicle/transport/TransportTest"
 *
 * const program = Effect.gen(function*() {
 *   const compatibility = yield* Transport.publicClient(CompatibilityApi, "compatibility")
 *   return yield* compatibility.list()
 * }).pipe(Effect.provide(layerSimulator()))
 * ```
 * @since 0.1.0
 */
export const layerSimulator = (options?: {
  readonly simulator?: Simulator.SimulatorOptions | undefined
  readonly transport?: Omit<TransportConfig.Options, "roots"> | undefined
}): Layer.Layer<
  Transport.Transport | TransportConfig.TransportConfig | Simulator.Simulator | HttpClient.HttpClient
> => {
  const simulator = Layer.unwrap(
    Effect.map(
      Effect.promise(() => import("@connected-vehicle/simulator/Simulator")),
      (Sim) => {
        const simulator = Sim.layerTest(options?.simulator)
        const config = Layer.unwrap(
          Effect.map(
            Effect.service(Sim.Simulator),
            (sim) => TransportConfig.layerOrigin(sim.url === "" ? Sim.TEST_ORIGIN : sim.url, options?.transport)
          )
        ).pipe(Layer.provide(simulator))
        return Layer.mergeAll(Transport.layer.pipe(Layer.provide([config, simulator])), config, simulator)
      }
    )
  )
  return simulator
}

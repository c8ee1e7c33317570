/**
 * A mock `HttpClient` for tests: it answers from a script and keeps every
 * request it saw (the authorization header redacted).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientError, HttpClientResponse } from "effect/http"
import type { HttpClientRequest } from "effect/http"

/**
 * A request the mock received. `headers.authorization` is `<redacted>`; the
 * credential itself is kept as `Redacted` in `authorization`.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { RecordedRequest } from "@connected-vehicle/testing/RecordingHttpClient"
 *
 * const bearer = (request: RecordedRequest) => request.authorization === undefined ? undefined : Redacted.value(request.authorization)
 * ```
 * @since 0.1.0
 * @category models
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
 * import type { MockResponse } from "@connected-vehicle/testing/RecordingHttpClient"
 *
 * const slowDown: MockResponse = { status: 429, headers: { "retry-after": "2" }, text: "busy" }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface MockResponse {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly json?: unknown
  readonly text?: string | undefined
  /** Send the status and headers, then a body that never ends. */
  readonly stallBody?: boolean | undefined
  /** Fail the request as a `TransportError`, as a dropped connection does (the status is ignored). */
  readonly drop?: boolean | undefined
}

/**
 * The script of the mock: the answer to the `index`-th request (0-based).
 *
 * @example
 * ```ts
 * import type { Respond } from "@connected-vehicle/testing/RecordingHttpClient"
 *
 * const failOnce: Respond = (_request, index) => index === 0 ? { status: 503 } : { status: 200, json: {} }
 * ```
 * @since 0.1.0
 * @category models
 */
export type Respond = (request: RecordedRequest, index: number) => MockResponse | Effect.Effect<MockResponse>

/**
 * The requests seen by the mock.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RecordingHttpClient } from "@connected-vehicle/testing/RecordingHttpClient"
 *
 * const count = Effect.gen(function*() {
 *   const recording = yield* RecordingHttpClient
 *   return (yield* recording.requests).length
 * })
 * ```
 * @since 0.1.0
 * @category services
 */
export class RecordingHttpClient extends Context.Service<RecordingHttpClient, {
  readonly requests: Effect.Effect<ReadonlyArray<RecordedRequest>>
}>()("@connected-vehicle/testing/RecordingHttpClient") {}

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

const record = (request: HttpClientRequest.HttpClientRequest, url: URL): RecordedRequest => {
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
  return { method: request.method, url: url.toString(), headers, authorization, body: bodyText(request) }
}

const toResponse = (request: HttpClientRequest.HttpClientRequest, r: MockResponse) => {
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
}

/**
 * An `HttpClient` answering with `respond(request, index)` and recording every
 * request; each build of the layer starts a new recording.
 *
 * @example
 * ```ts
 * import * as RecordingHttpClient from "@connected-vehicle/testing/RecordingHttpClient"
 *
 * const Mock = RecordingHttpClient.layer((_request, index) =>
 *   index === 0 ? { status: 500, json: { errors: [] } } : { status: 200, json: { data: [] } }
 * )
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (respond: Respond): Layer.Layer<RecordingHttpClient | HttpClient.HttpClient> =>
  Layer.unwrap(Effect.sync(() => {
    const seen: Array<RecordedRequest> = []
    const client = HttpClient.make((request, url) =>
      Effect.gen(function*() {
        const recorded = record(request, url)
        const index = seen.length
        seen.push(recorded)
        const scripted = respond(recorded, index)
        const answer = Effect.isEffect(scripted) ? yield* scripted : scripted
        if (answer.drop === true) {
          return yield* Effect.fail(
            new HttpClientError.HttpClientError({
              reason: new HttpClientError.TransportError({ request, description: "the connection was dropped (scripted)" })
            })
          )
        }
        return toResponse(request, answer)
      })
    )
    return Layer.mergeAll(
      Layer.succeed(HttpClient.HttpClient, client),
      Layer.succeed(RecordingHttpClient, { requests: Effect.sync(() => seen.slice()) })
    )
  }))

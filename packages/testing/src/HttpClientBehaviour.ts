/**
 * The behaviour every `HttpClient` the SDK ships or documents must have, as
 * vitest suites to run against each of them.
 *
 * {@link suite}: a client over loopback (real `node:http` servers on
 * 127.0.0.1): requests and bodies, many concurrent requests each answered
 * with its own response, a refused connection (a `TransportError`, not a
 * hang), a timeout before the head (each connection released, the next
 * request served), a body cut after the head, a stalled body, many requests
 * at once of which some are cut, stalled or never answered (each its own
 * outcome), interruption releasing the connection, the response size limit,
 * and redirects; and, through the transport on the client, the same outcome
 * whatever the client: a body that is not UTF-8 (a 2xx an `InvalidResponse`
 * saying so, an error status the reason of its status), a 2xx body over the
 * client's size limit (an `InvalidResponse` naming it) and a refused
 * connection (a `Connection` with `sent: false`).
 *
 * {@link suiteInProcess}: a client answered in the same process, with no
 * server and no socket (the in-memory simulator client of
 * `Simulator.layerTest`, the scripted `RecordingHttpClient`), driven by the
 * simulator's `x-simulator-fault` request header. What a socket brings does
 * not apply there: a refused connection, a connection released or leaked, a
 * body cut by a dropped socket, the response size limit (neither enforces
 * one), redirects (neither redirects an API request). The rest does: many
 * concurrent requests each with its own answer, a delay before the head or a
 * stalled body ended by a timeout and the next request served, a dropped
 * request as a `TransportError`, those mixed among good requests at once, and
 * an interrupt before the head.
 *
 * @since 0.1.0
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpClientRequest } from "effect/http"
import type { HttpClient } from "effect/http"
import { failures, responseLimit, withClient } from "./internal/behaviourFailures.ts"
import * as InProcess from "./internal/behaviourInProcess.ts"
import { transportOutcomes } from "./internal/behaviourTransport.ts"
import * as Server from "./internal/server.ts"

/**
 * Options of {@link suite}.
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/testing/HttpClientBehaviour"
 *
 * const options: Options = { followsRedirects: false, concurrency: 200, maxResponseBytes: 16 * 1024 * 1024 }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Whether the client follows redirects (none of the SDK's may; `fetch` does unless told not to). */
  readonly followsRedirects?: boolean | undefined
  /** Concurrent requests of the stress test (default 200). */
  readonly concurrency?: number | undefined
  /**
   * The response size limit the client enforces, in bytes: a body of that
   * size is read, one byte more fails to read with a `DecodeError` naming
   * the limit and its connection is released. Without it (or with
   * `Infinity`) the client is expected to have no limit: a 1 MiB body is
   * read whole.
   */
  readonly maxResponseBytes?: number | undefined
}

/**
 * Registers the loopback behaviour suite for one client layer.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "effect/http"
 * import { suite } from "@connected-vehicle/testing/HttpClientBehaviour"
 *
 * suite("fetch", FetchHttpClient.layer, { followsRedirects: true })
 * ```
 * @since 0.1.0
 * @category suites
 */
export const suite = (name: string, layer: Layer.Layer<HttpClient.HttpClient>, options?: Options): void => {
  describe(`HttpClient behaviour: ${name}`, () => {
    exchanges(layer, options)
    failures(layer)
    responseLimit(layer, options?.maxResponseBytes)
    redirects(layer, options)
    transportOutcomes(layer, options?.maxResponseBytes)
  })
}

/**
 * Options of {@link suiteInProcess}.
 *
 * @example
 * ```ts
 * import type { InProcessOptions } from "@connected-vehicle/testing/HttpClientBehaviour"
 *
 * const options: InProcessOptions = { origin: "http://simulator.test", path: "/v3/compatible-vehicles?region=US" }
 * ```
 * @since 0.2.0
 * @category models
 */
export interface InProcessOptions {
  /** The origin the client answers. */
  readonly origin: string
  /** A path (and query) it answers with a status, whatever it is. */
  readonly path: string
}

/**
 * Registers the in-process behaviour suite for a client with no socket. It
 * must answer `options.origin` + `options.path`, echo the request's
 * `x-request-id` header, and honour the `x-simulator-fault` header's
 * `delay=<ms>`, `stall` (the head, then a body that never ends) and `drop`
 * (a `TransportError`) as the simulator does.
 *
 * @example
 * ```ts
 * import { TEST_ORIGIN, layerTest } from "@connected-vehicle/simulator/Simulator"
 * import { suiteInProcess } from "@connected-vehicle/testing/HttpClientBehaviour"
 *
 * suiteInProcess("simulator in memory", layerTest(), { origin: TEST_ORIGIN, path: "/v3/compatible-vehicles?region=US" })
 * ```
 * @since 0.2.0
 * @category suites
 */
export const suiteInProcess = (name: string, layer: Layer.Layer<HttpClient.HttpClient>, options: InProcessOptions): void => {
  describe(`HttpClient behaviour in process: ${name}`, () => InProcess.cases(layer, `${options.origin}${options.path}`))
}

/** Requests that complete: query parameters, bodies, many at once. */
const exchanges = (layer: Layer.Layer<HttpClient.HttpClient>, options: Options | undefined): void => {
  it.live("a GET with query parameters: status, headers and JSON body", () =>
    Effect.gen(function*() {
      const server = yield* Server.make((request, _, response) => {
        response.writeHead(200, { "content-type": "application/json", "x-request-id": "r-1", "x-twice": ["a", "b"] })
        response.end(JSON.stringify({ url: request.url }))
      })
      const { body, headers, status, url } = yield* withClient(layer, (client) =>
        Effect.flatMap(client.get(`${server.origin}/items?fixed=1`, { urlParams: { page: 2, "filter[x]": "a b" } }), (response) =>
          Effect.map(response.json, (body) => ({ body, headers: response.headers, status: response.status, url: response.url }))))
      assert.strictEqual(status, 200)
      assert.strictEqual(headers["x-request-id"], "r-1")
      assert.strictEqual(headers["x-twice"], "a, b")
      assert.deepStrictEqual(body, { url: "/items?fixed=1&page=2&filter%5Bx%5D=a+b" })
      assert.match(url, /\/items\?fixed=1&page=2/)
    }).pipe(Effect.scoped))

  it.live("a POST sends its string or bytes body with its content type", () =>
    Effect.gen(function*() {
      const server = yield* Server.make((_, body, response) => response.end(body.toUpperCase()))
      const texts = yield* withClient(layer, (client) =>
        Effect.all([
          HttpClientRequest.post(`${server.origin}/a`).pipe(HttpClientRequest.bodyText("grant_type=x", "application/x-www-form-urlencoded")),
          HttpClientRequest.post(`${server.origin}/b`).pipe(HttpClientRequest.bodyUint8Array(new TextEncoder().encode("{\"a\":1}"), "application/json"))
        ].map((request) => Effect.flatMap(client.execute(request), (response) => response.text))))
      assert.deepStrictEqual(texts, ["GRANT_TYPE=X", "{\"A\":1}"])
      assert.strictEqual(server.received[0]!.headers["content-type"], "application/x-www-form-urlencoded")
      assert.strictEqual(server.received[1]!.headers["content-type"], "application/json")
    }).pipe(Effect.scoped))

  it.live("a body read once can be read again (the transport reads it in the attempt, then decodes it)", () =>
    Effect.gen(function*() {
      const server = yield* Server.make((_, __, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end("{\"a\":1}")
      })
      const [text, again, json] = yield* withClient(layer, (client) =>
        Effect.flatMap(client.get(`${server.origin}/twice`), (response) => Effect.all([response.text, response.text, response.json])))
      assert.strictEqual(text, "{\"a\":1}")
      assert.strictEqual(again, text)
      assert.deepStrictEqual(json, { a: 1 })
    }).pipe(Effect.scoped))

  it.live("many concurrent requests: each gets its own response", () =>
    Effect.gen(function*() {
      const server = yield* Server.make((request, _, response) => {
        setTimeout(() => response.end(JSON.stringify({ id: new URL(request.url!, "http://x").searchParams.get("id") })), Math.random() * 20)
      })
      const n = options?.concurrency ?? 200
      const ids = yield* withClient(layer, (client) =>
        Effect.all(
          Array.from({ length: n }, (_, i) =>
            Effect.flatMap(client.get(`${server.origin}/echo`, { urlParams: { id: i } }), (response) => response.json)),
          { concurrency: "unbounded" }
        ))
      assert.deepStrictEqual(ids, Array.from({ length: n }, (_, i) => ({ id: String(i) })))
    }).pipe(Effect.scoped))
}

/** A 3xx: followed or not, as the client documents. */
const redirects = (layer: Layer.Layer<HttpClient.HttpClient>, options: Options | undefined): void => {
  it.live(options?.followsRedirects ? "follows a redirect" : "never follows a redirect: the 3xx is the response", () =>
    Effect.gen(function*() {
      const target = yield* Server.make((_, __, response) => response.end("{}"))
      const server = yield* Server.make((_, __, response) => {
        response.writeHead(302, { location: `${target.origin}/elsewhere` })
        response.end()
      })
      const status = yield* withClient(layer, (client) => Effect.map(client.get(`${server.origin}/moved`), (response) => response.status))
      assert.strictEqual(status, options?.followsRedirects ? 200 : 302)
      assert.strictEqual(target.received.length, options?.followsRedirects ? 1 : 0)
    }).pipe(Effect.scoped))
}

/**
 * The behaviour every `HttpClient` the SDK ships or documents must have, as
 * one vitest suite to run against each of them: requests and bodies over
 * loopback, many concurrent requests each answered with its own response, a
 * body cut after the head, a stalled body, interruption releasing the
 * connection, and redirects not followed.
 *
 * @since 0.1.0
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import * as Server from "./internal/server.ts"

/**
 * Options of {@link suite}.
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/testing/HttpClientBehaviour"
 *
 * const options: Options = { followsRedirects: false, concurrency: 200 }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Whether the client follows redirects (none of the SDK's may; `fetch` does unless told not to). */
  readonly followsRedirects?: boolean | undefined
  /** Concurrent requests of the stress test (default 200). */
  readonly concurrency?: number | undefined
}

const withClient = <A, E>(layer: Layer.Layer<HttpClient.HttpClient>, f: (client: HttpClient.HttpClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(Effect.service(HttpClient.HttpClient), f).pipe(Effect.provide(layer))

/**
 * Registers the behaviour suite for one client layer.
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
    redirects(layer, options)
  })
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

/** Requests that do not complete: a cut body, a stalled body, an interrupt before the head. */
const failures = (layer: Layer.Layer<HttpClient.HttpClient>): void => {

  it.live("a body cut after the head: the status is known, reading the body fails", () =>
    Effect.gen(function*() {
      const server = yield* Server.make((_, __, response) => {
        response.writeHead(200, { "content-type": "application/json", "content-length": "100" })
        response.write("{\"partial\":")
        setTimeout(() => response.socket?.destroy(), 20)
      })
      const [status, body] = yield* withClient(layer, (client) =>
        Effect.flatMap(client.get(`${server.origin}/cut`), (response) => Effect.map(Effect.exit(response.text), (body) => [response.status, body] as const)))
      assert.strictEqual(status, 200)
      assert.isTrue(Exit.isFailure(body))
    }).pipe(Effect.scoped))

  it.live("a stalled body: a timeout around the read ends it and releases the connection", () =>
    Effect.gen(function*() {
      const server = yield* Server.make((_, __, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.write("{")
      })
      const outcome = yield* withClient(layer, (client) =>
        Effect.flatMap(client.get(`${server.origin}/stall`), (response) => response.text).pipe(Effect.timeoutOption("200 millis")))
      assert.isTrue(outcome._tag === "None")
      yield* Effect.promise(() => server.received[0]!.closed)
    }).pipe(Effect.scoped))

  it.live("interrupting a request before its head releases the connection", () =>
    Effect.gen(function*() {
      const server = yield* Server.make(() => {})
      yield* withClient(layer, (client) =>
        Effect.gen(function*() {
          const fiber = yield* Effect.forkChild(client.get(`${server.origin}/never`))
          while (server.received.length === 0) yield* Effect.sleep("5 millis")
          const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
          assert.isTrue(Exit.hasInterrupts(exit))
        }))
      yield* Effect.promise(() => server.received[0]!.closed)
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

/**
 * A `transformClient` that fails a response on its status
 * (`HttpClient.filterStatusOk`: a `StatusCodeError` carrying the response)
 * does not turn it into a connection failure: the response is the attempt's,
 * its hooks run and its status decides (a 404 a `NotFound` at once, a 500 a
 * `Server`, retried). Small `node:http` servers on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import type { HttpClientResponse } from "effect/http"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import type { ServiceReason } from "@connected-vehicle/schema/ServiceReason"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { flipReason, server } from "./utils.ts"

const envelope = (status: number, type: string, code: string, title: string) =>
  JSON.stringify({ errors: [{ status: String(status), type, code, title, detail: `a ${status}` }] })

/** Answers every request with `status` and the section 7 envelope of it, with a request id. */
const answering = (status: number, type: string, code: string, title: string) =>
  server((_, response) => {
    response.writeHead(status, { "content-type": "application/json", "x-request-id": `req-${status}` })
    response.end(envelope(status, type, code, title))
  })

const filtered = (origin: string, httpClient: Layer.Layer<HttpClient.HttpClient>) =>
  Layer.mergeAll(
    Transport.layerFrom(TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 3, initialDelay: 1, maxDelay: 1 } }), {
      httpClient,
      transformClient: HttpClient.filterStatusOk
    }),
    Credentials.layerStatic(Redacted.make("the-token"))
  )

const refusing200 = (origin: string, httpClient: Layer.Layer<HttpClient.HttpClient>) =>
  Layer.mergeAll(
    Transport.layerFrom(TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 3, initialDelay: 1, maxDelay: 1 } }), {
      httpClient,
      transformClient: (client) => HttpClient.filterStatus(client, (status) => status !== 200)
    }),
    Credentials.layerStatic(Redacted.make("the-token"))
  )

const vin = (onResponse?: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<void>) =>
  Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) =>
    legacy.vin({ params: { id: "v1" } }, onResponse === undefined ? undefined : { onResponse }))

const clients = [
  ["UndiciHttpClient.layer()", UndiciHttpClient.layer()],
  ["FetchHttpClient", FetchHttpClient.layer]
] as const

describe("a transformClient's StatusCodeError is the response it carries", () => {
  for (const [name, httpClient] of clients) {
    it.live(`${name}: filterStatusOk and a 404: NotFound with its status and request id, sent once`, () =>
      Effect.gen(function*() {
        const service = yield* answering(404, "RESOURCE_NOT_FOUND", "NOT_FOUND", "Not Found")
        const error = yield* flipReason(vin().pipe(Effect.provide(filtered(service.origin, httpClient))))
        assert.strictEqual(error._tag, "NotFound")
        assert.strictEqual((error as ServiceReason).status, 404)
        assert.strictEqual((error as ServiceReason).requestId, "req-404")
        assert.strictEqual(service.requests.length, 1)
      }).pipe(Effect.scoped))

    it.live(`${name}: filterStatusOk and a 500: the onResponse hook sees each response, Server, retried`, () =>
      Effect.gen(function*() {
        const service = yield* answering(500, "SERVER", "INTERNAL_ERROR", "Internal Server Error")
        const seen: Array<number> = []
        const error = yield* flipReason(
          vin((response) => Effect.sync(() => seen.push(response.status))).pipe(Effect.provide(filtered(service.origin, httpClient)))
        )
        assert.strictEqual(error._tag, "Server")
        assert.strictEqual((error as ServiceReason).status, 500)
        assert.strictEqual((error as ServiceReason).requestId, "req-500")
        assert.strictEqual(service.requests.length, 3)
        assert.deepStrictEqual(seen, [500, 500, 500])
      }).pipe(Effect.scoped))
    it.live(`${name}: a 2xx the transformClient refuses is an UnexpectedStatus with its status, not a success, sent once; onResponse sees it`, () =>
      Effect.gen(function*() {
        const service = yield* server((_, response) => {
          response.writeHead(200, { "content-type": "application/json", "x-request-id": "req-200" })
          response.end(JSON.stringify({ id: "v1", vin: "1HGCM82633A004352" }))
        })
        const seen: Array<number> = []
        const error = yield* flipReason(vin((response) => Effect.sync(() => seen.push(response.status))).pipe(Effect.provide(refusing200(service.origin, httpClient))))
        assert.strictEqual(error._tag, "UnexpectedStatus")
        assert.strictEqual((error as { readonly status?: number }).status, 200)
        assert.strictEqual((error as { readonly requestId?: string }).requestId, "req-200")
        assert.strictEqual(service.requests.length, 1)
        // a response like any other: the onResponse hook saw it
        assert.deepStrictEqual(seen, [200])
      }).pipe(Effect.scoped))
  }
})

/**
 * A client that marks its responses' text as strict UTF-8
 * (`StrictUtf8.markStrictUtf8`, as `UndiciHttpClient` does) is taken at its
 * word: a U+FFFD in the text is the body's own, its bytes not read again; and
 * `UndiciHttpClient` keeps one copy of a body at most. A `node:http` server
 * on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientRequest, HttpClientResponse } from "effect/http"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import { isMarkedStrictUtf8, markStrictUtf8, symbol } from "@connected-vehicle/transport/StrictUtf8"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import type { ExchangeResponse } from "../src/internal/exchange.ts"
import { server } from "./utils.ts"

const replacement = "AB\ufffdC"

const answering = (status: number) =>
  server((_, response) => {
    response.writeHead(status, { "content-type": "application/json" })
    response.end(status < 300
      ? JSON.stringify({ vin: replacement })
      : JSON.stringify({ errors: [{ status: String(status), type: "SERVER", code: "INTERNAL_ERROR", title: "Internal", detail: replacement }] }))
  })

/** `legacy.vin` on undici, each response's `arrayBuffer` reads counted (an `onResponse` hook wraps the getter of the very response). */
const vinCounting = (origin: string, reads: { n: number }) =>
  Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) =>
    legacy.vin({ params: { id: "v1" } }, {
      onResponse: (response) =>
        Effect.sync(() => {
          const read = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(response), "arrayBuffer")!.get!
          Object.defineProperty(response, "arrayBuffer", { get: () => (reads.n++, read.call(response)) })
        })
    })).pipe(
      Effect.provide(Layer.mergeAll(
        Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), UndiciHttpClient.layer()])),
        Credentials.layerStatic(Redacted.make("the-token"))
      ))
    )

describe("StrictUtf8", () => {
  it("marks a response", () => {
    const response = HttpClientResponse.fromWeb(HttpClientRequest.get("http://127.0.0.1:1/x"), new Response("{}"))
    assert.isFalse(isMarkedStrictUtf8(response))
    markStrictUtf8(response)
    assert.isTrue(isMarkedStrictUtf8(response))
  })

  it("marks every response of a class that declares the symbol (nothing per response)", () => {
    const base = HttpClientResponse.fromWeb(HttpClientRequest.get("http://127.0.0.1:1/x"), new Response("{}"))
    const strict = Object.create(base, { [symbol]: { value: true } }) as typeof base
    const notTrue = Object.create(base, { [symbol]: { value: "yes" } }) as typeof base
    assert.isTrue(isMarkedStrictUtf8(strict))
    assert.isFalse(isMarkedStrictUtf8(notTrue))
    assert.isFalse(isMarkedStrictUtf8(base))
  })

  it.live("UndiciHttpClient: a 2xx or an error body holding U+FFFD is decoded once, its bytes not read again", () =>
    Effect.gen(function*() {
      const ok = yield* answering(200)
      const reads = { n: 0 }
      const result = yield* vinCounting(ok.origin, reads)
      assert.strictEqual(result.value.vin, replacement)
      const failing = yield* answering(500)
      const error = yield* Effect.flip(vinCounting(failing.origin, reads))
      assert.include(error._tag === "ConnectedVehicleError" && error.reason._tag === "Server" ? error.reason.detail : "", replacement)
      assert.strictEqual(reads.n, 0)
    }).pipe(Effect.scoped))

  it.live("UndiciHttpClient: arrayBuffer after text is the body, the same buffer each time, and the only copy the response keeps", () =>
    Effect.gen(function*() {
      const ok = yield* answering(200)
      const client = yield* HttpClient.HttpClient
      // with tracing (Effect's `HttpClient.make` wraps the exchange's response in its own): marked too
      assert.isTrue(isMarkedStrictUtf8(yield* client.get(`${ok.origin}/x`)))
      // without tracing (as the transport runs it): the exchange's response itself
      const response = yield* client.get(`${ok.origin}/x`).pipe(Effect.provideService(HttpClient.TracerDisabledWhen, () => true))
      assert.isTrue(isMarkedStrictUtf8(response))
      const text = yield* response.text
      const buffer = yield* response.arrayBuffer
      assert.strictEqual(new TextDecoder().decode(buffer), text)
      assert.strictEqual(yield* response.arrayBuffer, buffer)
      const exchange = (response as ExchangeResponse).exchange
      assert.strictEqual(exchange.chunks.length, 1)
      assert.strictEqual(exchange.chunks[0]!.buffer, buffer)
    }).pipe(Effect.scoped, Effect.provide(UndiciHttpClient.layer())))
})

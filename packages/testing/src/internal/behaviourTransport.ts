/**
 * The cases of the behaviour suite that go through the transport: what a
 * call makes of a body that is not UTF-8, of a body over the client's size
 * limit, and of a request that was never sent, the same on every client.
 *
 * @internal
 */
import { assert, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import type { HttpClient } from "effect/http"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import type { ServiceReason } from "@connected-vehicle/schema/ServiceReason"
import type { Connection, InvalidResponse } from "@connected-vehicle/transport/ConnectedVehicleError"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as Server from "./server.ts"

/** The failure's reason of `legacy.vin` through the transport on `layer` (two attempts at most). */
const vinError = (origin: string, layer: Layer.Layer<HttpClient.HttpClient>) =>
  Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) => legacy.vin({ params: { id: "v1" } })).pipe(
    Effect.flip,
    Effect.map(reasonOf),
    Effect.provide(Layer.mergeAll(
      Transport.layerFrom(TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 2, initialDelay: 1, maxDelay: 1 } }), { httpClient: layer }),
      Credentials.layerStatic(Redacted.make("the-token"))
    ))
  )

/** `{"vin":"AB\xff\xfeC"}`: JSON whose string holds two bytes that are not UTF-8. */
const notUtf8 = Buffer.concat([Buffer.from("{\"vin\":\"AB"), Buffer.from([0xff, 0xfe]), Buffer.from("C\"}")])

/** @internal */
export const transportOutcomes = (layer: Layer.Layer<HttpClient.HttpClient>, maxResponseBytes: number | undefined): void => {
  it.live("through the transport, a 2xx body that is not UTF-8: an InvalidResponse saying so (not its schema), sent once", () =>
    Effect.gen(function*() {
      const server = yield* Server.make((_, __, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(notUtf8)
      })
      const error = yield* vinError(server.origin, layer)
      assert.strictEqual(error._tag, "InvalidResponse")
      assert.strictEqual((error as InvalidResponse).description, "the body is not UTF-8")
      assert.include(error.message, "not UTF-8")
      assert.notInclude(error.message, "schema")
      assert.strictEqual(server.received.length, 1)
    }).pipe(Effect.scoped))

  it.live("through the transport, an error body that is not UTF-8: the reason of its status, its detail saying so, retried as the status says", () =>
    Effect.gen(function*() {
      const server = yield* Server.make((_, __, response) => {
        response.writeHead(500, { "content-type": "application/json" })
        response.end(notUtf8)
      })
      const error = yield* vinError(server.origin, layer)
      assert.strictEqual(error._tag, "Server")
      assert.include((error as ServiceReason).detail, "not UTF-8")
      assert.notInclude(JSON.stringify(error), "\ufffd")
      assert.strictEqual(server.received.length, 2)
    }).pipe(Effect.scoped))

  if (maxResponseBytes !== undefined && maxResponseBytes !== Number.POSITIVE_INFINITY) {
    it.live("through the transport, a 2xx body over the client's size limit: an InvalidResponse naming the limit, sent once", () =>
      Effect.gen(function*() {
        const server = yield* Server.make((_, __, response) => {
          response.writeHead(200, { "content-type": "application/json" })
          response.end(`{"vin":"${"x".repeat(maxResponseBytes)}"}`)
        })
        const error = yield* vinError(server.origin, layer)
        assert.strictEqual(error._tag, "InvalidResponse")
        assert.include((error as InvalidResponse).description, `limit of ${maxResponseBytes} bytes`)
        assert.notInclude(error.message, "schema")
        assert.strictEqual(server.received.length, 1)
      }).pipe(Effect.scoped))
  }

  it.live("through the transport, a connection refused: a Connection saying nothing was sent (sent: false)", () =>
    Effect.gen(function*() {
      const origin = yield* Server.refusedOrigin
      const error = yield* vinError(origin, layer)
      assert.strictEqual(error._tag, "Connection")
      assert.strictEqual((error as Connection).sent, false)
    }))
}

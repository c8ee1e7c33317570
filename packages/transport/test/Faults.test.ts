import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import type { HttpClient } from "effect/http"
import { NodeHttpClient } from "@effect/platform-node"
import { VehicleApi } from "@connected-vehicle/schema/Api"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import { layerFetch } from "@connected-vehicle/transport/internal/http"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import type { Connection, UnexpectedStatus } from "@connected-vehicle/transport/ConnectedVehicleError"
import { flipReason } from "./utils.ts"

/** A server on 127.0.0.1 (free port) that answers with `handler` and counts its requests; closed with the scope. */
const server = (handler: (request: IncomingMessage, response: ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly origin: string; readonly requests: Array<IncomingMessage> }>((resume) => {
      const requests: Array<IncomingMessage> = []
      const s = createServer((request, response) => {
        requests.push(request)
        handler(request, response)
      })
      s.listen(0, "127.0.0.1", () => {
        const { port } = s.address() as AddressInfo
        resume(Effect.succeed(Object.assign({ origin: `http://127.0.0.1:${port}`, requests }, { close: () => s.close() })))
      })
    }),
    (s) => Effect.sync(() => (s as unknown as { close: () => void }).close())
  )

const transportOn = (origin: string, httpClient: Layer.Layer<HttpClient.HttpClient>) =>
  Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("the-token"))).pipe(
    Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), httpClient])
  )

const getSignal = (vehicleId: string) =>
  Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
    signals.get({ params: { vehicleId, signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } }))

const clients = [
  ["NodeHttpClient.layerUndici", NodeHttpClient.layerUndici],
  ["Transport.layerHttpClient", Transport.layerHttpClient],
  ["fetch (layerHttpClient off Node)", layerFetch]
] as const

describe("faults every HttpClient must handle the same", () => {
  for (const [name, httpClient] of clients) {
    it.live(`${name}: a redirect is refused, with its location, and its target is never asked`, () =>
      Effect.gen(function*() {
        const elsewhere = yield* server((_, response) => response.end("{}"))
        const service = yield* server((_, response) => {
          response.writeHead(302, { location: `${elsewhere.origin}/steal?token=x` })
          response.end()
        })
        const error = yield* flipReason(getSignal("v-1").pipe(Effect.provide(transportOn(service.origin, httpClient))))
        assert.strictEqual(error._tag, "UnexpectedStatus")
        assert.strictEqual((error as UnexpectedStatus).status, 302)
        assert.strictEqual((error as UnexpectedStatus).location, `${elsewhere.origin}/steal?token=x`)
        assert.include(error.message, "refused")
        assert.strictEqual(service.requests.length, 1)
        assert.strictEqual(elsewhere.requests.length, 0)
      }).pipe(Effect.scoped))

    it.live(`${name}: an id with a lone surrogate is an InvalidArgument, and nothing is sent`, () =>
      Effect.gen(function*() {
        const service = yield* server((_, response) => response.end("{}"))
        for (const vehicleId of ["a\ud800b", "a\udc00", "\ud800"]) {
          const error = yield* flipReason(getSignal(vehicleId).pipe(Effect.provide(transportOn(service.origin, httpClient))))
          assert.strictEqual(error._tag, "InvalidArgument")
          assert.include(error.message, "vehicleId")
        }
        // a well-formed pair is an ordinary character
        yield* Effect.exit(getSignal("a\ud83d\ude97b").pipe(Effect.provide(transportOn(service.origin, httpClient))))
        assert.strictEqual(service.requests.length, 1)
        assert.include(service.requests[0]!.url, "a%F0%9F%9A%97b")
      }).pipe(Effect.scoped))

    it.live(`${name}: a refused connection names its cause`, () =>
      Effect.gen(function*() {
        const closed = yield* server(() => {})
        const origin = closed.origin
        ;(closed as unknown as { close: () => void }).close()
        const error = yield* flipReason(getSignal("v-1").pipe(Effect.provide(transportOn(origin, httpClient))))
        assert.strictEqual(error._tag, "Connection")
        assert.include((error as Connection).description, "ECONNREFUSED")
      }).pipe(Effect.scoped))
  }
})

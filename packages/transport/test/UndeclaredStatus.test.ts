/**
 * A 2xx the contract does not declare for the endpoint (a 202 or a 206 where
 * only a 200 is) is an `UnexpectedStatus`, decided from the contract's
 * declared statuses (never from the text of Effect's error messages), not
 * retried. A `node:http` server on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ServerResponse } from "node:http"
import { Effect, Layer, Redacted } from "effect"
import { VehicleApi } from "@connected-vehicle/schema/Api"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import type { UnexpectedStatus } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { signalResponse } from "./signals.ts"
import { flipReason, server } from "./utils.ts"

describe("a 2xx the contract does not declare is an UnexpectedStatus, from the contract", () => {
  for (const status of [202, 206]) {
    it.live(`signals.get answered ${status} with a valid body: UnexpectedStatus ${status}, not retried`, () =>
      Effect.gen(function*() {
        const service = yield* server((_, response) => {
          response.writeHead(status, { "content-type": "application/json", "x-request-id": "req-2xx" })
          response.end(JSON.stringify(signalResponse))
        })
        const layer = Layer.mergeAll(
          Transport.layerFrom(TransportConfig.layerOrigin(service.origin), { httpClient: UndiciHttpClient.layer() }),
          Credentials.layerStatic(Redacted.make("the-token"))
        )
        const error = yield* flipReason(
          Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
            signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } })).pipe(Effect.provide(layer))
        )
        assert.strictEqual(error._tag, "UnexpectedStatus")
        assert.strictEqual((error as UnexpectedStatus).status, status)
        assert.strictEqual((error as UnexpectedStatus).requestId, "req-2xx")
        assert.strictEqual(service.requests.length, 1)
      }).pipe(Effect.scoped))
  }

  // decided at the head: a body that stalls, is cut or is not UTF-8 is not read, not retried, not misnamed
  for (const [what, answer] of [
    ["a body that stalls", (response: ServerResponse) => response.write("{")],
    ["a body cut short", (response: ServerResponse) => {
      // the head first (a cut in the same packet fails the request before any head, on any status)
      response.write("{\"data\":")
      setTimeout(() => response.socket?.destroy(), 50)
    }],
    ["a body that is not UTF-8", (response: ServerResponse) => response.end(Buffer.from([0x7b, 0xff, 0x7d]))]
  ] as const) {
    it.live(`signals.get answered 202 with ${what}: UnexpectedStatus at the head, one request`, () =>
      Effect.gen(function*() {
        const service = yield* server((_, response) => {
          response.writeHead(202, { "content-type": "application/json", "x-request-id": "req-head" })
          answer(response)
        })
        const layer = Layer.mergeAll(
          Transport.layerFrom(TransportConfig.layerOrigin(service.origin), { httpClient: UndiciHttpClient.layer() }),
          Credentials.layerStatic(Redacted.make("the-token"))
        )
        const started = Date.now()
        const error = yield* flipReason(
          Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
            signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } }, {
              timeout: "2 seconds",
              retry: { maxAttempts: 3, initialDelay: 1 }
            })).pipe(Effect.provide(layer))
        )
        assert.strictEqual(error._tag, "UnexpectedStatus")
        assert.strictEqual((error as UnexpectedStatus).status, 202)
        assert.strictEqual(service.requests.length, 1)
        // not the attempt's timeout: the stalled body was not waited for
        assert.isBelow(Date.now() - started, 1_900)
      }).pipe(Effect.scoped))
  }
})

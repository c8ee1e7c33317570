/**
 * A request undici refuses to build (a header value it cannot send: a
 * character outside Latin-1, a line break) is an `InvalidRequest`: nothing
 * was sent, and it is not retried (sending it again cannot help), rather
 * than a connection failure retried with backoff.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { HttpClient } from "effect/http"
import { VehicleApi } from "@connected-vehicle/schema/Api"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { flipReason, server } from "./utils.ts"

describe("UndiciHttpClient: a header value undici refuses", () => {
  for (const token of ["tok\u2713en", "abc\r\nx-evil: 1"]) {
    it.live(`a bearer ${JSON.stringify(token)}: an InvalidRequest naming the header (not its value), sent once to the client, nothing to the service`, () =>
      Effect.gen(function*() {
        const service = yield* server((_, response) => response.end("{}"))
        let given = 0
        const layer = Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make(token))).pipe(Layer.provide([
          TransportConfig.layerOrigin(service.origin, { retry: { maxAttempts: 4, initialDelay: "1 millis", maxDelay: "5 millis" } }),
          Layer.effect(HttpClient.HttpClient, Effect.map(Effect.service(HttpClient.HttpClient), HttpClient.tapRequest(() => Effect.sync(() => given++)))).pipe(
            Layer.provide(UndiciHttpClient.layer())
          )
        ]))
        const error = yield* flipReason(Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
          signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } })).pipe(Effect.provide(layer)))
        assert.strictEqual(error._tag, "InvalidRequest")
        assert.include(error.message, "authorization")
        assert.notInclude(error.message, token)
        assert.strictEqual(given, 1)
        assert.strictEqual(service.requests.length, 0)
      }).pipe(Effect.scoped))
  }
})

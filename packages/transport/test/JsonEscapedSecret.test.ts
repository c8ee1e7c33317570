/**
 * A server that echoes the request's bearer JSON-escaped (`\u0073` for an
 * `s`), in the request-id header or escaped once more than its JSON in an
 * error body: over a real loopback server, the error carries neither the
 * token nor a spelling of it one unescape away.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { VehicleApi } from "@connected-vehicle/schema/Api"
import type { ServiceReason } from "@connected-vehicle/schema/ServiceReason"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "../src/UndiciHttpClient.ts"
import { server } from "./utils.ts"

const token = "tokAPPsecret7781"

/** The token with each `s` written as `\u0073`, its backslashes `times` times escaped as JSON escapes them. */
const escaped = (times: number) => {
  let backslash = "\\"
  for (let k = 0; k < times; k++) backslash = backslash.replaceAll("\\", "\\\\")
  return token.replaceAll("s", `${backslash}u0073`)
}

const getSignal = (origin: string) =>
  Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
    signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } })).pipe(
      Effect.provide(Layer.mergeAll(
        Transport.layerFrom(TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), { httpClient: UndiciHttpClient.layer() }),
        Credentials.layerStatic(Redacted.make(token))
      )),
      Effect.flip
    )

const assertNoToken = (error: unknown) => {
  const shown = `${JSON.stringify(reasonOf(error as never))} ${(error as Error).message}`
  for (const spelling of [token, escaped(0), escaped(1)]) assert.notInclude(shown, spelling)
  // what a reader gets after unescaping what the error shows, once or twice
  let text = shown
  for (let k = 0; k < 2; k++) {
    text = text.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))).replaceAll("\\\\", "\\")
    assert.notInclude(text, token)
  }
}

describe("a secret JSON-escaped by the server", () => {
  it.live("in the request-id header (`tokAPP\\u0073ecret7781`, and escaped twice): the request id is redacted", () =>
    Effect.gen(function*() {
      for (const times of [0, 1]) {
        const service = yield* server((request, response) => {
          request.resume()
          request.on("end", () => {
            response.writeHead(404, { "content-type": "application/json", "x-request-id": escaped(times) })
            response.end(JSON.stringify({ errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "t", detail: "d" }] }))
          })
        })
        const error = yield* getSignal(service.origin)
        assert.strictEqual(reasonOf(error)._tag, "NotFound")
        assert.strictEqual((reasonOf(error) as ServiceReason).requestId, "<redacted>")
        assertNoToken(error)
      }
    }).pipe(Effect.scoped))

  it.live("in an error's detail escaped once more than its JSON (`\\\\u0073` in the body): the detail is redacted", () =>
    Effect.gen(function*() {
      for (const times of [1, 2]) {
        const detail = `echo: Bearer ${escaped(times - 1)}`
        const service = yield* server((request, response) => {
          request.resume()
          request.on("end", () => {
            response.writeHead(404, { "content-type": "application/json" })
            response.end(JSON.stringify({ errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "t", detail }] }))
          })
        })
        const error = yield* getSignal(service.origin)
        const reason = reasonOf(error) as ServiceReason
        assert.strictEqual(reason._tag, "NotFound")
        // the header as sent (`Bearer ...`) is a secret too
        assert.strictEqual(reason.detail, "echo: <redacted>")
        assertNoToken(error)
      }
    }).pipe(Effect.scoped))
})

/**
 * The entries of a batch over a real connection: a `node:http` server on
 * 127.0.0.1 answers `POST /v2.0/vehicles/veh_1/batch`. An entry's request id
 * and error envelope never show the request's credential the server echoed
 * into them (the transport scrubs the batch body, as it does an error body);
 * an entry's `Retry-After` is read as a response's own: repeated values give
 * the longest wait, an HTTP date is measured from the batch response's `Date`.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Redacted, Result } from "effect"
import { createServer } from "node:http"
import type { IncomingMessage, Server } from "node:http"
import type { AddressInfo } from "node:net"
import { makeEnvelope } from "@connected-vehicle/schema/ServiceError"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import * as Vehicles from "../src/Vehicles.ts"

const token = "at-0123456789-secret"

/** The batch body and headers the server answers with, given the request. */
let answer: (request: IncomingMessage) => { readonly headers?: Record<string, string>; readonly body: unknown }

let server: Server
let origin = ""
beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume()
    request.on("end", () => {
      const { body, headers } = answer(request)
      response.writeHead(200, { "content-type": "application/json", ...headers })
      response.end(JSON.stringify(body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const batch = <const P extends Parameters<Vehicles.Vehicles["Service"]["batch"]>[1][number]>(paths: readonly [P, ...Array<P>]) =>
  Effect.flatMap(Effect.service(Vehicles.Vehicles), (vehicles) => vehicles.batch("veh_1", paths)).pipe(
    Effect.provide(Vehicles.layer({ deprecationWarnings: "off" }).pipe(Layer.provide([
      Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), UndiciHttpClient.layer()])),
      Credentials.layerStatic(Redacted.make(token))
    ])))
  )

describe("legacy batch entries over a connection", () => {
  it.live("an entry's request id and envelope echoing the credential: redacted; the other fields as sent", () =>
    Effect.gen(function*() {
      answer = (request) => {
        const authorization = request.headers.authorization ?? ""
        return {
          body: {
            responses: [
              { path: "/odometer", code: 200, body: { distance: 12.5 }, headers: { "sc-unit-system": "metric", "x-request-id": `echo ${authorization}` } },
              { path: "/vin", code: 404, body: makeEnvelope("RESOURCE_NOT_FOUND", `no vehicle for ${authorization}`), headers: { "x-request-id": `echo ${authorization}` } }
            ]
          }
        }
      }
      const result = yield* batch(["/odometer", "/vin"])
      const odometer = result["/odometer"]
      assert.isTrue(Result.isSuccess(odometer))
      if (Result.isSuccess(odometer)) {
        assert.strictEqual(odometer.success.value.distance, 12.5)
        assert.strictEqual(odometer.success.requestId, "echo <redacted>")
      }
      const vin = result["/vin"]
      assert.isTrue(Result.isFailure(vin))
      if (Result.isFailure(vin)) {
        const reason = vin.failure.reason
        assert.strictEqual(reason._tag, "NotFound")
        assert.strictEqual(vin.failure.requestId, "echo <redacted>")
        if (reason._tag === "NotFound") assert.strictEqual(reason.detail, "no vehicle for <redacted>")
        assert.notInclude(JSON.stringify(vin.failure), token)
        assert.notInclude(vin.failure.message, token)
      }
    }))

  it.live("a batch without secrets in it decodes as the server wrote it", () =>
    Effect.gen(function*() {
      answer = () => ({
        body: {
          responses: [
            { path: "/odometer", code: 200, body: { distance: 7 }, headers: { "sc-unit-system": "metric", "x-request-id": "req-odo" } },
            { path: "/vin", code: 404, body: makeEnvelope("RESOURCE_NOT_FOUND", "no vehicle veh_1"), headers: { "x-request-id": "req-vin" } }
          ]
        }
      })
      const result = yield* batch(["/odometer", "/vin"])
      const odometer = result["/odometer"]
      assert.deepStrictEqual(Result.isSuccess(odometer) ? [odometer.success.value.distance, odometer.success.requestId] : [], [7, "req-odo"])
      const vin = result["/vin"]
      const reason = Result.isFailure(vin) ? vin.failure.reason : undefined
      assert.deepStrictEqual(reason?._tag === "NotFound" ? [reason.detail, reason.requestId] : [], ["no vehicle veh_1", "req-vin"])
    }))

  /** The `retryAfter` of the `/odometer` entry, a 429 with `retry-after`, in a batch answered with `headers`. */
  const waitOf = (retryAfter: string, headers?: Record<string, string>, entryHeaders: Record<string, string> = {}) =>
    Effect.gen(function*() {
      answer = () => ({
        ...(headers === undefined ? {} : { headers }),
        body: {
          responses: [{
            path: "/odometer",
            code: 429,
            body: makeEnvelope("RATE_LIMIT", "slow down"),
            headers: Object.keys(entryHeaders).some((name) => name.toLowerCase() === "retry-after") ? entryHeaders : { "retry-after": retryAfter, ...entryHeaders }
          }]
        }
      })
      const entry = (yield* batch(["/odometer"]))["/odometer"]
      const reason = Result.isFailure(entry) ? entry.failure.reason : undefined
      return reason?._tag === "RateLimit" && reason.retryAfter !== undefined ? Duration.toMillis(reason.retryAfter) : undefined
    })

  it.live("an entry's Retry-After sent twice: the longest of its values", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* waitOf("2, 5"), 5000)
    }))

  it.live("an entry's HTTP-date Retry-After: measured from the batch response's Date", () =>
    Effect.gen(function*() {
      // the server's clock an hour behind the local one: the wait is 30 seconds, not zero
      const serverNow = Math.floor(Date.now() / 1000) * 1000 - 3_600_000
      assert.strictEqual(yield* waitOf(new Date(serverNow + 30_000).toUTCString(), { date: new Date(serverNow).toUTCString() }), 30_000)
      // an entry's own date that is not an HTTP date: the batch's is used
      for (const date of ["garbage", ""]) {
        assert.strictEqual(yield* waitOf(new Date(serverNow + 30_000).toUTCString(), { date: new Date(serverNow).toUTCString() }, { date }), 30_000, date)
      }
    }))

  it.live("an entry's header names in any case: read as a response's own are", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* waitOf("", undefined, { "Retry-After": "30" }), 30_000)
    }))
})

/**
 * The `Retry-After` of any error status (not only a 429): kept by the
 * reason, reported by `error.retryAfter`, and waited (at least) before the
 * next attempt, within the call's budget. Small `node:http` servers on
 * 127.0.0.1 for the bodies the simulator does not send (its scripted faults:
 * `tests/integration/transport/RetryAfterStatus.test.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Redacted } from "effect"
import { NodeHttpClient } from "@effect/platform-node"
import { AuthorizationApi, VehicleApi } from "@connected-vehicle/schema/Api"
import type { ServiceReason } from "@connected-vehicle/schema/ServiceReason"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import type { OAuth, Timeout } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { fast, flipReason, server } from "./utils.ts"

const millis = (d: Duration.Duration | undefined) => d === undefined ? undefined : Duration.toMillis(d)

const on = (origin: string, options?: Omit<TransportConfig.Options, "roots">) =>
  Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("the-token"))).pipe(
    Layer.provide([TransportConfig.layerOrigin(origin, options), NodeHttpClient.layerUndici])
  )

const getSignal = Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
  signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } }))

describe("Retry-After of any error status", () => {
  it.live("a 503 without the envelope (Server) keeps its Retry-After and is retried after it", () =>
    Effect.gen(function*() {
      let n = 0
      const service = yield* server((_, response) => {
        if (n++ === 0) {
          response.writeHead(503, { "content-type": "text/plain", "retry-after": "1" })
          response.end("busy")
        } else {
          response.writeHead(502, { "content-type": "text/html", "retry-after": "1" })
          response.end("<html>bad gateway</html>")
        }
      })
      const start = Date.now()
      const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, { retry: { ...fast.retry, maxAttempts: 2 } }))))
      assert.isAtLeast(Date.now() - start, 1_000)
      assert.strictEqual(error._tag, "Upstream")
      assert.strictEqual((error as ServiceReason).status, 502)
      assert.strictEqual(millis((error as ServiceReason).retryAfter), 1_000)
      assert.strictEqual(service.requests.length, 2)
    }).pipe(Effect.scoped), 10_000)

  it.live("an error response whose body stalls: the Timeout keeps the status and the Retry-After of its head", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(503, { "content-type": "application/json", "retry-after": "7" })
        response.write("{\"errors\":")
      })
      const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, { timeout: 200, retry: { maxAttempts: 1 } }))))
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual((error as Timeout).status, 503)
      assert.strictEqual(millis((error as Timeout).retryAfter), 7_000)
    }).pipe(Effect.scoped))

  it.live("a non-retryable 404 keeps its Retry-After and is not retried", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(404, { "content-type": "application/json", "retry-after": "1" })
        response.end(JSON.stringify({
          errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail: "no such vehicle" }]
        }))
      })
      const error = yield* Effect.flip(getSignal.pipe(Effect.provide(on(service.origin, fast))))
      assert.strictEqual(error._tag === "ConnectedVehicleError" ? error.reason._tag : error._tag, "NotFound")
      assert.strictEqual(millis(error._tag === "ConnectedVehicleError" ? error.retryAfter : undefined), 1_000)
      assert.strictEqual(service.requests.length, 1)
    }).pipe(Effect.scoped))

  it.live("an OAuth error body is the token endpoint's OAuth reason, with or without an errors member of any shape; the envelope alone is the envelope's", () =>
    Effect.gen(function*() {
      const envelope = { errors: [{ status: "400", type: "VALIDATION", code: "BAD_REQUEST", title: "Bad Request", detail: "bad" }] }
      const bodies: ReadonlyArray<readonly [unknown, string]> = [
        [{ error: "invalid_grant", error_description: "revoked" }, "OAuth"],
        [{ error: "invalid_grant", error_description: "revoked", ...envelope }, "OAuth"],
        [{ error: "invalid_grant", error_description: "revoked", errors: [] }, "OAuth"],
        [{ error: "invalid_grant", errors: "not a list" }, "OAuth"],
        [envelope, "Validation"],
        [{ message: "neither" }, "Validation"]
      ]
      const token = Effect.flatMap(Transport.publicClient(AuthorizationApi, "oauth"), (oauth) =>
        oauth.token({ headers: { authorization: "Basic Yzpz" }, payload: { grant_type: "refresh_token", refresh_token: "r-1" } }))
      for (const [body, tag] of bodies) {
        const service = yield* server((_, response) => {
          response.writeHead(400, { "content-type": "application/json" })
          response.end(JSON.stringify(body))
        })
        const layer = on(service.origin, { retry: { maxAttempts: 1 } })
        const error = yield* flipReason(token.pipe(Effect.provide(layer)))
        assert.strictEqual(error._tag, tag, JSON.stringify(body))
        if (tag === "OAuth") assert.strictEqual((error as OAuth).error, "invalid_grant")
        // the service's endpoints read no OAuth body: the envelope, else the status
        assert.strictEqual((yield* flipReason(getSignal.pipe(Effect.provide(layer))))._tag, "Validation", JSON.stringify(body))
        service.close()
      }
    }).pipe(Effect.scoped))
})

describe("Retry-After on the server's clock, repeated headers", () => {
  /** A 503 whose `Date` is the server's clock, `skew` ms off the local one, asking for a retry 1 s later by date. */
  const skewed = (skew: number) => (response: import("node:http").ServerResponse) => {
    const serverNow = Math.floor((Date.now() + skew) / 1000) * 1000
    response.writeHead(503, { "content-type": "text/plain", date: new Date(serverNow).toUTCString(), "retry-after": new Date(serverNow + 1_000).toUTCString() })
    response.end("busy")
  }

  it.live("an HTTP-date Retry-After is measured from the response's Date: a server clock 2 h ahead or behind still means 1 s, waited", () =>
    Effect.gen(function*() {
      for (const skew of [2 * 3600_000, -2 * 3600_000]) {
        const service = yield* server((_, response) => skewed(skew)(response))
        const start = Date.now()
        const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, { retry: { ...fast.retry, maxAttempts: 2 } }))))
        const elapsed = Date.now() - start
        assert.strictEqual(error._tag, "Server")
        assert.strictEqual(millis((error as ServiceReason).retryAfter), 1_000, String(skew))
        assert.strictEqual(service.requests.length, 2)
        assert.isAtLeast(elapsed, 1_000)
        assert.isBelow(elapsed, 5_000)
        service.close()
      }
    }).pipe(Effect.scoped), 20_000)

  it.live("the token endpoint's Retry-After is read the same way (its server's Date)", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => skewed(2 * 3600_000)(response))
      const token = Effect.flatMap(Transport.publicClient(AuthorizationApi, "oauth"), (oauth) =>
        oauth.token({ headers: { authorization: "Basic Yzpz" }, payload: { grant_type: "client_credentials" } }))
      const error = yield* flipReason(token.pipe(Effect.provide(on(service.origin, { retry: { maxAttempts: 1 } }))))
      assert.strictEqual(millis((error as ServiceReason).retryAfter), 1_000)
    }).pipe(Effect.scoped))

  it.live("a Retry-After sent twice gives the longest valid wait; a request id sent twice its first value", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, number]> = [
        [["1", "2"], 2_000],
        [["2", "soon"], 2_000],
        [[new Date(Date.now() + 60_000).toUTCString(), "1"], 60_000]
      ]
      for (const [values, expected] of cases) {
        const service = yield* server((_, response) => {
          response.setHeader("retry-after", [...values])
          response.setHeader("x-request-id", ["a1", "b2"])
          response.writeHead(503, { "content-type": "text/plain" })
          response.end("busy")
        })
        const error = (yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, { retry: { maxAttempts: 1 } }))))) as ServiceReason
        assert.strictEqual(error._tag, "Server")
        // a date is measured to the second
        assert.approximately(millis(error.retryAfter)!, expected, 1_000, values.join(" | "))
        assert.strictEqual(error.requestId, "a1")
        service.close()
      }
    }).pipe(Effect.scoped))
})


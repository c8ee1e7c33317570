/**
 * `Credentials.tokenBy` / `refreshBy`: the transport tells the credential
 * when the attempt's wait for it ends (its timeout, cut to what is left of
 * the call's budget), and a credential that fails at once with why fails the
 * call at once with that error, not with a timeout. Over loopback.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { VehicleApi } from "@connected-vehicle/schema/Api"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import { ConnectedVehicleError, Credentials as CredentialsReason } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { signalResponse } from "./signals.ts"
import { flipReason, server } from "./utils.ts"
import * as UndiciHttpClient from "../src/UndiciHttpClient.ts"

const transportWith = (origin: string, credentials: Credentials.Credentials["Service"]) =>
  Layer.mergeAll(Transport.layer, Layer.succeed(Credentials.Credentials, credentials)).pipe(
    Layer.provide([TransportConfig.layerOrigin(origin), UndiciHttpClient.layer()])
  )

const callWith = (options: Transport.CallOptions) =>
  Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
    signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } }, options))

const late = new ConnectedVehicleError({ reason: new CredentialsReason({ description: "RateLimit: 429 slow_down: the renewal waits", status: 429 }) })

describe("Credentials.tokenBy / refreshBy", () => {
  it.live("tokenBy is told when the attempt's wait ends (its timeout, or the budget it is cut to), and its failure is the call's at once", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => response.end("{}"))
      for (const [options, limit] of [[{ timeout: "2 seconds" }, 2_000], [{ timeout: "5 seconds", retry: { maxElapsed: "1500 millis" } }, 1_500]] as const) {
        const deadlines: Array<number> = []
        const started = Date.now()
        const error = yield* flipReason(callWith(options).pipe(Effect.provide(transportWith(service.origin, {
          token: Effect.never,
          refresh: () => Effect.succeed(false),
          tokenBy: (deadline) => Effect.suspend(() => (deadlines.push(deadline), Effect.fail(late)))
        }))))
        assert.strictEqual(error, late.reason)
        assert.isBelow(Date.now() - started, 500)
        assert.strictEqual(deadlines.length, 1)
        assert.isTrue(deadlines[0]! - started >= limit - 50 && deadlines[0]! - started <= limit + 200, `${deadlines[0]! - started} for ${limit}`)
      }
      assert.strictEqual(service.requests.length, 0)
    }).pipe(Effect.scoped))

  it.live("a 401's refresh goes through refreshBy, told the rejected token and the wait's end", () =>
    Effect.gen(function*() {
      const service = yield* server((request, response) => {
        const ok = request.headers.authorization === "Bearer token-2"
        response.writeHead(ok ? 200 : 401, { "content-type": "application/json" })
        response.end(ok ? JSON.stringify(signalResponse) : JSON.stringify({ error: "unauthorized" }))
      })
      let current = "token-1"
      const refreshed: Array<readonly [string, number]> = []
      const started = Date.now()
      const result = yield* callWith({ timeout: "3 seconds" }).pipe(Effect.provide(transportWith(service.origin, {
        token: Effect.die("token, not tokenBy"),
        refresh: () => Effect.die("refresh, not refreshBy"),
        tokenBy: () => Effect.sync(() => Redacted.make(current)),
        refreshBy: (rejected, deadline) =>
          Effect.sync(() => {
            refreshed.push([Redacted.value(rejected), deadline - started])
            current = "token-2"
            return true
          })
      })))
      assert.strictEqual(result.status, 200)
      assert.strictEqual(refreshed.length, 1)
      assert.strictEqual(refreshed[0]![0], "token-1")
      assert.isTrue(refreshed[0]![1] >= 2_950 && refreshed[0]![1] <= 3_200, String(refreshed[0]![1]))
      assert.deepStrictEqual(service.requests.map((r) => r.headers.authorization), ["Bearer token-1", "Bearer token-2"])
    }).pipe(Effect.scoped))
})

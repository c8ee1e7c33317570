/**
 * A method a path does not serve is a 405 with `Allow` (section 7 envelope,
 * or the OAuth body under /oauth); a path no route has stays a 404. Batch
 * entries are matched like request paths (case, trailing slash, query).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { layer, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call, isEnvelope, isOAuthBody, userTokens } from "./helpers.ts"

const Loopback = Layer.mergeAll(layer({ seed: 3 }), FetchHttpClient.layer)

describe("wrong method on an existing path", () => {
  it.effect("405 with Allow and the envelope (VALIDATION, METHOD_NOT_ALLOWED)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[0]!
      const app = bearer(yield* appToken)
      const user = bearer((yield* userTokens({ userId: sim.data.connectionOf(vehicleId)!.userId })).access)
      for (
        const [method, path, headers, allow] of [
          ["POST", "/v3/connections", app, "GET, HEAD"],
          ["DELETE", "/V3/Connections/", app, "GET, HEAD"],
          ["PUT", `/v3/vehicles/${vehicleId}/signals/odometer-traveleddistance`, { ...app, "sc-user-id": "x" }, "GET, HEAD"],
          ["POST", `/v2.0/vehicles/${vehicleId}/odometer`, user, "GET, HEAD"],
          ["GET", `/v2.0/vehicles/${vehicleId}/batch`, user, "POST"]
        ] as const
      ) {
        const reply = yield* call(method, path, { headers })
        assert.strictEqual(reply.status, 405, `${method} ${path}: ${reply.text}`)
        assert.strictEqual(reply.headers["allow"], allow)
        assert.isTrue(isEnvelope(reply.json), reply.text)
        const [error] = reply.json.errors
        assert.deepStrictEqual([error.status, error.type, error.code], ["405", "VALIDATION", "METHOD_NOT_ALLOWED"])
        assert.include(error.detail, method)
      }
      // no route has the path: still 404
      const nowhere = yield* call("POST", "/v3/nothing-here", { headers: app })
      assert.strictEqual(nowhere.status, 404, nowhere.text)
      assert.isUndefined(nowhere.headers["allow"])
    }).pipe(Effect.provide(Loopback)))

  it.effect("under /oauth: 405 with Allow and the OAuth error body", () =>
    Effect.gen(function*() {
      for (const [method, path, allow] of [["GET", "/oauth/token", "POST"], ["POST", "/oauth/authorize", "GET, HEAD"]] as const) {
        const reply = yield* call(method, path)
        assert.strictEqual(reply.status, 405, reply.text)
        assert.strictEqual(reply.headers["allow"], allow)
        assert.isTrue(isOAuthBody(reply.json), reply.text)
        assert.strictEqual(reply.json.error, "invalid_request")
      }
    }).pipe(Effect.provide(Loopback)))
})

describe("batch entries", () => {
  it.effect("are matched like request paths: case, repeated and trailing slashes and a query do not matter; nothing else is read", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[0]!
      const user = bearer((yield* userTokens({ userId: sim.data.connectionOf(vehicleId)!.userId })).access)
      const paths = [
        "/odometer",
        "/ODOMETER",
        "/odometer/",
        "/odometer?x=1",
        "//Odometer//",
        "/odometer/x",
        "odometer",
        "http://evil.example/odometer",
        "/odometer;x",
        "/%6Fdometer"
      ]
      const reply = yield* call("POST", `/v2.0/vehicles/${vehicleId}/batch`, {
        headers: user,
        json: { requests: paths.map((path) => ({ path })) }
      })
      assert.strictEqual(reply.status, 200, reply.text)
      assert.deepStrictEqual(reply.json.responses.map((r: any) => [r.path, r.code]), [
        ["/odometer", 200],
        ["/ODOMETER", 200],
        ["/odometer/", 200],
        ["/odometer?x=1", 200],
        ["//Odometer//", 200],
        ["/odometer/x", 404],
        ["odometer", 404],
        ["http://evil.example/odometer", 404],
        ["/odometer;x", 404],
        ["/%6Fdometer", 404]
      ])
      const first = reply.json.responses[0].body
      for (const item of reply.json.responses.slice(1, 5)) assert.deepStrictEqual(item.body, first)
    }).pipe(Effect.provide(Loopback)))
})

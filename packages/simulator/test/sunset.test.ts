import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { layer, Simulator } from "../src/Simulator.ts"
import type { SimulatorOptions } from "../src/Simulator.ts"
import { MIGRATION_GUIDE_PATH, SUNSET_MILLIS } from "../src/Sunset.ts"
import { appToken, bearer, call, isEnvelope, userTokens } from "./helpers.ts"
import type { Reply } from "./helpers.ts"

const loopback = (options: SimulatorOptions = {}) => Layer.mergeAll(layer({ ...options, port: 0 }), FetchHttpClient.layer)

const assertDeprecated = (reply: Reply, what: string) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    assert.strictEqual(reply.headers["deprecation"], "@1796083200", what)
    assert.strictEqual(reply.headers["sunset"], "Tue, 01 Dec 2026 00:00:00 GMT", what)
    assert.strictEqual(reply.headers["link"], `<${sim.url}${MIGRATION_GUIDE_PATH}>; rel="deprecation"; type="text/markdown"`, what)
  })

/** A user with a vehicle whose service history v2.0 refuses (409), and one it answers. */
const owner = Effect.gen(function*() {
  const sim = yield* Simulator
  for (const user of sim.data.users) {
    const vehicles = sim.data.vehiclesOf(user.id).map((id) => sim.data.vehicle(id)!)
    const unsupported = vehicles.find((v) => !v.supportsServiceHistory)
    if (unsupported !== undefined && vehicles.length > 1) return { user, unsupported, vehicles }
  }
  return yield* Effect.die("no suitable user")
})

describe("v2.0 sunset", () => {
  it.effect("Deprecation, Sunset and Link rel=deprecation on every /v2.0 response, errors and batch included; none on v3", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { unsupported, user, vehicles } = yield* owner
      const { access } = yield* userTokens({ userId: user.id })
      const auth = bearer(access)
      const other = sim.data.vehicleIds.find((id) => sim.data.connectionOf(id)?.userId !== user.id)!
      const replies: Array<readonly [string, Reply, number]> = [
        ["list", yield* call("GET", "/v2.0/vehicles", { headers: auth }), 200],
        ["list 400", yield* call("GET", "/v2.0/vehicles?limit=99", { headers: auth }), 400],
        ["list 401", yield* call("GET", "/v2.0/vehicles"), 401],
        ["list 401 invalid token", yield* call("GET", "/v2.0/vehicles", { headers: bearer("nope") }), 401],
        ["list 403 app token", yield* call("GET", "/v2.0/vehicles", { headers: bearer(yield* appToken) }), 403],
        ["odometer 403 not the user's", yield* call("GET", `/v2.0/vehicles/${other}/odometer`, { headers: auth }), 403],
        ["odometer 404", yield* call("GET", "/v2.0/vehicles/no-such-vehicle/odometer", { headers: auth }), 404],
        ["unknown path 404", yield* call("GET", `/v2.0/vehicles/${unsupported.id}/nothing`, { headers: auth }), 404],
        ["history 409", yield* call("GET", `/v2.0/vehicles/${unsupported.id}/service/history`, { headers: auth }), 409],
        [
          "batch",
          yield* call("POST", `/v2.0/vehicles/${vehicles[0]!.id}/batch`, {
            headers: auth,
            json: { requests: [{ path: "/odometer" }, { path: "/service/history" }, { path: "/nothing" }] }
          }),
          200
        ],
        ["batch 400", yield* call("POST", `/v2.0/vehicles/${vehicles[0]!.id}/batch`, { headers: auth, json: { requests: [] } }), 400]
      ]
      for (const path of ["/odometer", "/location", "/vin", "/engine/oil", "/tires/pressure"]) {
        replies.push([path, yield* call("GET", `/v2.0/vehicles/${vehicles[0]!.id}${path}`, { headers: auth }), 200])
      }
      for (const [what, reply, status] of replies) {
        assert.strictEqual(reply.status, status, `${what}: ${reply.text}`)
        yield* assertDeprecated(reply, what)
      }
      const v3 = yield* call("GET", "/v3/connections", { headers: bearer(yield* appToken) })
      assert.strictEqual(v3.status, 200)
      assert.isUndefined(v3.headers["deprecation"])
      assert.isUndefined(v3.headers["sunset"])
      const guide = yield* call("GET", MIGRATION_GUIDE_PATH)
      assert.strictEqual(guide.status, 200)
      assert.include(guide.text, "odometer-traveleddistance")
      // the same words before and after the sunset (the guide is not told by the clock)
      assert.include(guide.text, "v2.0 is deprecated; its sunset date is Tue, 01 Dec 2026 00:00:00 GMT")
    }).pipe(Effect.provide(loopback({ seed: 5 }))))

  it.effect("/openapi.json marks every /v2.0 operation deprecated and no other", () =>
    Effect.gen(function*() {
      const reply = yield* call("GET", "/openapi.json")
      assert.strictEqual(reply.status, 200)
      let legacy = 0
      for (const [path, item] of Object.entries<Record<string, any>>(reply.json.paths)) {
        for (const [method, operation] of Object.entries<any>(item)) {
          if (path.startsWith("/v2.0")) {
            assert.strictEqual(operation.deprecated, true, `${method} ${path}`)
            legacy++
          } else {
            assert.notStrictEqual(operation.deprecated, true, `${method} ${path}`)
          }
        }
      }
      assert.strictEqual(legacy, 8, "the list, six reads and the batch")
    }).pipe(Effect.provide(loopback())))

  it.effect("retireLegacy: true answers every /v2.0 request 410 Gone with the envelope and the headers; v3 still answers", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { user, vehicles } = yield* owner
      const { access } = yield* userTokens({ userId: user.id })
      for (
        const reply of [
          yield* call("GET", "/v2.0/vehicles", { headers: bearer(access) }),
          yield* call("GET", `/v2.0/vehicles/${vehicles[0]!.id}/odometer`, { headers: bearer(access) }),
          yield* call("GET", "/v2.0/vehicles"),
          yield* call("POST", `/v2.0/vehicles/${vehicles[0]!.id}/batch`, { headers: bearer(access), json: { requests: [{ path: "/vin" }] } })
        ]
      ) {
        assert.strictEqual(reply.status, 410, reply.text)
        assert.isTrue(isEnvelope(reply.json), reply.text)
        assert.strictEqual(reply.json.errors[0].code, "GONE")
        assert.include(reply.json.errors[0].detail, "retired on 2026-12-01")
        yield* assertDeprecated(reply, "retired")
      }
      const userId = sim.data.connectionOf(vehicles[0]!.id)!.userId
      const v3 = yield* call("GET", `/v3/vehicles/${vehicles[0]!.id}/signals`, {
        headers: { ...bearer(yield* appToken), "sc-user-id": userId }
      })
      assert.strictEqual(v3.status, 200)
    }).pipe(Effect.provide(loopback({ seed: 5, retireLegacy: true }))))

  it.effect("retireLegacy: afterSunset answers until the simulator's clock reaches the sunset, 410 from then on", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(SUNSET_MILLIS - 60_000)
      const { user } = yield* owner
      const { access } = yield* userTokens({ userId: user.id })
      assert.strictEqual((yield* call("GET", "/v2.0/vehicles", { headers: bearer(access) })).status, 200)
      yield* TestClock.adjust("1 minute")
      const gone = yield* call("GET", "/v2.0/vehicles", { headers: bearer(access) })
      assert.strictEqual(gone.status, 410, gone.text)
      yield* assertDeprecated(gone, "after the sunset")
    }).pipe(Effect.provide(loopback({ seed: 5, retireLegacy: "afterSunset" }))))
})

import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer, Result } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import { LegacyEndpoints } from "@connected-vehicle/schema/Legacy"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { Connections } from "@connected-vehicle/v3/Connections"
import * as Migration from "@connected-vehicle/v3/Migration"
import { Signals } from "@connected-vehicle/v3/Signals"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import { flipReason, layerLoopback, requestsTo } from "./utils.ts"

const redirectUri = "https://app.example/callback"

const busiestUser = (sim: Simulator.Simulator["Service"]) =>
  sim.data.users.reduce((best, u) => sim.data.vehiclesOf(u.id).length > sim.data.vehiclesOf(best.id).length ? u : best).id

/**
 * The legacy (v2.0) client of the contract with `userId`'s own token, from
 * the simulator's real consent redirect and code exchange: the reads the
 * legacy package makes.
 */
const legacyClientFor = (userId: string) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const http = yield* Effect.provide(Effect.service(HttpClient.HttpClient), FetchHttpClient.layer)
    const query = new URLSearchParams({ response_type: "code", client_id: sim.clientId, redirect_uri: redirectUri, login_hint: userId })
    const consent = yield* http.execute(HttpClientRequest.get(`${sim.url}/oauth/authorize?${query}`)).pipe(
      Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }),
      Effect.orDie
    )
    const code = new URL(consent.headers["location"] ?? "").searchParams.get("code")
    if (code === null) return yield* Effect.die(`consent failed: ${consent.status}`)
    const store = yield* TokenStore.makeMemory
    const auth = Layer.mergeAll(
      Layer.succeed(TokenStore.TokenStore, store),
      OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret })
    )
    yield* Session.login(userId, { code, redirectUri }).pipe(Effect.provide(auth), Effect.orDie)
    return yield* Transport.client(LegacyApi, "legacy").pipe(Effect.provide(Session.layerUser(userId).pipe(Layer.provide(auth))))
  })

const legacyCalls = {
  "/odometer": "odometer",
  "/location": "location",
  "/vin": "vin",
  "/engine/oil": "engineOil",
  "/tires/pressure": "tirePressure"
} as const

/** Strict equality of every field: the migrated read rounds as the legacy read does. */
const assertSame = (legacy: Record<string, unknown>, migrated: Record<string, unknown>, what: string) => {
  assert.deepStrictEqual(Object.keys(migrated).sort(), Object.keys(legacy).sort(), what)
  for (const [key, value] of Object.entries(legacy)) {
    assert.strictEqual(migrated[key], value, `${what} ${key}: legacy ${String(value)}, migrated ${String(migrated[key])}`)
  }
}

const expectedTag = (type: string) =>
  type === "AUTHENTICATION" ? "Authentication" : type === "VEHICLE_STATE" ? "VehicleState" : `? ${type}`

describe("Migration", () => {
  for (const unitSystem of ["metric", "imperial"] as const) {
    it.effect(`every migrated read of every vehicle of the busiest user equals its legacy read (${unitSystem})`, () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.parse("2026-11-24T10:00:00Z"))
        const sim = yield* Simulator.Simulator
        const userId = busiestUser(sim)
        const vehicles = sim.data.vehiclesOf(userId)
        assert.isTrue(vehicles.length >= 3, "the busiest user has several vehicles")
        const legacy = yield* legacyClientFor(userId)
        const signals = yield* Signals
        let same = 0
        let failed = 0
        let withoutEngine = 0
        let denied = 0
        for (const vehicleId of vehicles) {
          for (const path of Object.keys(legacyCalls) as Array<Migration.MigratedPath>) {
            const what = `${vehicleId} ${path} (${unitSystem})`
            // the five reads' effects, as one type
            const read: Effect.Effect<{ readonly value: any; readonly headers: Record<string, string> }, { readonly _tag: string }> = legacy[legacyCalls[path]]({
              params: { id: vehicleId },
              headers: { "sc-unit-system": unitSystem }
            })
            const migrated = yield* Effect.result(Migration.read(path, { vehicleId, userId }, { unitSystem }))
            const code = Migration.signalCodes[path]
            const status = sim.data.signalStatus(vehicleId, code)
            if (!sim.data.connectionOf(vehicleId)!.permissions.includes(LegacyEndpoints[path].permission)) {
              // the connection lacks the read's permission: both are refused (but the oil life of a BEV, never read)
              assert.strictEqual((yield* flipReason(read))._tag, "PermissionDenied", what)
              if (status === undefined) assert.isTrue(Result.isSuccess(migrated), what)
              else assert.isTrue(Result.isFailure(migrated) && reasonOf(migrated.failure)._tag === "PermissionDenied", what)
              denied++
              continue
            }
            const old = yield* read
            if (status === undefined) {
              // no such signal on this vehicle: only the oil life of a BEV, which v2.0 reads as 1
              assert.strictEqual(path, "/engine/oil", what)
              assert.strictEqual(sim.data.vehicle(vehicleId)!.powertrainType, "BEV", what)
              assert.isTrue(Result.isSuccess(migrated), what)
              if (Result.isSuccess(migrated)) assertSame(old.value, migrated.success.value, what)
              withoutEngine++
            } else if (status === "SUCCESS") {
              assert.isTrue(Result.isSuccess(migrated), what)
              if (Result.isSuccess(migrated)) {
                assertSame(old.value, migrated.success.value, what)
                assert.strictEqual(migrated.success.unitSystem, unitSystem)
                assert.strictEqual(DateTime.formatIso(migrated.success.dataAge!), old.headers["sc-data-age"], `${what} data age`)
              }
              same++
            } else {
              // the legacy read answers, the v3 signal failed: the typed error of its status
              assert.isTrue(Result.isFailure(migrated), what)
              if (Result.isFailure(migrated)) {
                const signal = (yield* signals.get({ vehicleId, userId, code })).data
                const error = reasonOf(migrated.failure)
                if (status === "ERROR") {
                  assert.strictEqual(error._tag, expectedTag(signal.attributes.status.error!.type), what)
                  assert.strictEqual((error as { code?: string }).code, signal.attributes.status.error!.code)
                } else {
                  assert.strictEqual(error._tag, "VehicleState", what)
                  assert.strictEqual((error as { code?: string }).code, "SIGNAL_UNAVAILABLE")
                }
              }
              failed++
            }
          }
        }
        assert.strictEqual(same + failed + withoutEngine + denied, vehicles.length * 5)
        assert.isTrue(same >= vehicles.length * 2, `most reads compared (${same}, ${failed} failed signals, ${denied} denied)`)
        // the seed (42) gives the busiest user a BEV
        assert.isTrue(withoutEngine > 0, "a BEV is among them")
      }).pipe(Effect.provide(layerLoopback())), { timeout: 60_000 })
  }

  it.effect("readings with more decimals than the legacy API keeps (miles, psi, a percent) migrate to the legacy read exactly", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const userId = busiestUser(sim)
      const vehicleId = sim.data.vehiclesOf(userId).find((id) =>
        sim.data.signalStatus(id, Migration.signalCodes["/odometer"]) === "SUCCESS" &&
        sim.data.signalStatus(id, Migration.signalCodes["/engine/oil"]) === "SUCCESS" &&
        sim.data.signalStatus(id, Migration.signalCodes["/tires/pressure"]) === "SUCCESS"
      )
      assert.isDefined(vehicleId, "a vehicle of the busiest user with odometer, oil life and tire pressures")
      yield* sim.setSignal(vehicleId!, "odometer-traveleddistance", { unit: "mi", value: 10352.123456 })
      yield* sim.setSignal(vehicleId!, "internalcombustionengine-oillife", { unit: "percent", value: 76.66 })
      yield* sim.setSignal(vehicleId!, "wheel-tirepressures", {
        unit: "psi",
        frontLeft: 35.345698,
        frontRight: 34.95,
        backLeft: 33.04999,
        backRight: 36.1
      })
      const legacy = yield* legacyClientFor(userId)
      let compared = 0
      for (const unitSystem of ["metric", "imperial"] as const) {
        for (const path of ["/odometer", "/engine/oil", "/tires/pressure"] as const) {
          const what = `${path} (${unitSystem})`
          const old = yield* legacy[legacyCalls[path]]({ params: { id: vehicleId! }, headers: { "sc-unit-system": unitSystem } })
          const migrated = yield* Migration.read(path, { vehicleId: vehicleId!, userId }, { unitSystem })
          assertSame(old.value, migrated.value, what)
          compared++
        }
      }
      assert.strictEqual(compared, 6)
    }).pipe(Effect.provide(layerLoopback())), { timeout: 60_000 })

  it.effect("a VIN sent as the body's value: signals.list keeps it, Migration.vin and the legacy read give it; a value that is no number fails the odometer", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const userId = busiestUser(sim)
      const vehicleId = sim.data.vehiclesOf(userId).find((id) =>
        sim.data.signalStatus(id, Migration.signalCodes["/vin"]) === "SUCCESS" &&
        sim.data.signalStatus(id, Migration.signalCodes["/odometer"]) === "SUCCESS"
      )
      assert.isDefined(vehicleId, "a vehicle of the busiest user with a VIN and an odometer")
      const target = { vehicleId: vehicleId!, userId }
      yield* sim.setSignal(vehicleId!, "vehicleidentification-vin", { value: "1HGCM82633A004352" })
      yield* sim.setSignal(vehicleId!, "odometer-traveleddistance", { unit: "km", value: null })
      const page = yield* (yield* Signals).list({ ...target, pageSize: 100 })
      const valueOf = (code: string) => page.data.find((s) => s.attributes.code === code)?.attributes.body.value
      assert.strictEqual(valueOf("vehicleidentification-vin"), "1HGCM82633A004352")
      assert.isNull(valueOf("odometer-traveleddistance"))
      const legacy = yield* legacyClientFor(userId)
      const old = yield* legacy.vin({ params: { id: vehicleId! } })
      assert.deepStrictEqual((yield* Migration.vin(target)).value, old.value)
      assert.deepStrictEqual(old.value, { vin: "1HGCM82633A004352" })
      const odometer = yield* flipReason(Migration.odometer(target))
      assert.strictEqual(odometer._tag, "InvalidResponse")
      assert.include(odometer.message, "odometer-traveleddistance has no numeric value")
    }).pipe(Effect.provide(layerLoopback())), { timeout: 60_000 })

  it.effect("a per-signal ERROR is the service error class of its type, UNAVAILABLE a VehicleStateError", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const signals = yield* Signals
      const seen = new Set<string>()
      for (const vehicleId of sim.data.vehicleIds.slice(0, 20)) {
        const userId = sim.data.connectionOf(vehicleId)?.userId
        if (userId === undefined) continue
        for (const path of Object.keys(legacyCalls) as Array<Migration.MigratedPath>) {
          const code = Migration.signalCodes[path]
          const status = sim.data.signalStatus(vehicleId, code)
          if (status !== "ERROR" && status !== "UNAVAILABLE") continue
          const error = yield* flipReason(Migration.read(path, { vehicleId, userId }))
          const signal = (yield* signals.get({ vehicleId, userId, code })).data
          const item = signal.attributes.status.error
          assert.strictEqual(error._tag, status === "ERROR" ? expectedTag(item!.type) : "VehicleState")
          if (error._tag === "Authentication" || error._tag === "VehicleState") {
            assert.strictEqual(error.code, status === "ERROR" ? item!.code : "SIGNAL_UNAVAILABLE")
            assert.strictEqual(error.resolution, item?.resolution?.type)
            assert.strictEqual(error.url, signal.links.self)
          }
          seen.add(status === "ERROR" ? error._tag : "UNAVAILABLE")
        }
      }
      assert.deepStrictEqual([...seen].sort(), ["Authentication", "UNAVAILABLE", "VehicleState"])
    }).pipe(Effect.provide(layerLoopback())), { timeout: 60_000 })

  it.effect("userIdOf finds each vehicle's user in the connections list; without userId a read looks it up", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const userId = busiestUser(sim)
      for (const vehicleId of sim.data.vehiclesOf(userId)) {
        assert.strictEqual(yield* Migration.userIdOf(vehicleId), userId)
      }
      const vehicleId = sim.data.vehiclesOf(userId)[0]!
      yield* sim.resetLog
      const vin = yield* Migration.vin({ vehicleId })
      assert.strictEqual(vin.value.vin, sim.data.vehicle(vehicleId)!.vin)
      const [connections] = yield* requestsTo(/\/v3\/connections$/)
      assert.strictEqual(new URLSearchParams(connections!.query).get("filter[vehicleId]"), vehicleId)
      const unconnected = sim.data.vehicleIds.find((id) => sim.data.connectionOf(id) === undefined)!
      const error = yield* flipReason(Migration.odometer({ vehicleId: unconnected }))
      assert.strictEqual(error._tag, "NotConnected")
    }).pipe(Effect.provide(layerLoopback())), { timeout: 30_000 })

  it.effect("bad arguments are InvalidArgument before any request", () =>
    Effect.gen(function*() {
      const bad: Array<Effect.Effect<unknown, Migration.ReadError, Signals | Connections>> = [
        Migration.odometer({ vehicleId: "" }),
        Migration.odometer({ vehicleId: "veh", userId: "a\nb" }),
        Migration.odometer({ vehicleId: "veh", userId: "u" }, { unitSystem: "nautical" as never }),
        Migration.odometer(null as never),
        Migration.userIdOf("a/b")
      ]
      for (const call of bad) assert.strictEqual((yield* flipReason(call))._tag, "InvalidArgument")
      assert.strictEqual((yield* requestsTo(/./)).length, 0)
    }).pipe(Effect.provide(layerLoopback())))
})

import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Logger, Redacted, References, Result, Stream } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import * as Session from "@connected-vehicle/auth/Session"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { Warned } from "@connected-vehicle/legacy-v2/Deprecation"
import type { WarningLevel } from "@connected-vehicle/legacy-v2/Deprecation"
import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
import { busiestUser, layerTest, requestsTo } from "./utils.ts"

const tour = Effect.gen(function*() {
  const vehicles = yield* Vehicles.Vehicles
  const ids = yield* Stream.runCollect(vehicles.stream())
  const odometer = yield* vehicles.odometer(ids[0]!)
  const batch = yield* vehicles.batch(ids[0]!, ["/vin", "/odometer"])
  assert.isTrue(odometer.value.distance > 0)
  assert.isTrue(Result.isSuccess(batch["/vin"]) && Result.isSuccess(batch["/odometer"]))
  return ids
})

describe("Vehicles.layerConfig", () => {
  it.live("wires transport and the user's session from the environment; the app signs in with Session.login", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const userId = busiestUser(sim)
      const redirectUri = "https://app.example/callback"
      const consent = yield* HttpClient.get(
        `${sim.url}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: sim.clientId, redirect_uri: redirectUri, login_hint: userId })}`
      ).pipe(Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }), Effect.provide(FetchHttpClient.layer))
      const code = new URL(consent.headers["location"]!).searchParams.get("code")!

      const env = ConfigProvider.fromEnv({
        env: {
          CONNECTED_VEHICLE_ORIGIN: sim.url,
          CONNECTED_VEHICLE_CLIENT_ID: sim.clientId,
          CONNECTED_VEHICLE_CLIENT_SECRET: Redacted.value(sim.clientSecret)
        }
      })
      const ids = yield* Effect.gen(function*() {
        yield* Session.login(userId, { code, redirectUri })
        return yield* tour
      }).pipe(Effect.provide(Vehicles.layerConfig({ userKey: userId })), Effect.provide(ConfigProvider.layer(env)))
      assert.deepStrictEqual(ids, [...sim.data.vehiclesOf(userId)])
      assert.strictEqual((yield* requestsTo(/^\/oauth\/token$/)).length, 1)
      assert.isTrue((yield* requestsTo(/^\/v2\.0\//)).every((r) => r.status === 200))
    }).pipe(Effect.provide(Simulator.layer({ port: 0 }))))

  it.live("runs on the in-memory simulator", () => Effect.asVoid(tour).pipe(Effect.provide(layerTest())))

  /** The levels of the deprecation warnings of two odometer reads (the list warns of nothing), the legacy layer from `env` and `options`. */
  const warningLevels = (env: Record<string, string>, options: { readonly deprecationWarnings?: WarningLevel } = {}) =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const userId = busiestUser(sim)
      const redirectUri = "https://app.example/callback"
      const consent = yield* HttpClient.get(
        `${sim.url}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: sim.clientId, redirect_uri: redirectUri, login_hint: userId })}`
      ).pipe(Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }), Effect.provide(FetchHttpClient.layer))
      const code = new URL(consent.headers["location"]!).searchParams.get("code")!
      const provider = ConfigProvider.fromEnv({
        env: {
          CONNECTED_VEHICLE_ORIGIN: sim.url,
          CONNECTED_VEHICLE_CLIENT_ID: sim.clientId,
          CONNECTED_VEHICLE_CLIENT_SECRET: Redacted.value(sim.clientSecret),
          ...env
        }
      })
      const levels: Array<string> = []
      const logger = Logger.make((entry) => {
        if (Logger.formatLogFmt.log(entry).includes("v2.0 endpoint")) levels.push(entry.logLevel)
      })
      yield* Effect.gen(function*() {
        yield* Session.login(userId, { code, redirectUri })
        const vehicles = yield* Vehicles.Vehicles
        const id = (yield* vehicles.list()).vehicles[0]!
        yield* vehicles.odometer(id)
        yield* vehicles.odometer(id)
      }).pipe(
        Effect.provide(Vehicles.layerConfig({ userKey: userId, ...options })),
        Effect.provide(ConfigProvider.layer(provider)),
        Effect.provide(Logger.layer([logger])),
        Effect.provideService(References.MinimumLogLevel, "All"),
        Effect.provideService(Warned, new Set<string>())
      )
      return levels
    }).pipe(Effect.provide(Simulator.layer({ port: 0 })))

  it.live("reads the deprecation warning level from CONNECTED_VEHICLE_DEPRECATION_WARNINGS (Vehicles.config)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* warningLevels({}), ["Warn"])
      assert.deepStrictEqual(yield* warningLevels({ CONNECTED_VEHICLE_DEPRECATION_WARNINGS: "off" }), [])
      assert.deepStrictEqual(yield* warningLevels({ CONNECTED_VEHICLE_DEPRECATION_WARNINGS: "debug" }), ["Debug"])
      // the option wins over the environment
      assert.deepStrictEqual(yield* warningLevels({ CONNECTED_VEHICLE_DEPRECATION_WARNINGS: "off" }, { deprecationWarnings: "warn" }), ["Warn"])
    }))
})

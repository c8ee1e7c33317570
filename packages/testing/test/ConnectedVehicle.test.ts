import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Redacted, Result, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import * as Session from "@connected-vehicle/auth/Session"
import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { Compatibility } from "@connected-vehicle/v3/Compatibility"
import { Connections } from "@connected-vehicle/v3/Connections"
import { Signals } from "@connected-vehicle/v3/Signals"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import * as RequestLog from "@connected-vehicle/testing/RequestLog"
import * as Simulated from "@connected-vehicle/testing/Simulated"
import * as SignIn from "@connected-vehicle/testing/SignIn"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"

/** v3 with the application token and legacy with the user's, through one layer. */
const tour = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const ids = yield* Stream.runCollect((yield* Vehicles).stream())
  const vehicleId = ids[0]!
  const userId = sim.data.connectionOf(vehicleId)!.userId
  const signals = yield* (yield* Signals).list({ vehicleId, userId, pageSize: 2 })
  const connections = yield* (yield* Connections).list({ userId })
  const compatible = yield* (yield* Compatibility).list({ region: "US" })
  const batch = yield* (yield* Vehicles).batch(vehicleId, ["/vin", "/odometer"])
  assert.strictEqual(signals.included.vehicle.id, vehicleId)
  assert.deepStrictEqual([...connections.data.map((c) => c.relationships.vehicle.data.id)].sort(), [...ids].sort())
  assert.isTrue(compatible.data.every((e) => e.attributes.region === "US"))
  assert.isTrue(Result.isSuccess(batch["/vin"]) && Result.isSuccess(batch["/odometer"]))
  return { userId, ids }
})

describe("ConnectedVehicle", () => {
  it.live("layerSimulator (loopback): one transport for v3 and legacy, the signed-in user behind the legacy reads", () => {
    let transports = 0
    return Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const { userId, ids } = yield* tour
      assert.strictEqual(userId, Simulated.busiestUser(sim.data))
      assert.deepStrictEqual([...ids], [...sim.data.vehiclesOf(userId)])
      assert.strictEqual(transports, 1, "one transport built")
      const requests = yield* RequestLog.matching(/^\//)
      assert.isTrue(requests.every((r) => r.status === 200))
      // the user's token was fetched at sign-in (log reset since); only the application token now
      assert.strictEqual((yield* RequestLog.matching(/^\/oauth\/token$/)).length, 1)
      const bearer = (path: RegExp) => requests.filter((r) => path.test(r.path)).map((r) => r.headers["authorization"])
      assert.isTrue(bearer(/^\/v2\.0\//).every((a) => a === "<redacted>"))
    }).pipe(Effect.provide(Simulated.layer({
      loopback: true,
      transformClient: (client) => {
        transports++
        return client
      }
    })))
  })

  it.live("layerSimulator in memory, without signing in: legacy reads fail with the session's typed error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip((yield* Vehicles).list())
      assert.strictEqual(reasonOf(error)._tag, "Credentials")
      const compat = yield* (yield* Compatibility).list({ powertrainType: "EV" })
      assert.isTrue(compat.data.length > 0)
    }).pipe(Effect.provide(Simulated.layer({ signIn: false }))))

  it.live("layerConfig wires everything from the environment; the application signs the user in with Session.login", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const userId = Simulated.busiestUser(sim.data)
      const code = yield* SignIn.authorizationCode(userId).pipe(Effect.provide(FetchHttpClient.layer))
      const env = ConfigProvider.fromEnv({
        env: {
          CONNECTED_VEHICLE_ORIGIN: sim.url,
          CONNECTED_VEHICLE_CLIENT_ID: sim.clientId,
          CONNECTED_VEHICLE_CLIENT_SECRET: Redacted.value(sim.clientSecret)
        }
      })
      const result = yield* Effect.gen(function*() {
        yield* Session.login("user-42", { code, redirectUri: SignIn.redirectUri })
        return yield* tour
      }).pipe(
        Effect.provide(ConnectedVehicle.layerConfig({ userKey: "user-42" })),
        Effect.provide(ConfigProvider.layer(env))
      )
      assert.strictEqual(result.userId, userId)
      assert.strictEqual((yield* RequestLog.matching(/^\/oauth\/token$/)).length, 2, "one code exchange, one application token")
    }).pipe(Effect.provide(Simulator.layer({ port: 0 }))))

  it.live("a failed batch entry of the simulator (its headers an error response's) decodes as the entry's own error, with the batch's request id", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const userId = Simulated.busiestUser(sim.data)
      const code = yield* SignIn.authorizationCode(userId, { scope: "read_vin" }).pipe(Effect.provide(FetchHttpClient.layer))
      const env = ConfigProvider.fromEnv({
        env: {
          CONNECTED_VEHICLE_ORIGIN: sim.url,
          CONNECTED_VEHICLE_CLIENT_ID: sim.clientId,
          CONNECTED_VEHICLE_CLIENT_SECRET: Redacted.value(sim.clientSecret),
          CONNECTED_VEHICLE_DEPRECATION_WARNINGS: "off"
        }
      })
      const batch = yield* Effect.gen(function*() {
        yield* Session.login("user-7", { code, redirectUri: SignIn.redirectUri })
        return yield* (yield* Vehicles).batch(sim.data.vehiclesOf(userId)[0]!, ["/vin", "/odometer"])
      }).pipe(
        Effect.provide(ConnectedVehicle.layerConfig({ userKey: "user-7" })),
        Effect.provide(ConfigProvider.layer(env))
      )
      assert.isTrue(Result.isSuccess(batch["/vin"]))
      const odometer = batch["/odometer"]
      assert.isTrue(Result.isFailure(odometer))
      if (Result.isFailure(odometer)) {
        const reason = reasonOf(odometer.failure)
        assert.strictEqual(reason._tag, "PermissionDenied")
        const [logged] = yield* RequestLog.matching(/\/batch$/)
        assert.isString((reason as { readonly requestId?: string }).requestId)
        assert.strictEqual((reason as { readonly requestId?: string }).requestId, logged?.requestId)
      }
    }).pipe(Effect.provide(Simulator.layer({ port: 0 }))))
})

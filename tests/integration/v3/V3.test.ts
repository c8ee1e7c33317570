import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Redacted, Stream } from "effect"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { Compatibility } from "@connected-vehicle/v3/Compatibility"
import { Connections } from "@connected-vehicle/v3/Connections"
import { Signals } from "@connected-vehicle/v3/Signals"
import { Subscriptions } from "@connected-vehicle/v3/Subscriptions"
import * as V3 from "@connected-vehicle/v3/V3"
import { Webhooks } from "@connected-vehicle/v3/Webhooks"
import { layerTest, requestsTo } from "./utils.ts"

/** One call to every service. */
const tour = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const vehicleId = sim.data.vehicleIds[0]!
  const userId = sim.data.connectionOf(vehicleId)!.userId
  const signals = yield* (yield* Signals).list({ vehicleId, userId })
  const connection = yield* (yield* Connections).get(sim.data.connectionOf(vehicleId)!.connectionId)
  const subscriptions = yield* Stream.runCount((yield* Subscriptions).stream())
  const webhook = yield* (yield* Webhooks).get(sim.data.webhooks[0]!.id)
  const compatible = yield* (yield* Compatibility).list({ region: "EUROPE" })
  assert.strictEqual(signals.included.vehicle.id, vehicleId)
  assert.strictEqual(connection.data.relationships.vehicle.data.id, vehicleId)
  assert.strictEqual(subscriptions, sim.data.subscriptionCount)
  assert.strictEqual(webhook.data.id, sim.data.webhooks[0]!.id)
  assert.isTrue(compatible.data.every((e) => e.attributes.region === "EUROPE"))
})

describe("V3", () => {
  it.live("layerConfig wires transport, the application session and every service from the environment", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const env = ConfigProvider.fromEnv({
        env: {
          CONNECTED_VEHICLE_ORIGIN: sim.url,
          CONNECTED_VEHICLE_CLIENT_ID: sim.clientId,
          CONNECTED_VEHICLE_CLIENT_SECRET: Redacted.value(sim.clientSecret)
        }
      })
      yield* tour.pipe(Effect.provide(V3.layerConfig()), Effect.provide(ConfigProvider.layer(env)))
      const tokens = yield* requestsTo(/^\/oauth\/token$/)
      assert.strictEqual(tokens.length, 1, "one client-credentials token for every call")
      const calls = yield* requestsTo(/^\/v3\//)
      assert.isTrue(calls.every((r) => r.status === 200))
      assert.isTrue(
        calls.every((r) => r.path.startsWith("/v3/compatible-vehicles") === (r.headers["authorization"] === undefined))
      )
    }).pipe(Effect.provide(Simulator.layer({ port: 0 }))))

  it.live("runs on the in-memory simulator", () => tour.pipe(Effect.provide(layerTest())))

  it.live("a missing variable is a readable error naming it, from Effect.runPromise too", () =>
    Effect.gen(function*() {
      const env = ConfigProvider.fromEnv({ env: { CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:1" } })
      const program = Effect.flatMap(Effect.service(Signals), (s) => s.list({ vehicleId: "veh_1", userId: "usr_1" })).pipe(
        Effect.provide(V3.layerConfig()),
        Effect.provide(ConfigProvider.layer(env))
      )
      const rejection: unknown = yield* Effect.promise(() => Effect.runPromise(program).then(() => undefined, (e: unknown) => e))
      assert.instanceOf(rejection, Error)
      const text = `${(rejection as Error).message} ${String(rejection)}`
      assert.include(text, "CONNECTED_VEHICLE_CLIENT_ID")
      assert.notInclude(text, "[object Object]")
    }))
})


import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { HttpClient } from "effect/http"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { Connections } from "@connected-vehicle/v3/Connections"
import { Signals } from "@connected-vehicle/v3/Signals"
import { Subscriptions } from "@connected-vehicle/v3/Subscriptions"
import { Webhooks } from "@connected-vehicle/v3/Webhooks"
import { flipReason, layerLoopback, requestsTo } from "./utils.ts"

// every request that reaches the v3 services' HttpClient (token requests go through another client)
let sent = 0
const counting = HttpClient.tapRequest(() => Effect.sync(() => void sent++))

/** Ids every v3 call refuses, with the reason in the message. */
const bad: ReadonlyArray<readonly [string, string]> = [
  ["", "Expected a non-empty string"],
  ["veh\r\nx-injected: 1", "Expected a string without control characters"],
  ["\u0000", "Expected a string without control characters"],
  [".", "Expected a string other than \".\" and \"..\""],
  ["..", "Expected a string other than \".\" and \"..\""],
  ["a/b", "Expected a string without \"/\""],
  ["../admin", "Expected a string without \"/\""]
]

describe("identifiers", () => {
  it.live("an empty id, a control character, \".\", \"..\" or a \"/\" in any id: InvalidArgument naming the argument, nothing sent", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const vehicleId = sim.data.vehicleIds[0]!
      const userId = sim.data.connectionOf(vehicleId)!.userId
      const signals = yield* Signals
      const connections = yield* Connections
      const subscriptions = yield* Subscriptions
      const webhooks = yield* Webhooks
      sent = 0
      for (const [id, reason] of bad) {
        const calls: ReadonlyArray<readonly [string, Effect.Effect<unknown, { readonly _tag: string }>]> = [
          ["vehicleId", signals.list({ vehicleId: id, userId })],
          ["userId", Stream.runDrain(signals.stream({ vehicleId, userId: id }))],
          ["vehicleId", Stream.runDrain(signals.pages({ vehicleId: id, userId }))],
          ["code", signals.get({ vehicleId, userId, code: id })],
          ["vehicleId", signals.get({ vehicleId: id, userId, code: "odometer-traveleddistance" })],
          ["userId", signals.get({ vehicleId, userId: id, code: "odometer-traveleddistance" })],
          ["connectionId", connections.get(id)],
          ["subscriptionId", subscriptions.get(id)],
          ["webhookId", webhooks.get(id)]
        ]
        for (const [field, call] of calls) {
          const error = yield* flipReason(call)
          assert.strictEqual(error._tag, "InvalidArgument", `${field} = ${JSON.stringify(id)}`)
          const { field: named, message } = error as unknown as { readonly field: string; readonly message: string }
          assert.strictEqual(named, field)
          assert.strictEqual(message, `${field}: ${reason}, got ${JSON.stringify(id)}`)
        }
      }
      assert.strictEqual(sent, 0)
      assert.deepStrictEqual(yield* requestsTo(/^\/v3\//), [])
      // the same calls with valid ids do reach the service through the counted client
      yield* signals.get({ vehicleId, userId, code: sim.data.vehicle(vehicleId)!.signalCodes[0]! })
      assert.strictEqual(sent, 1)
    }).pipe(Effect.provide(layerLoopback({ transformClient: counting }))))
})

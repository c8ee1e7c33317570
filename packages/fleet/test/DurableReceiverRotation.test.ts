/**
 * Secret rotation of a fleet's `DurableReceiver` over loopback with the
 * simulator: the receiver deployed with `[new, old]`, the simulator's webhook
 * rotated from one secret to the other (`POST /_simulator/webhooks/:id
 * {"secret"}`), then to a third one, which is refused.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeHttpServer } from "@effect/platform-node"
import { createServer } from "node:http"
import { Effect, Layer, Logger, Redacted, Schedule } from "effect"
import * as DurableReceiver from "@connected-vehicle/fleet/DurableReceiver"
import { EventQueue } from "@connected-vehicle/fleet/EventQueue"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import { layer as simulatorLayer, Simulator } from "@connected-vehicle/simulator/Simulator"
import { FetchHttpClient } from "effect/http"

const oldSecret = "fleet-rotation-old-6d2a9f"
const newSecret = "fleet-rotation-new-1c8e4b"
const odometer = "odometer-traveleddistance"

/** Waits (live clock) until `check` holds, or fails after 10 seconds. */
const eventually = <A>(what: string, check: Effect.Effect<A | undefined>) =>
  check.pipe(
    Effect.repeat({ until: (value) => value !== undefined, schedule: Schedule.spaced("20 millis") }),
    Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die(new Error(`not within 10 seconds: ${what}`)) }),
    Effect.map((value) => value!)
  )

describe("DurableReceiver: secret rotation", () => {
  it.live("[new, old]: deliveries signed with either are stored, a third secret is 401; the VERIFY is answered with the new one", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const receiver = yield* DurableReceiver.make({ secret: [Redacted.make(newSecret), Redacted.make(oldSecret)] })
      const server = yield* NodeHttpServer.make(() => createServer(), { port: 0, host: "127.0.0.1", gracefulShutdownTimeout: 0 })
      yield* server.serve(receiver.httpEffect)
      const port = server.address._tag === "UnixPathAddress" ? 0 : server.address.port
      const queue = yield* EventQueue
      const stored: Array<string> = []
      yield* Effect.forkScoped(Effect.forever(queue.take((event) => Effect.sync(() => stored.push(event.eventId)))))

      // created with the new secret: the VERIFY, answered with the secret that signed it, succeeds
      const webhook = yield* sim.createWebhook({
        name: "fleet", callbackUri: `http://127.0.0.1:${port}/webhooks`, triggers: [odometer], data: [], secret: newSecret
      })
      assert.strictEqual(webhook.verification, "succeeded")
      const vehicleId = sim.data.vehicleIds[0]!
      yield* sim.subscribe({ webhookId: webhook.id, userId: sim.data.connectionOf(vehicleId)!.userId, vehicleId })
      const change = (value: number) => Effect.map(sim.setSignal(vehicleId, odometer, { unit: "km", value }), (c) => c.eventIds[0]!)
      const attempt = (eventId: string) =>
        eventually(`the attempt of ${eventId}`, Effect.map(sim.deliveries, (log) => log.find((e) => e.eventId === eventId)))

      const signedNew = yield* change(1)
      assert.strictEqual((yield* attempt(signedNew)).status, 200)
      // the service signs with the other secret of the pair: still verified
      assert.strictEqual((yield* sim.updateWebhook(webhook.id, { secret: oldSecret })).verification, "succeeded")
      const signedOld = yield* change(2)
      assert.strictEqual((yield* attempt(signedOld)).status, 200)
      yield* eventually("both stored", Effect.sync(() => stored.includes(signedNew) && stored.includes(signedOld) || undefined))

      yield* sim.updateWebhook(webhook.id, { secret: "fleet-rotation-third-0a7f" })
      const forged = yield* change(3)
      const refused = yield* attempt(forged)
      assert.strictEqual(refused.status, 401)
      yield* Effect.sleep("100 millis")
      assert.notInclude(stored, forged)
    }).pipe(
      Effect.scoped,
      Effect.provide(Ingestion.layerMemory()),
      Effect.provide(Logger.layer([])), // the refused delivery's warning is expected
      Effect.provide(Layer.merge(simulatorLayer({ port: 0, seed: 5 }), FetchHttpClient.layer))
    ), 30_000)

  it.effect("an empty array of secrets is a Configuration FleetError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(DurableReceiver.make({ secret: [] }))
      assert.strictEqual(error.reason._tag, "Configuration")
      assert.include(error.message, "empty array")
    }).pipe(Effect.scoped, Effect.provide(Ingestion.layerMemory())))
})

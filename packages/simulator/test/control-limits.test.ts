/**
 * What the loopback control routes keep is bounded: created webhooks
 * (`POST /_simulator/webhooks`) and open vehicle errors (`POST
 * /_simulator/vehicles/:id/errors`). One more is a 409 with the section 7
 * envelope, nothing kept; room is made by a reset (and, for errors, by
 * resolving one). The limits are the `controlLimits` option.
 */
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { VEHICLE_ERROR_LIMIT, WEBHOOK_LIMIT } from "../src/Delivery.ts"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { call, isEnvelope, thrown } from "./helpers.ts"

/** A callback nobody listens on: the `VERIFY` fails at once, the webhook is created all the same. */
const webhookBody = (name: string) => ({
  name,
  callbackUri: "http://127.0.0.1:9/hooks",
  triggers: ["odometer-traveleddistance"],
  data: []
})

const Small = Layer.mergeAll(
  simulatorLayer({ port: 0, seed: 5, controlLimits: { webhooks: 2, vehicleErrors: 3 } }),
  FetchHttpClient.layer
)

const refused = (reply: { readonly status: number; readonly json: unknown; readonly text: string }, limit: string) => {
  assert.strictEqual(reply.status, 409, reply.text)
  assert.isTrue(isEnvelope(reply.json), reply.text)
  const [error] = (reply.json as { readonly errors: ReadonlyArray<{ readonly status: string; readonly detail: string }> }).errors
  assert.strictEqual(error!.status, "409")
  assert.include(error!.detail, limit)
}

describe("control limits", () => {
  it.effect("POST /_simulator/webhooks: the webhook over the limit is a 409, not kept; a reset makes room", () =>
    Effect.gen(function*() {
      for (const name of ["a", "b"]) {
        const created = yield* call("POST", "/_simulator/webhooks", { json: webhookBody(name) })
        assert.strictEqual(created.status, 201, created.text)
      }
      const over = yield* call("POST", "/_simulator/webhooks", { json: webhookBody("c") })
      refused(over, "controlLimits.webhooks")
      const sim = yield* Simulator
      const inProcess = yield* Effect.flip(sim.createWebhook(webhookBody("d")))
      assert.strictEqual(inProcess.status, 409)
      // nothing sent for the refused ones: two VERIFY handshakes were attempted
      const verifies = (yield* sim.deliveries).filter((d) => d.eventType === "VERIFY")
      assert.strictEqual(new Set(verifies.map((d) => d.webhookId)).size, 2)
      yield* sim.reset
      assert.strictEqual((yield* call("POST", "/_simulator/webhooks", { json: webhookBody("e") })).status, 201)
    }).pipe(Effect.provide(Small)))

  it.effect("POST /_simulator/vehicles/:id/errors: the error over the limit is a 409; resolving one makes room", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[0]!
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) {
        const injected = yield* call("POST", `/_simulator/vehicles/${vehicleId}/errors`, { json: { code: `E${i}` } })
        assert.strictEqual(injected.status, 201, injected.text)
        ids.push((injected.json as { readonly errorId: string }).errorId)
      }
      // on any vehicle: the limit counts every open error
      const over = yield* call("POST", `/_simulator/vehicles/${sim.data.vehicleIds[1]!}/errors`, { json: {} })
      refused(over, "controlLimits.vehicleErrors")
      assert.strictEqual((yield* Effect.flip(sim.injectVehicleError(vehicleId, {}))).status, 409)
      const resolved = yield* call("DELETE", `/_simulator/vehicles/${vehicleId}/errors/${ids[0]}`)
      assert.strictEqual(resolved.status, 200, resolved.text)
      assert.strictEqual((yield* call("POST", `/_simulator/vehicles/${vehicleId}/errors`, { json: {} })).status, 201)
      refused(yield* call("POST", `/_simulator/vehicles/${vehicleId}/errors`, { json: {} }), "resolve one")
    }).pipe(Effect.provide(Small)))

  it.effect("each field of an injected error, and a webhook's callbacks and secret, have a length limit: a 400 VALIDATION", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const path = `/_simulator/vehicles/${sim.data.vehicleIds[0]!}/errors`
      const limits = { type: 100, code: 100, resolution: 100, description: 1_000, suggestedUserMessage: 1_000 }
      for (const [field, limit] of Object.entries(limits)) {
        const over = yield* call("POST", path, { json: { [field]: "x".repeat(limit + 1) } })
        assert.strictEqual(over.status, 400, `${field}: ${over.text}`)
        assert.isTrue(isEnvelope(over.json), over.text)
        assert.strictEqual(over.json.errors[0].type, "VALIDATION")
        assert.include(over.json.errors[0].detail, `${field} is at most ${limit} characters, got ${limit + 1}`)
      }
      const atLimits = yield* call("POST", path, { json: { type: "x".repeat(100), description: "d".repeat(1_000), suggestedUserMessage: "m".repeat(1_000) } })
      assert.strictEqual(atLimits.status, 201, atLimits.text)
      const long = `http://127.0.0.1:9/${"a".repeat(2_048)}`
      for (const body of [{ callbackUri: long }, { errorCallbackUri: long }, { secret: "s".repeat(1_025) }]) {
        const refused = yield* call("POST", "/_simulator/webhooks", { json: { ...webhookBody("long"), ...body } })
        assert.strictEqual(refused.status, 400, refused.text)
        assert.include(refused.json.errors[0].detail, "at most")
      }
      // the limit holds for the URL as kept (percent-encoded), not only as given
      const emoji = `http://h/${"\u{1F600}".repeat(1_019)}`
      assert.isAtMost(emoji.length, 2_048)
      for (const body of [{ callbackUri: emoji }, { errorCallbackUri: emoji }]) {
        const refused = yield* call("POST", "/_simulator/webhooks", { json: { ...webhookBody("encoded"), ...body } })
        assert.strictEqual(refused.status, 400, refused.text.slice(0, 200))
        assert.include(refused.json.errors[0].detail, "at most 2048 characters percent-encoded, got 12237")
      }
    }).pipe(Effect.provide(Small)))

  it.effect("a signal body is at most 16,384 characters of JSON, all of them at most 4 Mi: a 400, then a 409; a reset makes room", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[0]!
      const code = sim.data.vehicle(vehicleId)!.signalCodes[0]!
      const body = (chars: number) => {
        const shell = { unit: "km", value: 1, pad: "" }
        return { ...shell, pad: "p".repeat(chars - JSON.stringify(shell).length) }
      }
      const big = yield* call("POST", `/_simulator/vehicles/${vehicleId}/signals/${code}`, { json: body(16_385) })
      assert.strictEqual(big.status, 400, big.text)
      assert.strictEqual(big.json.errors[0].type, "VALIDATION")
      assert.include(big.json.errors[0].detail, "at most 16384 characters of JSON, got 16385")
      let set = 0
      let refusal: { readonly status: number; readonly detail: string } | undefined
      outer: for (const id of sim.data.vehicleIds) {
        for (const c of sim.data.vehicle(id)!.signalCodes) {
          const reply = yield* Effect.match(sim.setSignal(id, c, body(16_384)), { onFailure: (e) => e, onSuccess: () => undefined })
          if (reply !== undefined) {
            refusal = reply
            break outer
          }
          set++
        }
      }
      assert.strictEqual(set, Math.floor(4_194_304 / 16_384))
      assert.strictEqual(refusal?.status, 409)
      assert.include(refusal?.detail, "POST /_simulator/reset")
      // a body set again replaces its old one's characters
      yield* sim.setSignal(vehicleId, code, body(100))
      yield* sim.setSignal(vehicleId, code, body(16_384))
      yield* sim.reset
      assert.strictEqual((yield* call("POST", `/_simulator/vehicles/${vehicleId}/signals/${code}`, { json: body(16_384) })).status, 200)
    }).pipe(Effect.provide(Small)))

  it.effect("the defaults: 1,000 webhooks, 10,000 open errors (in process)", () =>
    Effect.gen(function*() {
      assert.strictEqual(WEBHOOK_LIMIT, 1_000)
      assert.strictEqual(VEHICLE_ERROR_LIMIT, 10_000)
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[0]!
      for (let i = 0; i < VEHICLE_ERROR_LIMIT; i++) yield* sim.injectVehicleError(vehicleId, {})
      const over = yield* Effect.flip(sim.injectVehicleError(vehicleId, {}))
      assert.strictEqual(over.status, 409)
      assert.include(over.detail, `${VEHICLE_ERROR_LIMIT} vehicle errors are open`)
    }).pipe(Effect.provide(Layer.mergeAll(simulatorLayer({ port: 0, seed: 6 }), FetchHttpClient.layer))))

  it("controlLimits that are not whole numbers of at least 1 are refused when the layer is made: an InvalidArgument naming the field", () => {
    for (const controlLimits of [...[{ webhooks: 0 }, { vehicleErrors: 2.5 }, { vehicleErrors: Number.POSITIVE_INFINITY }], null, 5] as const) {
      const error = thrown(() => simulatorLayer({ controlLimits: controlLimits as never }))
      assert.instanceOf(error, InvalidArgument, JSON.stringify(controlLimits))
      assert.match((error as InvalidArgument).field, /^controlLimits/)
    }
  })
})

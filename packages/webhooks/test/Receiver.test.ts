/**
 * The receiver over real loopback HTTP (the `effect/http` application on
 * NodeHttpServer, the Node adapter on a plain `http.createServer`) and the
 * Web adapter called directly: the same deliveries, the same answers.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Fiber, Layer, Logger } from "effect"
import { HttpRouter } from "effect/http"
import { createHash } from "node:crypto"
import { createServer } from "node:http"
import { inspect } from "node:util"
import { isFailedSignal } from "@connected-vehicle/schema/WebhookEvent"
import * as Receiver from "../src/Receiver.ts"
import * as SeenEvents from "../src/SeenEvents.ts"
import { sign } from "../src/Signature.ts"
import { otherSecret, prettyEscaped, secret, secretText, signed, vehicleErrorEvent, vehicleStateEvent, verifyEvent } from "./samples.ts"
import { capture, expectedChallenge, type Options, recorder, type Send, targets } from "./utils.ts"

for (const [name, makeTarget] of targets) {
  describe(name, () => {
    /** A receiver with a recording handler, its target and its captured logs. */
    const setup = (extra?: Partial<Options>) =>
      Effect.gen(function*() {
        const rec = recorder()
        const logs = capture()
        const send = yield* makeTarget({ secret, handler: rec.handler, ...extra }, logs.layer)
        const deliver = (input: Send) => Effect.promise(() => send(input))
        return { ...rec, logs, deliver }
      })

    it.live("VERIFY is answered with the challenge's HMAC, without the handler", () =>
      Effect.gen(function*() {
        const { calls, deliver } = yield* setup()
        const answer = yield* deliver(signed(JSON.stringify(verifyEvent("9f8e7d6c"))))
        assert.strictEqual(answer.status, 200, answer.text)
        assert.match(answer.contentType ?? "", /^application\/json/)
        assert.deepStrictEqual(answer.json, { challenge: expectedChallenge("9f8e7d6c") })
        assert.strictEqual(calls.length, 0)
      }), { timeout: 30_000 })

    it.live("a plain-string secret (express / JavaScript users): VERIFY answered, an event handled, a forgery 401", () =>
      Effect.gen(function*() {
        const { calls, deliver, logs } = yield* setup({ secret: secretText })
        const challenge = yield* deliver(signed(JSON.stringify(verifyEvent("0a1b2c3d"))))
        assert.strictEqual(challenge.status, 200, challenge.text)
        assert.deepStrictEqual(challenge.json, { challenge: expectedChallenge("0a1b2c3d") })
        const handled = yield* deliver(signed(JSON.stringify(vehicleStateEvent("evt_plain"))))
        assert.strictEqual(handled.status, 200, handled.text)
        assert.deepStrictEqual(handled.json, { status: "handled" })
        assert.strictEqual(calls.length, 1)
        const forged = yield* deliver(signed(JSON.stringify(vehicleStateEvent("evt_forged")), otherSecret))
        assert.strictEqual(forged.status, 401, forged.text)
        assert.strictEqual(forged.json.error._tag, "InvalidSignature")
        assert.strictEqual(calls.length, 1)
        for (const text of [...logs.lines, challenge.text, handled.text, forged.text]) assert.notInclude(text, secretText)
      }), { timeout: 30_000 })

    it.live("a VEHICLE_STATE reaches the handler decoded", () =>
      Effect.gen(function*() {
        const { calls, deliver } = yield* setup()
        const answer = yield* deliver(signed(JSON.stringify(vehicleStateEvent("evt_s1"))))
        assert.strictEqual(answer.status, 200, answer.text)
        assert.deepStrictEqual(answer.json, { status: "handled" })
        assert.strictEqual(calls.length, 1)
        const event = calls[0]!
        assert.strictEqual(event.eventType, "VEHICLE_STATE")
        if (event.eventType !== "VEHICLE_STATE") return
        assert.strictEqual(event.eventId, "evt_s1")
        assert.strictEqual(event.vehicleId, "veh_1")
        assert.strictEqual(event.data.user.id, "usr_1")
        assert.deepStrictEqual(event.data.triggers.map((t) => t.code), ["charge-ischarging"])
        assert.deepStrictEqual(event.data.signals.map((s) => s.code), [
          "charge-ischarging",
          "tractionbattery-stateofcharge",
          "location-preciselocation"
        ])
        assert.isTrue(DateTime.isDateTime(event.meta.deliveredAt))
      }), { timeout: 30_000 })

    it.live("a VEHICLE_STATE whose signal reads have a null body or a null unit reaches the handler (body {}, unit null)", () =>
      Effect.gen(function*() {
        const { calls, deliver } = yield* setup()
        const sample = vehicleStateEvent("evt_nulls")
        const [charging, soc, location] = sample.data.signals
        const signals = [{ ...charging, body: null }, { ...soc, body: { unit: null, value: 81 } }, location]
        const answer = yield* deliver(signed(JSON.stringify({ ...sample, data: { ...sample.data, signals } })))
        assert.strictEqual(answer.status, 200, answer.text)
        assert.deepStrictEqual(answer.json, { status: "handled" })
        const event = calls[0]!
        if (event?.eventType !== "VEHICLE_STATE") return assert.fail(String(event?.eventType))
        assert.deepStrictEqual(event.data.signals.map((s) => isFailedSignal(s) ? s.status.value : s.body), [{}, { unit: null, value: 81 }, "ERROR"])
      }), { timeout: 30_000 })

    it.live("a pretty-printed body with \\u00e9 escapes verifies and decodes", () =>
      Effect.gen(function*() {
        const { calls, deliver } = yield* setup()
        const body = prettyEscaped(vehicleStateEvent("evt_pretty"))
        assert.include(body, "Zo\\u00e9")
        const answer = yield* deliver({ ...signed(body), streamed: true })
        assert.strictEqual(answer.status, 200, answer.text)
        const event = calls[0]!
        assert.strictEqual(event.eventType === "VEHICLE_STATE" ? event.data.vehicle.model : "", "Zoé")
      }), { timeout: 30_000 })

    it.live("VEHICLE_ERROR and an unknown event kind reach the handler", () =>
      Effect.gen(function*() {
        const { calls, deliver } = yield* setup()
        assert.strictEqual((yield* deliver(signed(JSON.stringify(vehicleErrorEvent())))).status, 200)
        const unknown = { eventId: "evt_new", eventType: "VEHICLE_DELETED", vehicleId: "veh_1" }
        assert.strictEqual((yield* deliver(signed(JSON.stringify(unknown)))).status, 200)
        assert.deepStrictEqual(calls.map((e) => e.eventType), ["VEHICLE_ERROR", "UNKNOWN"])
        const last = calls[1]!
        assert.deepStrictEqual(last.eventType === "UNKNOWN" ? last.raw : undefined, unknown)
      }), { timeout: 30_000 })

    it.live("a bad, missing or malformed signature is 401 with a JSON body, before any parsing", () =>
      Effect.gen(function*() {
        const { calls, deliver } = yield* setup()
        const body = JSON.stringify(vehicleStateEvent("evt_forged"))
        const cases = [
          [sign(body, otherSecret), "InvalidSignature"],
          [undefined, "MissingSignature"],
          [sign(body, secret).toUpperCase(), "MalformedSignature"],
          [sign(body, secret).slice(0, 40), "MalformedSignature"]
        ] as const
        for (const [signature, tag] of cases) {
          const answer = yield* deliver({ body, signature })
          assert.strictEqual(answer.status, 401, answer.text)
          assert.match(answer.contentType ?? "", /^application\/json/)
          assert.strictEqual(answer.json.error._tag, tag)
        }
        // not JSON at all but badly signed: still 401, not 400
        assert.strictEqual((yield* deliver({ body: "{{{", signature: sign("{{{", otherSecret) })).status, 401)
        // one flipped byte of a correctly signed body
        const bytes = new TextEncoder().encode(body)
        const signature = sign(bytes, secret)
        bytes[10] = bytes[10]! ^ 0x01
        assert.strictEqual((yield* deliver({ body: bytes, signature })).status, 401)
        assert.strictEqual(calls.length, 0)
      }), { timeout: 30_000 })

    it.live("a body over the limit is 413, declared or streamed", () =>
      Effect.gen(function*() {
        const { calls, deliver } = yield* setup()
        const big = JSON.stringify({ ...vehicleStateEvent("evt_big"), padding: "x".repeat(Receiver.defaultMaxBodySize) })
        const answer = yield* deliver(signed(big))
        assert.strictEqual(answer.status, 413, answer.text)
        assert.strictEqual(answer.json.error._tag, "BodyTooLarge")
        assert.strictEqual((yield* deliver({ ...signed(big), streamed: true })).status, 413)
        // a body of 50 KB (the service's maximum) is accepted
        const fifty = JSON.stringify({ ...vehicleStateEvent("evt_50k"), padding: "x".repeat(49_000) })
        assert.strictEqual((yield* deliver({ ...signed(fifty), streamed: true })).status, 200)
        assert.strictEqual(calls.length, 1)
      }), { timeout: 30_000 })

    it.live("maxBodySize is configurable", () =>
      Effect.gen(function*() {
        const { calls, deliver } = yield* setup({ maxBodySize: 512 })
        const answer = yield* deliver(signed(JSON.stringify(vehicleStateEvent("evt_small_limit"))))
        assert.strictEqual(answer.status, 413, answer.text)
        assert.strictEqual(calls.length, 0)
      }), { timeout: 30_000 })

    it.live("a signed body that is not an event is 400", () =>
      Effect.gen(function*() {
        const { calls, deliver } = yield* setup()
        for (const body of ["{\"eventId\":", "[]", JSON.stringify({ ...vehicleStateEvent(), data: {} })]) {
          const answer = yield* deliver(signed(body))
          assert.strictEqual(answer.status, 400, answer.text)
          assert.strictEqual(answer.json.error._tag, "MalformedEvent")
        }
        const notUtf8 = Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d])
        assert.strictEqual((yield* deliver(signed(notUtf8))).status, 400)
        assert.strictEqual(calls.length, 0)
      }), { timeout: 30_000 })

    it.live("not a POST is 405", () =>
      Effect.gen(function*() {
        const { deliver } = yield* setup()
        const answer = yield* deliver({ body: "", method: "GET" })
        assert.strictEqual(answer.status, 405, answer.text)
        assert.strictEqual(answer.json.error._tag, "MethodNotAllowed")
      }), { timeout: 30_000 })

    it.live("a failing, dying or interrupted handler is 500; the retry runs it once more; a duplicate after success does not", () =>
      Effect.gen(function*() {
        const { calls, deliver, state } = yield* setup()
        const delivery = signed(JSON.stringify(vehicleStateEvent("evt_retry")))
        state.failures = 1
        const first = yield* deliver(delivery)
        assert.strictEqual(first.status, 500, first.text)
        assert.strictEqual(first.json.error._tag, "HandlerFailed")
        assert.notInclude(first.text, "database unavailable")
        // a defect is a failure too
        state.die = true
        assert.strictEqual((yield* deliver(delivery)).status, 500)
        // and so is a handler that ends by interruption: HandlerFailed, its claim released
        state.interrupt = true
        const interrupted = yield* deliver(delivery)
        assert.strictEqual(interrupted.status, 500, interrupted.text)
        assert.strictEqual(interrupted.json?.error?._tag, "HandlerFailed", interrupted.text)
        const fourth = yield* deliver(delivery)
        assert.strictEqual(fourth.status, 200, fourth.text)
        assert.deepStrictEqual(fourth.json, { status: "handled" })
        assert.strictEqual(calls.length, 4)
        // the service retries although it was handled (a timeout on its side): no new run
        const fifth = yield* deliver(delivery)
        assert.strictEqual(fifth.status, 200)
        assert.deepStrictEqual(fifth.json, { status: "duplicate" })
        assert.strictEqual(calls.length, 4)
        // a different eventId runs the handler
        assert.strictEqual((yield* deliver(signed(JSON.stringify(vehicleStateEvent("evt_other"))))).status, 200)
        assert.strictEqual(calls.length, 5)
      }), { timeout: 30_000 })

    it.live("concurrent deliveries of one event run the handler once (409 while in flight)", () =>
      Effect.gen(function*() {
        const { calls, deliver, state } = yield* setup()
        let open!: () => void
        state.gate = new Promise<void>((resolve) => {
          open = resolve
        })
        const delivery = signed(JSON.stringify(vehicleStateEvent("evt_concurrent")))
        const first = yield* Effect.forkChild(deliver(delivery))
        // wait until the first delivery is inside the handler
        while (calls.length === 0) yield* Effect.sleep("5 millis")
        const second = yield* deliver(delivery)
        assert.strictEqual(second.status, 409, second.text)
        assert.strictEqual(second.json.error._tag, "EventInFlight")
        state.gate = undefined
        open()
        const firstAnswer = yield* Fiber.join(first)
        assert.strictEqual(firstAnswer.status, 200, firstAnswer.text)
        assert.deepStrictEqual((yield* deliver(delivery)).json, { status: "duplicate" })
        assert.strictEqual(calls.length, 1)
      }), { timeout: 30_000 })

    it.live("the secret appears in no log line, answer, error or inspected value", () =>
      Effect.gen(function*() {
        const { deliver, logs, state } = yield* setup()
        const answers: Array<string> = []
        const body = JSON.stringify(vehicleStateEvent("evt_secret"))
        for (const send of [signed(body, otherSecret), { body }, signed("{}"), signed(JSON.stringify(verifyEvent()))]) {
          answers.push((yield* deliver(send)).text)
        }
        state.failures = 1
        answers.push((yield* deliver(signed(body))).text)
        answers.push((yield* deliver(signed(body))).text)
        assert.isAbove(logs.lines.length, 0)
        const receiver = Receiver.make({ secret, handler: () => Effect.void })
        const texts = [
          ...logs.lines,
          ...answers,
          inspect(receiver, { depth: 10 }),
          JSON.stringify(receiver),
          inspect(secret),
          String(secret)
        ]
        const hashed = createHash("sha256").update(secretText).digest("hex")
        for (const text of texts) {
          assert.notInclude(text, secretText)
          assert.notInclude(text, hashed)
        }
      }), { timeout: 30_000 })
  })
}

describe("on an HttpRouter route for every method, as in the README", () => {
  it.live("a GET is answered 405 with Allow: POST by the receiver; a signed POST is handled", () =>
    Effect.gen(function*() {
      const server = createServer()
      yield* Layer.build(
        HttpRouter.serve(HttpRouter.add("*", "/webhooks", Receiver.toHttpEffect({ secret, handler: () => Effect.void })), {
          disableLogger: true,
          disableListenLog: true
        }).pipe(
          Layer.provide([
            SeenEvents.layerMemory(),
            Receiver.layerHandlerScope,
            NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1", gracefulShutdownTimeout: 0 }),
            Logger.layer([])
          ])
        )
      ).pipe(Effect.orDie)
      const address = server.address()
      const url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/webhooks`
      const get = yield* Effect.promise(() => fetch(url))
      assert.strictEqual(get.status, 405)
      assert.strictEqual(get.headers.get("allow"), "POST")
      assert.strictEqual((JSON.parse(yield* Effect.promise(() => get.text())) as any).error._tag, "MethodNotAllowed")
      const delivery = signed(JSON.stringify(vehicleStateEvent("evt_routed")))
      const post = yield* Effect.promise(() =>
        fetch(url, { method: "POST", headers: { "sc-signature": delivery.signature }, body: delivery.body })
      )
      assert.strictEqual(post.status, 200)
      assert.strictEqual(yield* Effect.promise(() => post.text()), "{\"status\":\"handled\"}")
    }))
})

/**
 * The receiver outside the shared deliveries: the secret checked at
 * construction, the Node adapter behind frameworks that read the body first,
 * a persistent seen-events store, and `Receiver.receive` without HTTP.
 */
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer, Option, Redacted, Result } from "effect"
import { KeyValueStore } from "effect/persistence"
import { TestClock } from "effect/testing"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { inspect } from "node:util"
import * as NodeAdapter from "../src/NodeAdapter.ts"
import * as Receiver from "../src/Receiver.ts"
import * as SeenEvents from "../src/SeenEvents.ts"
import { sign } from "../src/Signature.ts"
import * as WebAdapter from "../src/WebAdapter.ts"
import { prettyEscaped, secret, signed, vehicleStateEvent, verifyEvent } from "./samples.ts"
import { fetchTarget, listen } from "./utils.ts"

/** The handlers' scope of a test: its own, closed as the test ends. */
const withHandlers = Effect.provide(Receiver.layerHandlerScope)

describe("an empty or missing secret", () => {
  it("every make throws an InvalidArgument naming the secret at construction (no receiver answering 500 to every delivery)", () => {
    const handler = () => Effect.void
    const makers: ReadonlyArray<readonly [string, (secret: unknown) => unknown]> = [
      ["Receiver.make", (secret) => Receiver.make({ secret: secret as string, handler })],
      ["Receiver.toHttpEffect", (secret) => Receiver.toHttpEffect({ secret: secret as string, handler })],
      ["NodeAdapter.make", (secret) => NodeAdapter.make({ secret: secret as string, handler })],
      ["WebAdapter.make", (secret) => WebAdapter.make({ secret: secret as string, handler })]
    ]
    for (const [name, make] of makers) {
      for (const secret of ["", undefined, Redacted.make(""), Redacted.make(undefined), 42]) {
        let thrown: unknown = undefined
        try {
          make(secret)
        } catch (error) {
          thrown = error
        }
        assert.instanceOf(thrown, InvalidArgument, `${name}(${inspect(secret)})`)
        assert.strictEqual((thrown as InvalidArgument).field, "secret", name)
        assert.match((thrown as Error).message, /^secret: Expected the webhook secret/)
      }
    }
  })
})

describe("Node adapter with frameworks that read the body first", () => {
  const serve = (
    before: (req: IncomingMessage & { rawBody?: unknown; body?: unknown }, raw: Buffer) => void,
    calls: Array<DeliveredEvent>
  ) =>
    Effect.gen(function*() {
      const handler = NodeAdapter.make({ secret, handler: (event) => Effect.sync(() => calls.push(event)) })
      yield* Effect.addFinalizer(() => Effect.promise(() => handler.dispose()))
      // a middleware that consumes the stream, as express.raw()/express.json() do
      const server = createServer((req: IncomingMessage, res: ServerResponse) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          before(req, Buffer.concat(chunks))
          handler(req, res)
        })
      })
      const port = yield* listen(server)
      return fetchTarget(`http://127.0.0.1:${port}/webhooks`)
    })

  it.live("req.rawBody (a Buffer), a Buffer req.body or a string req.body are verified as they are", () =>
    Effect.gen(function*() {
      const calls: Array<DeliveredEvent> = []
      const body = prettyEscaped(vehicleStateEvent("evt_raw"))
      for (
        const before of [
          (req: IncomingMessage & { rawBody?: unknown; body?: unknown }, raw: Buffer) => {
            req.rawBody = raw
            req.body = JSON.parse(raw.toString("utf8"))
          },
          (req: IncomingMessage & { body?: unknown }, raw: Buffer) => {
            req.body = raw
          },
          (req: IncomingMessage & { body?: unknown }, raw: Buffer) => {
            req.body = raw.toString("utf8")
          }
        ]
      ) {
        const send = yield* serve(before, calls)
        const answer = yield* Effect.promise(() => send(signed(body)))
        assert.strictEqual(answer.status, 200, answer.text)
      }
      // three receivers, each with its own in-memory store: each ran the handler
      assert.strictEqual(calls.length, 3)
    }), { timeout: 30_000 })

  it.live("a body already parsed to an object, without the raw bytes, is 500 UnreadableBody", () =>
    Effect.gen(function*() {
      const calls: Array<DeliveredEvent> = []
      const send = yield* serve((req: IncomingMessage & { body?: unknown }, raw) => {
        req.body = JSON.parse(raw.toString("utf8"))
      }, calls)
      const answer = yield* Effect.promise(() => send(signed(JSON.stringify(vehicleStateEvent()))))
      assert.strictEqual(answer.status, 500, answer.text)
      assert.strictEqual(answer.json.error._tag, "UnreadableBody")
      assert.include(answer.json.error.message, "body parser")
      assert.strictEqual(calls.length, 0)
    }), { timeout: 30_000 })
})

describe("persistent seen-events store behind an adapter", () => {
  it.live("a delivery handled before a restart is a duplicate after it (KeyValueStore)", () =>
    Effect.gen(function*() {
      const backend = yield* Layer.build(KeyValueStore.layerMemory)
      const kv = Layer.succeedContext(backend)
      const calls: Array<DeliveredEvent> = []
      const delivery = signed(JSON.stringify(vehicleStateEvent("evt_persisted")))
      for (let run = 0; run < 2; run++) {
        const handler = WebAdapter.make({
          secret,
          handler: (event) => Effect.sync(() => calls.push(event)),
          seenEvents: SeenEvents.layerKeyValueStore().pipe(Layer.provide(kv))
        })
        const response = yield* Effect.promise(() =>
          handler(
            new Request("http://receiver.test/", {
              method: "POST",
              headers: { "sc-signature": delivery.signature },
              body: delivery.body
            })
          )
        )
        assert.strictEqual(response.status, 200)
        yield* Effect.promise(() => handler.dispose())
      }
      assert.strictEqual(calls.length, 1)
    }), { timeout: 30_000 })
})

describe("Receiver.receive (no HTTP)", () => {
  it.effect("KeyValueStore: a handler outliving inFlightTimeout and failing leaves the retry's mark (the next delivery is 409)", () =>
    Effect.gen(function*() {
      const gates = [yield* Deferred.make<void, Error>(), yield* Deferred.make<void, Error>(), yield* Deferred.make<void, Error>()]
      yield* Deferred.succeed(gates[2]!, undefined) // a third run (the bug) would answer at once
      let runs = 0
      const receiver = Receiver.make({ secret, handler: () => Effect.suspend(() => Deferred.await(gates[runs++]!)) })
      const delivery = signed(JSON.stringify(vehicleStateEvent("evt_slow")))
      const waitRuns = (n: number) => Effect.gen(function*() {
        while (runs < n) yield* Effect.yieldNow
      })
      const a = yield* Effect.forkChild(receiver.receive(delivery))
      yield* waitRuns(1)
      yield* TestClock.adjust("75 seconds") // past the default inFlightTimeout (60 s): the service's retry runs
      const b = yield* Effect.forkChild(receiver.receive(delivery))
      yield* waitRuns(2)
      yield* Deferred.fail(gates[0]!, new Error("A failed"))
      assert.strictEqual((yield* Fiber.join(a)).status, 500)
      const c = yield* receiver.receive(delivery)
      assert.strictEqual(c.status, 409, c.body)
      assert.strictEqual(c.error?._tag, "EventInFlight")
      assert.strictEqual(runs, 2)
      yield* Deferred.succeed(gates[1]!, undefined)
      assert.strictEqual((yield* Fiber.join(b)).status, 200)
      assert.strictEqual((yield* receiver.receive(delivery)).outcome, "duplicate")
      assert.strictEqual(runs, 2)
    }).pipe(withHandlers, Effect.provide(SeenEvents.layerKeyValueStore().pipe(Layer.provide(KeyValueStore.layerMemory)))))

  it.effect("a handler ending by interruption is HandlerFailed (500); the receiving fiber interrupted from outside is interrupted; both release the claim", () =>
    Effect.gen(function*() {
      let runs = 0
      const started = yield* Deferred.make<void>()
      const receiver = Receiver.make({
        secret,
        handler: () =>
          Effect.suspend(() => {
            runs++
            return runs === 1 ? Effect.interrupt : Deferred.succeed(started, undefined).pipe(Effect.andThen(Effect.never))
          })
      })
      const delivery = signed(JSON.stringify(vehicleStateEvent("evt_interrupted")))
      const first = yield* receiver.receive(delivery)
      assert.strictEqual(first.status, 500, first.body)
      assert.strictEqual(first.error?._tag, "HandlerFailed")
      const fiber = yield* Effect.forkChild(receiver.receive(delivery))
      yield* Deferred.await(started)
      const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
      assert.isTrue(Exit.hasInterrupts(exit), String(exit))
      assert.strictEqual(runs, 2)
      // the claim was released: the retry runs the handler (and blocks in it)
      const third = yield* Effect.forkChild(receiver.receive(delivery))
      yield* Effect.yieldNow
      while (runs < 3) yield* Effect.yieldNow
      yield* Fiber.interrupt(third)
    }).pipe(withHandlers, Effect.provide(SeenEvents.layerMemory())))

  it.effect("a store wrapped for the previous interface (its release drops the owner): a failed delivery's retry runs the handler", () =>
    Effect.gen(function*() {
      let runs = 0
      const receiver = Receiver.make({
        secret,
        handler: () => Effect.suspend(() => ++runs === 1 ? Effect.fail(new Error("first run fails")) : Effect.void)
      })
      const delivery = signed(JSON.stringify(vehicleStateEvent("evt_wrapped_store")))
      assert.strictEqual((yield* receiver.receive(delivery)).status, 500)
      const retry = yield* receiver.receive(delivery)
      assert.strictEqual(retry.status, 200, retry.body)
      assert.strictEqual(runs, 2)
    }).pipe(withHandlers, Effect.provide(Layer.effect(
      SeenEvents.SeenEvents,
      Effect.map(SeenEvents.makeMemory(), (inner) =>
        // the claim passed on whole, the release written with one parameter
        SeenEvents.SeenEvents.of({
          ...inner,
          release: (eventId: string) => Effect.tap(inner.release(eventId), () => Effect.logDebug("released", eventId))
        }))
    ))))

  it.effect("a store whose release or completion hangs holds a receive at most 10 seconds (its answer stands)", () =>
    Effect.gen(function*() {
      const inner = yield* SeenEvents.makeMemory()
      const hanging = SeenEvents.SeenEvents.of({ ...inner, release: () => Effect.never, complete: () => Effect.never })
      for (const [fails, status] of [[true, 500], [false, 200]] as const) {
        const receiver = Receiver.make({ secret, handler: () => fails ? Effect.fail(new Error("boom")) : Effect.void })
        const fiber = yield* Effect.forkChild(
          receiver.receive(signed(JSON.stringify(vehicleStateEvent(`evt_hanging_settle_${status}`)))).pipe(
            Effect.provideService(SeenEvents.SeenEvents, hanging)
          )
        )
        yield* TestClock.adjust("9 seconds")
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust("1 second")
        assert.strictEqual((yield* Fiber.join(fiber)).status, status)
      }
    }).pipe(withHandlers))

  it.effect("a store wrapper that claims without the owner (written for the previous interface): a failed delivery's retry runs the handler", () =>
    Effect.gen(function*() {
      const inner = yield* SeenEvents.makeMemory()
      const wrapped = SeenEvents.SeenEvents.of({ ...inner, claim: (eventId: string) => inner.claim(eventId) })
      let runs = 0
      const receiver = Receiver.make({ secret, handler: () => Effect.suspend(() => ++runs === 1 ? Effect.fail(new Error("boom")) : Effect.void) })
      const receive = receiver.receive(signed(JSON.stringify(vehicleStateEvent("evt_wrapped_claim")))).pipe(
        Effect.provideService(SeenEvents.SeenEvents, wrapped)
      )
      assert.strictEqual((yield* receive).status, 500)
      assert.deepStrictEqual([(yield* receive).status, (yield* receive).status], [200, 200])
      assert.strictEqual(runs, 2)
    }).pipe(withHandlers))

  it.live("a receive whose claim hangs (a store's backend hung) can still be interrupted, and timed out", () =>
    Effect.gen(function*() {
      const inner = yield* SeenEvents.makeMemory()
      const hanging = SeenEvents.SeenEvents.of({ ...inner, claim: () => Effect.never })
      const receiver = Receiver.make({ secret, handler: () => Effect.void })
      const receive = receiver.receive(signed(JSON.stringify(vehicleStateEvent("evt_hanging_claim")))).pipe(
        Effect.provideService(SeenEvents.SeenEvents, hanging)
      )
      const fiber = yield* Effect.forkChild(receive)
      yield* Effect.sleep("20 millis")
      const interrupted = yield* Fiber.interrupt(fiber).pipe(Effect.timeoutOption("2 seconds"))
      assert.isTrue(Option.isSome(interrupted), "Fiber.interrupt returned")
      const timedOut = yield* receive.pipe(Effect.timeoutOption("50 millis"), Effect.timeoutOption("2 seconds"))
      assert.deepStrictEqual(timedOut, Option.some(Option.none()))
    }).pipe(withHandlers))

  it.live("an interrupted claim's release leaves another delivery's claim (anonymous, by a wrapper for the previous interface) in place", () =>
    Effect.gen(function*() {
      const inner = yield* SeenEvents.makeMemory()
      // a wrapper that claims without the owner, slowly
      const wrapped = SeenEvents.SeenEvents.of({
        ...inner,
        claim: (eventId: string) => Effect.andThen(Effect.sleep("30 millis"), inner.claim(eventId))
      })
      const gate = yield* Deferred.make<void>()
      let running = 0
      let most = 0
      const receiver = Receiver.make({
        secret,
        handler: () =>
          Effect.suspend(() => {
            most = Math.max(most, ++running)
            return Effect.ensuring(Deferred.await(gate), Effect.sync(() => running--))
          })
      })
      const receive = receiver.receive(signed(JSON.stringify(vehicleStateEvent("evt_anonymous_claim")))).pipe(
        Effect.provideService(SeenEvents.SeenEvents, wrapped)
      )
      const first = yield* Effect.forkChild(receive)
      yield* Effect.sleep("100 millis") // claimed, its handler waiting
      const second = yield* Effect.forkChild(receive)
      yield* Effect.sleep("10 millis")
      yield* Fiber.interrupt(second) // in its claim
      yield* Effect.sleep("50 millis")
      const third = yield* receive
      assert.strictEqual(third.status, 409, third.body)
      assert.strictEqual(most, 1)
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual((yield* Fiber.join(first)).status, 200)
    }).pipe(withHandlers))

  it.effect("a failing seen-events store is 503, and the handler does not run", () =>
    Effect.gen(function*() {
      const calls: Array<DeliveredEvent> = []
      const receiver = Receiver.make({ secret, handler: (event) => Effect.sync(() => calls.push(event)) })
      const failing = SeenEvents.SeenEvents.of({
        claim: (eventId) => Effect.fail(new SeenEvents.SeenEventsError({ operation: "claim", eventId })),
        complete: () => Effect.void,
        release: () => Effect.void
      })
      const reply = yield* receiver.receive(signed(JSON.stringify(vehicleStateEvent()))).pipe(
        Effect.provideService(SeenEvents.SeenEvents, failing)
      )
      assert.strictEqual(reply.status, 503)
      assert.strictEqual(reply.error?._tag, "SeenEventsError")
      assert.strictEqual(calls.length, 0)
      // VERIFY does not need the store
      const verify = yield* receiver.receive(signed(JSON.stringify(verifyEvent("abc")))).pipe(
        Effect.provideService(SeenEvents.SeenEvents, failing)
      )
      assert.strictEqual(verify.status, 200)
      assert.strictEqual(verify.outcome, "challenge")
    }).pipe(withHandlers))

  it.effect("an event with an empty eventId is a MalformedEvent (400), never handled nor taken for a duplicate", () =>
    Effect.gen(function*() {
      const calls: Array<DeliveredEvent> = []
      const receiver = Receiver.make({ secret, handler: (event) => Effect.sync(() => calls.push(event)) })
      for (const make of ["RENAULT", "TESLA"]) {
        const reply = yield* receiver.receive(signed(JSON.stringify(vehicleStateEvent("", make))))
        assert.strictEqual(reply.status, 400, reply.body)
        assert.strictEqual(reply.error?._tag, "MalformedEvent")
        assert.include(reply.body, "the eventId is empty")
      }
      assert.strictEqual(calls.length, 0)
    }).pipe(withHandlers, Effect.provide(SeenEvents.layerMemory())))

  it.effect("an eventId longer than maxEventIdLength is a MalformedEvent (400), not kept; one of that length is handled", () =>
    Effect.gen(function*() {
      const calls: Array<DeliveredEvent> = []
      const claimed: Array<string> = []
      const receiver = Receiver.make({ secret, handler: (event) => Effect.sync(() => calls.push(event)) })
      const store = SeenEvents.SeenEvents.of({
        claim: (eventId) => Effect.sync(() => (claimed.push(eventId), "claimed" as const)),
        complete: () => Effect.void,
        release: () => Effect.void
      })
      const tooLong = yield* receiver.receive(signed(JSON.stringify(vehicleStateEvent("e".repeat(Receiver.maxEventIdLength + 1)))))
        .pipe(Effect.provideService(SeenEvents.SeenEvents, store))
      assert.strictEqual(tooLong.status, 400, tooLong.body)
      assert.strictEqual(tooLong.error?._tag, "MalformedEvent")
      assert.include(tooLong.body, `longer than ${Receiver.maxEventIdLength} characters`)
      assert.deepStrictEqual(claimed, [])
      const longest = "e".repeat(Receiver.maxEventIdLength)
      const ok = yield* receiver.receive(signed(JSON.stringify(vehicleStateEvent(longest)))).pipe(Effect.provideService(SeenEvents.SeenEvents, store))
      assert.strictEqual(ok.status, 200, ok.body)
      assert.deepStrictEqual(claimed, [longest])
      assert.strictEqual(calls.length, 1)
    }).pipe(withHandlers))

  it.effect("an eventId holding a NUL or a lone surrogate is a MalformedEvent (400), never handled; a paired surrogate is handled", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      const receiver = Receiver.make({ secret, handler: (event) => Effect.sync(() => calls.push(event.eventId)) })
      for (const eventId of ["evt_\u0000nul", "evt_\ud800", "\udc00evt"]) {
        const reply = yield* receiver.receive(signed(JSON.stringify(vehicleStateEvent(eventId))))
        assert.strictEqual(reply.status, 400, reply.body)
        assert.strictEqual(reply.error?._tag, "MalformedEvent")
        assert.include(reply.body, "the eventId holds a NUL character or a lone surrogate")
      }
      const paired = yield* receiver.receive(signed(JSON.stringify(vehicleStateEvent("evt_\ud83d\ude97"))))
      assert.strictEqual(paired.status, 200, paired.body)
      assert.deepStrictEqual(calls, ["evt_\ud83d\ude97"])
    }).pipe(withHandlers, Effect.provide(SeenEvents.layerMemory())))

  it.effect("a string body is verified as its UTF-8 bytes", () =>
    Effect.gen(function*() {
      const receiver = Receiver.make({ secret, handler: () => Effect.void })
      const body = JSON.stringify(vehicleStateEvent("evt_text"))
      const fromText = yield* receiver.receive({ body, signature: sign(new TextEncoder().encode(body), secret) })
      assert.strictEqual(fromText.status, 200)
      assert.strictEqual(fromText.outcome, "handled")
    }).pipe(withHandlers, Effect.provide(SeenEvents.layerMemory())))

  it("decodeBody keeps a signal body's escaped keys whatever bodies were parsed before", () => {
    const withKey = (key: string) => {
      const event = vehicleStateEvent("evt_keys")
      return JSON.stringify({ ...event, data: { ...event.data, signals: [{ ...event.data.signals[1]!, body: { unit: "V", [key]: 1 } }] } })
    }
    // V8's JSON.parse reads "\u0000" as "\\" after a "\\" key at the same place (nodejs/node#63785)
    JSON.parse(withKey("\\"))
    const decoded = Receiver.decodeBody(withKey("\u0000"))
    assert.isTrue(Result.isSuccess(decoded))
    const event = (decoded as Result.Success<DeliveredEvent, never>).success
    const signal = event.eventType === "VEHICLE_STATE" ? event.data.signals[0] : undefined
    assert.isTrue(signal !== undefined && "body" in signal)
    assert.deepStrictEqual(Object.keys((signal as { readonly body: object }).body), ["unit", "\u0000"])
  })
})

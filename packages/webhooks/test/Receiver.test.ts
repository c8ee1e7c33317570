/**
 * The receiver over real loopback HTTP (the `effect/http` application on
 * NodeHttpServer, the Node adapter on a plain `http.createServer`) and the
 * Web adapter called directly: the same deliveries, the same answers.
 */
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Fiber, Layer, Logger, Redacted, References, Result } from "effect"
import { createHash, createHmac } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { inspect } from "node:util"
import * as NodeAdapter from "../src/NodeAdapter.ts"
import * as Receiver from "../src/Receiver.ts"
import * as SeenEvents from "../src/SeenEvents.ts"
import { sign } from "../src/Signature.ts"
import * as WebAdapter from "../src/WebAdapter.ts"
import {
  otherSecret,
  prettyEscaped,
  secret,
  secretText,
  signed,
  vehicleErrorEvent,
  vehicleStateEvent,
  verifyEvent
} from "./samples.ts"

interface Answer {
  readonly status: number
  readonly contentType: string | null
  readonly text: string
  readonly json: any
}

interface Send {
  readonly body: string | Uint8Array
  readonly signature?: string | undefined
  readonly method?: string | undefined
  /** send the body as a stream (chunked, no content-length) */
  readonly streamed?: boolean | undefined
}

type Target = (send: Send) => Promise<Answer>

/** What the handler saw, and a switch to make it fail or wait. */
const recorder = () => {
  const calls: Array<DeliveredEvent> = []
  const state = { failures: 0, die: false, gate: undefined as Promise<void> | undefined }
  const handler = (event: DeliveredEvent) =>
    Effect.gen(function*() {
      calls.push(event)
      if (state.gate !== undefined) yield* Effect.promise(() => state.gate!)
      if (state.die) {
        state.die = false
        return yield* Effect.die(new Error("handler defect"))
      }
      if (state.failures > 0) {
        state.failures--
        return yield* Effect.fail(new Error("database unavailable"))
      }
    })
  return { calls, state, handler }
}

/** A logger keeping every line, at every level. */
const capture = () => {
  const lines: Array<string> = []
  const logger = Logger.make((options) => {
    lines.push(Logger.formatJson.log(options))
    lines.push(Logger.formatLogFmt.log(options))
  })
  const layer = Layer.merge(Logger.layer([logger]), Layer.succeed(References.MinimumLogLevel, "All"))
  return { lines, layer }
}

const toStream = (body: string | Uint8Array) => {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 4096) controller.enqueue(bytes.slice(i, i + 4096))
      controller.close()
    }
  })
}

const requestInit = (send: Send): RequestInit & { duplex?: "half" } => {
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "ConnectedVehicle/4.0" }
  if (send.signature !== undefined) headers["sc-signature"] = send.signature
  const method = send.method ?? "POST"
  if (method === "GET" || method === "HEAD") return { method, headers }
  return send.streamed === true
    ? { method, headers, body: toStream(send.body), duplex: "half" }
    : { method, headers, body: send.body as string }
}

const answerOf = async (response: Response): Promise<Answer> => {
  const text = await response.text()
  let json: unknown = undefined
  try {
    json = JSON.parse(text)
  } catch {
    // not JSON: the assertions on `json` fail
  }
  return { status: response.status, contentType: response.headers.get("content-type"), text, json }
}

const fetchTarget = (url: string): Target => (send) => fetch(url, requestInit(send)).then(answerOf)

type Options = Receiver.Options<Error, never>

const listen = (server: Server) =>
  Effect.acquireRelease(
    Effect.callback<number>((resume) => {
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
      })
    }),
    () =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

const targets: ReadonlyArray<readonly [string, (options: Options, logs: Layer.Layer<never>) => Effect.Effect<Target, never, any>]> =
  [
    ["effect/http on NodeHttpServer", (options, logs) =>
      Effect.gen(function*() {
        const store = yield* SeenEvents.makeMemory()
        const server = yield* NodeHttpServer.make(() => createServer(), { port: 0, host: "127.0.0.1", gracefulShutdownTimeout: 0 })
        yield* server.serve(Receiver.toHttpEffect(options)).pipe(
          Effect.provideService(SeenEvents.SeenEvents, store),
          Effect.provide(logs)
        )
        const port = server.address._tag === "UnixPathAddress" ? 0 : server.address.port
        return fetchTarget(`http://127.0.0.1:${port}/webhooks`)
      }).pipe(Effect.orDie)],
    ["Node adapter on http.createServer", (options, logs) =>
      Effect.gen(function*() {
        const handler = NodeAdapter.make({ ...options, layer: logs })
        yield* Effect.addFinalizer(() => Effect.promise(() => handler.dispose()))
        const port = yield* listen(createServer(handler))
        return fetchTarget(`http://127.0.0.1:${port}/webhooks`)
      })],
    ["Web adapter called directly", (options, logs) =>
      Effect.gen(function*() {
        const handler = WebAdapter.make({ ...options, layer: logs })
        yield* Effect.addFinalizer(() => Effect.promise(() => handler.dispose()))
        return (send: Send) => handler(new Request("http://receiver.test/webhooks", requestInit(send))).then(answerOf)
      })]
  ]

const expectedChallenge = (challenge: string) => createHmac("sha256", secretText).update(challenge).digest("hex")

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

    it.live("a failing handler is 500; the retry runs it once more; a duplicate after success does not", () =>
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
        const third = yield* deliver(delivery)
        assert.strictEqual(third.status, 200, third.text)
        assert.deepStrictEqual(third.json, { status: "handled" })
        assert.strictEqual(calls.length, 3)
        // the service retries although it was handled (a timeout on its side): no new run
        const fourth = yield* deliver(delivery)
        assert.strictEqual(fourth.status, 200)
        assert.deepStrictEqual(fourth.json, { status: "duplicate" })
        assert.strictEqual(calls.length, 3)
        // a different eventId runs the handler
        assert.strictEqual((yield* deliver(signed(JSON.stringify(vehicleStateEvent("evt_other"))))).status, 200)
        assert.strictEqual(calls.length, 4)
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

describe("an empty or missing secret", () => {
  it("every make throws InvalidSecret at construction (no receiver answering 500 to every delivery)", () => {
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
        assert.instanceOf(thrown, Error, `${name}(${inspect(secret)})`)
        assert.strictEqual((thrown as { _tag?: string })._tag, "InvalidSecret", name)
        assert.match((thrown as Error).message, /^The webhook secret is invalid: /)
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
      const { KeyValueStore } = yield* Effect.promise(() => import("effect/persistence"))
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
    }))

  it.effect("a string body is verified as its UTF-8 bytes", () =>
    Effect.gen(function*() {
      const receiver = Receiver.make({ secret, handler: () => Effect.void })
      const body = JSON.stringify(vehicleStateEvent("evt_text"))
      const fromText = yield* receiver.receive({ body, signature: sign(new TextEncoder().encode(body), secret) })
      assert.strictEqual(fromText.status, 200)
      assert.strictEqual(fromText.outcome, "handled")
    }).pipe(Effect.provide(SeenEvents.layerMemory())))

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

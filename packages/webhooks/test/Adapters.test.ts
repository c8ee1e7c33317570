/**
 * The adapters where a framework or a request is not what they expect: a
 * body the Fetch API framework already read, a Node request whose encoding
 * was set, and a failure inside a Node listener (answered 500 and logged,
 * never an uncaught exception that ends the process).
 */
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { EventEmitter } from "node:events"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import * as NodeAdapter from "../src/NodeAdapter.ts"
import * as Receiver from "../src/Receiver.ts"
import { sign } from "../src/Signature.ts"
import * as WebAdapter from "../src/WebAdapter.ts"
import { secret, signed, vehicleStateEvent } from "./samples.ts"
import { capture, fetchTarget, listen } from "./utils.ts"

const thrownBy = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  return undefined
}

describe("Web adapter", () => {
  it.live("a body the framework already read is 500 UnreadableBody (a configuration error), as for the Node adapter", () =>
    Effect.gen(function*() {
      const handler = WebAdapter.make({ secret, handler: () => Effect.void })
      yield* Effect.addFinalizer(() => Effect.promise(() => handler.dispose()))
      const body = JSON.stringify(vehicleStateEvent("evt_read"))
      const request = new Request("http://receiver.test/webhooks", {
        method: "POST",
        body,
        headers: { "sc-signature": sign(body, secret) }
      })
      yield* Effect.promise(() => request.json())
      const response = yield* Effect.promise(() => handler(request))
      assert.strictEqual(response.status, 500)
      const answer: any = yield* Effect.promise(() => response.json())
      assert.strictEqual(answer.error._tag, "UnreadableBody")
    }))

  it.live("a body that stalls is answered 400 UnreadableBody once bodyTimeout passed, its stream cancelled, the handler never run", () =>
    Effect.gen(function*() {
      let handled = 0
      const handler = WebAdapter.make({ secret, handler: () => Effect.sync(() => handled++), bodyTimeout: "300 millis" })
      yield* Effect.addFinalizer(() => Effect.promise(() => handler.dispose()))
      const body = JSON.stringify(vehicleStateEvent("evt_stalled"))
      let cancelled = false
      // the first half of the body, then nothing: neither more bytes nor an end
      const stalled = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(body.slice(0, 20)))
        },
        cancel() {
          cancelled = true
        }
      })
      const request = new Request("http://receiver.test/webhooks", {
        method: "POST",
        body: stalled,
        headers: { "sc-signature": sign(body, secret) },
        duplex: "half"
      } as RequestInit)
      const started = Date.now()
      const response = yield* Effect.promise(() => handler(request)).pipe(Effect.timeout("5 seconds"))
      assert.isAtLeast(Date.now() - started, 250)
      assert.strictEqual(response.status, 400)
      const answer: any = yield* Effect.promise(() => response.json())
      assert.strictEqual(answer.error._tag, "UnreadableBody")
      assert.include(answer.error.message, "did not arrive within 300ms")
      assert.isTrue(cancelled)
      assert.strictEqual(handled, 0)
      // a body that arrives in time is handled as ever
      const inTime = JSON.stringify(vehicleStateEvent("evt_in_time"))
      const ok = yield* Effect.promise(() =>
        handler(new Request("http://receiver.test/webhooks", { method: "POST", body: inTime, headers: { "sc-signature": sign(inTime, secret) } }))
      )
      assert.strictEqual(ok.status, 200)
      assert.strictEqual(handled, 1)
    }))

  it("bodyTimeout: 30 seconds by default; one that is not a positive, finite duration throws an InvalidArgument naming it", () => {
    assert.strictEqual(Duration.toMillis(WebAdapter.defaultBodyTimeout), 30_000)
    for (const bodyTimeout of [0, -1, Number.NaN, "soon", Duration.infinity]) {
      assert.throws(() => WebAdapter.make({ secret, handler: () => Effect.void, bodyTimeout: bodyTimeout as Duration.Input }), /^bodyTimeout: Expected a positive, finite duration/)
    }
  })

  it("bodyTimeout over 2^31 - 1 ms (a timer Node fires at once) throws an InvalidArgument naming it and the limit", () => {
    for (const bodyTimeout of ["30 days", 2 ** 31, Duration.days(25), Number.MAX_VALUE]) {
      const error = thrownBy(() => WebAdapter.make({ secret, handler: () => Effect.void, bodyTimeout: bodyTimeout as Duration.Input }))
      assert.instanceOf(error, InvalidArgument, String(bodyTimeout))
      assert.strictEqual((error as InvalidArgument).field, "bodyTimeout")
      assert.match((error as InvalidArgument).message, /^bodyTimeout: Expected a positive, finite duration of at most 24d 20h 31m 23s 647ms; got /)
    }
  })

  it.live("bodyTimeout of 2^31 - 1 ms or 24 days is taken: a body arriving after 100 ms is handled", () =>
    Effect.gen(function*() {
      for (const bodyTimeout of [2 ** 31 - 1, "24 days"] as const) {
        let handled = 0
        const handler = WebAdapter.make({ secret, handler: () => Effect.sync(() => handled++), bodyTimeout })
        yield* Effect.addFinalizer(() => Effect.promise(() => handler.dispose()))
        const body = JSON.stringify(vehicleStateEvent(`evt_slow_${String(bodyTimeout).length}`))
        const slow = new ReadableStream<Uint8Array>({
          start(controller) {
            setTimeout(() => {
              controller.enqueue(new TextEncoder().encode(body))
              controller.close()
            }, 100)
          }
        })
        const request = new Request("http://receiver.test/webhooks", {
          method: "POST",
          body: slow,
          headers: { "sc-signature": sign(body, secret) },
          duplex: "half"
        } as RequestInit)
        const response = yield* Effect.promise(() => handler(request))
        assert.strictEqual(response.status, 200, String(bodyTimeout))
        assert.strictEqual(handled, 1)
      }
    }))
})

/** A request the handler can be given without a server: an emitter of the body's events. */
const fakeRequest = (overrides?: object) =>
  Object.assign(new EventEmitter(), { method: "POST", headers: {}, readableEnded: false, pause: () => undefined, resume: () => undefined }, overrides)

const fakeResponse = () => {
  const written: Array<{ status: number; body: string }> = []
  let status = 0
  const res = {
    headersSent: false,
    writableEnded: false,
    writeHead(code: number) {
      status = code
      res.headersSent = true
    },
    end(body: string) {
      written.push({ status, body })
      res.writableEnded = true
    }
  }
  return { res, written }
}

describe("Node adapter", () => {
  it.live("a failure inside a request or data listener is logged and answered 500, never thrown into Node", () =>
    Effect.gen(function*() {
      const logs = capture()
      const handler = NodeAdapter.make({ secret, handler: () => Effect.void, layer: logs.layer })
      yield* Effect.addFinalizer(() => Effect.promise(() => handler.dispose()))
      // the request listener: a request that throws when listened to
      const broken = fakeResponse()
      handler(fakeRequest({ on: () => { throw new Error("listening failed") } }), broken.res)
      // a data / end listener: chunks that are neither bytes nor text
      const odd = fakeResponse()
      const req = fakeRequest()
      handler(req, odd.res)
      req.emit("data", 42)
      req.emit("data", 43)
      req.emit("end")
      // the request listener's failure is answered once its read is refused (a turn later), the log written meanwhile
      for (let i = 0; i < 100 && (broken.written.length === 0 || !logs.lines.some((line) => line.includes("listening failed"))); i++) {
        yield* Effect.sleep("20 millis")
      }
      for (const { written } of [broken, odd]) {
        assert.strictEqual(written.length, 1)
        assert.strictEqual(written[0]!.status, 500)
        assert.strictEqual(JSON.parse(written[0]!.body).error._tag, "ReceiverDefect")
      }
      // logged through the application's logger
      assert.isTrue(logs.lines.some((line) => line.includes("listening failed")), logs.lines.join("\n"))
      assert.isTrue(logs.lines.some((line) => line.includes("webhook receiver failed unexpectedly")))
    }))

  it.live("a request whose encoding was set (req.setEncoding, any encoding) is read as its bytes, within the limit", () =>
    Effect.gen(function*() {
      const handler = NodeAdapter.make({ secret, handler: () => Effect.void })
      yield* Effect.addFinalizer(() => Effect.promise(() => handler.dispose()))
      for (const encoding of ["utf8", "latin1", "hex", "base64"] as const) {
        const port = yield* listen(createServer((req: IncomingMessage, res: ServerResponse) => {
          req.setEncoding(encoding)
          handler(req, res)
        }))
        const send = fetchTarget(`http://127.0.0.1:${port}/webhooks`)
        // a body of several chunks, with non-ASCII text
        const fifty = JSON.stringify({ ...vehicleStateEvent(`evt_encoded_${encoding}`), padding: "Škoda é".repeat(3_000) })
        const handled = yield* Effect.promise(() => send({ ...signed(fifty), streamed: true }))
        assert.strictEqual(handled.status, 200, `${encoding}: ${handled.text}`)
        const big = JSON.stringify({ ...vehicleStateEvent(`evt_encoded_big_${encoding}`), padding: "x".repeat(Receiver.defaultMaxBodySize) })
        const refused = yield* Effect.promise(() => send({ ...signed(big), streamed: true }))
        assert.strictEqual(refused.status, 413, `${encoding}: ${refused.text}`)
      }
    }), { timeout: 30_000 })

  it.live("a request paused before the handler gets it is read and answered; one whose body was consumed is a 500", () =>
    Effect.gen(function*() {
      const handler = NodeAdapter.make({ secret, handler: () => Effect.void })
      yield* Effect.addFinalizer(() => Effect.promise(() => handler.dispose()))
      const servers = {
        // paused, then handed over at once
        pausedNow: (req: IncomingMessage, res: ServerResponse) => {
          req.pause()
          handler(req, res)
        },
        // paused by a middleware, handed over once the body has arrived (buffered)
        pausedLater: (req: IncomingMessage, res: ServerResponse) => {
          req.pause()
          setTimeout(() => handler(req, res), 50)
        },
        // a middleware that listened to it, then paused it
        listenedThenPaused: (req: IncomingMessage, res: ServerResponse) => {
          const readable = () => undefined
          req.on("readable", readable)
          req.off("readable", readable)
          req.pause()
          setImmediate(() => handler(req, res))
        }
      }
      for (const [name, listener] of Object.entries(servers)) {
        const port = yield* listen(createServer(listener))
        const send = fetchTarget(`http://127.0.0.1:${port}/webhooks`)
        for (const streamed of [false, true]) {
          const body = JSON.stringify(vehicleStateEvent(`evt_paused_${name}_${streamed}`))
          const answer = yield* Effect.promise(() => send({ ...signed(body), streamed })).pipe(Effect.timeout("5 seconds"))
          assert.strictEqual(answer.status, 200, `${name} ${streamed}: ${answer.text}`)
        }
      }
      // destroyed before the handler (no close to come): answered at once
      const gone = fakeResponse()
      handler(fakeRequest({ destroyed: true }), gone.res)
      yield* Effect.sleep("20 millis")
      assert.deepStrictEqual(gone.written.map(({ status }) => status), [400])
      assert.strictEqual(JSON.parse(gone.written[0]!.body).error._tag, "UnreadableBody")
      // consumed to its end by someone else: the documented 500
      const port = yield* listen(createServer((req: IncomingMessage, res: ServerResponse) => {
        req.on("end", () => handler(req, res))
        req.resume()
      }))
      const consumed = yield* Effect.promise(() =>
        fetchTarget(`http://127.0.0.1:${port}/webhooks`)(signed(JSON.stringify(vehicleStateEvent("evt_consumed"))))
      ).pipe(Effect.timeout("5 seconds"))
      assert.strictEqual(consumed.status, 500, consumed.text)
      assert.strictEqual(consumed.json.error._tag, "UnreadableBody")
    }), { timeout: 30_000 })

  it.live("a request held by a readable listener is read; one partly read, or set to a lossy encoding, before the handler is a 500", () =>
    Effect.gen(function*() {
      const handler = NodeAdapter.make({ secret, handler: () => Effect.void })
      yield* Effect.addFinalizer(() => Effect.promise(() => handler.dispose()))
      const answerOf = (name: string, listener: (req: IncomingMessage, res: ServerResponse) => void, streamed: boolean) =>
        Effect.gen(function*() {
          const port = yield* listen(createServer(listener))
          const body = JSON.stringify(vehicleStateEvent(`evt_${name}_${streamed}`))
          return yield* Effect.promise(() => fetchTarget(`http://127.0.0.1:${port}/webhooks`)({ ...signed(body), streamed })).pipe(
            Effect.timeout("5 seconds")
          )
        })
      for (const streamed of [false, true]) {
        // a middleware's `readable` listener, left in place: the stream does not flow
        const held = yield* answerOf("held", (req, res) => {
          req.on("readable", () => undefined)
          setImmediate(() => handler(req, res))
        }, streamed)
        assert.strictEqual(held.status, 200, `held ${streamed}: ${held.text}`)
        // ascii drops the high bit of every byte: the signature could not be checked
        const ascii = yield* answerOf("ascii", (req, res) => {
          req.setEncoding("ascii")
          handler(req, res)
        }, streamed)
        assert.strictEqual(ascii.status, 500, `ascii ${streamed}: ${ascii.text}`)
        assert.strictEqual(ascii.json.error._tag, "UnreadableBody")
      }
      // a middleware that took the first chunk (the whole small body) and handed the request on
      const partly = yield* answerOf("partly", (req, res) => {
        req.once("data", () => {
          req.pause()
          setImmediate(() => handler(req, res))
        })
      }, false)
      assert.strictEqual(partly.status, 500, partly.text)
      assert.strictEqual(partly.json.error._tag, "UnreadableBody")
    }), { timeout: 30_000 })
})

import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Schema } from "effect"
import type { Scheduler } from "effect"
import { Headers, HttpClientRequest } from "effect/http"
import { Exchange, ExchangeResponse, headersOf } from "../src/internal/exchange.ts"
import { seeded } from "./seed.ts"

const noController = undefined as never

/**
 * A response whose body has not arrived, read by a fiber on a scheduler that
 * yields once, at its `yieldAt`-th step, and delivers the whole body (and its
 * end) during that yield: wherever the read yields, it must get the body.
 */
const readAcrossOneYield = (yieldAt: number) =>
  Effect.promise(async () => {
    const exchange = new Exchange(1024, () => {}, () => {})
    exchange.onResponseStart(noController, 200, { "content-type": "text/plain" })
    const response = new ExchangeResponse(HttpClientRequest.get("http://127.0.0.1/x"), "http://127.0.0.1/x", 200, {}, exchange)
    let step = 0
    let delivered = false
    const scheduler: Scheduler.Scheduler = {
      executionMode: "async",
      shouldYield: () => ++step === yieldAt,
      makeDispatcher: () => ({
        scheduleTask: (task) => {
          if (!delivered) {
            delivered = true
            exchange.onResponseData(noController, new TextEncoder().encode("hello"))
            exchange.onResponseEnd()
          }
          setImmediate(task)
        },
        flush: () => {}
      })
    }
    const fiber = Effect.runFork(response.text, { scheduler })
    // no yield at all within the read: the body comes afterwards
    setTimeout(() => {
      if (!delivered) {
        delivered = true
        exchange.onResponseData(noController, new TextEncoder().encode("hello"))
        exchange.onResponseEnd()
      }
    }, 5)
    const exit = await Promise.race([
      Effect.runPromise(Fiber.await(fiber)),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 500))
    ])
    if (exit === undefined) Effect.runFork(Fiber.interrupt(fiber))
    return exit
  })

describe("Exchange", () => {
  it.live("a body read that yields at any step before it waits still gets the body that ended during the yield", () =>
    Effect.gen(function*() {
      for (let yieldAt = 1; yieldAt <= 12; yieldAt++) {
        const exit = yield* readAcrossOneYield(yieldAt)
        assert.isDefined(exit, `the read hung when it yielded at step ${yieldAt}`)
        assert.isTrue(exit !== undefined && Exit.isSuccess(exit) && exit.value === "hello", `step ${yieldAt}: ${String(exit)}`)
      }
    }))

  it("hands on the head after the rest of its chunk: a body that came with it is whole, read without waiting", async () => {
    const heads: Array<boolean> = []
    const exchange: Exchange = new Exchange(1024, () => heads.push(exchange.done), () => {})
    // undici reads the head, the body and its end from one chunk, in one go
    exchange.onResponseStart(noController, 200, { "content-type": "text/plain" })
    exchange.onResponseData(noController, new TextEncoder().encode("hel"))
    exchange.onResponseData(noController, new TextEncoder().encode("lo"))
    exchange.onResponseEnd()
    assert.deepStrictEqual(heads, [])
    await Promise.resolve()
    assert.deepStrictEqual(heads, [true])
    const response = new ExchangeResponse(HttpClientRequest.get("http://127.0.0.1/x"), "http://127.0.0.1/x", 200, { "x-a": "1" }, exchange)
    // already read: the text is a value, not a wait
    const text = response.text
    assert.isTrue(Exit.isExit(text) && Exit.isSuccess(text) && text.value === "hello")
    assert.strictEqual(response.headers["x-a"], "1")
  })

  it("a body that fails in the head's chunk fails its read, however the head was handed on", async () => {
    let handed = 0
    const exchange: Exchange = new Exchange(1024, () => handed++, () => {})
    exchange.onResponseStart(noController, 200, {})
    exchange.onResponseError(noController, new Error("socket closed"))
    await Promise.resolve()
    assert.strictEqual(handed, 1)
    const response = new ExchangeResponse(HttpClientRequest.get("http://127.0.0.1/x"), "http://127.0.0.1/x", 200, {}, exchange)
    const exit = await Effect.runPromiseExit(response.text)
    assert.isTrue(Exit.isFailure(exit) && String(exit.cause).includes("socket closed"))
  })

  it("headers: a copy of undici's record (which stays as it was), repeated ones joined with \", \"", () => {
    const exchange = new Exchange(1024, () => {}, () => {})
    const record = { "x-a": "1", "content-type": "text/plain" }
    const plain = new ExchangeResponse(HttpClientRequest.get("http://127.0.0.1/x"), "http://127.0.0.1/x", 200, record, exchange)
    assert.deepStrictEqual({ ...plain.headers }, { "x-a": "1", "content-type": "text/plain" })
    // undici's object is not changed (an interceptor may keep and serialize it)
    assert.strictEqual(Object.getPrototypeOf(record), Object.prototype)
    assert.strictEqual(JSON.stringify(record), JSON.stringify({ "x-a": "1", "content-type": "text/plain" }))
    assert.strictEqual(plain.headers["x-a"], "1")
    const repeated = new ExchangeResponse(
      HttpClientRequest.get("http://127.0.0.1/x"),
      "http://127.0.0.1/x",
      200,
      { "x-a": ["1", "2"], "set-cookie": ["a=1", "b=2"], "x-b": "3" },
      exchange
    )
    assert.deepStrictEqual({ ...repeated.headers }, { "x-a": "1, 2", "set-cookie": "a=1, b=2", "x-b": "3" })
    assert.strictEqual(repeated.cookies.cookies["b"]?.value, "2")
  })

  it("headers: the record's own names only (as Headers.fromInput), whatever Object.prototype has", () => {
    const proto = Object.prototype as Record<string, unknown>
    proto["polluted"] = "p"
    try {
      assert.deepStrictEqual(Object.entries(headersOf({ a: "1" })), Object.entries(Headers.fromInput({ a: "1" })))
      assert.deepStrictEqual(Object.keys(headersOf({ a: "1" })), ["a"])
    } finally {
      delete proto["polluted"]
    }
  })

  const Name = Schema.Literals(["content-type", "x-request-id", "set-cookie", "Content-Type", "X-A", "x-a", "\u00c4-x", "\u00e4-x", "k", "K", ""])
  const Value = Schema.Union([Schema.String, Schema.Array(Schema.String), Schema.Undefined])
  it.prop(
    "headers: what Headers.fromInput makes of the same record",
    { entries: Schema.Array(Schema.Tuple([Name, Value])).check(Schema.isMaxLength(8)) },
    ({ entries }) => {
      const raw: Record<string, string | Array<string> | undefined> = {}
      for (const [name, value] of entries) raw[name] = value as string | Array<string> | undefined
      const copy = JSON.stringify(raw)
      const made = headersOf(raw)
      assert.isTrue(Headers.isHeaders(made))
      assert.deepStrictEqual(Object.entries(made), Object.entries(Headers.fromInput(raw)))
      assert.strictEqual(JSON.stringify(raw), copy)
    },
    { arbitrary: seeded({ runs: 500 }) }
  )
})

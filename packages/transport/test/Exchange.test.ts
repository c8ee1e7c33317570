import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import type { Scheduler } from "effect"
import { HttpClientRequest } from "effect/http"
import { Exchange, ExchangeResponse } from "../src/internal/exchange.ts"

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
})

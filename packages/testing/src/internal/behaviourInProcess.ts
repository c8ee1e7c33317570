/**
 * The cases of the behaviour suite for a client answered in the same
 * process (no server, no socket), driven by the simulator's fault header.
 *
 * @internal
 */
import { assert, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer } from "effect"
import type { HttpClient } from "effect/http"
import { outcome, withClient } from "./behaviourFailures.ts"

const FAULT = "x-simulator-fault"

/** The request id its answer echoes, once the body is read. */
const answer = (client: HttpClient.HttpClient, url: string, id: string, fault?: string) =>
  Effect.flatMap(
    client.get(url, { headers: { "x-request-id": id, ...(fault === undefined ? {} : { [FAULT]: fault }) } }),
    (response) => Effect.map(response.text, () => response.headers["x-request-id"]))

const kinds = ["good", "delayed", "stalled", "dropped"] as const

const faultOf: Record<(typeof kinds)[number], string | undefined> = { good: undefined, delayed: "delay=60000", stalled: "stall", dropped: "drop" }

/** @internal */
export const cases = (layer: Layer.Layer<HttpClient.HttpClient>, url: string): void => {
  it.live("many concurrent requests: each gets its own answer (its x-request-id echoed)", () =>
    Effect.gen(function*() {
      const n = 100
      const ids = yield* withClient(layer, (client) =>
        Effect.all(Array.from({ length: n }, (_, i) => answer(client, url, `r-${i}`)), { concurrency: "unbounded" }))
      assert.deepStrictEqual(ids, Array.from({ length: n }, (_, i) => `r-${i}`))
    }))

  for (const [kind, what] of [["delayed", "a delay before the head"], ["stalled", "a stalled body"]] as const) {
    it.live(`${what}: a timeout ends it, the next request is answered`, () =>
      Effect.gen(function*() {
        const [first, next] = yield* withClient(layer, (client) =>
          Effect.all([outcome(answer(client, url, "slow", faultOf[kind]), 150), outcome(answer(client, url, "next"), 2000)]))
        assert.strictEqual(first, "timeout")
        assert.deepStrictEqual(next, { value: "next" })
      }))
  }

  it.live("a dropped request: a TransportError at once, not a hang", () =>
    Effect.gen(function*() {
      const result = yield* withClient(layer, (client) => outcome(answer(client, url, "dropped", "drop"), 2000))
      assert.strictEqual(result, "TransportError")
    }))

  it.live("many requests at once, some delayed, stalled or dropped: each its own outcome, the good ones answered", () =>
    Effect.gen(function*() {
      const n = 40
      const outcomes = yield* withClient(layer, (client) =>
        Effect.all(
          Array.from({ length: n }, (_, i) => {
            const kind = kinds[i % kinds.length]!
            return outcome(answer(client, url, `m-${i}`, faultOf[kind]), kind === "delayed" || kind === "stalled" ? 300 : 3000)
          }),
          { concurrency: "unbounded" }
        ))
      for (const [i, result] of outcomes.entries()) {
        const kind = kinds[i % kinds.length]!
        const expected = kind === "good" ? { value: `m-${i}` } : kind === "dropped" ? "TransportError" : "timeout"
        assert.deepStrictEqual(result, expected, `request ${i} (${kind})`)
      }
    }))

  it.live("interrupting a request before its head ends it; the next request is answered", () =>
    Effect.gen(function*() {
      const [exit, next] = yield* withClient(layer, (client) =>
        Effect.gen(function*() {
          const fiber = yield* Effect.forkChild(answer(client, url, "never", faultOf.delayed))
          yield* Effect.sleep("20 millis")
          const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
          return [exit, yield* outcome(answer(client, url, "next"), 2000)] as const
        }))
      assert.isTrue(Exit.hasInterrupts(exit))
      assert.deepStrictEqual(next, { value: "next" })
    }))
}

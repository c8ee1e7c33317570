/**
 * The token grant's retries are the transport's: one retry loop (its
 * `retrying` debug line per retry, its backoff, its `Retry-After` wait, the
 * call's budget), narrowed by the grant's own policy (which failures, at most
 * `maxRetries`, a `Retry-After` of at most 10 s, none starting 15 s after the
 * first request). A `node:http` token endpoint on 127.0.0.1 answers the
 * scripted statuses, then a token; the window is checked on the `TestClock`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Logger, Redacted, References } from "effect"
import { TestClock } from "effect/testing"
import { HttpClient, HttpClientResponse } from "effect/http"
import * as TokenExchange from "@connected-vehicle/auth/TokenExchange"
import { isConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { json, oauth, tokenEndpoint } from "./loopback.ts"

/** The answers of the next token requests (then a token), and the requests received (when, grant type). */
let script: Array<{ readonly status: number; readonly retryAfter?: string }> = []
let received: Array<{ readonly at: number; readonly grant: string | null }> = []

const endpoint = tokenEndpoint((_, response, body) => {
  received.push({ at: Date.now(), grant: new URLSearchParams(body.toString("utf8")).get("grant_type") })
  const next = script.shift()
  if (next === undefined) return json(response, 200, { access_token: "access-1", token_type: "Bearer", expires_in: 7200, refresh_token: "refresh-2" })
  json(response, next.status, { error: next.status === 429 ? "slow_down" : "temporarily_unavailable" }, next.retryAfter === undefined ? {} : { "retry-after": next.retryAfter })
}, (_, response) => json(response, 404, {}))

interface Line {
  readonly message: string
  readonly annotations: Readonly<Record<string, unknown>>
}

/** The transport on the loopback endpoint with `retry` options, its log lines (debug too) in `lines`. */
const on = (retry: TransportConfig.RetryOptions, lines: Array<Line>) =>
  Layer.mergeAll(
    Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(endpoint.origin(), { retry }), UndiciHttpClient.layer()])),
    oauth,
    Logger.layer([Logger.make((options) => {
      lines.push({ message: String(options.message), annotations: options.fiber.getRef(References.CurrentLogAnnotations) })
    })]),
    Layer.succeed(References.MinimumLogLevel, "Debug")
  )

const start = (answers: typeof script) =>
  Effect.sync(() => {
    script = [...answers]
    received = []
  })

const retrying = (lines: ReadonlyArray<Line>) => lines.filter((line) => line.message === "retrying").map((line) => line.annotations)

describe("TokenExchange: the grant's retries go through the transport's retry policy", () => {
  it.live("a client-credentials request answered 503 twice: two retries of the transport (its `retrying` lines), after its configured backoff", () => {
    const lines: Array<Line> = []
    return Effect.gen(function*() {
      yield* start([{ status: 503 }, { status: 503 }])
      const token = yield* TokenExchange.clientCredentials()
      assert.strictEqual(Redacted.value(token.accessToken), "access-1")
      assert.deepStrictEqual(received.map((r) => r.grant), ["client_credentials", "client_credentials", "client_credentials"])
      const retries = retrying(lines)
      assert.deepStrictEqual(retries.map((r) => [r["method"], String(r["url"]).endsWith("/oauth/token"), r["attempt"], r["error"]]), [
        ["POST", true, 1, "OAuth"],
        ["POST", true, 2, "OAuth"]
      ])
      // the transport's backoff as configured (1 ms), not a backoff of the grant's own
      for (const retry of retries) assert.isAtMost(retry["delayMillis"] as number, 1)
    }).pipe(Effect.provide(on({ initialDelay: "1 millis", maxDelay: "1 millis" }, lines)))
  })

  it.live("a refresh answered 429 with Retry-After: 1 waits it as the transport's rate-limit wait does, then gets the token", () => {
    const lines: Array<Line> = []
    return Effect.gen(function*() {
      yield* start([{ status: 429, retryAfter: "1" }])
      const token = yield* TokenExchange.refresh(Redacted.make("refresh-1"))
      assert.strictEqual(Redacted.value(token.accessToken), "access-1")
      assert.strictEqual(received.length, 2)
      assert.isAtLeast(received[1]!.at - received[0]!.at, 990)
      assert.deepStrictEqual(retrying(lines).map((r) => [r["attempt"], r["delayMillis"], r["error"]]), [[1, 1000, "RateLimit"]])
    }).pipe(Effect.provide(on({}, lines)))
  })

  it.live("the call's budget (retry.maxElapsed) bounds the grant: a Retry-After that would leave too little of it is not waited", () => {
    const lines: Array<Line> = []
    return Effect.gen(function*() {
      yield* start([{ status: 503, retryAfter: "1" }])
      const error = yield* Effect.flip(TokenExchange.clientCredentials())
      assert.isTrue(isConnectedVehicleError(error) && error.status === 503)
      assert.strictEqual(isConnectedVehicleError(error) && error.retryAfter !== undefined ? Duration.toMillis(error.retryAfter) : -1, 1000)
      assert.strictEqual(received.length, 1)
      assert.deepStrictEqual(retrying(lines), [])
    }).pipe(Effect.provide(on({ maxElapsed: "1 second" }, lines)))
  })

  it.live("a 429 without Retry-After is not retried (nor by the transport): the caller schedules it", () => {
    const lines: Array<Line> = []
    return Effect.gen(function*() {
      yield* start([{ status: 429 }])
      const error = yield* Effect.flip(TokenExchange.refresh(Redacted.make("refresh-1")))
      assert.isTrue(isConnectedVehicleError(error) && error.status === 429)
      assert.strictEqual(received.length, 1)
    }).pipe(Effect.provide(on({ initialDelay: "1 millis", maxDelay: "1 millis" }, lines)))
  })

  it.effect("no retry starts later than 15 s after the first request: Retry-After: 8 is waited once, not twice", () =>
    Effect.gen(function*() {
      let requests = 0
      const client = HttpClient.make((request) =>
        Effect.sync(() => {
          requests++
          return HttpClientResponse.fromWeb(request, new Response(JSON.stringify({ error: "temporarily_unavailable" }), {
            status: 503,
            headers: { "content-type": "application/json", "retry-after": "8" }
          }))
        })
      )
      const transport = Transport.layer.pipe(Layer.provide([
        TransportConfig.layerOrigin("http://service.test", { retry: { maxElapsed: "1 minute" } }),
        Layer.succeed(HttpClient.HttpClient, client)
      ]))
      const grant = yield* Effect.forkChild(Effect.flip(TokenExchange.clientCredentials(undefined, { maxRetries: 5 }).pipe(Effect.provide([transport, oauth]))))
      yield* TestClock.adjust("8 seconds")
      assert.strictEqual(requests, 2)
      // 8 s more would start the third at 16 s: the grant fails with the second answer at once
      const error = yield* Fiber.join(grant)
      assert.isTrue(isConnectedVehicleError(error) && error.status === 503)
      assert.strictEqual(requests, 2)
    }))
})

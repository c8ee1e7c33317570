/**
 * A token request answered 429 or 503 with a `Retry-After` that the grant
 * waits out (at most 10 s) before asking again: a call whose timeout ends
 * before that wait fails as soon as the wait starts, with the token
 * endpoint's answer (status, what is left of the wait); a call with time
 * enough gets the token once it is over; one renewal, two token requests in
 * all. A `node:http` server on 127.0.0.1 is the token endpoint and the
 * service, through the Effect layer and the Promise client: each test has a
 * server of its own, and they run at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Redacted } from "effect"
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { isConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { Webhooks } from "@connected-vehicle/v3/Webhooks"
import * as Client from "../src/Client.ts"
import * as ConnectedVehicle from "../src/ConnectedVehicle.ts"

/**
 * A token endpoint and service on 127.0.0.1 of its own (each test has one, so
 * that the tests run at once): the first token request is answered `status`
 * with `Retry-After: retryAfter` (seconds), the next ones grant a token; what
 * it received, the token requests and the service's calls (with their bearer).
 */
const tokenEndpoint = async (status: number, retryAfter: number) => {
  const seen = { tokens: 0, bearers: [] as Array<string | undefined> }
  let origin = ""
  const page = () =>
    JSON.stringify({
      data: [],
      meta: { pageNumber: 1, pageSize: 10, totalCount: 0, orderBy: "createdAt", orderDirection: "DESC" },
      links: { self: `${origin}/v3/webhooks?page=1`, first: `${origin}/v3/webhooks?page=1`, prev: null, next: null, last: `${origin}/v3/webhooks?page=1` }
    })
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume()
    if (request.url?.startsWith("/oauth/token")) {
      seen.tokens++
      if (seen.tokens === 1) {
        response.writeHead(status, { "content-type": "application/json", "retry-after": String(retryAfter) })
        response.end(JSON.stringify({ error: status === 429 ? "slow_down" : "temporarily_unavailable" }))
        return
      }
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ access_token: `app-${seen.tokens}`, token_type: "Bearer", expires_in: 3600 }))
      return
    }
    seen.bearers.push(request.headers.authorization)
    response.writeHead(200, { "content-type": "application/json" })
    response.end(page())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    seen,
    [Symbol.asyncDispose]: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

/** What `promise` settled with, and when (milliseconds after `started`). */
const settled = <A>(promise: Promise<A>, started: number) =>
  promise.then(
    (value) => ({ value, error: undefined, after: Date.now() - started }),
    (error: unknown) => ({ value: undefined, error, after: Date.now() - started })
  )

describe.concurrent("a token endpoint's Retry-After longer than a call's timeout", () => {
  it("Promise client, 429 + Retry-After 10: the 3 s call fails at once with a RateLimitError, the 30 s call gets the token after the wait", async () => {
    await using endpoint = await tokenEndpoint(429, 10)
    const { origin, seen } = endpoint
    await using client = Client.createClient({ clientId: "client-id", clientSecret: "client-secret", origin, timeout: 3_000 })
    const started = Date.now()
    const waiting = settled(client.v3.webhooks.list({}, { timeout: 30_000 }), started)
    const short = await settled(client.v3.webhooks.list({}), started)
    // not a TimeoutError after 3 s: the token endpoint's 429, with what is left of its wait
    assert.instanceOf(short.error, Client.RateLimitError)
    const error = short.error as Client.RateLimitError
    assert.isBelow(short.after, 2_000)
    assert.strictEqual(error.status, 429)
    assert.isFalse(error.isRetryable)
    assert.isTrue(error.retryAfter !== undefined && error.retryAfter > 8_000 && error.retryAfter <= 10_000, String(error.retryAfter))
    // a call made during the wait fails at once too, its retryAfter what is left of the wait
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const joined = await settled(client.v3.webhooks.list({}), Date.now())
    assert.instanceOf(joined.error, Client.RateLimitError)
    assert.isBelow(joined.after, 1_500)
    const left = (joined.error as Client.RateLimitError).retryAfter
    assert.isTrue(left !== undefined && left < 9_500 && left > 6_000, String(left))
    // the renewal went on: one more token request, after the wait, for the call that could wait
    const long = await waiting
    assert.isUndefined(long.error)
    assert.isAtLeast(long.after, 9_500)
    assert.strictEqual(seen.tokens, 2)
    assert.deepStrictEqual(seen.bearers, ["Bearer app-2"])
  }, 20_000)

  it("Promise client, 503 + Retry-After 3: the 2 s call fails at once with a ServerError, the 10 s call gets the token", async () => {
    await using endpoint = await tokenEndpoint(503, 3)
    const { origin, seen } = endpoint
    await using client = Client.createClient({ clientId: "client-id", clientSecret: "client-secret", origin, timeout: 2_000 })
    const started = Date.now()
    const [short, long] = await Promise.all([
      settled(client.v3.webhooks.list({}), started),
      settled(client.v3.webhooks.list({}, { timeout: 10_000 }), started)
    ])
    assert.instanceOf(short.error, Client.ServerError)
    const error = short.error as Client.ServerError
    assert.isBelow(short.after, 1_500)
    assert.strictEqual(error.status, 503)
    assert.isTrue(error.retryAfter !== undefined && error.retryAfter > 1_500 && error.retryAfter <= 3_000, String(error.retryAfter))
    assert.isUndefined(long.error)
    assert.strictEqual(seen.tokens, 2)
  }, 20_000)

  it.live("Effect layer, 429 + Retry-After 3: the 2 s call fails at once (Credentials: status 429, retryAfter, the RateLimit as cause), the 10 s call gets the token", () =>
    Effect.gen(function*() {
      const { origin, seen } = yield* Effect.acquireRelease(
        Effect.promise(() => tokenEndpoint(429, 3)),
        (endpoint) => Effect.promise(() => endpoint[Symbol.asyncDispose]())
      )
      yield* Effect.gen(function*() {
        const webhooks = yield* Webhooks
        const started = Date.now()
        const long = yield* Effect.forkChild(webhooks.list({}, { timeout: "10 seconds" }))
        const error = yield* Effect.flip(webhooks.list({}))
        assert.isBelow(Date.now() - started, 1_500)
        assert.isTrue(isConnectedVehicleError(error))
        if (!isConnectedVehicleError(error) || error.reason._tag !== "Credentials") return assert.fail(`not a Credentials reason: ${String(error)}`)
        assert.isUndefined(error.reason.timeout)
        assert.strictEqual(error.status, 429)
        assert.isFalse(error.isRetryable)
        const left = error.retryAfter === undefined ? 0 : Duration.toMillis(error.retryAfter)
        assert.isTrue(left > 1_500 && left <= 3_000, String(left))
        const cause = error.reason.cause
        assert.isTrue(isConnectedVehicleError(cause) && cause.reason._tag === "RateLimit")
        // the renewal goes on for the call that can wait
        yield* Fiber.join(long)
        assert.isAtLeast(Date.now() - started, 2_500)
        assert.strictEqual(seen.tokens, 2)
        assert.deepStrictEqual(seen.bearers, ["Bearer app-2"])
      }).pipe(
        Effect.provide(ConnectedVehicle.layer({
          transport: { roots: TransportConfig.rootsFromOrigin(origin), timeout: "2 seconds" },
          oauth: { clientId: "client-id", clientSecret: Redacted.make("client-secret") }
        }))
      )
    }).pipe(Effect.scoped), 20_000)
})

/**
 * A renewal whose grant sleeps out the token endpoint's `Retry-After`: the
 * callers whose wait for the credential ends before it fail as soon as it
 * starts (or as they join it), with that answer; the others keep waiting and
 * get the token; one renewal, no token request for a caller that gave up.
 * On the `TestClock` (set to now): "at once" is with no time passed.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Redacted, Semaphore } from "effect"
import { TestClock } from "effect/testing"
import { HttpClient, HttpClientResponse } from "effect/http"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { isConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { expired, userToken } from "./tokens.ts"

/**
 * A token endpoint that answers the first refresh 429 with `Retry-After: 1`,
 * then grants access-2; a service that answers 401 to `rejected`. `sent`
 * lists the token requests' refresh tokens and the reads' bearers.
 */
const service = (rejected: string) => {
  const sent: Array<string> = []
  const client = HttpClient.make((request) =>
    Effect.sync(() => {
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        HttpClientResponse.fromWeb(request, new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } }))
      if (new URL(request.url).pathname === "/oauth/token") {
        const form = new URLSearchParams(request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : "")
        sent.push(`token ${form.get("refresh_token")}`)
        return sent.filter((s) => s.startsWith("token")).length === 1
          ? json(429, { error: "slow_down" }, { "retry-after": "1" })
          : json(200, { access_token: "access-2", token_type: "Bearer", expires_in: 7200, refresh_token: "refresh-2" })
      }
      const bearer = (request.headers["authorization"] ?? "").slice("Bearer ".length)
      sent.push(`read ${bearer}`)
      return bearer === rejected ? json(401, { error: "unauthorized" }) : json(200, { distance: 42 })
    })
  )
  const transport = Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin("http://service.test"), Layer.succeed(HttpClient.HttpClient, client)]))
  return { sent, transport }
}

const odometer = (timeout: Duration.Input) =>
  Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) => legacy.odometer({ params: { id: "veh-1" } }, { timeout }))

/** The context of calls with a user session on a memory store holding `token`. */
const sessionWith = (transport: Layer.Layer<Transport.Transport>, token: TokenStore.Token) =>
  Effect.gen(function*() {
    const memory = yield* TokenStore.makeMemory
    yield* memory.set("user-1", token)
    const oauth = OAuthConfig.layer({ clientId: "app", clientSecret: Redacted.make("secret") })
    return yield* Layer.build(Layer.mergeAll(transport, Session.layerUser("user-1").pipe(Layer.provide([transport, oauth, Layer.succeed(TokenStore.TokenStore, memory)]))))
  })

/** A caller's failure: the token endpoint's 429, `left` milliseconds of its wait, no timeout. */
const assertLate = (error: unknown, left: number) => {
  if (!isConnectedVehicleError(error) || error.reason._tag !== "Credentials") return assert.fail(`not a Credentials reason: ${String(error)}`)
  assert.isUndefined(error.reason.timeout)
  assert.strictEqual(error.status, 429)
  assert.isFalse(error.isRetryable)
  assert.strictEqual(error.retryAfter === undefined ? -1 : Duration.toMillis(error.retryAfter), left)
  assert.isTrue(isConnectedVehicleError(error.reason.cause) && error.reason.cause.reason._tag === "RateLimit")
  assert.include(error.message, "429 slow_down")
}

describe("Session: a renewal that sleeps out the token endpoint's Retry-After", () => {
  it.effect("fails the callers that cannot wait at once, joining ones too, and goes on for the others: one flight, two token requests", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const { sent, transport } = service("none")
      const context = yield* sessionWith(transport, expired())
      const long = yield* Effect.forkChild(odometer("5 seconds").pipe(Effect.provideContext(context)))
      const short = yield* Effect.forkChild(Effect.flip(odometer("300 millis").pipe(Effect.provideContext(context))))
      yield* TestClock.adjust("1 millis")
      // not after its 300 ms: at once, with the token endpoint's 429 and what is left of its wait
      const failed = short.pollUnsafe()
      if (failed === undefined) return assert.fail("the short call still waits")
      assertLate(yield* Fiber.join(short), 1000)
      // a caller that joins the renewal during its wait fails at once too, without a request
      yield* TestClock.adjust("100 millis")
      assertLate(yield* Effect.flip(odometer("300 millis").pipe(Effect.provideContext(context))), 899)
      assert.deepStrictEqual(sent, ["token refresh-1"])
      assert.isUndefined(long.pollUnsafe())
      // the renewal's next request, once the wait is over, serves the caller that could wait
      yield* TestClock.adjust("900 millis")
      assert.strictEqual((yield* Fiber.join(long)).value.distance, 42)
      assert.deepStrictEqual(sent, ["token refresh-1", "token refresh-1", "read access-2"])
      // and the calls after it
      assert.strictEqual((yield* odometer("300 millis").pipe(Effect.provideContext(context))).value.distance, 42)
      assert.deepStrictEqual(sent, ["token refresh-1", "token refresh-1", "read access-2", "read access-2"])
    }).pipe(Effect.scoped))

  it.effect("stops in its wait once no caller waits for it: no token request nobody asked for, the rest of the wait held for the next renewal", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const { sent, transport } = service("none")
      const context = yield* sessionWith(transport, expired())
      // the only caller cannot wait 1 s: it fails at once, and nothing waits for the renewal any more
      assertLate(yield* Effect.flip(odometer("300 millis").pipe(Effect.provideContext(context))), 1000)
      yield* TestClock.adjust("500 millis")
      // a caller that can wait: no request before the wait asked for ends, then one
      const later = yield* Effect.forkChild(odometer("5 seconds").pipe(Effect.provideContext(context)))
      yield* TestClock.adjust("499 millis")
      assert.deepStrictEqual(sent, ["token refresh-1"])
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* Fiber.join(later)).value.distance, 42)
      assert.deepStrictEqual(sent, ["token refresh-1", "token refresh-1", "read access-2"])
    }).pipe(Effect.scoped))

  it.effect("stopped in its wait with no caller, it sends nothing when the wait ends", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const { sent, transport } = service("none")
      const context = yield* sessionWith(transport, expired())
      assertLate(yield* Effect.flip(odometer("300 millis").pipe(Effect.provideContext(context))), 1000)
      yield* TestClock.adjust("5 seconds")
      assert.deepStrictEqual(sent, ["token refresh-1"])
      // the next call asks at once (the wait is over)
      assert.strictEqual((yield* odometer("300 millis").pipe(Effect.provideContext(context))).value.distance, 42)
      assert.deepStrictEqual(sent, ["token refresh-1", "token refresh-1", "read access-2"])
    }).pipe(Effect.scoped))

  it.effect("a renewal that holds a store's lease across processes sleeps out its Retry-After even with no caller left: no process asks before it ends", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const { sent, transport } = service("none")
      const memory = yield* TokenStore.makeMemory
      yield* memory.set("user-1", expired())
      // two processes: a store instance each over the same tokens, one renewal lease between them (as the fleet's)
      const lease = yield* Semaphore.make(1)
      const processStore = (): TokenStore.TokenStore["Service"] => ({
        get: memory.get,
        set: memory.set,
        remove: memory.remove,
        renewal: (key, _isDue, use) => Semaphore.withPermits(lease, 1)(Effect.flatMap(memory.get(key, { peek: true }), use))
      })
      const oauth = OAuthConfig.layer({ clientId: "app", clientSecret: Redacted.make("secret") })
      const processContext = () =>
        Layer.build(Layer.mergeAll(transport, Session.layerUser("user-1").pipe(Layer.provide([transport, oauth, Layer.succeed(TokenStore.TokenStore, processStore())]))))
      const [a, b] = [yield* processContext(), yield* processContext()]
      const callerA = yield* Effect.forkChild(odometer("5 seconds").pipe(Effect.provideContext(a)))
      yield* TestClock.adjust("1 millis")
      const callerB = yield* Effect.forkChild(odometer("5 seconds").pipe(Effect.provideContext(b)))
      yield* TestClock.adjust("99 millis")
      assert.deepStrictEqual(sent, ["token refresh-1"])
      // A's only caller goes: A's renewal keeps the lease through the wait, B asks once it is over
      yield* Fiber.interrupt(callerA)
      yield* TestClock.adjust("899 millis")
      assert.deepStrictEqual(sent, ["token refresh-1"])
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* Fiber.join(callerB)).value.distance, 42)
      assert.deepStrictEqual(sent, ["token refresh-1", "token refresh-1", "read access-2"])
    }).pipe(Effect.scoped))

  it.effect("a 401's refresh (refreshBy) fails at once too when it cannot wait, and replays with the new token when it can", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const { sent, transport } = service("access-1")
      const context = yield* sessionWith(transport, userToken(0))
      // the long call's 401 renews first (answered 429): the short one's refresh joins that renewal
      const long = yield* Effect.forkChild(odometer("5 seconds").pipe(Effect.provideContext(context)))
      for (let i = 0; i < 100 && !sent.includes("token refresh-1"); i++) yield* Effect.yieldNow
      assert.deepStrictEqual(sent, ["read access-1", "token refresh-1"])
      assertLate(yield* Effect.flip(odometer("300 millis").pipe(Effect.provideContext(context))), 1000)
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* Fiber.join(long)).value.distance, 42)
      assert.deepStrictEqual(sent, ["read access-1", "token refresh-1", "read access-1", "token refresh-1", "read access-2"])
    }).pipe(Effect.scoped))
})

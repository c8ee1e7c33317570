/**
 * A renewal whose layer closes while its grant sleeps out the token
 * endpoint's `Retry-After`: the wait stays held until its end, so the call
 * that started the renewal again (one waiting in another layer, or the next
 * call) sends no token request before it; a call that cannot wait that long
 * fails at once with the answer and what is left of the wait, one with time
 * enough gets the token once it is over. A `node:http` server on 127.0.0.1
 * is the token endpoint (its requests counted, with their times) and the
 * service; refresh-token and client-credentials grants.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer, Scope } from "effect"
import type * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { isConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { json, oauth, odometer, tokenEndpoint } from "./loopback.ts"
import { expired } from "./tokens.ts"

/** The token requests received: when, and their grant type. */
let tokens: Array<{ readonly at: number; readonly grant: string | null }> = []
/** The status of the first token request's answer (with `Retry-After: 1`); the next ones grant a token. */
let first = 429

const endpoint = tokenEndpoint((_, response, body) => {
  tokens.push({ at: Date.now(), grant: new URLSearchParams(body.toString("utf8")).get("grant_type") })
  if (tokens.length === 1) {
    return json(response, first, { error: first === 429 ? "slow_down" : "temporarily_unavailable" }, { "retry-after": "1" })
  }
  json(response, 200, { access_token: `access-${tokens.length}`, token_type: "Bearer", expires_in: 7200, refresh_token: "refresh-2" })
}, (_, response) => json(response, 200, { distance: 42 }))

/** Until `done` (or 3 s), polling every 10 ms. */
const until = (done: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 300 && !done(); i++) yield* Effect.sleep("10 millis")
    assert.isTrue(done(), "waited 3 s")
  })

/**
 * A memory store (holding `user-1`'s expired token), a way to build a layer
 * of calls with a session on it, and to start a renewal in one (`waitingIn`).
 */
const setup = (answer: number, credentials: Layer.Layer<Credentials, never, TokenStore.TokenStore | OAuthConfig.OAuthConfig | Transport.Transport>) =>
  Effect.gen(function*() {
    tokens = []
    first = answer
    const memory = yield* TokenStore.makeMemory
    yield* memory.set("user-1", expired())
    const transport = Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(endpoint.origin()), UndiciHttpClient.layer()]))
    const layer = Layer.mergeAll(transport, credentials.pipe(Layer.provide([transport, oauth, Layer.succeed(TokenStore.TokenStore, memory)])))
    const build = (scope: Scope.Scope) => Layer.buildWithScope(layer, scope)
    // the renewal started by a call of a layer built in `closing` (answered `first`), its wait begun
    const waitingIn = (closing: Scope.Scope) =>
      Effect.gen(function*() {
        const context = yield* build(closing)
        const call = yield* Effect.forkChild(Effect.exit(odometer("5 seconds").pipe(Effect.provideContext(context))))
        yield* until(() => tokens.length === 1)
        yield* Effect.sleep("100 millis")
        return call
      })
    return { build, waitingIn }
  })

/** A call's failure: the token endpoint's `status`, at most the second it asked to wait left, no timeout. */
const assertHeld = (error: unknown, status: number) => {
  if (!isConnectedVehicleError(error) || error.reason._tag !== "Credentials") return assert.fail(`not a Credentials reason: ${String(error)}`)
  assert.isUndefined(error.reason.timeout)
  assert.strictEqual(error.status, status)
  const left = error.retryAfter === undefined ? -1 : Duration.toMillis(error.retryAfter)
  assert.isTrue(left > 0 && left <= 1_000, `retryAfter ${left} ms`)
}

/** Two token requests of `grant` in all: the second one not before the first one's `Retry-After: 1` has passed. */
const assertWaitedOut = (grant: string) => {
  const [one, two, ...more] = tokens
  if (one === undefined || two === undefined) return assert.fail(`${tokens.length} token requests`)
  assert.strictEqual(more.length, 0)
  assert.isAtLeast(two.at - one.at, 990, "the second token request came before the Retry-After ended")
  assert.deepStrictEqual([one.grant, two.grant], [grant, grant])
}

const cases = [
  { grant: "refresh_token", answer: 429, credentials: Session.layerUser("user-1") },
  { grant: "client_credentials", answer: 503, credentials: Session.layerApplication({ key: "user-1" }) }
] as const

describe("Session: a renewal interrupted while it sleeps out the token endpoint's Retry-After", () => {
  for (const { answer, credentials, grant } of cases) {
    it.live(`${grant}: a call waiting in another layer sends no token request before it ends, and gets the token after it`, () =>
      Effect.gen(function*() {
        const { build, waitingIn } = yield* setup(answer, credentials)
        const other = yield* build(yield* Effect.scope)
        const closing = yield* Scope.make()
        const starter = yield* waitingIn(closing)
        // a call of another layer joins the renewal during its wait, then that renewal's layer closes
        // (its own call interrupted first)
        const joined = yield* Effect.forkChild(odometer("5 seconds").pipe(Effect.provideContext(other)))
        yield* Effect.sleep("50 millis")
        yield* Fiber.interrupt(starter)
        yield* Scope.close(closing, Exit.void)
        yield* Effect.sleep("100 millis")
        assert.strictEqual(tokens.length, 1, "a token request sent during the Retry-After")
        // a call that cannot wait for the rest of it fails at once, with the answer and what is left
        const started = Date.now()
        assertHeld(yield* Effect.flip(odometer("300 millis").pipe(Effect.provideContext(other))), answer)
        assert.isBelow(Date.now() - started, 250)
        // the calls with time enough get the token once it is over
        assert.strictEqual((yield* Fiber.join(joined)).value.distance, 42)
        assertWaitedOut(grant)
      }).pipe(Effect.scoped), 15_000)

    it.live(`${grant}: the next call, in a new layer, sends no token request before it ends`, () =>
      Effect.gen(function*() {
        const { build, waitingIn } = yield* setup(answer, credentials)
        const closing = yield* Scope.make()
        const starter = yield* waitingIn(closing)
        // no call waits for the renewal when its layer closes
        yield* Fiber.interrupt(starter)
        yield* Scope.close(closing, Exit.void)
        const next = yield* build(yield* Effect.scope)
        const short = yield* Effect.flip(odometer("300 millis").pipe(Effect.provideContext(next)))
        assertHeld(short, answer)
        assert.strictEqual(tokens.length, 1, "a token request sent during the Retry-After")
        assert.strictEqual((yield* odometer("5 seconds").pipe(Effect.provideContext(next))).value.distance, 42)
        assertWaitedOut(grant)
      }).pipe(Effect.scoped), 15_000)
  }
})

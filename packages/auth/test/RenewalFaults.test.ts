/**
 * Token renewals against a failing token endpoint, over a `node:http`
 * server on 127.0.0.1 (the token endpoint and the service, their requests
 * counted): a client-credentials request that stalls is aborted when its
 * layer closes; a refresh-token request that may have used its refresh
 * token (a 500, a lost answer) is not sent again by later 401s or calls
 * until a new token is stored; a client-credentials grant that gives back
 * the rejected token, or refuses the client, causes one token request for
 * all the calls that were refused; the token request carries no trace
 * context with Effect's default tracer and no caller span.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Redacted, Scope } from "effect"
import { TestClock } from "effect/testing"
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http"
import { type AddressInfo, createServer } from "node:net"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { type ConnectedVehicleError, isConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { json, oauth, odometer as readOdometer, tokenEndpoint } from "./loopback.ts"
import { expired, userToken } from "./tokens.ts"

type Answer = (request: IncomingMessage, response: ServerResponse, n: number) => void

/** The token requests: their form, headers, and whether the client went away before an answer. */
let tokens: Array<{ readonly form: URLSearchParams; readonly headers: IncomingHttpHeaders; aborted: boolean }> = []
/** The service's requests: their bearer. */
let bearers: Array<string | undefined> = []
let tokenAnswer: Answer = () => {}
let apiAnswer: Answer = () => {}

const endpoint = tokenEndpoint((request, response, body) => {
  const entry = { form: new URLSearchParams(body.toString("utf8")), headers: request.headers, aborted: false }
  tokens.push(entry)
  response.on("close", () => entry.aborted = !response.writableFinished)
  tokenAnswer(request, response, tokens.length)
}, (request, response) => {
  bearers.push(request.headers.authorization)
  apiAnswer(request, response, bearers.length)
})

const odometer = readOdometer()

/** Until `done` (or 3 s), polling every 10 ms. */
const until = (done: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 300 && !done(); i++) yield* Effect.sleep("10 millis")
    assert.isTrue(done(), "waited 3 s")
  })

/** A memory store (`user-1` holding `token`, if any) and the layer of calls with `credentials` on it. */
const setup = (
  credentials: Layer.Layer<Credentials, never, TokenStore.TokenStore | OAuthConfig.OAuthConfig | Transport.Transport>,
  token: TokenStore.Token | undefined,
  answers: { readonly token: Answer; readonly api: Answer },
  config: Layer.Layer<OAuthConfig.OAuthConfig> = oauth
) =>
  Effect.gen(function*() {
    tokens = []
    bearers = []
    tokenAnswer = answers.token
    apiAnswer = answers.api
    const memory = yield* TokenStore.makeMemory
    if (token !== undefined) yield* memory.set("user-1", token)
    const transport = Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(endpoint.origin()), UndiciHttpClient.layer()]))
    const layer = Layer.mergeAll(transport, credentials.pipe(Layer.provide([transport, config, Layer.succeed(TokenStore.TokenStore, memory)])))
    return { memory, layer }
  })

/** The service: 401 to the bearers in `refused` (the `n`th request's after `n - 1` × 100 ms, for the first five), else 200. */
const service = (refused: ReadonlyArray<string>): Answer => (request, response, n) =>
  refused.includes(request.headers.authorization ?? "")
    ? setTimeout(() => json(response, 401, {}), n <= 5 ? (n - 1) * 100 : 0)
    : json(response, 200, { distance: 42 })

/** `n` concurrent calls, each `Exit`. */
const concurrently = (n: number) => Effect.all(Array.from({ length: n }, () => Effect.exit(odometer)), { concurrency: "unbounded" })

/**
 * `cause` is the failure `first` (a call's): the same token request's error, as the renewal
 * gave it (the call's own copy adds `callSent`, when the call's request had been sent: a 401).
 */
const assertSameFailure = (cause: unknown, first: ConnectedVehicleError, message: string) => {
  assert.isTrue(isConnectedVehicleError(cause), message)
  const [a, b] = [(cause as ConnectedVehicleError).reason, first.reason]
  assert.strictEqual(a._tag, "Credentials", message)
  assert.strictEqual(b._tag, "Credentials", message)
  if (a._tag !== "Credentials" || b._tag !== "Credentials") return
  assert.strictEqual(a.description, b.description, message)
  assert.strictEqual(a.status, b.status, message)
  assert.strictEqual(a.cause, b.cause, message)
}

const errorOf = (exit: Exit.Exit<unknown, unknown>) => {
  if (Exit.isSuccess(exit)) return assert.fail("the call succeeded")
  const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error
  if (!isConnectedVehicleError(error)) return assert.fail(`not a ConnectedVehicleError: ${String(error)}`)
  return error
}

describe("Session: a client-credentials token request that stalls", () => {
  it.live("closing the layer returns at once and aborts the request", () =>
    Effect.gen(function*() {
      const { layer } = yield* setup(Session.layerApplication({ key: "user-1" }), undefined, { token: () => {}, api: service([]) })
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(layer, scope)
      const call = yield* Effect.forkChild(Effect.exit(odometer.pipe(Effect.provideContext(context))))
      yield* until(() => tokens.length === 1)
      yield* Fiber.interrupt(call)
      const started = Date.now()
      yield* Scope.close(scope, Exit.void)
      assert.isBelow(Date.now() - started, 1_000, "the layer's close waited for the stalled token request")
      yield* until(() => tokens[0]!.aborted)
    }), 10_000)
})

describe("Session: the token request's trace context", () => {
  it.live("Effect's default tracer and no caller span: none, as the service's calls", () =>
    Effect.gen(function*() {
      const granted = (_: IncomingMessage, response: ServerResponse) =>
        json(response, 200, { access_token: "app-1", token_type: "Bearer", expires_in: 3600 })
      const { layer } = yield* setup(Session.layerApplication({ key: "user-1" }), undefined, { token: granted, api: service([]) })
      assert.strictEqual((yield* odometer.pipe(Effect.provideContext(yield* Layer.build(layer)))).value.distance, 42)
      assert.strictEqual(tokens.length, 1)
      for (const header of ["traceparent", "b3", "tracestate"]) assert.isUndefined(tokens[0]!.headers[header], header)
    }).pipe(Effect.scoped), 10_000)
})

describe("Session: a refresh-token request that may have used its refresh token", () => {
  const answers = {
    "a 500": (_: IncomingMessage, response: ServerResponse) => json(response, 500, { error: "server_error" }),
    "a reset connection (a lost answer)": (request: IncomingMessage) => request.socket.resetAndDestroy()
  } as const
  for (const [what, answer] of Object.entries(answers)) {
    it.live(`${what}: later 401s and calls send no token request until a new token is stored`, () =>
      Effect.gen(function*() {
        const { layer, memory } = yield* setup(Session.layerUser("user-1"), userToken(0), { token: answer, api: service(["Bearer access-1"]) })
        const context = yield* Layer.build(layer)
        // five calls whose 401s come 100 ms apart: one token request, its failure the first call's
        const exits = yield* concurrently(5).pipe(Effect.provideContext(context))
        assert.strictEqual(tokens.length, 1, "the refresh token was sent again")
        assert.strictEqual(tokens[0]!.form.get("refresh_token"), "refresh-1")
        const later = errorOf(exits[4]!)
        assert.strictEqual(later.reason._tag, "Credentials")
        assert.include(later.message, "sign the user in again")
        assert.include(later.message, "may have been used by a token request that failed")
        const cause = later.reason._tag === "Credentials" ? later.reason.cause : undefined
        assertSameFailure(cause, errorOf(exits[0]!), "the later calls' cause is the failure of the token request")
        // a later call: no request either (its access token, rejected, is not sent again)
        const sent = bearers.length
        assert.include(errorOf(yield* Effect.exit(odometer.pipe(Effect.provideContext(context)))).message, "sign the user in again")
        assert.strictEqual(tokens.length, 1)
        assert.strictEqual(bearers.length, sent, "the rejected access token was sent again")
        // a new token stored for the key (another process, a sign-in): used
        yield* memory.set("user-1", userToken(0, "access-2", "refresh-2"))
        assert.strictEqual((yield* odometer.pipe(Effect.provideContext(context))).value.distance, 42)
        assert.strictEqual(bearers.at(-1), "Bearer access-2")
      }).pipe(Effect.scoped), 15_000)
  }
})

describe("Session: a refresh-token request that was never sent", () => {
  it.live("a TLS handshake that fails (https: on a plain HTTP port) sent nothing: the next renewal sends the refresh token again", () =>
    Effect.gen(function*() {
      tokens = []
      const memory = yield* TokenStore.makeMemory
      yield* memory.set("user-1", expired())
      const tls = endpoint.origin().replace(/^http:/, "https:")
      const transport = Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(tls), UndiciHttpClient.layer()]))
      const layer = Layer.mergeAll(transport, Session.layerUser("user-1").pipe(Layer.provide([transport, oauth, Layer.succeed(TokenStore.TokenStore, memory)])))
      const context = yield* Layer.build(layer)
      for (let i = 0; i < 2; i++) {
        const error = errorOf(yield* Effect.exit(odometer.pipe(Effect.provideContext(context))))
        assert.notInclude(error.message, "may have been used", `call ${i + 1}`)
        assert.notInclude(error.message, "sign the user in again", `call ${i + 1}`)
      }
      assert.strictEqual(tokens.length, 0)
    }).pipe(Effect.scoped), 15_000)
})

describe("Session: a refresh-token request that timed out while connecting", () => {
  it.live("a TLS handshake that never ends sent nothing: the Timeout says sent: false, the next renewal sends the refresh token again", () =>
    Effect.gen(function*() {
      const connections: Array<Buffer> = []
      const silent = createServer((socket) => {
        socket.on("data", (chunk: Buffer) => connections.push(chunk))
        socket.on("error", () => {})
      })
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => void silent.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => silent.close())
      )
      const tls = `https://127.0.0.1:${(silent.address() as AddressInfo).port}`
      const memory = yield* TokenStore.makeMemory
      yield* memory.set("user-1", expired())
      const transport = Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(tls, { timeout: "300 millis" }), UndiciHttpClient.layer()]))
      const layer = Layer.mergeAll(transport, Session.layerUser("user-1").pipe(Layer.provide([transport, oauth, Layer.succeed(TokenStore.TokenStore, memory)])))
      const context = yield* Layer.build(layer)
      for (let i = 0; i < 2; i++) {
        // the call waits longer than its token request's timeout
        const error = errorOf(yield* Effect.exit(readOdometer("3 seconds").pipe(Effect.provideContext(context))))
        assert.notInclude(error.message, "may have been used", `call ${i + 1}`)
        assert.notInclude(error.message, "sign the user in again", `call ${i + 1}`)
        const cause = error.reason._tag === "Credentials" ? error.reason.cause : undefined
        assert.isTrue(isConnectedVehicleError(cause) && cause.reason._tag === "Timeout" && cause.reason.sent === false, `call ${i + 1}: ${String(cause)}`)
      }
      // nothing but TLS records (ClientHello): no refresh token on the wire
      assert.isTrue(connections.length > 0 && connections.every((chunk) => chunk[0] === 0x16))
    }).pipe(Effect.scoped), 15_000)
})

describe("Session: a client-credentials grant while the service keeps answering 401", () => {
  const granted = (_: IncomingMessage, response: ServerResponse) =>
    json(response, 200, { access_token: "app-1", token_type: "Bearer", expires_in: 3600 })

  it.live("the token endpoint gives back the rejected token: one token request for it, no replay with it", () =>
    Effect.gen(function*() {
      const { layer } = yield* setup(Session.layerApplication({ key: "user-1" }), undefined, { token: granted, api: service(["Bearer app-1"]) })
      const context = yield* Layer.build(layer)
      const exits = yield* concurrently(5).pipe(Effect.provideContext(context))
      for (const exit of exits) assert.strictEqual(errorOf(exit).status, 401)
      // the first token and one renewal for its 401s; each call sent once
      assert.strictEqual(tokens.length, 2)
      assert.strictEqual(bearers.length, 5)
      // a later call: the same
      assert.strictEqual(errorOf(yield* Effect.exit(odometer.pipe(Effect.provideContext(context)))).status, 401)
      assert.deepStrictEqual([tokens.length, bearers.length], [2, 6])
    }).pipe(Effect.scoped), 15_000)

  it.effect("the rejected token given back is not asked for again for 10 s only: then a 401 renews it, and a new token serves", () =>
    Effect.gen(function*() {
      const answer = (request: IncomingMessage, response: ServerResponse, n: number) =>
        n <= 2 ? granted(request, response) : json(response, 200, { access_token: "app-2", token_type: "Bearer", expires_in: 3600 })
      const { layer } = yield* setup(Session.layerApplication({ key: "user-1" }), undefined, { token: answer, api: service(["Bearer app-1"]) })
      const context = yield* Layer.build(layer)
      assert.strictEqual(errorOf(yield* Effect.exit(odometer.pipe(Effect.provideContext(context)))).status, 401)
      assert.strictEqual(errorOf(yield* Effect.exit(odometer.pipe(Effect.provideContext(context)))).status, 401)
      assert.strictEqual(tokens.length, 2)
      yield* TestClock.adjust("11 seconds")
      assert.strictEqual((yield* odometer.pipe(Effect.provideContext(context))).value.distance, 42)
      assert.strictEqual(tokens.length, 3)
      assert.strictEqual(bearers.at(-1), "Bearer app-2")
    }).pipe(Effect.scoped), 15_000)

  it.effect("with a refusalWindow of 2 s, the rejected token given back is asked for again after 2 s", () =>
    Effect.gen(function*() {
      const answer = (request: IncomingMessage, response: ServerResponse, n: number) =>
        n <= 2 ? granted(request, response) : json(response, 200, { access_token: "app-2", token_type: "Bearer", expires_in: 3600 })
      const config = OAuthConfig.layer({ clientId: "app", clientSecret: Redacted.make("secret"), refusalWindow: "2 seconds" })
      const { layer } = yield* setup(Session.layerApplication({ key: "user-1" }), undefined, { token: answer, api: service(["Bearer app-1"]) }, config)
      const context = yield* Layer.build(layer)
      assert.strictEqual(errorOf(yield* Effect.exit(odometer.pipe(Effect.provideContext(context)))).status, 401)
      yield* TestClock.adjust("1500 millis")
      assert.strictEqual(errorOf(yield* Effect.exit(odometer.pipe(Effect.provideContext(context)))).status, 401)
      assert.strictEqual(tokens.length, 2)
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* odometer.pipe(Effect.provideContext(context))).value.distance, 42)
      assert.strictEqual(tokens.length, 3)
    }).pipe(Effect.scoped), 15_000)

  it.effect("with a refusalWindow of 2 s, a refusal of the client holds for 2 s, then a renewal asks again", () =>
    Effect.gen(function*() {
      const answer = (request: IncomingMessage, response: ServerResponse, n: number) =>
        n === 1 ? granted(request, response) : n === 2 ? json(response, 401, { error: "invalid_client" }) : json(response, 200, { access_token: "app-2", token_type: "Bearer", expires_in: 3600 })
      const config = OAuthConfig.layer({ clientId: "app", clientSecret: Redacted.make("secret"), refusalWindow: "2 seconds" })
      const { layer } = yield* setup(Session.layerApplication({ key: "user-1" }), undefined, { token: answer, api: service(["Bearer app-1"]) }, config)
      const context = yield* Layer.build(layer)
      assert.strictEqual(errorOf(yield* Effect.exit(odometer.pipe(Effect.provideContext(context)))).status, 401)
      yield* TestClock.adjust("1500 millis")
      const held = errorOf(yield* Effect.exit(odometer.pipe(Effect.provideContext(context))))
      assert.include(held.message, "no token request sent: the token endpoint refused the client less than 2s ago")
      assert.strictEqual(tokens.length, 2)
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* odometer.pipe(Effect.provideContext(context))).value.distance, 42)
      assert.strictEqual(tokens.length, 3)
      assert.strictEqual(bearers.at(-1), "Bearer app-2")
    }).pipe(Effect.scoped), 15_000)

  it.live("the token endpoint refuses the client (invalid_client): one token request, its refusal shared", () =>
    Effect.gen(function*() {
      const answer = (request: IncomingMessage, response: ServerResponse, n: number) =>
        n === 1 ? granted(request, response) : json(response, 401, { error: "invalid_client" })
      const { layer } = yield* setup(Session.layerApplication({ key: "user-1" }), undefined, { token: answer, api: service(["Bearer app-1"]) })
      const context = yield* Layer.build(layer)
      const exits = yield* concurrently(5).pipe(Effect.provideContext(context))
      assert.strictEqual(tokens.length, 2)
      const [first, ...others] = exits.map(errorOf)
      assert.strictEqual(first!.status, 401)
      for (const error of others) {
        assert.strictEqual(error.status, 401)
        assert.include(error.message, "no token request sent: the token endpoint refused the client")
        assertSameFailure(error.reason._tag === "Credentials" ? error.reason.cause : undefined, first!, "the first call's refusal")
      }
    }).pipe(Effect.scoped), 15_000)
})

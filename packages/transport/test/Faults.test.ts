import { inspect } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Redacted, Stream } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { NodeHttpClient } from "@effect/platform-node"
import { AuthorizationApi, LegacyApi, VehicleApi } from "@connected-vehicle/schema/Api"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Pagination from "@connected-vehicle/transport/Pagination"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import type { Connection, Timeout, UnexpectedStatus } from "@connected-vehicle/transport/ConnectedVehicleError"
import { ConnectedVehicleError, Credentials as CredentialsReason, reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import { signalsPage } from "./signals.ts"
import { flipReason, server } from "./utils.ts"
import * as UndiciHttpClient from "../src/UndiciHttpClient.ts"

const transportOn = (origin: string, httpClient: Layer.Layer<HttpClient.HttpClient>) =>
  Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("the-token"))).pipe(
    Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), httpClient])
  )

/** The transport with `credentials`, on the default configuration of `origin`. */
const transportWith = (origin: string, credentials: Credentials.Credentials["Service"]) =>
  Layer.mergeAll(Transport.layer, Layer.succeed(Credentials.Credentials, credentials)).pipe(
    Layer.provide([TransportConfig.layerOrigin(origin), UndiciHttpClient.layer()])
  )

const getSignal = (vehicleId: string) =>
  Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
    signals.get({ params: { vehicleId, signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } }))

const clients = [
  ["NodeHttpClient.layerUndici", NodeHttpClient.layerUndici],
  ["UndiciHttpClient.layer()", UndiciHttpClient.layer()],
  ["FetchHttpClient (redirect: manual)", FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { redirect: "manual" })))]
] as const

describe("faults every HttpClient must handle the same", () => {
  for (const [name, httpClient] of clients) {
    it.live(`${name}: a redirect is refused, with its location, and its target is never asked`, () =>
      Effect.gen(function*() {
        const elsewhere = yield* server((_, response) => response.end("{}"))
        const service = yield* server((_, response) => {
          response.writeHead(302, { location: `${elsewhere.origin}/steal?token=x` })
          response.end()
        })
        const error = yield* flipReason(getSignal("v-1").pipe(Effect.provide(transportOn(service.origin, httpClient))))
        assert.strictEqual(error._tag, "UnexpectedStatus")
        assert.strictEqual((error as UnexpectedStatus).status, 302)
        // the location as the SDK shows URLs: a credential-like query value redacted
        assert.strictEqual((error as UnexpectedStatus).location, `${elsewhere.origin}/steal?token=<redacted>`)
        assert.include(error.message, "refused")
        assert.notInclude(inspect(error, { depth: 10 }), "token=x")
        assert.strictEqual(service.requests.length, 1)
        assert.strictEqual(elsewhere.requests.length, 0)
      }).pipe(Effect.scoped))

    it.live(`${name}: a redirect whose body never ends fails at once and closes its connection`, () =>
      Effect.gen(function*() {
        let closed!: () => void
        const socketClosed = new Promise<void>((resolve) => (closed = resolve))
        const service = yield* server((request, response) => {
          request.socket.once("close", () => closed())
          response.writeHead(302, { location: "http://127.0.0.1:1/elsewhere", "content-length": "100" })
          response.write("moved")
        })
        const layer = Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("the-token"))).pipe(
          Layer.provide([TransportConfig.layerOrigin(service.origin, { timeout: "10 seconds", retry: { maxAttempts: 1 } }), httpClient])
        )
        yield* Effect.gen(function*() {
          const started = Date.now()
          const error = yield* flipReason(getSignal("v-1"))
          assert.strictEqual(error._tag, "UnexpectedStatus")
          assert.isBelow(Date.now() - started, 2_000)
          // the unread body's connection is closed by the client (still open), not left to the server
          const released = yield* Effect.promise(() =>
            Promise.race([socketClosed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 1_000))]))
          assert.isTrue(released, "the connection of the redirect was left open")
        }).pipe(Effect.provide(layer))
      }).pipe(Effect.scoped))

    it.live(`${name}: an attempt that times out in a slow onResponse hook while the body stalls closes its connection`, () =>
      Effect.gen(function*() {
        let closed!: () => void
        const socketClosed = new Promise<void>((resolve) => (closed = resolve))
        const service = yield* server((request, response) => {
          request.socket.once("close", () => closed())
          // the head, then a body that never ends
          response.writeHead(200, { "content-type": "application/json" })
          response.write("{")
        })
        const layer = Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("the-token"))).pipe(
          Layer.provide([TransportConfig.layerOrigin(service.origin, { timeout: "300 millis", retry: { maxAttempts: 1 } }), httpClient])
        )
        yield* Effect.gen(function*() {
          const signals = yield* Transport.client(VehicleApi, "signals")
          const error = yield* flipReason(signals.get(
            { params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } },
            { onResponse: () => Effect.sleep("10 seconds") }
          ))
          assert.strictEqual(error._tag, "Timeout")
          const released = yield* Effect.promise(() =>
            Promise.race([socketClosed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 1_000))]))
          assert.isTrue(released, "the connection of the timed-out attempt was left open")
        }).pipe(Effect.provide(layer))
      }).pipe(Effect.scoped))

    it.live(`${name}: a call its caller interrupts in a slow onResponse hook while the body stalls closes its connection`, () =>
      Effect.gen(function*() {
        let closed!: () => void
        const socketClosed = new Promise<void>((resolve) => (closed = resolve))
        let headSent!: () => void
        const head = new Promise<void>((resolve) => (headSent = resolve))
        const service = yield* server((request, response) => {
          request.socket.once("close", () => closed())
          response.writeHead(200, { "content-type": "application/json" })
          response.write("{", () => headSent())
        })
        const layer = Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("the-token"))).pipe(
          Layer.provide([TransportConfig.layerOrigin(service.origin, { timeout: "10 seconds", retry: { maxAttempts: 1 } }), httpClient])
        )
        yield* Effect.gen(function*() {
          const signals = yield* Transport.client(VehicleApi, "signals")
          let inHook!: () => void
          const hookStarted = new Promise<void>((resolve) => (inHook = resolve))
          const fiber = yield* Effect.forkChild(signals.get(
            { params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } },
            { onResponse: () => Effect.andThen(Effect.sync(() => inHook()), Effect.sleep("10 seconds")) }
          ))
          yield* Effect.promise(() => Promise.all([head, hookStarted]))
          yield* Fiber.interrupt(fiber)
          const released = yield* Effect.promise(() =>
            Promise.race([socketClosed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 1_000))]))
          assert.isTrue(released, "the connection of the interrupted call was left open")
        }).pipe(Effect.provide(layer))
      }).pipe(Effect.scoped))

    it.live(`${name}: a response a transformClient fails with (filterStatusOk) is that response: its body stalled, the attempt's timeout ends it and closes its connection`, () =>
      Effect.gen(function*() {
        let closed!: () => void
        const socketClosed = new Promise<void>((resolve) => (closed = resolve))
        const service = yield* server((request, response) => {
          request.socket.once("close", () => closed())
          response.writeHead(500, { "content-type": "application/json" })
          response.write("{")
        })
        const layer = Layer.effect(Transport.Transport, Transport.make({ transformClient: HttpClient.filterStatusOk })).pipe(
          Layer.provideMerge(
            Layer.mergeAll(TransportConfig.layerOrigin(service.origin, { timeout: "300 millis", retry: { maxAttempts: 1 } }), httpClient)
          ),
          Layer.merge(Credentials.layerStatic(Redacted.make("the-token")))
        )
        // the client's layer kept while the connection is watched (closing it would close every connection)
        yield* Effect.gen(function*() {
          const started = Date.now()
          const error = yield* flipReason(getSignal("v-1"))
          // the 500's body read as any error body's: the attempt's timeout, with the status it saw
          assert.strictEqual(error._tag, "Timeout")
          assert.strictEqual((error as Timeout).status, 500)
          assert.isBelow(Date.now() - started, 2_000)
          const released = yield* Effect.promise(() =>
            Promise.race([socketClosed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 1_000))]))
          assert.isTrue(released, "the connection of the response in the client's failure was left open")
        }).pipe(Effect.provide(layer))
      }).pipe(Effect.scoped))

    it.live(`${name}: a credential a transformClient put in the query is not in the error's URL or message`, () =>
      Effect.gen(function*() {
        const service = yield* server((_, response) => {
          response.writeHead(500, { "content-type": "text/plain" })
          response.end("boom")
        })
        const transformClient = HttpClient.mapRequest(HttpClientRequest.setUrlParam("access_token", "sekrit-value"))
        const layer = Layer.effect(Transport.Transport, Transport.make({ transformClient })).pipe(
          Layer.provideMerge(Layer.mergeAll(TransportConfig.layerOrigin(service.origin, { retry: { maxAttempts: 1 } }), httpClient)),
          Layer.merge(Credentials.layerStatic(Redacted.make("the-token")))
        )
        const error = yield* flipReason(getSignal("v-1").pipe(Effect.provide(layer)))
        // the service did get it (the hook is the user's), the error does not show it
        assert.include(service.requests[0]!.url, "access_token=sekrit-value")
        assert.include(String((error as { url?: string }).url), "access_token=<redacted>")
        assert.notInclude(inspect(error, { depth: 10 }), "sekrit-value")
        assert.notInclude(error.message, "sekrit-value")
      }).pipe(Effect.scoped))

    it.live(`${name}: an id with a lone surrogate is an InvalidArgument, and nothing is sent`, () =>
      Effect.gen(function*() {
        const service = yield* server((_, response) => response.end("{}"))
        for (const vehicleId of ["a\ud800b", "a\udc00", "\ud800"]) {
          const error = yield* flipReason(getSignal(vehicleId).pipe(Effect.provide(transportOn(service.origin, httpClient))))
          assert.strictEqual(error._tag, "InvalidArgument")
          assert.include(error.message, "vehicleId")
        }
        // a well-formed pair is an ordinary character
        yield* Effect.exit(getSignal("a\ud83d\ude97b").pipe(Effect.provide(transportOn(service.origin, httpClient))))
        assert.strictEqual(service.requests.length, 1)
        assert.include(service.requests[0]!.url, "a%F0%9F%9A%97b")
      }).pipe(Effect.scoped))

    it.live(`${name}: a query value with a lone surrogate is an InvalidArgument naming it, and nothing is sent`, () =>
      Effect.gen(function*() {
        const service = yield* server((_, response) => response.end("{}"))
        const list = (userId: string) =>
          Effect.flatMap(Transport.client(VehicleApi, "connections"), (connections) => connections.list({ query: { "filter[userId]": userId } }))
        for (const userId of ["a\ud800b", "\udc00"]) {
          const error = yield* flipReason(list(userId).pipe(Effect.provide(transportOn(service.origin, httpClient))))
          assert.strictEqual(error._tag, "InvalidArgument")
          assert.include(error.message, "filter[userId]: Expected well-formed Unicode")
        }
        assert.strictEqual(service.requests.length, 0)
      }).pipe(Effect.scoped))

    it.live(`${name}: a 200 whose body is cut after the head is a Connection, and retried`, () =>
      Effect.gen(function*() {
        let n = 0
        const service = yield* server((_, response) => {
          if (++n === 1) {
            response.writeHead(200, { "content-type": "application/json", "content-length": "500" })
            response.write("{\"data\":")
            setTimeout(() => response.socket?.destroy(), 20)
            return
          }
          response.writeHead(503, { "content-type": "application/json" })
          response.end("not an envelope")
        })
        // one attempt: the cut body is a Connection (retryable), not a malformed body
        const error = yield* flipReason(getSignal("v-1").pipe(Effect.provide(transportOn(service.origin, httpClient))))
        assert.strictEqual(error._tag, "Connection")
        // with retries, the cut body is sent again
        const retried = yield* flipReason(getSignal("v-1").pipe(
          Effect.provide(Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("the-token"))).pipe(
            Layer.provide([TransportConfig.layerOrigin(service.origin, { retry: { maxAttempts: 2, initialDelay: 1, maxDelay: 1 } }), httpClient])
          ))
        ))
        assert.strictEqual(retried._tag, "Server")
        assert.strictEqual(service.requests.length, 3)
      }).pipe(Effect.scoped))

    it.live(`${name}: a refused connection names its cause`, () =>
      Effect.gen(function*() {
        const closed = yield* server(() => {})
        const origin = closed.origin
        closed.close()
        const error = yield* flipReason(getSignal("v-1").pipe(Effect.provide(transportOn(origin, httpClient))))
        assert.strictEqual(error._tag, "Connection")
        assert.include((error as Connection).description, "ECONNREFUSED")
      }).pipe(Effect.scoped))
  }
})

describe("secrets echoed by the server", () => {
  const envelope = (detail: string) => ({
    errors: [{ status: "401", type: "AUTHENTICATION", code: "UNAUTHORIZED", title: "Unauthorized", detail, resolution: { type: "REAUTHENTICATE" } }]
  })
  const leaks = (error: unknown, secret: string) =>
    [String(error), (error as Error).message, inspect(error, { depth: 10 }), JSON.stringify(error)].filter((text) => text.includes(secret))

  it.live("a bearer token echoed in an error envelope's detail is not in the error", () =>
    Effect.gen(function*() {
      const service = yield* server((request, response) => {
        response.writeHead(401, { "content-type": "application/json" })
        response.end(JSON.stringify(envelope(`token ${request.headers.authorization} is not valid`)))
      })
      const error = yield* Effect.flip(getSignal("v-1").pipe(Effect.provide(transportOn(service.origin, UndiciHttpClient.layer()))))
      assert.strictEqual(reasonOf(error)._tag, "Authentication")
      assert.deepStrictEqual(leaks(error, "the-token"), [])
      assert.include(error.message, "<redacted>")
    }).pipe(Effect.scoped))

  it.live("a client secret echoed in an OAuth error_description is not in the error", () =>
    Effect.gen(function*() {
      const service = yield* server((request, response) => {
        let body = ""
        request.on("data", (chunk) => body += chunk)
        request.on("end", () => {
          response.writeHead(400, { "content-type": "application/json" })
          const basic = Buffer.from((request.headers.authorization ?? "").slice(6), "base64").toString("utf8")
          response.end(JSON.stringify({ error: "invalid_client", error_description: `bad credentials ${basic} with ${body}` }))
        })
      })
      const error = yield* Effect.flip(
        Effect.flatMap(Transport.publicClient(AuthorizationApi, "oauth"), (oauth) =>
          oauth.token({
            headers: { authorization: `Basic ${Buffer.from("the-client:the-client-secret").toString("base64")}` },
            payload: { grant_type: "refresh_token", refresh_token: "the-refresh-token" }
          })).pipe(Effect.provide(transportOn(service.origin, UndiciHttpClient.layer())))
      )
      assert.strictEqual(reasonOf(error)._tag, "OAuth")
      assert.deepStrictEqual(leaks(error, "the-client-secret"), [])
      assert.deepStrictEqual(leaks(error, "the-refresh-token"), [])
      assert.include(error.message, "<redacted>")
    }).pipe(Effect.scoped))
})

describe("a token request's result", () => {
  it.live("shows its request without the Basic credential or the form (code, refresh token)", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ access_token: "a-1", token_type: "Bearer", expires_in: 7200, refresh_token: "r-2" }))
      })
      const result = yield* Effect.flatMap(Transport.publicClient(AuthorizationApi, "oauth"), (oauth) =>
        oauth.token({
          headers: { authorization: `Basic ${Buffer.from("the-client:the-client-secret").toString("base64")}` },
          payload: { grant_type: "refresh_token", refresh_token: "the-refresh-token" }
        })).pipe(Effect.provide(transportOn(service.origin, UndiciHttpClient.layer())))
      const shown = result.request
      assert.strictEqual(shown.method, "POST")
      assert.strictEqual(shown.body._tag, "Empty")
      assert.isUndefined(shown.headers["authorization"])
      for (const text of [inspect(shown, { depth: 10 }), JSON.stringify(shown)]) {
        assert.notInclude(text, "the-refresh-token")
        assert.notInclude(text, Buffer.from("the-client:the-client-secret").toString("base64"))
      }
    }).pipe(Effect.scoped))
})

describe("waiting for the credential", () => {
  const callWith = (options: Transport.CallOptions) =>
    Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
      signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } }, options))

  it.live("a credential that does not come fails the call with a Credentials reason once its budget (maxElapsed) is spent", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => response.end("{}"))
      const started = Date.now()
      const error = yield* flipReason(callWith({ timeout: "5 seconds", retry: { maxElapsed: "300 millis" } }).pipe(
        Effect.provide(transportWith(service.origin, { token: Effect.never, refresh: () => Effect.succeed(false) }))
      ))
      assert.strictEqual(error._tag, "Credentials")
      assert.match(error.message, /did not come within 300 ms \(the call's budget, maxElapsed\)/)
      assert.isBelow(Date.now() - started, 3_000)
      assert.strictEqual(service.requests.length, 0)
    }).pipe(Effect.scoped))

  it.live("a credential that does not come is bounded by the attempt's timeout too, and not retried (its renewal goes on)", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => response.end("{}"))
      let reads = 0
      const started = Date.now()
      const error = yield* flipReason(callWith({ timeout: "200 millis", retry: { maxAttempts: 2, initialDelay: "1 millis", maxElapsed: "20 seconds" } }).pipe(
        Effect.provide(transportWith(service.origin, { token: Effect.andThen(Effect.sync(() => reads++), Effect.never), refresh: () => Effect.succeed(false) }))
      ))
      assert.strictEqual(error._tag, "Credentials")
      assert.match(error.message, /did not come within 200 ms \(the timeout\)/)
      assert.strictEqual(error._tag === "Credentials" ? Duration.toMillis(error.timeout!) : -1, 200)
      assert.strictEqual(error._tag === "Credentials" && error.isRetryable, false)
      assert.strictEqual(reads, 1)
      assert.isBelow(Date.now() - started, 3_000)
      assert.strictEqual(service.requests.length, 0)
    }).pipe(Effect.scoped))

  it.live("an attempt that times out after a slow credential read reports the timeout configured, not what was left of it", () =>
    Effect.gen(function*() {
      const service = yield* server(() => {}) // never answers
      const slowToken = Effect.as(Effect.sleep("50 millis"), Redacted.make("the-token"))
      const error = yield* flipReason(callWith({ timeout: "300 millis", retry: { maxAttempts: 1 } }).pipe(
        Effect.provide(transportWith(service.origin, { token: slowToken, refresh: () => Effect.succeed(false) }))
      ))
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual(error._tag === "Timeout" ? Duration.toMillis(error.timeout) : -1, 300)
      assert.match(error.message, /within 300 ms/)
    }).pipe(Effect.scoped))

  it.live("an attempt cut by what is left of the call's budget reports the budget (maxElapsed)", () =>
    Effect.gen(function*() {
      const service = yield* server(() => {}) // never answers
      const slowToken = Effect.as(Effect.sleep("50 millis"), Redacted.make("the-token"))
      const error = yield* flipReason(callWith({ timeout: "5 seconds", retry: { maxElapsed: "300 millis" } }).pipe(
        Effect.provide(transportWith(service.origin, { token: slowToken, refresh: () => Effect.succeed(false) }))
      ))
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual(error._tag === "Timeout" ? Duration.toMillis(error.timeout) : -1, 300)
    }).pipe(Effect.scoped))

  it.live("a refresh after a 401 that does not come fails the call with a Credentials reason once its budget is spent", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(401, { "content-type": "application/json" })
        response.end(JSON.stringify({ error: "unauthorized" }))
      })
      const started = Date.now()
      const error = yield* flipReason(callWith({ timeout: "5 seconds", retry: { maxElapsed: "300 millis" } }).pipe(
        Effect.provide(transportWith(service.origin, { token: Effect.succeed(Redacted.make("the-token")), refresh: () => Effect.never }))
      ))
      assert.strictEqual(error._tag, "Credentials")
      assert.isBelow(Date.now() - started, 3_000)
      assert.strictEqual(service.requests.length, 1)
    }).pipe(Effect.scoped))

  it.live("a refresh after a 401 that failed for a moment (transient) is tried again by the call's retry, not counted as the call's refresh", () =>
    Effect.gen(function*() {
      let current = "rejected"
      const service = yield* server((request, response) => {
        if (request.headers.authorization === "Bearer good") return response.end("{}")
        response.writeHead(401, { "content-type": "application/json" })
        response.end(JSON.stringify({ error: "unauthorized" }))
      })
      let refreshes = 0
      const credentials: Credentials.Credentials["Service"] = {
        token: Effect.sync(() => Redacted.make(current)),
        refresh: () =>
          Effect.suspend(() => {
            if (refreshes++ === 0) {
              return Effect.fail(new ConnectedVehicleError({ reason: new CredentialsReason({ description: "TokenStoreError: blip", transient: true }) }))
            }
            current = "good"
            return Effect.succeed(true)
          })
      }
      // the 200 reached (its body, "{}", is not a signal: the decode fails after it)
      const error = yield* flipReason(callWith({ retry: { initialDelay: "1 millis" } }).pipe(Effect.provide(transportWith(service.origin, credentials))))
      assert.strictEqual(error._tag, "InvalidResponse")
      assert.strictEqual(refreshes, 2)
      // the retry refreshes again without sending the refused token once more
      assert.deepStrictEqual(service.requests.map((r) => r.headers.authorization), ["Bearer rejected", "Bearer good"])
    }).pipe(Effect.scoped))
})

describe("paging over a proxy that drops the query string", () => {
  it.live("every page request answered with page 1: the stream fails with an InvalidResponse after page 1's items, once", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify(signalsPage))
      })
      for (const readAhead of [0, 1] as const) {
        const seen: Array<string> = []
        const error = yield* Effect.flip(Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
          Stream.runForEach(
            Pagination.items((page, options) =>
              signals.list({ params: { vehicleId: "veh_1" }, query: { page, pageSize: 2 }, headers: { "sc-user-id": "u-1" } }, options), { readAhead }),
            (signal) => Effect.sync(() => seen.push(signal.attributes.code))
          )).pipe(Effect.provide(transportOn(service.origin, UndiciHttpClient.layer()))))
        const reason = reasonOf(error)
        assert.strictEqual(reason._tag, "InvalidResponse")
        assert.match(reason.message, /page 2 was asked for and page 1 came/)
        assert.strictEqual(seen.length, 2)
      }
      assert.isAtMost(service.requests.length, 5)
    }).pipe(Effect.scoped))
})

describe("a credential slower than the attempt's timeout", () => {
  it.live("a POST (legacy batch) whose credential failed for a moment (transient) is retried: nothing was sent", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ responses: [{ path: "/odometer", code: 200, body: { distance: 1 }, headers: {} }] }))
      })
      let reads = 0
      const blip = new ConnectedVehicleError({ reason: new CredentialsReason({ description: "TokenStoreError: blip", transient: true }) })
      const token = Effect.suspend(() => reads++ === 0 ? Effect.fail(blip) : Effect.succeed(Redacted.make("t")))
      const result = yield* Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) =>
        legacy.batch({ params: { id: "v-1" }, payload: { requests: [{ path: "/odometer" }] } }, { retry: { maxAttempts: 3, initialDelay: "1 millis" } })
      ).pipe(Effect.provide(transportWith(service.origin, { token, refresh: () => Effect.succeed(false) })))
      assert.strictEqual(result.status, 200)
      assert.strictEqual(reads, 2)
      assert.strictEqual(service.requests.length, 1)
    }).pipe(Effect.scoped))

  it.live("after a 401, a refresh slower than the timeout fails the call (not retried): the refused token is not sent again", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(401, { "content-type": "application/json" })
        response.end(JSON.stringify({ error: "unauthorized" }))
      })
      let refreshes = 0
      const refresh = () => Effect.andThen(Effect.sync(() => refreshes++), Effect.never)
      const error = yield* flipReason(Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) =>
        legacy.odometer({ params: { id: "v-1" } }, { timeout: "200 millis", retry: { maxAttempts: 5, initialDelay: "1 millis", maxElapsed: "10 seconds" } })
      ).pipe(Effect.provide(transportWith(service.origin, { token: Effect.succeed(Redacted.make("old")), refresh }))))
      assert.strictEqual(error._tag, "Credentials")
      assert.strictEqual(refreshes, 1)
      assert.deepStrictEqual(service.requests.map((r) => r.headers.authorization), ["Bearer old"])
    }).pipe(Effect.scoped))
})

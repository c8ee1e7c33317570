/**
 * Whether a failed request was sent: a connection never made, or a TLS
 * handshake that failed, is a `Connection` reason with `sent: false` on every
 * `HttpClient` (`UndiciHttpClient` knows it, the others are read from Node's
 * error codes), and a request that is not idempotent is retried after it; a
 * connection reset once the request arrived may have reached the service.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { NodeHttpClient } from "@effect/platform-node"
import { LegacyApi, VehicleApi } from "@connected-vehicle/schema/Api"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import { ConnectedVehicleError, Connection as ConnectionReason, Credentials as CredentialsReason } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import type { Connection } from "@connected-vehicle/transport/ConnectedVehicleError"
import { isNotSent, RequestMaybeSent, RequestNotSent, sentNothing } from "@connected-vehicle/transport/RequestNotSent"
import { Agent, interceptors } from "undici"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { flipReason, server } from "./utils.ts"

const clients = [
  ["UndiciHttpClient.layer()", UndiciHttpClient.layer()],
  ["NodeHttpClient.layerUndici", NodeHttpClient.layerUndici],
  ["FetchHttpClient", FetchHttpClient.layer]
] as const

/** The transport on `origin` over `httpClient`, whose requests are counted in `sent`. */
const transportOn = (origin: string, httpClient: Layer.Layer<HttpClient.HttpClient>, sent: Array<string>, maxAttempts = 1, retryNonIdempotent = false) =>
  Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("the-token"))).pipe(
    Layer.provide([
      TransportConfig.layerOrigin(origin, { retry: { maxAttempts, initialDelay: "1 millis", maxDelay: "5 millis", retryNonIdempotent } }),
      Layer.effect(HttpClient.HttpClient, Effect.map(Effect.service(HttpClient.HttpClient), HttpClient.tapRequest((request) => Effect.sync(() => sent.push(request.method))))).pipe(
        Layer.provide(httpClient)
      )
    ])
  )

const getSignal = Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
  signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } }))

const batch = Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) =>
  legacy.batch({ params: { id: "v-1" }, payload: { requests: [{ path: "/odometer" }] } }))

/** An origin where nothing listens: a server's, closed. */
const closedOrigin = Effect.map(server(() => {}), (s) => {
  s.close()
  return s.origin
})

describe("a request of which nothing was sent", () => {
  for (const [name, httpClient] of clients) {
    it.live(`${name}: a refused connection is a Connection with sent: false; a POST is retried after it`, () =>
      Effect.gen(function*() {
        const origin = yield* closedOrigin
        const sent: Array<string> = []
        const error = yield* flipReason(getSignal.pipe(Effect.provide(transportOn(origin, httpClient, sent))))
        assert.strictEqual(error._tag, "Connection")
        assert.strictEqual((error as Connection).sent, false)
        // a POST (not idempotent) is retried: nothing of it reached the service
        const posted: Array<string> = []
        const failed = yield* flipReason(batch.pipe(Effect.provide(transportOn(origin, httpClient, posted, 3))))
        assert.strictEqual((failed as Connection).sent, false)
        assert.deepStrictEqual(posted, ["POST", "POST", "POST"])
      }).pipe(Effect.scoped))

    // a record the client cannot read may come after the request too (bytes injected into the
    // connection): only a client that knows where it failed (`UndiciHttpClient`) says `sent: false`
    const knows = name.startsWith("UndiciHttpClient")
    it.live(`${name}: a TLS handshake that fails (https: on a plain HTTP port) is a Connection${knows ? " with sent: false" : " that may have been sent"}`, () =>
      Effect.gen(function*() {
        const plain = yield* server((_, response) => response.end("{}"))
        const error = yield* flipReason(getSignal.pipe(Effect.provide(transportOn(plain.origin.replace(/^http:/, "https:"), httpClient, []))))
        assert.strictEqual(error._tag, "Connection")
        assert.strictEqual((error as Connection).sent, knows ? false : undefined)
        assert.strictEqual(plain.requests.length, 0)
      }).pipe(Effect.scoped))

    it.live(`${name}: a connection reset once the request arrived may have reached the service: no sent, and a POST is not retried`, () =>
      Effect.gen(function*() {
        const service = yield* server((request) => request.socket.resetAndDestroy())
        const error = yield* flipReason(getSignal.pipe(Effect.provide(transportOn(service.origin, httpClient, []))))
        assert.strictEqual(error._tag, "Connection")
        assert.isUndefined((error as Connection).sent)
        const posted: Array<string> = []
        const failed = yield* flipReason(batch.pipe(Effect.provide(transportOn(service.origin, httpClient, posted, 3))))
        assert.strictEqual(failed._tag, "Connection")
        assert.isUndefined((failed as Connection).sent)
        assert.deepStrictEqual(posted, ["POST"])
      }).pipe(Effect.scoped))
  }
})

describe("a call of several attempts", () => {
  for (const [name, httpClient] of clients) {
    it.live(`${name}: once an attempt may have reached the service, a later one refused does not make the call's error sent: false`, () =>
      Effect.gen(function*() {
        // the first POST arrives, its connection is reset and the service goes away: the next attempts are refused
        const service = yield* server((request) => {
          request.socket.resetAndDestroy()
          service.close()
        })
        const posted: Array<string> = []
        const error = yield* flipReason(batch.pipe(Effect.provide(transportOn(service.origin, httpClient, posted, 3, true))))
        assert.strictEqual(error._tag, "Connection")
        assert.include((error as Connection).description, "ECONNREFUSED")
        assert.isUndefined((error as Connection).sent)
        assert.deepStrictEqual(posted, ["POST", "POST", "POST"])
        assert.strictEqual(service.requests.length, 1)
      }).pipe(Effect.scoped))
  }
})

describe("a call whose earlier attempt may have reached the service", () => {
  const batchOn = (layer: Layer.Layer<Transport.Transport | Credentials.Credentials>) => flipReason(batch.pipe(Effect.provide(layer)))

  it.live("an attempt that timed out, then an admit step that fails with sent: false: the call's error does not say sent: false", () =>
    Effect.gen(function*() {
      const service = yield* server(() => {})
      let admits = 0
      const admit = (request: { readonly method: string; readonly url: string }) =>
        Effect.suspend(() =>
          ++admits === 1 ? Effect.void : Effect.fail(
            new ConnectedVehicleError({
              reason: new ConnectionReason({ method: request.method, url: request.url, description: "request limits: down", sent: false, cause: new Error("request limits down") })
            })
          ))
      const layer = Layer.mergeAll(Transport.layerWith({ admit }), Credentials.layerStatic(Redacted.make("t"))).pipe(Layer.provide([
        TransportConfig.layerOrigin(service.origin, { timeout: "200 millis", retry: { maxAttempts: 2, initialDelay: "1 millis", maxDelay: "5 millis", retryNonIdempotent: true } }),
        UndiciHttpClient.layer()
      ]))
      const error = yield* batchOn(layer)
      assert.strictEqual(error._tag, "Connection")
      assert.isUndefined((error as Connection).sent)
      // the admit step's own error kept as the cause
      assert.strictEqual(((error as Connection).cause as Error).message, "request limits down")
      assert.deepStrictEqual([service.requests.length, admits], [1, 2])
    }).pipe(Effect.scoped))

  it.live("a 401, then its replay refused: the call's error does not say sent: false", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(401, { "content-type": "application/json" })
        response.end("{}")
      })
      let current = "token-1"
      const credentials = Layer.succeed(Credentials.Credentials, {
        token: Effect.sync(() => Redacted.make(current)),
        refresh: () =>
          Effect.sync(() => {
            current = "token-2"
            service.close()
            return true
          })
      })
      const layer = Layer.mergeAll(Transport.layer, credentials).pipe(Layer.provide([
        TransportConfig.layerOrigin(service.origin, { retry: { maxAttempts: 1 } }),
        UndiciHttpClient.layer()
      ]))
      const error = yield* batchOn(layer)
      assert.strictEqual(error._tag, "Connection")
      assert.include((error as Connection).description, "ECONNREFUSED")
      assert.isUndefined((error as Connection).sent)
      assert.strictEqual(service.requests.length, 1)
    }).pipe(Effect.scoped))
})

describe("a call whose credential could not be had", () => {
  const credentialsFailure = (description: string) =>
    new ConnectedVehicleError({ reason: new CredentialsReason({ description, cause: new ConnectedVehicleError({ reason: new ConnectionReason({ method: "POST", url: "http://auth/oauth/token", description: "refused", sent: false }) }) }) })

  it.live("at once: the Credentials reason is the credential's own failure (the call's request was never written)", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => response.end("{}"))
      const credentials = Layer.succeed(Credentials.Credentials, { token: Effect.fail(credentialsFailure("token request refused")), refresh: () => Effect.succeed(false) })
      const layer = Layer.mergeAll(Transport.layer, credentials).pipe(Layer.provide([TransportConfig.layerOrigin(service.origin), UndiciHttpClient.layer()]))
      const error = yield* flipReason(batch.pipe(Effect.provide(layer)))
      assert.strictEqual(error._tag, "Credentials")
      assert.isUndefined((error as CredentialsReason).callSent)
      // the token request's error kept as the cause
      const cause = (error as CredentialsReason).cause
      assert.isTrue(cause instanceof ConnectedVehicleError && cause.reason._tag === "Connection")
      assert.strictEqual(service.requests.length, 0)
    }).pipe(Effect.scoped))

  it.live("after a 401 (its refresh failed): the Credentials reason says callSent: true, its cause kept", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(401, { "content-type": "application/json" })
        response.end("{}")
      })
      const credentials = Layer.succeed(Credentials.Credentials, {
        token: Effect.succeed(Redacted.make("token-1")),
        refresh: () => Effect.fail(credentialsFailure("refresh refused"))
      })
      const layer = Layer.mergeAll(Transport.layer, credentials).pipe(Layer.provide([TransportConfig.layerOrigin(service.origin), UndiciHttpClient.layer()]))
      const error = yield* flipReason(batch.pipe(Effect.provide(layer)))
      assert.strictEqual(error._tag, "Credentials")
      assert.isTrue((error as CredentialsReason).callSent)
      // the call's request reached the service: not a failure that sent nothing
      assert.isFalse(sentNothing(new ConnectedVehicleError({ reason: error as CredentialsReason })))
      assert.isTrue(sentNothing(new ConnectedVehicleError({ reason: new CredentialsReason({ description: "no token" }) })))
      assert.instanceOf((error as CredentialsReason).cause, ConnectedVehicleError)
      assert.strictEqual(service.requests.length, 1)
    }).pipe(Effect.scoped))
})

describe("UndiciHttpClient", () => {
  it.live("a failure once undici started the request (a read error on a connection in use) may have been sent: a POST is sent once", () =>
    Effect.gen(function*() {
      let dispatched = 0
      // undici's handler protocol: `onRequestStart` just before it writes, then the failure
      const dispatcher = {
        dispatch: (_: unknown, handler: { onRequestStart: (c: unknown) => void; onResponseError: (c: unknown, e: Error) => void }) => {
          dispatched++
          const controller = { abort: () => {}, pause: () => {}, resume: () => {}, paused: false, aborted: false, reason: null }
          setTimeout(() => {
            handler.onRequestStart(controller)
            handler.onResponseError(controller, Object.assign(new Error("read EHOSTUNREACH"), { code: "EHOSTUNREACH", syscall: "read" }))
          }, 1)
          return true
        }
      } as unknown as Parameters<typeof UndiciHttpClient.make>[0]
      const httpClient = Layer.succeed(HttpClient.HttpClient, UndiciHttpClient.make(dispatcher))
      const error = yield* flipReason(batch.pipe(Effect.provide(transportOn("http://127.0.0.1:1", httpClient, [], 3))))
      assert.strictEqual(error._tag, "Connection")
      assert.isUndefined((error as Connection).sent)
      assert.strictEqual(dispatched, 1)
    }))


  it.live("gives a RequestNotSent cause to a request that never reached a socket, the undici error to one that did", () =>
    Effect.gen(function*() {
      const origin = yield* closedOrigin
      const service = yield* server((request) => request.socket.resetAndDestroy())
      const causeOf = (url: string) =>
        Effect.flip(Effect.flatMap(Effect.service(HttpClient.HttpClient), (client) => client.get(url))).pipe(
          Effect.map((error) => (error.reason as { readonly cause?: unknown }).cause),
          Effect.provide(UndiciHttpClient.layer())
        )
      const refused = yield* causeOf(`${origin}/x`)
      assert.instanceOf(refused, RequestNotSent)
      assert.include((refused as RequestNotSent).message, "ECONNREFUSED")
      assert.strictEqual(((refused as RequestNotSent).cause as { readonly code?: string }).code, "ECONNREFUSED")
      const reset = yield* causeOf(`${service.origin}/x`)
      assert.notInstanceOf(reset, RequestNotSent)
      assert.isFalse(isNotSent(reset))
    }).pipe(Effect.scoped))
})

describe("UndiciHttpClient on a dispatcher that retries itself", () => {
  it.live("its retry refused after the first request was written: may have been sent (a RequestMaybeSent cause), the POST not sent again", () =>
    Effect.gen(function*() {
      // the first POST arrives whole, then its connection is reset and the service goes away
      const service = yield* server((request) => {
        request.on("end", () => {
          service.close()
          request.socket.resetAndDestroy()
        })
        request.resume()
      })
      const dispatcher = new Agent().compose(interceptors.retry({ maxRetries: 1, minTimeout: 10, methods: ["POST"] }))
      const posted: Array<string> = []
      const httpClient = Layer.succeed(HttpClient.HttpClient, UndiciHttpClient.make(dispatcher))
      const error = yield* flipReason(batch.pipe(Effect.provide(transportOn(service.origin, httpClient, posted, 3))))
      assert.strictEqual(error._tag, "Connection")
      assert.isUndefined((error as Connection).sent)
      assert.deepStrictEqual(posted, ["POST"])
      assert.strictEqual(service.requests.length, 1)
      yield* Effect.promise(() => dispatcher.close())
    }).pipe(Effect.scoped))
})

describe("isNotSent", () => {
  it("reads the codes of a connection never made or a handshake that failed, along the cause chain", () => {
    const coded = (code: string, syscall?: string) => Object.assign(new Error(code), { code, ...(syscall ? { syscall } : {}) })
    assert.isTrue(isNotSent(new RequestNotSent(new Error("x"))))
    assert.isTrue(isNotSent(new TypeError("fetch failed", { cause: coded("ECONNREFUSED", "connect") })))
    assert.isTrue(isNotSent(coded("EACCES", "connect")))
    assert.isTrue(isNotSent(coded("ENOTFOUND", "getaddrinfo")))
    assert.isTrue(isNotSent(coded("UND_ERR_CONNECT_TIMEOUT")))
    assert.isTrue(isNotSent(coded("DEPTH_ZERO_SELF_SIGNED_CERT")))
    assert.isTrue(isNotSent(coded("EHOSTUNREACH", "connect")))
    assert.isTrue(isNotSent(new AggregateError([coded("ECONNREFUSED", "connect"), coded("ENETUNREACH", "connect")])))
    // may have been sent
    assert.isFalse(isNotSent(coded("ECONNRESET", "read")))
    assert.isFalse(isNotSent(coded("EPIPE", "write")))
    assert.isFalse(isNotSent(coded("ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC")))
    // an unreachable network on a connection in use, a record that is not TLS: the request may be out
    assert.isFalse(isNotSent(coded("EHOSTUNREACH", "read")))
    assert.isFalse(isNotSent(coded("ENETDOWN", "write")))
    assert.isFalse(isNotSent(coded("ERR_SSL_WRONG_VERSION_NUMBER")))
    assert.isFalse(isNotSent(coded("ERR_SSL_PACKET_LENGTH_TOO_LONG")))
    assert.isFalse(isNotSent(new AggregateError([coded("ECONNREFUSED", "connect"), coded("ECONNRESET", "read")])))
    assert.isFalse(isNotSent(new Error("connect ECONNREFUSED 127.0.0.1:1")))
    assert.isFalse(isNotSent(undefined))
    // a client that knows the request may have been written says so, whatever the error below
    assert.isFalse(isNotSent(new RequestMaybeSent(coded("ECONNREFUSED", "connect"))))
    // a cause chain that loops ends
    const a: Error & { cause?: unknown } = new Error("a")
    a.cause = a
    assert.isFalse(isNotSent(a))
  })
})

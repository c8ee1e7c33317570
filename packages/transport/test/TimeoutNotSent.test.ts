/**
 * Whether a request that timed out was sent: an attempt whose timeout ran
 * out while its connection (or TLS handshake) was still being made is a
 * `Timeout` with `sent: false` when the `HttpClient` says so
 * (`UndiciHttpClient` marks the request it was interrupted before writing:
 * `RequestNotSent.markNotSent`), and a request that is not idempotent is
 * retried after it; one that timed out once on its connection may have
 * reached the service, and so may any with a client that cannot tell.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { NodeHttpClient } from "@effect/platform-node"
import { createServer, type Socket } from "node:net"
import type { AddressInfo } from "node:net"
import type { Dispatcher } from "undici"
import { LegacyApi, VehicleApi } from "@connected-vehicle/schema/Api"
import type { Timeout } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import { isMarkedNotSent, markNotSent } from "@connected-vehicle/transport/RequestNotSent"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { flipReason, server } from "./utils.ts"

/** A TCP server that accepts connections and never answers: an `https:` client waits for the handshake forever. */
const silent = Effect.acquireRelease(
  Effect.callback<{ readonly origin: string; readonly received: Array<Buffer>; connections: number; readonly close: () => void }>((resume) => {
    const sockets = new Set<Socket>()
    const s = createServer((socket) => {
      state.connections++
      sockets.add(socket)
      socket.on("data", (chunk: Buffer) => state.received.push(chunk))
      socket.on("error", () => {})
      socket.once("close", () => sockets.delete(socket))
    })
    const state = {
      origin: "",
      received: [] as Array<Buffer>,
      connections: 0,
      close: () => {
        for (const socket of sockets) socket.destroy()
        s.close()
      }
    }
    s.listen(0, "127.0.0.1", () => {
      state.origin = `https://127.0.0.1:${(s.address() as AddressInfo).port}`
      resume(Effect.succeed(state))
    })
  }),
  (s) => Effect.sync(() => s.close())
)

/** The transport on `origin` over `httpClient`, the methods of the requests it was given counted in `given`. */
const layerOn = (origin: string, httpClient: Layer.Layer<HttpClient.HttpClient>, maxAttempts = 1, given: Array<string> = []) =>
  Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("the-token"))).pipe(
    Layer.provide([
      TransportConfig.layerOrigin(origin, { timeout: "300 millis", retry: { maxAttempts, initialDelay: "1 millis", maxDelay: "5 millis" } }),
      Layer.effect(HttpClient.HttpClient, Effect.map(Effect.service(HttpClient.HttpClient), HttpClient.tapRequest((request) => Effect.sync(() => given.push(request.method))))).pipe(
        Layer.provide(httpClient)
      )
    ])
  )

const getSignal = Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
  signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } }))

const batch = Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) =>
  legacy.batch({ params: { id: "v-1" }, payload: { requests: [{ path: "/odometer" }] } }))

/** Whether every chunk a silent server received is a TLS record (a ClientHello), none an HTTP request. */
const onlyTls = (received: ReadonlyArray<Buffer>) => received.every((chunk) => chunk[0] === 0x16) && !Buffer.concat(received).includes("HTTP/1.1")

describe("a timeout while the connection was being made", () => {
  it.live("UndiciHttpClient: a TLS handshake that never ends is a Timeout with sent: false; a POST is retried after it", () =>
    Effect.gen(function*() {
      const tls = yield* silent
      const error = yield* flipReason(getSignal.pipe(Effect.provide(layerOn(tls.origin, UndiciHttpClient.layer()))))
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual((error as Timeout).sent, false)
      // a POST (not idempotent) is sent again: nothing of it was written (the connection being made is undici's to keep)
      const given: Array<string> = []
      const failed = yield* flipReason(batch.pipe(Effect.provide(layerOn(tls.origin, UndiciHttpClient.layer(), 3, given))))
      assert.strictEqual(failed._tag, "Timeout")
      assert.strictEqual((failed as Timeout).sent, false)
      assert.deepStrictEqual(given, ["POST", "POST", "POST"])
      assert.isAtLeast(tls.connections, 2)
      assert.isTrue(onlyTls(tls.received))
    }).pipe(Effect.scoped), 10_000)

  for (const [name, httpClient] of [["NodeHttpClient.layerUndici", NodeHttpClient.layerUndici], ["FetchHttpClient", FetchHttpClient.layer]] as const) {
    it.live(`${name}: a client that cannot tell: the Timeout may have been sent, a POST is not retried`, () =>
      Effect.gen(function*() {
        const tls = yield* silent
        const given: Array<string> = []
        const failed = yield* flipReason(batch.pipe(Effect.provide(layerOn(tls.origin, httpClient, 3, given))))
        assert.strictEqual(failed._tag, "Timeout")
        assert.isUndefined((failed as Timeout).sent)
        assert.deepStrictEqual(given, ["POST"])
      }).pipe(Effect.scoped), 10_000)
  }
})

describe("a timeout once the request was on its connection", () => {
  it.live("UndiciHttpClient: a service that never answers: a Timeout that may have been sent, a POST not retried", () =>
    Effect.gen(function*() {
      const service = yield* server(() => {})
      const error = yield* flipReason(getSignal.pipe(Effect.provide(layerOn(service.origin, UndiciHttpClient.layer()))))
      assert.strictEqual(error._tag, "Timeout")
      assert.isUndefined((error as Timeout).sent)
      const given: Array<string> = []
      const failed = yield* flipReason(batch.pipe(Effect.provide(layerOn(service.origin, UndiciHttpClient.layer(), 3, given))))
      assert.isUndefined((failed as Timeout).sent)
      assert.deepStrictEqual(given, ["POST"])
      assert.strictEqual(service.requests.filter((request) => request.method === "POST").length, 1)
    }).pipe(Effect.scoped), 10_000)
})

/** A dispatcher whose requests never end: started on a socket (`onRequestStart`) or not. */
const stalling = (started: boolean): Dispatcher =>
  ({
    dispatch(_options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
      if (started) handler.onRequestStart?.({ abort() {}, pause() {}, resume() {}, aborted: false, paused: false, reason: null } as never, {})
      return true
    }
  }) as unknown as Dispatcher

describe("UndiciHttpClient interrupted", () => {
  it.live("before undici started the request: marks it not sent (traced or not); after: does not", () =>
    Effect.gen(function*() {
      for (const started of [false, true]) {
        const client = UndiciHttpClient.make(stalling(started))
        const request = HttpClientRequest.get("http://127.0.0.1:1/v3/vehicles")
        const error = yield* flipReason(getSignal.pipe(Effect.provide(layerOn("http://127.0.0.1:1", Layer.succeed(HttpClient.HttpClient, client)))))
        assert.strictEqual(error._tag, "Timeout")
        assert.strictEqual((error as Timeout).sent, started ? undefined : false, `started: ${started}`)
        // with Effect's client span (which sends a copy carrying its trace context), and without
        yield* Effect.timeout(client.execute(request), "20 millis").pipe(Effect.ignore)
        assert.strictEqual(isMarkedNotSent(request), !started, `started: ${started}`)
        const untraced = HttpClientRequest.get("http://127.0.0.1:1/v3/vehicles")
        yield* Effect.timeout(client.execute(untraced), "20 millis").pipe(Effect.ignore, Effect.provideService(HttpClient.TracerDisabledWhen, () => true))
        assert.strictEqual(isMarkedNotSent(untraced), !started, `started: ${started}`)
      }
    }))

  it("markNotSent marks the very request given", () => {
    const request = HttpClientRequest.get("http://127.0.0.1:1/a")
    assert.isFalse(isMarkedNotSent(request))
    markNotSent(request)
    assert.isTrue(isMarkedNotSent(request))
    assert.isFalse(isMarkedNotSent(HttpClientRequest.setHeader(request, "x", "y")))
  })
})

describe("a request without a credential of the call's (the same object on every attempt)", () => {
  it.live("an attempt that timed out before writing, then one that wrote and timed out: the call may have been sent", () =>
    Effect.gen(function*() {
      // the first exchange never starts on a socket, the second does (and never ends)
      let n = 0
      const dispatcher = {
        dispatch(_options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
          if (++n > 1) handler.onRequestStart?.({ abort() {}, pause() {}, resume() {}, aborted: false, paused: false, reason: null } as never, {})
          return true
        }
      } as unknown as Dispatcher
      const given: Array<HttpClientRequest.HttpClientRequest> = []
      const client = HttpClient.tapRequest(UndiciHttpClient.make(dispatcher), (request) => Effect.sync(() => given.push(request)))
      const layer = Transport.layer.pipe(Layer.provide([
        TransportConfig.layerOrigin("http://127.0.0.1:1", { timeout: "200 millis", retry: { maxAttempts: 2, initialDelay: "1 millis", maxDelay: "5 millis" } }),
        Layer.succeed(HttpClient.HttpClient, client)
      ]))
      const publicGet = Effect.flatMap(Transport.publicClient(VehicleApi, "signals"), (signals) =>
        signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } }))
      const error = yield* flipReason(publicGet.pipe(Effect.provide(layer)))
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual(given.length, 2)
      assert.strictEqual(given[0], given[1], "the same request object on both attempts")
      assert.isUndefined((error as Timeout).sent)
    }))
})

describe("a request sent again within one attempt (a transformClient's own retry)", () => {
  it.live("written once, then its retry never started: the Timeout may have been sent, the POST not sent again", () =>
    Effect.gen(function*() {
      // the first exchange is written, then its connection fails; the second never starts on a socket
      let n = 0
      const dispatcher = {
        dispatch(_options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
          if (++n === 1) {
            const controller = { abort() {}, pause() {}, resume() {}, aborted: false, paused: false, reason: null } as never
            handler.onRequestStart?.(controller, {})
            setTimeout(() => handler.onResponseError?.(controller, Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", syscall: "read" })), 5)
          }
          return true
        }
      } as unknown as Dispatcher
      const layer = Layer.mergeAll(Transport.layerWith({ transformClient: HttpClient.retryTransient({ times: 1 }) }), Credentials.layerStatic(Redacted.make("t"))).pipe(
        Layer.provide([
          TransportConfig.layerOrigin("http://127.0.0.1:1", { timeout: "300 millis", retry: { maxAttempts: 3, initialDelay: "1 millis", maxDelay: "5 millis" } }),
          Layer.succeed(HttpClient.HttpClient, UndiciHttpClient.make(dispatcher))
        ])
      )
      const error = yield* flipReason(batch.pipe(Effect.provide(layer)))
      assert.strictEqual(error._tag, "Timeout")
      assert.isUndefined((error as Timeout).sent)
      // the transformClient's retry, and no attempt of the transport's after it
      assert.strictEqual(n, 2)
    }))
})

describe("a wait for admit that outlasts the call's budget", () => {
  it.live("is a Timeout with sent: false: nothing was sent", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => response.end("{}"))
      const layer = Layer.mergeAll(Transport.layerWith({ admit: () => Effect.never }), Credentials.layerStatic(Redacted.make("t"))).pipe(Layer.provide([
        TransportConfig.layerOrigin(service.origin, { retry: { maxAttempts: 1, maxElapsed: "200 millis" } }),
        UndiciHttpClient.layer()
      ]))
      const error = yield* flipReason(getSignal.pipe(Effect.provide(layer)))
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual((error as Timeout).sent, false)
      assert.strictEqual(service.requests.length, 0)
    }).pipe(Effect.scoped))
})

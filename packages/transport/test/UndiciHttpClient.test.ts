import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Redacted, Tracer } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { Agent } from "undici"
import { HttpClient } from "effect/http"
import { VehicleApi } from "@connected-vehicle/schema/Api"
import type { ServiceReason } from "@connected-vehicle/schema/ServiceReason"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import type { InvalidResponse } from "@connected-vehicle/transport/ConnectedVehicleError"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { server } from "./utils.ts"

const MiB = 1024 * 1024

/** Answers `size` bytes of JSON string, chunked (no content-length) unless `declared`, with `status`. */
const big = (size: number, declared: boolean, status = 200) =>
  server((_, response) => {
    response.writeHead(status, { "content-type": "application/json", ...(declared ? { "content-length": String(size) } : {}) })
    const chunk = "x".repeat(64 * 1024)
    let sent = 0
    const write = () => {
      while (sent < size) {
        sent += chunk.length
        if (!response.write(chunk)) return response.once("drain", write)
      }
      response.end()
    }
    write()
  })

/** A signal read through the transport on `client`, its failure's reason. */
const signalError = (origin: string, client: Layer.Layer<HttpClient.HttpClient>, options?: Omit<TransportConfig.Options, "roots">) =>
  Effect.map(
    Effect.flip(
      Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
        signals.get({ params: { vehicleId: "v", signalCode: "c" }, headers: { "sc-user-id": "u" } })).pipe(
          Effect.provide(Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("t"))).pipe(
            Layer.provide([TransportConfig.layerOrigin(origin, options), client])
          ))
        )
    ),
    reasonOf
  )

const read = (url: string) =>
  Effect.flatMap(HttpClient.HttpClient, (client) => Effect.flatMap(client.get(url), (response) => response.text))

describe("UndiciHttpClient", () => {
  it.effect("layer() without options is one layer: layers built together share one client (one dispatcher)", () =>
    Effect.gen(function*() {
      assert.strictEqual(UndiciHttpClient.layer(), UndiciHttpClient.layer())
      assert.notStrictEqual(UndiciHttpClient.layer({ connections: 2 }), UndiciHttpClient.layer({ connections: 2 }))
      // two users of the default client, as two convenience layers side by side
      const A = Context.Service<HttpClient.HttpClient>("test/A")
      const B = Context.Service<HttpClient.HttpClient>("test/B")
      const users = Layer.mergeAll(
        Layer.effect(A, Effect.service(HttpClient.HttpClient)).pipe(Layer.provide(UndiciHttpClient.layer())),
        Layer.effect(B, Effect.service(HttpClient.HttpClient)).pipe(Layer.provide(UndiciHttpClient.layer()))
      )
      const context = yield* Layer.build(users)
      assert.strictEqual(Context.get(context, A), Context.get(context, B))
    }).pipe(Effect.scoped))

  for (const declared of [false, true]) {
    it.live(`a body over maxResponseBytes fails as it arrives, naming the limit (${declared ? "declared length" : "chunked"})`, () =>
      Effect.gen(function*() {
        const s = yield* big(200 * MiB, declared)
        const before = process.memoryUsage().rss
        const exit = yield* Effect.exit(read(`${s.origin}/big`).pipe(Effect.provide(UndiciHttpClient.layer({ maxResponseBytes: MiB }))))
        assert.isTrue(Exit.isFailure(exit))
        assert.include(String(exit), `limit of ${MiB} bytes`)
        // nowhere near the 200 MB of the body
        assert.isBelow(process.memoryUsage().rss - before, 64 * MiB)
      }).pipe(Effect.scoped))
  }

  it.live("MaxResponseBytes overrides the limit for one effect; under the limit a body is read whole", () =>
    Effect.gen(function*() {
      const s = yield* big(2 * MiB, false)
      const layer = UndiciHttpClient.layer({ maxResponseBytes: MiB })
      const text = yield* read(`${s.origin}/big`).pipe(Effect.provideService(UndiciHttpClient.MaxResponseBytes, 4 * MiB), Effect.provide(layer))
      // no limit at all
      const unlimited = yield* read(`${s.origin}/big`).pipe(Effect.provideService(UndiciHttpClient.MaxResponseBytes, Number.POSITIVE_INFINITY), Effect.provide(layer))
      assert.strictEqual(unlimited.length, text.length)
      assert.isAtLeast(text.length, 2 * MiB)
      const exit = yield* Effect.exit(read(`${s.origin}/big`).pipe(Effect.provide(layer)))
      assert.isTrue(Exit.isFailure(exit))
    }).pipe(Effect.scoped))

  it.live("at most `connections` sockets per origin, whatever the concurrency", () =>
    Effect.gen(function*() {
      const s = yield* server((_, response) => setTimeout(() => response.end("{}"), 10))
      const results = yield* Effect.all(
        Array.from({ length: 300 }, () => read(`${s.origin}/slow`)),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(UndiciHttpClient.layer({ connections: 8 })))
      assert.strictEqual(results.length, 300)
      assert.isAtMost(s.peak(), 8)
      assert.strictEqual(s.requests.length, 300)
    }).pipe(Effect.scoped))

  for (const declared of [false, true]) {
    it.live(`through the transport: a body over the limit (${declared ? "declared length" : "chunked"}) is an InvalidResponse naming it, not retried`, () =>
      Effect.gen(function*() {
        const s = yield* big(8 * MiB, declared)
        const transport = Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("t"))).pipe(
          Layer.provide([TransportConfig.layerOrigin(s.origin), UndiciHttpClient.layer({ maxResponseBytes: MiB })])
        )
        const error = reasonOf(yield* Effect.flip(
          Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
            signals.get({ params: { vehicleId: "v", signalCode: "c" }, headers: { "sc-user-id": "u" } })).pipe(Effect.provide(transport))
        ))
        assert.strictEqual(error._tag, "InvalidResponse")
        assert.include((error as InvalidResponse).description, `limit of ${MiB} bytes`)
        assert.strictEqual(s.requests.length, 1)
      }).pipe(Effect.scoped))
  }
  for (const status of [404, 503]) {
    it.live(`through the transport: a ${status} whose body is over the limit is the reason of its status, retried as its status says`, () =>
      Effect.gen(function*() {
        const s = yield* big(2 * MiB, true, status)
        const transport = Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("t"))).pipe(
          Layer.provide([
            TransportConfig.layerOrigin(s.origin, { retry: { maxAttempts: 2, initialDelay: "1 millis" } }),
            UndiciHttpClient.layer({ maxResponseBytes: MiB })
          ])
        )
        const error = reasonOf(yield* Effect.flip(
          Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
            signals.get({ params: { vehicleId: "v", signalCode: "c" }, headers: { "sc-user-id": "u" } })).pipe(Effect.provide(transport))
        ))
        assert.strictEqual(error._tag, status === 404 ? "NotFound" : "Server")
        assert.strictEqual((error as ServiceReason).status, status)
        assert.include((error as ServiceReason).detail, `limit of ${MiB} bytes`)
        assert.strictEqual(s.requests.length, status === 404 ? 1 : 2)
      }).pipe(Effect.scoped))
  }

  it.live("with tracing off or on, the same request is sent and the same response read; only tracing on makes Effect's client span", () =>
    Effect.gen(function*() {
      const s = yield* server((request, response) => {
        response.writeHead(200, { "content-type": "application/json", "x-seen": request.url ?? "" })
        response.end(JSON.stringify({ url: request.url, traceparent: request.headers["traceparent"] ?? null }))
      })
      const spans: Array<Tracer.NativeSpan> = []
      const tracer = Tracer.make({
        span(options) {
          const span = new Tracer.NativeSpan(options)
          spans.push(span)
          return span
        }
      })
      const client = UndiciHttpClient.make(yield* Effect.acquireRelease(Effect.sync(() => new Agent({ connections: 2 })), (agent) => Effect.promise(() => agent.destroy())))
      const send = (url: string) =>
        Effect.flatMap(client.get(url, { urlParams: { page: 2, "filter[x]": "a b" } }), (response) =>
          Effect.map(response.json, (body) => ({ status: response.status, seen: response.headers["x-seen"], body })))
      const off = yield* send(`${s.origin}/items?fixed=1#frag`).pipe(
        Effect.provideService(HttpClient.TracerDisabledWhen, () => true),
        Effect.provideService(Tracer.Tracer, tracer)
      )
      assert.strictEqual(spans.length, 0)
      const on = yield* send(`${s.origin}/items?fixed=1#frag`).pipe(Effect.provideService(Tracer.Tracer, tracer))
      assert.deepStrictEqual(spans.map((span) => span.kind), ["client"])
      assert.strictEqual(spans[0]!.attributes.get("http.response.status_code"), 200)
      const path = "/items?fixed=1&page=2&filter%5Bx%5D=a+b"
      assert.deepStrictEqual(off, { status: 200, seen: path, body: { url: path, traceparent: null } })
      assert.deepStrictEqual(on, { status: 200, seen: path, body: { url: path, traceparent: `00-${spans[0]!.traceId}-${spans[0]!.spanId}-01` } })
      // a URL that does not parse is the same InvalidUrlError either way, nothing sent
      for (const tracing of [false, true]) {
        const error = yield* Effect.flip(client.get("http://[not-a-host/x").pipe(Effect.provideService(HttpClient.TracerDisabledWhen, () => !tracing)))
        assert.strictEqual(error.reason._tag, "InvalidUrlError")
      }
      assert.strictEqual(s.requests.length, 2)
    }).pipe(Effect.scoped))

  it.live("an interrupted request is aborted with tracing off (no AbortController): the server sees its connection closed", () =>
    Effect.gen(function*() {
      let closed = 0
      const s = yield* server((request) => request.socket.once("close", () => closed++))
      const client = UndiciHttpClient.make(yield* Effect.acquireRelease(Effect.sync(() => new Agent({ connections: 2 })), (agent) => Effect.promise(() => agent.destroy())))
      const exit = yield* Effect.exit(
        Effect.timeout(client.get(`${s.origin}/stall`).pipe(Effect.provideService(HttpClient.TracerDisabledWhen, () => true)), 100)
      )
      assert.isTrue(Exit.isFailure(exit))
      yield* Effect.sleep(100)
      assert.strictEqual(closed, 1)
    }).pipe(Effect.scoped))

  it.live("readers of one body: together they all get it; one interrupted leaves the others theirs; a response handed on in a failure is still read", () =>
    Effect.gen(function*() {
      const s = yield* server((_, response) => {
        response.writeHead(500, { "content-type": "application/json" })
        response.write("{\"a\":")
        setTimeout(() => response.end("1}"), 80)
      })
      const agent = yield* Effect.acquireRelease(Effect.sync(() => new Agent({ connections: 2 })), (agent) => Effect.promise(() => agent.destroy()))
      const client = UndiciHttpClient.make(agent)
      for (const tracing of [false, true]) {
        const traced = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, HttpClient.TracerDisabledWhen, () => !tracing)
        // two readers at once
        const response = yield* traced(client.get(`${s.origin}/a`))
        const both = yield* Effect.all([response.json, response.text], { concurrency: "unbounded" })
        assert.deepStrictEqual(both, [{ a: 1 }, "{\"a\":1}"])
        // one of two readers interrupted: the other still reads the body
        const second = yield* traced(client.get(`${s.origin}/b`))
        const kept = yield* Effect.forkChild(second.json)
        yield* Effect.timeout(second.text, 10).pipe(Effect.exit)
        assert.deepStrictEqual(yield* Fiber.join(kept), { a: 1 })
        // a child fiber that fails with the response (filterStatusOk's ResponseError): the parent reads its body
        const failed = yield* Effect.forkChild(traced(HttpClient.filterStatusOk(client).get(`${s.origin}/c`)))
        const error = yield* Effect.flip(Fiber.join(failed))
        assert.strictEqual(error.reason._tag, "StatusCodeError")
        assert.deepStrictEqual(yield* (error.reason as { readonly response: { readonly json: Effect.Effect<unknown, unknown> } }).response.json, { a: 1 })
      }
    }).pipe(Effect.scoped))

  it.live("a body that is not UTF-8 (Latin-1 'Teslä'): a 200 is an InvalidResponse saying so, not retried; a 500 still a Server, retried", () =>
    Effect.gen(function*() {
      for (const status of [200, 500]) {
        const s = yield* server((_, response) => {
          response.writeHead(status, { "content-type": "application/json" })
          response.end(Buffer.from(JSON.stringify({ errors: [], make: "Teslä" }), "latin1"))
        })
        const error = yield* signalError(s.origin, UndiciHttpClient.layer({ connections: 2 }), { retry: { maxAttempts: 2, initialDelay: "1 millis" } })
        if (status === 200) {
          assert.strictEqual(error._tag, "InvalidResponse")
          assert.include((error as InvalidResponse).description, "not UTF-8")
          assert.strictEqual(s.requests.length, 1)
        } else {
          assert.strictEqual(error._tag, "Server")
          assert.strictEqual((error as ServiceReason).status, 500)
          assert.include((error as ServiceReason).detail, "not UTF-8")
          assert.notInclude(JSON.stringify(error), "\ufffd")
          assert.notInclude(JSON.stringify(error), "\uFFFD")
          assert.strictEqual(s.requests.length, 2)
        }
      }
      // the client itself: the text fails with a DecodeError, not U+FFFD
      const s = yield* server((_, response) => response.end(Buffer.from("Teslä", "latin1")))
      const failure = yield* Effect.flip(read(`${s.origin}/latin1`).pipe(Effect.provide(UndiciHttpClient.layer({ connections: 2 }))))
      assert.strictEqual(failure.reason._tag, "DecodeError")
    }).pipe(Effect.scoped))

  it("maxResponseBytes (or Infinity) and connections must be safe integers of at least 1: make and layer throw an InvalidArgument naming the option", () => {
    const agent = new Agent()
    for (const value of [Number.NaN, -1, 0, 1.5, 2 ** 60, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, "1000" as unknown as number]) {
      for (const [field, build] of [
        ["maxResponseBytes", () => UndiciHttpClient.make(agent, { maxResponseBytes: value })],
        ["maxResponseBytes", () => UndiciHttpClient.layer({ maxResponseBytes: value })],
        ["connections", () => UndiciHttpClient.make(agent, { connections: value })],
        ["connections", () => UndiciHttpClient.layer({ connections: value })]
      ] as const) {
        // no limit: Infinity
        if (field === "maxResponseBytes" && value === Number.POSITIVE_INFINITY) continue
        let thrown: unknown
        try {
          build()
        } catch (e) {
          thrown = e
        }
        assert.instanceOf(thrown, InvalidArgument, `${field} ${String(value)}`)
        assert.strictEqual((thrown as InvalidArgument).field, field)
        assert.include((thrown as InvalidArgument).message, `${field}: Expected a safe integer from 1 to 9007199254740991`)
      }
    }
    UndiciHttpClient.make(agent, { maxResponseBytes: 1, connections: 1 })
    UndiciHttpClient.make(agent, { maxResponseBytes: Number.MAX_SAFE_INTEGER, connections: Number.MAX_SAFE_INTEGER })
    UndiciHttpClient.layer({ maxResponseBytes: 1, connections: 1 })
    UndiciHttpClient.make(agent, { maxResponseBytes: Number.POSITIVE_INFINITY })
    UndiciHttpClient.layer({ maxResponseBytes: Number.POSITIVE_INFINITY })
    void agent.close()
  })

  it("the message shows the value given by its type: a string quoted, a number as it is, another value by its kind", () => {
    const messageOf = (options: object): string => {
      try {
        UndiciHttpClient.layer(options as UndiciHttpClient.Options)
      } catch (e) {
        assert.instanceOf(e, InvalidArgument)
        return (e as InvalidArgument).message
      }
      throw new Error("accepted")
    }
    assert.match(messageOf({ maxResponseBytes: "10" }), /, got "10"$/)
    assert.match(messageOf({ connections: "64" }), /, got "64"$/)
    assert.match(messageOf({ maxResponseBytes: 10.5 }), /, got 10\.5$/)
    assert.match(messageOf({ maxResponseBytes: 2 ** 60 }), /safe integer .*, got 1152921504606847000$/)
    assert.match(messageOf({ connections: 10n }), /, got 10n \(a bigint\)$/)
    assert.match(messageOf({ connections: [8] }), /, got an array$/)
    assert.match(messageOf({ connections: null }), /, got null$/)
    assert.match(messageOf({ connections: "x".repeat(100) }), /, got "x{40}\.\.\."$/)
  })

  it("options from JavaScript: a value that is not an object is an InvalidArgument naming options; an option is described, never converted", () => {
    const agent = new Agent()
    const thrownBy = (build: () => unknown): InvalidArgument => {
      try {
        build()
      } catch (e) {
        assert.instanceOf(e, InvalidArgument)
        return e as InvalidArgument
      }
      throw new Error("accepted")
    }
    for (const [given, shown] of [[null, "null"], [5, "5"], ["x", "\"x\""], [[], "an array"], [true, "true"], [() => 1, "a function"]] as const) {
      for (const build of [() => UndiciHttpClient.layer(given as never), () => UndiciHttpClient.make(agent, given as never)]) {
        const error = thrownBy(build)
        assert.strictEqual(error.field, "options", String(given))
        assert.match(error.message, new RegExp(`^options: Expected an object .*, got ${shown.replace(/[()[\]]/g, "\\$&")}$`))
      }
    }
    const hostile = [Object.create(null), { toString: () => { throw new Error("boom") } }, { [Symbol.toPrimitive]: () => { throw new Error("boom") } }]
    for (const value of hostile) {
      for (const [field, build] of [
        ["maxResponseBytes", () => UndiciHttpClient.layer({ maxResponseBytes: value })],
        ["connections", () => UndiciHttpClient.make(agent, { connections: value })]
      ] as const) {
        const error = thrownBy(build)
        assert.strictEqual(error.field, field)
        assert.match(error.message, /, got an object$/)
      }
    }
    // undefined is no options; an object of options, a class instance too
    UndiciHttpClient.layer(undefined)
    UndiciHttpClient.make(agent, undefined)
    UndiciHttpClient.make(agent, new (class { readonly connections = 2 })())
    void agent.close()
  })

  it.live("an invalid MaxResponseBytes fails the request before it is sent, naming MaxResponseBytes", () =>
    Effect.gen(function*() {
      const s = yield* server((_, response) => response.end("{}"))
      for (const value of [Number.NaN, -1, 0]) {
        const error = yield* Effect.flip(
          read(`${s.origin}/x`).pipe(Effect.provideService(UndiciHttpClient.MaxResponseBytes, value), Effect.provide(UndiciHttpClient.layer({ connections: 2 })))
        )
        assert.strictEqual(error.reason._tag, "EncodeError")
        assert.instanceOf(error.reason.cause, InvalidArgument)
        assert.include(error.message, "MaxResponseBytes: Expected a safe integer from 1 to 9007199254740991")
      }
      assert.strictEqual(s.requests.length, 0)
    }).pipe(Effect.scoped))
})

import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { Compatibility } from "@connected-vehicle/v3/Compatibility"
import { Connections } from "@connected-vehicle/v3/Connections"
import * as Migration from "@connected-vehicle/v3/Migration"
import { Signals } from "@connected-vehicle/v3/Signals"
import { Subscriptions } from "@connected-vehicle/v3/Subscriptions"
import { Webhooks } from "@connected-vehicle/v3/Webhooks"
import { flipReason, layerLoopback, requestsTo } from "./utils.ts"

const target = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const vehicleId = sim.data.vehicleIds[0]!
  return { sim, vehicleId, userId: sim.data.connectionOf(vehicleId)!.userId }
})

const invalid = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(flipReason(effect), (error) => {
    assert.strictEqual(error._tag, "InvalidArgument")
    return error as unknown as { readonly field: string; readonly message: string }
  })

describe("arguments", () => {
  it.live("empty ids and ids with control characters are rejected before any request", () =>
    Effect.gen(function*() {
      const { userId, vehicleId } = yield* target
      const signals = yield* Signals
      const cases: ReadonlyArray<readonly [Effect.Effect<unknown, { readonly _tag: string }>, string]> = [
        [signals.list({ vehicleId, userId: "" }), "userId"],
        [signals.list({ vehicleId: "", userId }), "vehicleId"],
        [signals.get({ vehicleId, userId, code: "" }), "code"],
        [signals.get({ vehicleId, userId: "usr\r\nx-injected: 1", code: "odometer" }), "userId"],
        [Stream.runDrain(signals.stream({ vehicleId, userId: "\u0000" })), "userId"],
        [(yield* Connections).get(""), "connectionId"],
        [(yield* Webhooks).get("wh\n1"), "webhookId"],
        [(yield* Subscriptions).get(""), "subscriptionId"]
      ]
      for (const [effect, field] of cases) {
        const error = yield* invalid(effect)
        assert.strictEqual(error.field, field)
      }
      assert.deepStrictEqual(yield* requestsTo(/^\/v3\//), [])
    }).pipe(Effect.provide(layerLoopback())))

  it.live("null, non-object and unknown arguments are typed errors, not exceptions", () =>
    Effect.gen(function*() {
      const connections = yield* Connections
      const signals = yield* Signals
      const compatibility = yield* Compatibility
      const unsafe = <F extends (...args: Array<any>) => any>(f: F) => f as (...args: Array<unknown>) => ReturnType<F>
      assert.strictEqual((yield* invalid(unsafe(connections.list)(null))).field, "arguments")
      assert.strictEqual((yield* invalid(Stream.runDrain(unsafe(connections.stream)(42)))).field, "arguments")
      assert.strictEqual((yield* invalid(unsafe(signals.list)(null))).field, "arguments")
      assert.strictEqual((yield* invalid(unsafe(compatibility.list)(null))).field, "arguments")
      const unknown = yield* invalid(unsafe(connections.list)({ userid: "usr_1" }))
      assert.strictEqual(unknown.field, "userid")
      const nan = yield* invalid(connections.list({ page: Number.NaN }))
      assert.strictEqual(nan.message, "page: Expected an integer, got NaN")
      assert.deepStrictEqual(yield* requestsTo(/^\/v3\//), [])
    }).pipe(Effect.provide(layerLoopback())))

  it.live("pages keep meta, links and included.vehicle, one request per page", () =>
    Effect.gen(function*() {
      const { sim, userId, vehicleId } = yield* target
      const codes = sim.data.vehicle(vehicleId)!.signalCodes
      const pages = yield* Stream.runCollect((yield* Signals).pages({ vehicleId, userId, pageSize: 3 }))
      assert.strictEqual(pages.length, Math.ceil(codes.length / 3))
      assert.deepStrictEqual(pages.map((p) => p.meta.pageNumber), pages.map((_, i) => i + 1))
      assert.isTrue(pages.every((p) => p.included.vehicle.id === vehicleId))
      assert.deepStrictEqual(pages.flatMap((p) => p.data.map((s) => s.attributes.code)), [...codes])
      assert.strictEqual((yield* requestsTo(/\/signals$/)).length, pages.length)

      yield* sim.resetLog
      const connections = yield* Stream.runCollect((yield* Connections).pages({ pageSize: 100, page: 2 }))
      assert.strictEqual(connections[0]!.meta.pageNumber, 2)
      assert.strictEqual(
        connections.reduce((n, p) => n + p.data.length, 0),
        Math.max(0, sim.data.connectionCount - 100)
      )
    }).pipe(Effect.provide(layerLoopback({ simulator: { connections: 250 } }))))

  it.live("transformClient applies to every service's requests", () =>
    Effect.gen(function*() {
      const { userId, vehicleId } = yield* target
      yield* (yield* Signals).list({ vehicleId, userId, pageSize: 1 })
      yield* (yield* Compatibility).list({ region: "US" })
      const requests = yield* requestsTo(/^\/v3\//)
      assert.strictEqual(requests.length, 2)
      assert.isTrue(requests.every((r) => r.headers["x-team"] === "fleet"))
    }).pipe(Effect.provide(layerLoopback({
      transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-team", "fleet"))
    }))))
  it.live("arguments and call options that cannot be read, null or of the wrong type are InvalidArgument, not defects", () =>
    Effect.gen(function*() {
      const { userId, vehicleId } = yield* target
      const connections = yield* Connections
      const signals = yield* Signals
      const unsafe = <F extends (...args: Array<any>) => any>(f: F) => f as (...args: Array<unknown>) => ReturnType<F>
      const throwing = (key: string) => Object.defineProperty({}, key, { enumerable: true, get: () => { throw new Error("boom") } })
      const proxy = new Proxy({}, { get: () => { throw new Error("boom") }, ownKeys: () => { throw new Error("boom") } })
      const cases: ReadonlyArray<readonly [Effect.Effect<unknown, { readonly _tag: string }, Signals | Connections>, string]> = [
        [unsafe(connections.list)(throwing("userId")), "arguments"],
        [unsafe(connections.list)(proxy), "arguments"],
        [unsafe(signals.get)(throwing("vehicleId")), "arguments"],
        [Stream.runDrain(unsafe(connections.stream)({}, proxy)), "options"],
        [unsafe(connections.list)({}, null), "options"],
        [unsafe(connections.get)("c1", throwing("timeout")), "options"],
        [unsafe(connections.list)({}, { retry: null }), "retry"],
        [unsafe(connections.list)({}, { rateLimit: null }), "rateLimit"],
        [unsafe(connections.list)({}, { rateLimit: { wait: "yes" } }), "rateLimit.wait"],
        [unsafe(connections.list)({}, { retry: { maxDelay: Number.NaN } }), "retry.maxDelay"],
        [unsafe(connections.list)({}, { onResponse: 1 }), "onResponse"],
        [unsafe(Migration.odometer)(throwing("vehicleId")), "arguments"],
        [unsafe(Migration.vin)({ vehicleId, userId }, proxy), "options"],
        [unsafe(Migration.read)(proxy, { vehicleId, userId }), "path"]
      ]
      for (const [effect, field] of cases) {
        const error = yield* invalid(effect)
        assert.strictEqual(error.field, field, error.message)
      }
      assert.deepStrictEqual(yield* requestsTo(/^\/v3\//), [])
      // an onResponse that returns no Effect is ignored, as one that throws
      const page = yield* unsafe(connections.list)({ pageSize: 1 }, { onResponse: () => undefined })
      assert.strictEqual(page.data.length, 1)
    }).pipe(Effect.provide(layerLoopback())))
})


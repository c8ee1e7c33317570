/**
 * The control routes (`/_simulator/...`) take a request body as the
 * service's routes do, over real loopback connections: at most 1 MiB (413,
 * declared or as it arrives, nothing past it read), JSON where a route reads
 * JSON (415 for another content type; no `Content-Type` is JSON, as on the
 * service's JSON routes); a 400 quotes a value of the body cut short; a fault
 * with an empty segment, and an empty `faults`, are a 400 saying so.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { call, isEnvelope } from "./helpers.ts"
import type { Reply } from "./helpers.ts"
import type { RawResponse } from "./raw.ts"
import { chunked, openRaw, rawRequest } from "./raw.ts"

const Loopback = Layer.mergeAll(simulatorLayer({ port: 0, seed: 23 }), FetchHttpClient.layer)

const detailOf = (reply: Reply, status: number): string => {
  assert.strictEqual(reply.status, status, reply.text)
  assert.isTrue(isEnvelope(reply.json), reply.text)
  return reply.json.errors[0].detail as string
}

const assertEnvelope = (response: RawResponse, status: number) => {
  assert.strictEqual(response.status, status, response.body.slice(0, 300))
  assert.isTrue(isEnvelope(JSON.parse(response.body)), response.body.slice(0, 300))
}

/** Nothing was queued: the next service request is answered as usual (401 without a token), not with an injected fault. */
const nothingQueued = Effect.gen(function*() {
  assert.strictEqual((yield* call("GET", "/v3/vehicles")).status, 401)
})

const origin = Effect.map(Simulator, (sim) => sim.url)

/** The answer to `request` sent on a raw connection of its own, once the server closed that connection. */
const answerClosing = (url: string, request: ReturnType<typeof rawRequest>) =>
  Effect.promise(async () => {
    const connection = await openRaw(url)
    connection.send(request)
    const response = await connection.next(10_000)
    await connection.closed
    return response
  })

describe("control route bodies: size", () => {
  it.live("a Content-Length over 1 MiB: 413 with connection: close before the body is sent", () =>
    Effect.gen(function*() {
      const url = yield* origin
      for (const [method, path] of [["POST", "/_simulator/faults"], ["PUT", "/_simulator/rate-limits"], ["POST", "/_simulator/reset"]]) {
        const response = yield* answerClosing(url, rawRequest(method!, path!, { "content-type": "application/json", "content-length": String(50 * 1024 * 1024) }))
        assertEnvelope(response, 413)
        assert.strictEqual(response.headers["connection"], "close")
      }
      yield* nothingQueued
    }).pipe(Effect.provide(Loopback)))

  it.live("a chunked body growing past 1 MiB: 413 with connection: close, then the connection closes", () =>
    Effect.gen(function*() {
      const url = yield* origin
      for (const path of ["/_simulator/faults", "/_simulator/webhooks"]) {
        const response = yield* answerClosing(url, rawRequest("POST", path, { "content-type": "application/json", "transfer-encoding": "chunked" }, chunked(1536 * 1024)))
        assertEnvelope(response, 413)
        assert.strictEqual(response.headers["connection"], "close")
      }
      yield* nothingQueued
    }).pipe(Effect.provide(Loopback)))

  it.effect("a long fault, method or member name is quoted cut short, never echoed whole", () =>
    Effect.gen(function*() {
      const long = "a".repeat(200_000)
      const fault = detailOf(yield* call("POST", "/_simulator/faults", { json: { faults: ["status=500", long] } }), 400)
      assert.isBelow(fault.length, 400, fault.slice(0, 400))
      assert.include(fault, `faults[1] '${"a".repeat(40)}'...`)
      const status = detailOf(yield* call("POST", "/_simulator/faults", { json: { faults: [`status=5${"0".repeat(100_000)}`] } }), 400)
      assert.isBelow(status.length, 400, status.slice(0, 400))
      const option = detailOf(yield* call("POST", "/_simulator/faults", { json: { faults: [`drop;${long}=1`] } }), 400)
      assert.isBelow(option.length, 400, option.slice(0, 400))
      const method = detailOf(yield* call("POST", "/_simulator/faults", { json: { faults: ["drop"], method: `G ${long}` } }), 400)
      assert.isBelow(method.length, 400, method.slice(0, 400))
      const member = detailOf(yield* call("POST", "/_simulator/faults", { json: { faults: ["drop"], [long]: 1 } }), 400)
      assert.isBelow(member.length, 600, member.slice(0, 600))
      const limits = detailOf(yield* call("PUT", "/_simulator/rate-limits", { json: { [long]: 1 } }), 400)
      assert.isBelow(limits.length, 600, limits.slice(0, 600))
      const webhook = detailOf(yield* call("POST", "/_simulator/subscriptions", { json: { [long]: 1 } }), 400)
      assert.isBelow(webhook.length, 800, webhook.slice(0, 800))
      yield* nothingQueued
    }).pipe(Effect.provide(Loopback)))
})

describe("control route bodies: content type", () => {
  it.effect("a route that reads JSON answers another content type 415, as the service's JSON routes do", () =>
    Effect.gen(function*() {
      const body = JSON.stringify({ faults: ["status=500"], path: "/v3/vehicles" })
      for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
        const detail = detailOf(yield* call("POST", "/_simulator/faults", { body, contentType }), 415)
        assert.strictEqual(detail, "Unsupported content type; POST /_simulator/faults takes application/json")
      }
      yield* nothingQueued
      const limits = detailOf(yield* call("PUT", "/_simulator/rate-limits", { body: "{}", contentType: "text/plain" }), 415)
      assert.strictEqual(limits, "Unsupported content type; PUT /_simulator/rate-limits takes application/json")
      const hook = yield* call("POST", "/_simulator/webhooks", { body: "{}", contentType: "text/plain" })
      assert.strictEqual(hook.status, 415, hook.text)
      // a route that reads no body does not look at its type
      assert.strictEqual((yield* call("POST", "/_simulator/reset", { body: "", contentType: "text/plain" })).status, 204)
      // JSON with parameters is JSON
      const charset = yield* call("POST", "/_simulator/faults", { body, contentType: "Application/JSON; charset=utf-8" })
      assert.strictEqual(charset.status, 201, charset.text)
      assert.strictEqual((yield* call("GET", "/v3/vehicles")).status, 500)
    }).pipe(Effect.provide(Loopback)))

  it.live("no Content-Type is JSON (the rule of the service's JSON routes)", () =>
    Effect.gen(function*() {
      const url = yield* origin
      const body = JSON.stringify({ faults: ["status=503"], path: "/v3/vehicles" })
      const response = yield* Effect.promise(async () => {
        const connection = await openRaw(url)
        connection.send(rawRequest("POST", "/_simulator/faults", { "content-length": String(body.length) }, body))
        const response = await connection.next(10_000)
        connection.socket.destroy()
        return response
      })
      assert.strictEqual(response.status, 201, response.body)
      assert.strictEqual((yield* call("GET", "/v3/vehicles")).status, 503)
    }).pipe(Effect.provide(Loopback)))
})

describe("control route bodies: fault rules", () => {
  it.effect("a fault with an empty segment is a 400 naming it, in the body and in the header", () =>
    Effect.gen(function*() {
      for (const [fault, segment] of [["status=500;;;", 2], ["drop;", 2], ["status=503;retry-after=2;;times=2", 3]] as const) {
        const detail = detailOf(yield* call("POST", "/_simulator/faults", { json: { faults: [fault] } }), 400)
        assert.include(detail, `segment ${segment} is empty`)
      }
      yield* nothingQueued
      const header = detailOf(yield* call("GET", "/v3/compatible-vehicles", { headers: { "x-simulator-fault": "500;;" } }), 400)
      assert.include(header, "segment 2 is empty")
    }).pipe(Effect.provide(Loopback)))

  it.effect("an empty faults says to give one", () =>
    Effect.gen(function*() {
      const detail = detailOf(yield* call("POST", "/_simulator/faults", { json: { faults: [] } }), 400)
      assert.include(detail, `faults: give at least one fault, e.g. ["status=500"]`)
      assert.notInclude(detail, "Missing key")
      yield* nothingQueued
    }).pipe(Effect.provide(Loopback)))
})

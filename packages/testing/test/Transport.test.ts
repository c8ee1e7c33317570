import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Redacted, Stream } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import { LegacyApi, ManagementApi, VehicleApi } from "@connected-vehicle/schema/Api"
import { makeEnvelope } from "@connected-vehicle/schema/ServiceError"
import type { Authentication, RateLimit, Upstream } from "@connected-vehicle/schema/ServiceReason"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Pagination from "@connected-vehicle/transport/Pagination"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { MockResponse, RecordedRequest } from "@connected-vehicle/testing/RecordingHttpClient"
import { layer as layerRecording, RecordingHttpClient } from "@connected-vehicle/testing/RecordingHttpClient"
import { layerTest } from "@connected-vehicle/testing/TransportTest"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import type { Timeout } from "@connected-vehicle/transport/ConnectedVehicleError"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"

import pkg from "@connected-vehicle/transport/package.json" with { type: "json" }

const token = Redacted.make("access-token-123")

const mock = (
  respond: (request: RecordedRequest, index: number) => MockResponse | Effect.Effect<MockResponse>,
  options?: Parameters<typeof layerTest>[1]
) => Layer.mergeAll(layerTest(respond, { retry: { initialDelay: 10 }, ...options }), Credentials.layerStatic(token))

const envelope = (status: number, type: Parameters<typeof makeEnvelope>[0]) => ({
  status,
  headers: { "x-request-id": `req-${status}` },
  json: makeEnvelope(type, `detail ${status}`, { status })
})

const odometer = { status: 200, headers: { "x-request-id": "req-ok" }, json: { distance: 1234.5 } }

const requests = Effect.flatMap(Effect.service(RecordingHttpClient), (r) => r.requests)

const recording = layerRecording(() => odometer)

// a credential that renews on every refresh: t0, t1, t2...
let refreshes = 0
const counting = Layer.effect(
  Credentials.Credentials,
  Effect.sync(() => {
    refreshes = 0
    let current = 0
    return {
      token: Effect.sync(() => Redacted.make(`t${current}`)),
      refresh: () =>
        Effect.sync(() => {
          refreshes++
          current++
          return true
        })
    }
  })
)



/** The failure of `self`, its reason when it is a `ConnectedVehicleError`. */
const flipReason = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.map(Effect.flip(self), (e) => reasonOf(e))

describe("Transport (recording mock)", () => {
  it.effect("sends accept, user agent, bearer and sc-user-id; encodes path parameters", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const result = yield* legacy.odometer({ params: { id: "...x" } })
      assert.strictEqual(result.value.distance, 1234.5)
      assert.strictEqual(result.requestId, "req-ok")
      assert.strictEqual(result.headers["x-request-id"], "req-ok")
      assert.strictEqual(result.headers["content-type"], "application/json")
      yield* legacy.odometer({ params: { id: "a b?c#d%2F" } })
      const [first, second] = yield* requests
      assert.strictEqual(first!.url, "http://mock.test/v2.0/vehicles/...x/odometer")
      assert.strictEqual(second!.url, "http://mock.test/v2.0/vehicles/a%20b%3Fc%23d%252F/odometer")
      assert.strictEqual(first!.headers["accept"], "application/json")
      assert.isTrue(first!.headers["user-agent"]!.startsWith(`connected-vehicle-sdk/${pkg.version} `))
      assert.strictEqual(first!.headers["authorization"], "<redacted>")
      assert.strictEqual(Redacted.value(first!.authorization!), "Bearer access-token-123")

      const signals = yield* Transport.client(VehicleApi, "signals")
      const error = yield* flipReason(signals.get({ params: { vehicleId: "v", signalCode: "c" }, headers: { "sc-user-id": "user/1" } }))
      assert.strictEqual(error._tag, "UnexpectedStatus")
      const third = (yield* requests)[2]!
      assert.strictEqual(third.headers["sc-user-id"], "user/1")
      assert.strictEqual(third.url, "http://mock.test/v3/vehicles/v/signals/c")
    }).pipe(Effect.provide(mock((r) => r.url.includes("/v3/") ? { status: 302 } : odometer))))

  it.effect("the request id: sc-request-id first, else x-request-id, on results and errors", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const ids = []
      for (const _ of [1, 2, 3]) ids.push((yield* legacy.odometer({ params: { id: "v1" } })).requestId)
      assert.deepStrictEqual(ids, ["sc-1", "x-2", undefined])
      const error = yield* flipReason(legacy.odometer({ params: { id: "v1" } }, { retry: { maxAttempts: 1 } }))
      assert.strictEqual((error as Upstream).requestId, "sc-4")
    }).pipe(Effect.provide(mock((_, i) =>
      i === 0
        ? { ...odometer, headers: { "x-request-id": "x-1", "sc-request-id": "sc-1" } }
        : i === 1
        ? { ...odometer, headers: { "x-request-id": "x-2" } }
        : i === 2
        ? { ...odometer, headers: {} }
        : { status: 502, headers: { "x-request-id": "x-4", "sc-request-id": "sc-4" }, text: "bad gateway" }
    ))))

  it.effect("a configured request-id header is the only one read", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const error = yield* flipReason(legacy.odometer({ params: { id: "v1" } }, { retry: { maxAttempts: 1 } }))
      assert.strictEqual((error as Upstream).requestId, "c-5")
    }).pipe(Effect.provide(mock(
      () => ({ status: 502, headers: { "sc-request-id": "sc-5", "x-correlation-id": "c-5" }, text: "bad gateway" }),
      { requestIdHeader: "X-Correlation-Id" }
    ))))

  it.effect("refuses a path parameter that is not an Identifier with InvalidArgument, sending nothing", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const signals = yield* Transport.client(VehicleApi, "signals")
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["", "Expected a non-empty string"],
        [".", "Expected a string other than \".\" and \"..\""],
        ["..", "Expected a string other than \".\" and \"..\""],
        ["../x", "Expected a string without \"/\""],
        ["a/b", "Expected a string without \"/\""],
        ["v\r\n1", "Expected a string without control characters"],
        ["\u0000", "Expected a string without control characters"]
      ]
      for (const [id, expected] of cases) {
        const error = yield* flipReason(legacy.odometer({ params: { id } }))
        assert.strictEqual(error._tag, "InvalidArgument")
        const { field, message } = error as unknown as { readonly field: string; readonly message: string }
        assert.strictEqual(field, "id")
        assert.strictEqual(message, `id: ${expected}, got ${JSON.stringify(id)}`)
      }
      const second = yield* flipReason(signals.get({ params: { vehicleId: "v", signalCode: ".." }, headers: { "sc-user-id": "u" } }))
      assert.strictEqual(second._tag, "InvalidArgument")
      assert.strictEqual((second as unknown as { readonly field: string }).field, "signalCode")
      assert.strictEqual((yield* requests).length, 0)
    }).pipe(Effect.provide(mock(() => odometer))))

  it.effect("GET requests are built from the contract: query and headers encoded, invalid values refused before sending", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      yield* legacy.odometer({ params: { id: "v1" }, headers: { "sc-unit-system": "imperial" } })
      // an unknown unit system, a non-string id, a missing header: the contract's schema decides
      const invalid = [
        yield* flipReason(legacy.odometer({ params: { id: "v1" }, headers: { "sc-unit-system": "kelvin" as "metric" } })),
        yield* flipReason(legacy.odometer({ params: { id: 7 as unknown as string } })),
        yield* flipReason(legacy.vehicles({ query: { limit: 0 } }))
      ]
      const signals = yield* Transport.client(VehicleApi, "signals")
      invalid.push(
        yield* flipReason(signals.get({ params: { vehicleId: "v", signalCode: "c" }, headers: {} as { "sc-user-id": string } }))
      )
      // the same tag as every argument refused before sending, naming the field
      assert.deepStrictEqual(invalid.map((error) => error._tag), Array(4).fill("InvalidArgument"))
      assert.deepStrictEqual(invalid.map((error) => (error as unknown as { readonly field: string }).field), [
        "sc-unit-system",
        "id",
        "limit",
        "sc-user-id"
      ])
      // (the mock answers an odometer: only the requests matter here)
      yield* Effect.exit(legacy.vehicles({ query: { limit: 5, offset: 10 } }))
      yield* Effect.exit(legacy.vehicles())
      const sent = yield* requests
      assert.deepStrictEqual(sent.map((r) => r.url), [
        "http://mock.test/v2.0/vehicles/v1/odometer",
        "http://mock.test/v2.0/vehicles?limit=5&offset=10",
        "http://mock.test/v2.0/vehicles"
      ])
      assert.strictEqual(sent[0]!.headers["sc-unit-system"], "imperial")
    }).pipe(Effect.provide(mock(() => odometer))))

  it.effect("retries 500 with backoff and succeeds on the third attempt", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const fiber = yield* Effect.forkChild(legacy.odometer({ params: { id: "v1" } }))
      yield* TestClock.adjust("1 minute")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.value.distance, 1234.5)
      assert.strictEqual((yield* requests).length, 3)
    }).pipe(Effect.provide(mock((_, i) => i < 2 ? envelope(500, "SERVER") : odometer))))

  it.effect("gives up after maxAttempts with the typed ServerError", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const fiber = yield* Effect.forkChild(flipReason(legacy.odometer({ params: { id: "v1" } })))
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "Server")
      if (error._tag === "Server") {
        assert.strictEqual(error.status, 500)
        assert.strictEqual(error.requestId, "req-500")
        assert.strictEqual(error.method, "GET")
        assert.strictEqual(error.url, "http://mock.test/v2.0/vehicles/v1/odometer")
      }
      assert.strictEqual((yield* requests).length, 4)
    }).pipe(Effect.provide(mock(() => envelope(500, "SERVER")))))

  for (const [status, type, tag] of [
    [400, "VALIDATION", "Validation"],
    [403, "AUTHENTICATION", "PermissionDenied"],
    [404, "RESOURCE_NOT_FOUND", "NotFound"]
  ] as const) {
    it.effect(`never retries ${status}`, () =>
      Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        const error = yield* flipReason(legacy.odometer({ params: { id: "v1" } }))
        assert.strictEqual(error._tag, tag)
        assert.strictEqual((yield* requests).length, 1)
      }).pipe(Effect.provide(mock(() => envelope(status, type)))))
  }

  it.effect("429 carries Retry-After in seconds or as an HTTP date, and waits only when asked", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const first = yield* flipReason(legacy.odometer({ params: { id: "seconds" } }))
      assert.strictEqual(first._tag, "RateLimit")
      if (first._tag === "RateLimit") assert.strictEqual(Duration.toMillis(first.retryAfter!), 7000)
      const second = yield* flipReason(legacy.odometer({ params: { id: "date" } }))
      assert.strictEqual(second._tag, "RateLimit")
      assert.strictEqual(Duration.toMillis((second as RateLimit).retryAfter!), 120_000)
      assert.strictEqual((yield* requests).length, 2)

      const fiber = yield* Effect.forkChild(
        legacy.odometer({ params: { id: "seconds" } }, { rateLimit: { wait: true, maxWait: 10_000 } })
      )
      yield* TestClock.adjust("7 seconds")
      assert.strictEqual((yield* Fiber.join(fiber)).value.distance, 1234.5)
      assert.strictEqual((yield* requests).length, 4)
    }).pipe(Effect.provide(mock((r, i) =>
      i === 3 ? odometer : {
        ...envelope(429, "RATE_LIMIT"),
        headers: {
          "retry-after": r.url.includes("seconds") ? "7" : new Date(Date.UTC(1970, 0, 1, 0, 2, 0)).toUTCString()
        }
      }
    ))))

  it.effect("malformed JSON on 200 is a ResponseDecodeError with the URL; a non-JSON error is MalformedErrorBody", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const decode = yield* flipReason(legacy.odometer({ params: { id: "json" } }))
      assert.strictEqual(decode._tag, "InvalidResponse")
      if (decode._tag === "InvalidResponse") assert.strictEqual(decode.url, "http://mock.test/v2.0/vehicles/json/odometer")
      const malformed = yield* flipReason(legacy.odometer({ params: { id: "html" } }))
      assert.strictEqual(malformed._tag, "MalformedBody")
      if (malformed._tag === "MalformedBody") assert.strictEqual(malformed.status, 418)
    }).pipe(Effect.provide(mock((r) =>
      r.url.includes("json") ? { status: 200, text: "{\"distance\":" } : { status: 418, text: "<html>teapot</html>" }
    ))))

  it.effect("interrupting a call in backoff stops it", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const fiber = yield* Effect.forkChild(legacy.odometer({ params: { id: "v1" } }))
      yield* TestClock.adjust("1 millis")
      yield* Fiber.interrupt(fiber)
      yield* TestClock.adjust("1 minute")
      assert.strictEqual((yield* requests).length, 1)
    }).pipe(Effect.provide(mock(() => envelope(500, "SERVER")))))

  it.effect("pages follow links.next and totalCount, one page at a time", () =>
    Effect.gen(function*() {
      const webhooks = yield* Transport.client(ManagementApi, "webhooks")
      const names = yield* Pagination.items((page) => webhooks.list({ query: { page, pageSize: 2 } })).pipe(
        Stream.map((w) => w.attributes.name),
        Stream.runCollect
      )
      assert.deepStrictEqual(names, ["w1", "w2", "w3", "w4", "w5"])
      assert.strictEqual((yield* requests).length, 3)

      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const ids = yield* Pagination.offsetItems((offset, limit) => legacy.vehicles({ query: { offset, limit } }), { limit: 2 })
        .pipe(Stream.runCollect)
      assert.deepStrictEqual(ids, ["v0", "v1", "v2"])
    }).pipe(Effect.provide(mock((r) => {
      const url = new URL(r.url)
      if (url.pathname === "/v2.0/vehicles") {
        const offset = Number(url.searchParams.get("offset"))
        return { status: 200, json: { paging: { count: 3, offset }, vehicles: ["v0", "v1", "v2"].slice(offset, offset + 2) } }
      }
      const page = Number(url.searchParams.get("page"))
      const all = [1, 2, 3, 4, 5].map((n) => webhook(`w${n}`))
      const link = (p: number) => `/v3/webhooks?page=${p}&pageSize=2`
      return {
        status: 200,
        json: {
          data: all.slice((page - 1) * 2, page * 2),
          meta: { pageNumber: page, pageSize: 2, totalCount: 5, orderBy: "createdAt", orderDirection: "DESC" },
          links: { self: link(page), first: link(1), prev: page > 1 ? link(page - 1) : null, next: page < 3 ? link(page + 1) : null, last: link(3) }
        }
      }
    }))))

  it.effect("the status decides: a 500 whose body says UPSTREAM is retried, a 503 too", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const fiber = yield* Effect.forkChild(legacy.odometer({ params: { id: "v1" } }))
      yield* TestClock.adjust("1 minute")
      assert.strictEqual((yield* Fiber.join(fiber)).value.distance, 1234.5)
      assert.strictEqual((yield* requests).length, 3)
    }).pipe(Effect.provide(mock((_, i) => i === 0 ? envelope(500, "UPSTREAM") : i === 1 ? envelope(503, "SERVER") : odometer))))

  it.effect("a 503's Retry-After is waited before the retry (not the shorter backoff), whatever rateLimit.wait says", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const fiber = yield* Effect.forkChild(legacy.odometer({ params: { id: "v1" } }))
      yield* TestClock.adjust("4999 millis")
      assert.strictEqual((yield* requests).length, 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* Fiber.join(fiber)).value.distance, 1234.5)
      assert.strictEqual((yield* requests).length, 2)
    }).pipe(Effect.provide(mock((_, i) => i === 0 ? { ...envelope(503, "SERVER"), headers: { "retry-after": "5" } } : odometer))))

  it.effect("a 503's Retry-After past the call's budget: no retry, the error carries it", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const error = yield* Effect.flip(legacy.odometer({ params: { id: "v1" } }, { retry: { maxElapsed: "10 seconds" } }))
      assert.strictEqual(error._tag, "ConnectedVehicleError")
      if (error._tag === "ConnectedVehicleError") {
        assert.strictEqual(error.reason._tag, "Server")
        assert.strictEqual(Duration.toMillis(error.retryAfter!), 20_000)
      }
      assert.strictEqual((yield* requests).length, 1)
    }).pipe(Effect.provide(mock(() => ({ ...envelope(503, "SERVER"), headers: { "retry-after": "20" } })))))

  it.effect("a 429 is a RateLimitError with its Retry-After whatever the body, never retried with backoff", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      for (const id of ["server-body", "text-body", "oauth-body"]) {
        const fiber = yield* Effect.forkChild(flipReason(legacy.odometer({ params: { id } })))
        yield* TestClock.adjust("1 minute")
        const error = yield* Fiber.join(fiber)
        assert.strictEqual(error._tag, "RateLimit")
        assert.strictEqual((error as RateLimit).status, 429)
        assert.strictEqual(Duration.toMillis((error as RateLimit).retryAfter!), 3000)
      }
      assert.strictEqual((yield* requests).length, 3)
    }).pipe(Effect.provide(mock((r) => {
      const headers = { "retry-after": "3" }
      if (r.url.includes("server-body")) return { ...envelope(429, "SERVER"), headers }
      if (r.url.includes("text-body")) return { status: 429, headers, text: "slow down" }
      return { status: 429, headers, json: { error: "slow_down", error_description: "too fast" } }
    }))))

  it.effect("a 429 whose Retry-After exceeds maxWait fails at once, even when waiting", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const error = yield* flipReason(
        legacy.odometer({ params: { id: "v1" } }, { rateLimit: { wait: true, maxWait: 5_000 } })
      )
      assert.strictEqual(error._tag, "RateLimit")
      assert.strictEqual(Duration.toMillis((error as RateLimit).retryAfter!), 10_000)
      assert.strictEqual((yield* requests).length, 1)
    }).pipe(Effect.provide(mock(() => ({ ...envelope(429, "RATE_LIMIT"), headers: { "retry-after": "10" } })))))

  it.effect("an invalid Retry-After (-1) is ignored: no wait, no retry", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const error = yield* flipReason(legacy.odometer({ params: { id: "v1" } }, { rateLimit: { wait: true } }))
      assert.strictEqual(error._tag, "RateLimit")
      assert.isUndefined((error as RateLimit).retryAfter)
      assert.strictEqual((yield* requests).length, 1)
    }).pipe(Effect.provide(mock(() => ({ ...envelope(429, "RATE_LIMIT"), headers: { "retry-after": "-1" } })))))

  const batch = { status: 200, json: { responses: [{ path: "/odometer", code: 200, body: { distance: 1 }, headers: {} }] } }
  const postBatch = (options?: Transport.CallOptions) =>
    Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) =>
      legacy.batch({ params: { id: "v1" }, headers: { "sc-unit-system": "metric" }, payload: { requests: [{ path: "/odometer" }] } }, options))

  it.effect("a POST answered with 500 is not retried", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(flipReason(postBatch()))
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "Server")
      const seen = yield* requests
      assert.strictEqual(seen.length, 1)
      assert.strictEqual(seen[0]!.method, "POST")
    }).pipe(Effect.provide(mock((_, i) => i === 0 ? envelope(500, "SERVER") : batch))))

  it.effect("a POST answered with 500 is retried with retryNonIdempotent", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(postBatch({ retry: { retryNonIdempotent: true } }))
      yield* TestClock.adjust("1 minute")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.value.responses.length, 1)
      assert.deepStrictEqual((yield* requests).map((r) => r.method), ["POST", "POST"])
    }).pipe(Effect.provide(mock((_, i) => i === 0 ? envelope(500, "SERVER") : batch))))

  it.effect("maxElapsed caps the whole call: an attempt's timeout is cut to what is left", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const fiber = yield* Effect.forkChild(flipReason(legacy.odometer({ params: { id: "v1" } })))
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      // attempts at 0 and 300 ms; the second answers 500 at 900 ms, its timeout cut to the 700 ms left:
      // what ran out is the call's budget, and the reason says so
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual(Duration.toMillis((error as Timeout).timeout), 1_000)
      assert.strictEqual((yield* requests).length, 2)
    }).pipe(Effect.provide(mock(
      (_, n) => n === 0 ? Effect.as(Effect.sleep("300 millis"), envelope(500, "SERVER")) : Effect.as(Effect.sleep("900 millis"), envelope(500, "SERVER")),
      { retry: { maxAttempts: 10, initialDelay: 0, maxElapsed: 1_000 } }
    ))))

  it.effect("no retry is started with less than a quarter of its timeout (or budget) left: the call fails with its error", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const fiber = yield* Effect.forkChild(flipReason(legacy.odometer({ params: { id: "v1" } })))
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      // attempts at 0 and 400 ms answer 500 after 400 ms; at 800 ms 200 ms are left, under 250
      assert.strictEqual(error._tag, "Server")
      assert.strictEqual((yield* requests).length, 2)
    }).pipe(Effect.provide(mock(
      () => Effect.as(Effect.sleep("400 millis"), envelope(500, "SERVER")),
      { retry: { maxAttempts: 10, initialDelay: 0, maxElapsed: 1_000 } }
    ))))

  it.effect("a stalled body times out with the status and request id of the response", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const fiber = yield* Effect.forkChild(flipReason(legacy.odometer({ params: { id: "v1" } })))
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual((error as Timeout).status, 200)
      assert.strictEqual((error as Timeout).requestId, "req-stall")
      assert.strictEqual(Duration.toMillis((error as Timeout).timeout), 1_000)
    }).pipe(Effect.provide(mock(
      () => ({ status: 200, headers: { "x-request-id": "req-stall" }, stallBody: true }),
      { timeout: 1_000, retry: { maxAttempts: 1 } }
    ))))

  it.effect("a 401 refreshes at most once per call, retries included, whatever its body", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const fiber = yield* Effect.forkChild(flipReason(legacy.odometer({ params: { id: "v1" } })))
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      // whatever its body: a 401 without the envelope is Authentication
      assert.strictEqual(error._tag, "Authentication")
      assert.strictEqual((error as Authentication).status, 401)
      assert.strictEqual(refreshes, 1)
      const seen = yield* requests
      assert.deepStrictEqual(seen.map((r) => Redacted.value(r.authorization!)), ["Bearer t0", "Bearer t1", "Bearer t1"])
    }).pipe(
      Effect.provide(layerTest(
        (_, i) => i === 1 ? envelope(500, "SERVER") : { status: 401, text: "<html>unauthorized</html>" },
        { retry: { initialDelay: 10 } }
      )),
      Effect.provide(counting)
    ))

  it.effect("transformClient transforms the transport's HttpClient after its own request mapping", () =>
    Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      yield* legacy.odometer({ params: { id: "v1" } })
      const [seen] = yield* requests
      assert.strictEqual(seen!.headers["x-team"], "fleet")
      assert.strictEqual(seen!.headers["x-url-seen"], "http://mock.test/v2.0/vehicles/v1/odometer")
      assert.strictEqual(seen!.headers["user-agent"]!.startsWith("connected-vehicle-sdk/"), true)
    }).pipe(Effect.provide(Layer.mergeAll(
      Transport.layerWith({
        transformClient: HttpClient.mapRequest((request) =>
          request.pipe(HttpClientRequest.setHeaders({ "x-team": "fleet", "x-url-seen": request.url }))
        )
      }).pipe(Layer.provide([TransportConfig.layerOrigin("http://mock.test"), recording])),
      recording,
      Credentials.layerStatic(token)
    ))))
})

const webhook = (name: string) => ({
  id: name,
  type: "webhook",
  attributes: {
    name,
    triggers: [],
    data: [],
    callbackUri: "https://example.com/cb",
    errorCallbackUri: "https://example.com/err",
    isEnabled: true,
    autoSubscribe: false
  },
  meta: { createdAt: "2025-08-26T00:00:00.000Z" },
  links: { self: `/v3/webhooks/${name}` }
})

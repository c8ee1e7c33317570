import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer, Redacted, References, Stream, Tracer } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { NodeHttpClient } from "@effect/platform-node"
import type { Authentication, RateLimit } from "@connected-vehicle/schema/ServiceReason"
import { ConnectedVehicleError, Credentials as NoCredential, reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { Timeout } from "@connected-vehicle/transport/ConnectedVehicleError"
import { AuthorizationApi, CompatibilityApi, ManagementApi, VehicleApi } from "@connected-vehicle/schema/Api"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as RecordingTracer from "@connected-vehicle/testing/RecordingTracer"
import * as Pagination from "@connected-vehicle/transport/Pagination"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { appToken, COMPAT, compat, fast, flipReason, inject, logged, loopback as loopbackOn } from "./utils.ts"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"

// every scenario on undici through Effect's NodeHttpClient, and on the
// default client (`UndiciHttpClient.layer()`: the SDK's UndiciHttpClient on Node)
const clients = [["NodeHttpClient.layerUndici", NodeHttpClient.layerUndici], ["UndiciHttpClient.layer()", UndiciHttpClient.layer()]] as const

for (const [clientName, httpClient] of clients) {
  const loopback = (options?: Parameters<typeof loopbackOn>[0]) => loopbackOn(options, httpClient)

  describe(`Transport over loopback against the simulator (${clientName})`, () => {
    it.live("500, 500, 200 succeeds with exactly 3 attempts", () =>
      Effect.gen(function*() {
        yield* inject(COMPAT, [{ _tag: "Status", status: 500 }, { _tag: "Status", status: 500 }])
        const result = yield* compat
        assert.isTrue(result.value.data.length > 0)
        assert.strictEqual(result.status, 200)
        const entries = yield* logged(COMPAT)
        assert.deepStrictEqual(entries.map((e) => e.status), [500, 500, 200])
      }).pipe(Effect.provide(loopback(fast))))

    it.live("500 forever fails after the cap with a typed ServerError", () =>
      Effect.gen(function*() {
        yield* inject(COMPAT, Array.from({ length: 10 }, () => ({ _tag: "Status", status: 500 }) as const))
        const error = yield* flipReason(compat)
        assert.strictEqual(error._tag, "Server")
        if (error._tag === "Server") {
          assert.strictEqual(error.status, 500)
          assert.strictEqual(error.method, "GET")
          assert.match(error.url!, /^http:\/\/127\.0\.0\.1:\d+\/v3\/compatible-vehicles$/)
          assert.strictEqual(error.resolution, "RETRY_LATER")
        }
        assert.strictEqual((yield* logged(COMPAT)).length, 3)
      }).pipe(Effect.provide(loopback({ retry: { ...fast.retry, maxAttempts: 3 } }))))

    it.live("one error for a failed call: its reason decides isRetryable, and Effect.catchReason matches it", () =>
      Effect.gen(function*() {
        yield* inject(COMPAT, [{ _tag: "Status", status: 503 }, { _tag: "Status", status: 404 }, { _tag: "Status", status: 404 }])
        const once = Transport.publicClient(CompatibilityApi, "compatibility").pipe(
          Effect.flatMap((client) => client.list(undefined, { maxRetries: 0 }))
        )
        const unavailable = yield* Effect.flip(once)
        assert.strictEqual(unavailable._tag, "ConnectedVehicleError")
        if (unavailable._tag === "ConnectedVehicleError") {
          assert.deepStrictEqual([unavailable.reason._tag, unavailable.status, unavailable.isRetryable], ["Server", 503, true])
          assert.strictEqual(unavailable.message, unavailable.reason.message)
          assert.isString(unavailable.requestId)
        }
        const missing = yield* Effect.flip(once)
        assert.deepStrictEqual([reasonOf(missing)._tag, (missing as ConnectedVehicleError).isRetryable], ["NotFound", false])
        const recovered = yield* once.pipe(
          Effect.catchReason("ConnectedVehicleError", "NotFound", (reason) => Effect.succeed(reason.status))
        )
        assert.strictEqual(recovered, 404)
      }).pipe(Effect.provide(loopback(fast))))

    it.live("400, 401, 403 and 404 are never retried", () =>
      Effect.gen(function*() {
        const statuses = [400, 401, 403, 404] as const
        yield* inject(COMPAT, statuses.map((status) => ({ _tag: "Status", status }) as const))
        const tags: Array<string> = []
        for (const _ of statuses) tags.push((yield* flipReason(compat))._tag)
        assert.deepStrictEqual(tags, ["Validation", "Authentication", "PermissionDenied", "NotFound"])
        assert.deepStrictEqual((yield* logged(COMPAT)).map((e) => e.status), [400, 401, 403, 404])
      }).pipe(Effect.provide(loopback(fast))))

    it.live("429 carries the parsed Retry-After (seconds and HTTP date)", () =>
      Effect.gen(function*() {
        const date = new Date(Date.now() + 120_000).toUTCString()
        yield* inject(COMPAT, [{ _tag: "Status", status: 429, retryAfter: "2" }, { _tag: "Status", status: 429, retryAfter: date }])
        const seconds = yield* flipReason(compat)
        assert.strictEqual(seconds._tag, "RateLimit")
        assert.strictEqual(Duration.toMillis((seconds as RateLimit).retryAfter!), 2000)
        const httpDate = yield* flipReason(compat)
        assert.strictEqual(httpDate._tag, "RateLimit")
        const after = Duration.toMillis((httpDate as RateLimit).retryAfter!)
        assert.isDefined(after)
        assert.isTrue(after! > 100_000 && after! <= 120_000, String(after))
        assert.strictEqual((yield* logged(COMPAT)).length, 2)
      }).pipe(Effect.provide(loopback(fast))))

    it.live("a stalled body ends in RequestTimeout", () =>
      Effect.gen(function*() {
        yield* inject(COMPAT, [{ _tag: "StallBody" }])
        const error = yield* flipReason(compat)
        assert.strictEqual(error._tag, "Timeout")
        assert.match((error as Timeout).url, /\/v3\/compatible-vehicles$/)
        assert.strictEqual((error as Timeout).status, 200)
      }).pipe(Effect.provide(loopback({ timeout: 300, retry: { maxAttempts: 1 } }))))

    it.live("a dropped connection is retried for GET and not for POST", () =>
      Effect.gen(function*() {
        yield* inject(COMPAT, [{ _tag: "Drop" }])
        const result = yield* compat
        assert.isTrue(result.value.data.length > 0)
        assert.strictEqual((yield* logged(COMPAT)).length, 2)

        yield* inject("/oauth/token", [{ _tag: "Drop" }])
        const error = yield* flipReason(appToken)
        assert.strictEqual(error._tag, "Connection")
        assert.strictEqual((yield* logged("/oauth/token")).length, 1)
      }).pipe(Effect.provide(loopback(fast))))

    it.live("malformed JSON gives ResponseDecodeError with the URL", () =>
      Effect.gen(function*() {
        yield* inject(COMPAT, [{ _tag: "MalformedJson" }])
        const error = yield* flipReason(compat)
        assert.strictEqual(error._tag, "InvalidResponse")
        if (error._tag === "InvalidResponse") {
          assert.match(error.url, /^http:\/\/127\.0\.0\.1:\d+\/v3\/compatible-vehicles$/)
          assert.strictEqual(error.method, "GET")
        }
      }).pipe(Effect.provide(loopback(fast))))

    it.live("a body cut after the head: the status's reason with the request id, retried as that status is", () =>
      Effect.gen(function*() {
        // a bare server: the head and half the body, then the socket is destroyed
        const statuses = [503, 429, 401, 200]
        let served = 0
        const server = createServer((_, response) => {
          const status = statuses[Math.min(served++, statuses.length - 1)]!
          response.writeHead(status, { "content-type": "application/json", "content-length": "100", "sc-request-id": `cut-${status}` })
          response.write("{\"data\": [")
          setTimeout(() => response.socket?.destroy(), 20)
        })
        yield* Effect.acquireRelease(
          Effect.callback<void>((resume) => {
            server.listen(0, "127.0.0.1", () => resume(Effect.void))
          }),
          () => Effect.sync(() => server.close())
        )
        const { port } = server.address() as AddressInfo
        yield* Effect.gen(function*() {
          const client = yield* Transport.publicClient(CompatibilityApi, "compatibility")
          // 503 cut: a Server, retried once; the 429 cut then ends the call (a RateLimit, not waited for by default)
          const first = yield* flipReason(client.list())
          assert.strictEqual(first._tag, "RateLimit")
          assert.strictEqual((first as RateLimit).status, 429)
          assert.strictEqual((first as RateLimit).requestId, "cut-429")
          assert.include((first as RateLimit).detail, "could not be read")
          assert.strictEqual(served, 2)
          // 401 cut: not retryable, the status decides at once (the unreadable body noted), retries allowed or not
          const second = yield* flipReason(client.list())
          assert.strictEqual(second._tag, "Authentication")
          assert.strictEqual((second as Authentication).status, 401)
          assert.strictEqual((second as Authentication).requestId, "cut-401")
          assert.include((second as Authentication).detail, "could not be read")
          assert.strictEqual(served, 3)
        }).pipe(
          Effect.provide(
            Transport.layer.pipe(
              Layer.provide([TransportConfig.layerOrigin(`http://127.0.0.1:${port}`, { ...fast, retry: { ...fast.retry, maxAttempts: 2 } }), httpClient])
            )
          )
        )
      }).pipe(Effect.scoped))

    it.live("onResponse sees the head of every response, retried and failed ones too; its failures are ignored", () =>
      Effect.gen(function*() {
        const seen: Array<readonly [number, string | undefined]> = []
        const client = yield* Transport.publicClient(CompatibilityApi, "compatibility", {
          onResponse: (response) =>
            Effect.flatMap(
              Effect.sync(() => seen.push([response.status, response.headers["content-type"]])),
              () => seen.length === 1 ? Effect.die("an observer's defect") : Effect.void
            )
        })
        yield* inject(COMPAT, [{ _tag: "Status", status: 503 }])
        const ok = yield* client.list()
        assert.strictEqual(ok.status, 200)
        yield* inject(COMPAT, [{ _tag: "Status", status: 404 }])
        const error = yield* flipReason(client.list())
        assert.strictEqual(error._tag, "NotFound")
        assert.deepStrictEqual(seen.map(([status]) => status), [503, 200, 404])
        assert.isTrue(seen.every(([, type]) => type !== undefined && type.startsWith("application/json")))
        // a call's own hook that throws is ignored too; each hook runs once per response
        let thrown = 0
        const throwing = {
          onResponse: () => {
            thrown++
            throw new Error("an observer that throws")
          }
        }
        assert.strictEqual((yield* client.list(undefined, throwing)).status, 200)
        yield* inject(COMPAT, [{ _tag: "Status", status: 503 }])
        assert.strictEqual((yield* client.list(undefined, throwing)).status, 200)
        assert.strictEqual(thrown, 3)
        assert.deepStrictEqual(seen.map(([status]) => status), [503, 200, 404, 200, 503, 200])
      }).pipe(Effect.provide(loopback(fast))))

    it.live("interrupting a request in backoff stops it", () =>
      Effect.gen(function*() {
        yield* inject(COMPAT, [{ _tag: "Status", status: 500 }, { _tag: "Status", status: 500 }])
        // backoff of 1 to 2 s: an attempt not interrupted would come back well within the wait below
        const fiber = yield* Effect.forkChild(compat)
        while ((yield* logged(COMPAT)).filter((e) => e.status === 500).length === 0) yield* Effect.sleep("5 millis")
        yield* Effect.sleep("50 millis")
        const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
        assert.isTrue(Exit.hasInterrupts(exit))
        yield* Effect.sleep("2500 millis")
        assert.deepStrictEqual((yield* logged(COMPAT)).map((e) => e.status), [500])
      }).pipe(Effect.provide(loopback({ retry: { initialDelay: 2_000, maxDelay: 2_000 } }))), 10_000)

    it.live("maxElapsed caps the whole call: a stalled body ends at the budget, not at the timeout", () =>
      Effect.gen(function*() {
        yield* inject(COMPAT, [{ _tag: "StallBody" }, { _tag: "StallBody" }])
        const start = Date.now()
        const error = yield* flipReason(compat)
        const elapsed = Date.now() - start
        assert.strictEqual(error._tag, "Timeout")
        assert.strictEqual(Duration.toMillis((error as Timeout).timeout), 300)
        assert.strictEqual((error as Timeout).status, 200)
        assert.isTrue(elapsed < 5_000, `${elapsed} ms`)
        assert.strictEqual((yield* logged(COMPAT)).length, 1)
      }).pipe(Effect.provide(loopback({ timeout: 10_000, retry: { ...fast.retry, maxElapsed: 300 } }))))

    it.live("a 429 from the token endpoint is a RateLimitError with its Retry-After", () =>
      Effect.gen(function*() {
        yield* inject("/oauth/token", [{ _tag: "Status", status: 429, retryAfter: "4" }])
        const error = yield* flipReason(appToken)
        assert.strictEqual(error._tag, "RateLimit")
        assert.strictEqual(Duration.toMillis((error as RateLimit).retryAfter!), 4000)
        assert.strictEqual((yield* logged("/oauth/token")).length, 1)
      }).pipe(Effect.provide(loopback(fast))))

    it.live("a POST answered with 500 is not retried, and is with retryNonIdempotent", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator
        const oauth = yield* Transport.publicClient(AuthorizationApi, "oauth")
        const basic = Buffer.from(`${sim.clientId}:${Redacted.value(sim.clientSecret)}`).toString("base64")
        const token = (options?: Transport.CallOptions) =>
          oauth.token({ headers: { authorization: `Basic ${basic}` }, payload: { grant_type: "client_credentials" } }, options)
        yield* inject("/oauth/token", [{ _tag: "Status", status: 500 }])
        const error = yield* flipReason(token())
        // the authorization server answers in the OAuth shape ({ error: "server_error" })
        assert.strictEqual(error._tag, "OAuth")
        assert.strictEqual((error as { readonly status: number }).status, 500)
        assert.deepStrictEqual((yield* logged("/oauth/token")).map((e) => e.status), [500])
        yield* inject("/oauth/token", [{ _tag: "Status", status: 500 }])
        const ok = yield* token({ retry: { retryNonIdempotent: true } })
        assert.strictEqual(ok.status, 200)
        assert.deepStrictEqual((yield* logged("/oauth/token")).map((e) => e.status), [500, 500, 200])
      }).pipe(Effect.provide(loopback(fast))))

    it.live("path parameters are always encoded; authenticated calls carry sc-user-id", () =>
      Effect.gen(function*() {
        const token = yield* appToken
        const sim = yield* Simulator
        yield* Effect.gen(function*() {
          const connections = yield* Transport.client(VehicleApi, "connections")
          const error = yield* flipReason(connections.get({ params: { connectionId: "..?webhooks#" } }))
          assert.strictEqual(error._tag, "NotFound")
          assert.deepStrictEqual((yield* logged(/^\/v3\/connections\//)).map((e) => e.path), ["/v3/connections/..%3Fwebhooks%23"])
          // a "/" is refused, not encoded (a proxy may decode %2F): nothing sent
          const traversal = yield* flipReason(connections.get({ params: { connectionId: "../webhooks" } }))
          assert.strictEqual(traversal._tag, "InvalidArgument")
          assert.strictEqual((yield* logged(/^\/v3\/connections\//)).length, 1)

          const vehicleId = sim.data.vehicleIds[0]!
          const userId = sim.data.connectionOf(vehicleId)!.userId
          const signals = yield* Transport.client(VehicleApi, "signals")
          const page = yield* signals.list({ params: { vehicleId }, headers: { "sc-user-id": userId } })
          assert.isTrue(page.value.data.length > 0)
          const entry = (yield* logged(`/v3/vehicles/${vehicleId}/signals`))[0]!
          assert.strictEqual(entry.headers["sc-user-id"], userId)
          assert.strictEqual(entry.headers["authorization"], "<redacted>")
          assert.match(entry.headers["user-agent"]!, /^connected-vehicle-sdk\//)
        }).pipe(Effect.provide(Credentials.layerStatic(token)))
      }).pipe(Effect.provide(loopback(fast))))

    it.live("a 401 refreshes the credential once and replays with the new one; a credential that cannot be read sends nothing", () =>
      Effect.gen(function*() {
        const token = yield* appToken
        const sim = yield* Simulator
        const vehicleId = sim.data.vehicleIds[0]!
        const userId = sim.data.connectionOf(vehicleId)!.userId
        const path = `/v3/vehicles/${vehicleId}/signals`
        const list = Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
          signals.list({ params: { vehicleId }, headers: { "sc-user-id": userId } }))
        // a stale token first, the simulator's own after a refresh
        const rejected: Array<string> = []
        let current = Redacted.make("stale-token")
        const page = yield* list.pipe(Effect.provideService(Credentials.Credentials, {
          token: Effect.sync(() => current),
          refresh: (stale) =>
            Effect.sync(() => {
              rejected.push(Redacted.value(stale))
              current = token
              return true
            })
        }))
        assert.isTrue(page.value.data.length > 0)
        assert.deepStrictEqual(rejected, ["stale-token"])
        assert.deepStrictEqual((yield* logged(path)).map((e) => e.status), [401, 200])
        // refused twice (the refreshed token refused too): one refresh, then the 401 is the call's error
        let refreshed = Redacted.make("stale-token")
        const twice = yield* flipReason(list.pipe(Effect.provideService(Credentials.Credentials, {
          token: Effect.sync(() => refreshed),
          refresh: () => Effect.sync(() => (refreshed = Redacted.make("another-stale-token"), true))
        })))
        assert.strictEqual(twice._tag, "Authentication")
        assert.deepStrictEqual((yield* logged(path)).map((e) => e.status), [401, 200, 401, 401])
        const missing = yield* flipReason(list.pipe(Effect.provideService(Credentials.Credentials, {
          token: Effect.fail(new ConnectedVehicleError({ reason: new NoCredential({ description: "no token stored" }) })),
          refresh: () => Effect.succeed(false)
        })))
        assert.strictEqual(missing._tag, "Credentials")
        assert.strictEqual((yield* logged(path)).length, 4)
      }).pipe(Effect.provide(loopback(fast))))

    it.live("v3 lists stream page by page, deciding by links.next and totalCount", () =>
      Effect.gen(function*() {
        const token = yield* appToken
        const sim = yield* Simulator
        yield* Effect.gen(function*() {
          const webhooks = yield* Transport.client(ManagementApi, "webhooks")
          const ids = yield* Pagination.items((page) => webhooks.list({ query: { page, pageSize: 3 } })).pipe(
            Stream.map((w) => w.id),
            Stream.runCollect
          )
          assert.deepStrictEqual([...ids].sort(), sim.data.webhooks.map((w) => w.id).sort())
          assert.strictEqual((yield* logged("/v3/webhooks")).length, Math.ceil(sim.data.webhooks.length / 3))

          const connections = yield* Transport.client(VehicleApi, "connections")
          const pages = yield* Pagination.pages((page) => connections.list({ query: { page, pageSize: 7 } })).pipe(
            Stream.runCollect
          )
          assert.strictEqual(pages.length, Math.ceil(sim.data.connectionCount / 7))
          assert.strictEqual(pages.reduce((n, p) => n + p.data.length, 0), sim.data.connectionCount)
        }).pipe(Effect.provide(Credentials.layerStatic(token)))
      }).pipe(Effect.provide(loopback(fast))))

    it.live("an item stream requests a page only when the consumer needs it: 5 items of pages of 2 take 3 requests", () =>
      Effect.gen(function*() {
        const token = yield* appToken
        yield* Effect.gen(function*() {
          const connections = yield* Transport.client(VehicleApi, "connections")
          const stream = (options?: { readonly readAhead: Pagination.ReadAhead }) =>
            Pagination.items((page, pageOptions) => connections.list({ query: { page, pageSize: 2 } }, pageOptions), options)
          const firstFive = yield* Stream.runCollect(Stream.take(stream(), 5))
          assert.strictEqual(firstFive.length, 5)
          // (the simulator logs a request once answered: give a late one time to show)
          yield* Effect.sleep("100 millis")
          assert.deepStrictEqual((yield* logged("/v3/connections")).map((e) => e.status), [200, 200, 200])
          // `readAhead: 1` (opt-in): the second page is requested before the consumer asks for it
          yield* Effect.scoped(Effect.gen(function*() {
            const pull = yield* Stream.toPull(stream({ readAhead: 1 }))
            assert.strictEqual((yield* pull).length, 2)
            while ((yield* logged("/v3/connections")).length < 5) yield* Effect.sleep("5 millis")
          }))
        }).pipe(Effect.provide(Credentials.layerStatic(token)))
      }).pipe(Effect.provide(loopback(fast))))

    it.live("the token endpoint's OAuth errors are typed", () =>
      Effect.gen(function*() {
        const oauth = yield* Transport.publicClient(AuthorizationApi, "oauth")
        const error = yield* flipReason(oauth.token({
          headers: { authorization: `Basic ${Buffer.from("nobody:wrong").toString("base64")}` },
          payload: { grant_type: "client_credentials" }
        }))
        assert.strictEqual(error._tag, "OAuth")
        if (error._tag === "OAuth") assert.strictEqual(error.status, 401)
      }).pipe(Effect.provide(loopback(fast))))
    it.live("UndiciHttpClient.layer() sends none of the headers fetch adds", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator
        const send = (client: Layer.Layer<HttpClient.HttpClient>) =>
          Effect.flatMap(HttpClient.HttpClient, (http) => http.get(`${sim.url}${COMPAT}`)).pipe(
            Effect.flatMap((response) => response.json),
            Effect.provide(client)
          )
        yield* send(UndiciHttpClient.layer())
        yield* send(FetchHttpClient.layer)
        const [viaDefault, viaFetch] = yield* logged(COMPAT)
        assert.strictEqual(viaFetch?.headers["sec-fetch-mode"], "cors")
        assert.isUndefined(viaDefault?.headers["sec-fetch-mode"])
        assert.isUndefined(viaDefault?.headers["accept-encoding"])
      }).pipe(Effect.provide(loopback(fast))))

    describe("tracing", () => {
      /** Runs the compatibility listing (first attempt 503) under a tracer that records every span. */
      const traced = Effect.gen(function*() {
        const { spans, tracer } = RecordingTracer.make()
        yield* inject(COMPAT, [{ _tag: "Status", status: 503 }])
        const result = yield* Effect.provideService(compat, Tracer.Tracer, tracer)
        return { spans, result, entries: yield* logged(COMPAT) }
      })

      it.live("one span per call, with its status, request id and retry count, sent as the trace context; by default no client span per attempt", () =>
        Effect.gen(function*() {
          const { entries, result, spans } = yield* traced
          assert.deepStrictEqual(spans.map((s) => s.name), ["connected-vehicle.compatibility.list"])
          const call = spans[0]!
          assert.strictEqual(call.kind, "client")
          assert.strictEqual(call.attributes.get("http.request.method"), "GET")
          assert.match(String(call.attributes.get("url.template")), /\/v3\/compatible-vehicles$/)
          assert.strictEqual(call.attributes.get("http.response.status_code"), 200)
          assert.strictEqual(call.attributes.get("request.id"), result.requestId)
          assert.strictEqual(call.attributes.get("retry.count"), 1)
          assert.strictEqual(call.status._tag, "Ended")
          assert.deepStrictEqual(entries.map((e) => e.status), [503, 200])
          for (const entry of entries) {
            assert.strictEqual(entry.headers["traceparent"], `00-${call.traceId}-${call.spanId}-01`)
            assert.strictEqual(entry.headers["b3"], `${call.traceId}-${call.spanId}-1`)
          }
        }).pipe(Effect.provide(loopback(fast))))

      it.live("without a tracing backend: no span of the call; the caller's own span, left alone, is the trace context sent", () =>
        Effect.gen(function*() {
          yield* inject(COMPAT, [{ _tag: "Status", status: 503 }])
          const outer = yield* Effect.withSpan(
            Effect.flatMap(compat, () => Effect.currentSpan),
            "caller"
          )
          assert.strictEqual(outer.name, "caller")
          assert.isFalse(outer.attributes.has("retry.count"))
          const entries = yield* logged(COMPAT)
          assert.deepStrictEqual(entries.map((e) => e.status), [503, 200])
          for (const entry of entries) assert.strictEqual(entry.headers["traceparent"], `00-${outer.traceId}-${outer.spanId}-01`)
          // no span around the call: no trace context
          yield* compat
          const [bare] = (yield* logged(COMPAT)).slice(-1)
          assert.isUndefined(bare!.headers["traceparent"])
          // propagation turned off: none either
          yield* Effect.withSpan(Effect.provideService(compat, Tracer.DisablePropagation, true), "quiet")
          const [quiet] = (yield* logged(COMPAT)).slice(-1)
          assert.isUndefined(quiet!.headers["traceparent"])
          // tracing turned off: the caller's span is a no-op one, whose ids are no trace context
          yield* Effect.withSpan(compat, "off").pipe(Effect.provideService(References.TracerEnabled, false))
          const [off] = (yield* logged(COMPAT)).slice(-1)
          assert.isUndefined(off!.headers["traceparent"])
          assert.isUndefined(off!.headers["b3"])
        }).pipe(Effect.provide(loopback(fast))))

      it.live("httpSpans: a client span per attempt under the call's span, and the trace context sent with each attempt", () =>
        Effect.gen(function*() {
          const { entries, spans } = yield* traced
          const call = spans.find((s) => s.name === "connected-vehicle.compatibility.list")!
          const attempts = spans.filter((s) => s !== call)
          assert.strictEqual(attempts.length, 2)
          assert.deepStrictEqual(attempts.map((s) => s.attributes.get("http.response.status_code")), [503, 200])
          for (const span of attempts) {
            assert.strictEqual(span.traceId, call.traceId)
            assert.strictEqual(span.parent._tag === "Some" ? span.parent.value.spanId : undefined, call.spanId)
          }
          assert.deepStrictEqual(
            entries.map((e) => e.headers["traceparent"]),
            attempts.map((s) => `00-${s.traceId}-${s.spanId}-01`)
          )
        }).pipe(Effect.provide(loopback({ ...fast, httpSpans: true }))))
    })
  })
}

import { assert, describe, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Layer, Stream } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { parseFaultHeader } from "../src/App.ts"
import type { Fault } from "../src/Simulator.ts"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { layer, layerTest, Simulator } from "../src/Simulator.ts"
import { LOG_LIMIT, State } from "../src/State.ts"
import { appToken, bearer, call, isEnvelope } from "./helpers.ts"

const Loopback = (options?: Parameters<typeof layer>[0]) => Layer.mergeAll(layer(options), FetchHttpClient.layer)

const kinds = [
  ["loopback", () => Loopback()],
  ["in-memory", () => layerTest()]
] as const

for (const [name, makeLayer] of kinds) {
  describe(`scripted faults (${name})`, () => {
    it.live("500 twice, then success", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator
        const token = yield* appToken
        yield* sim.injectFaults({ path: "/v3/webhooks", faults: [{ _tag: "Status", status: 500 }, { _tag: "Status", status: 500 }] })
        const first = yield* call("GET", "/v3/webhooks", { headers: bearer(token) })
        const second = yield* call("GET", "/v3/webhooks", { headers: bearer(token) })
        const third = yield* call("GET", "/v3/webhooks", { headers: bearer(token) })
        assert.deepStrictEqual([first.status, second.status, third.status], [500, 500, 200])
        assert.isTrue(isEnvelope(first.json))
        assert.strictEqual(first.json.errors[0].type, "SERVER")
        // a path is compared as the simulator routes it: lower-case
        yield* sim.injectFaults({ path: "/V3/Webhooks", faults: [{ _tag: "Status", status: 500 }] })
        assert.strictEqual((yield* call("GET", "/v3/webhooks", { headers: bearer(token) })).status, 500)
      }).pipe(Effect.provide(makeLayer())))

    it.live("429 with Retry-After, only on the matching method and path", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator
        const token = yield* appToken
        yield* sim.injectFaults({ path: /^\/v3\/connections/, method: "get", faults: [{ _tag: "Status", status: 429, retryAfter: "2" }] })
        const other = yield* call("GET", "/v3/webhooks", { headers: bearer(token) })
        assert.strictEqual(other.status, 200)
        const limited = yield* call("GET", "/v3/connections", { headers: bearer(token) })
        assert.strictEqual(limited.status, 429)
        assert.strictEqual(limited.headers["retry-after"], "2")
        assert.strictEqual(limited.json.errors[0].type, "RATE_LIMIT")
        assert.strictEqual((yield* call("GET", "/v3/connections", { headers: bearer(token) })).status, 200)
      }).pipe(Effect.provide(makeLayer())))

    it.live("delay answers normally, later", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator
        yield* sim.injectFaults({ faults: [{ _tag: "Delay", delay: "150 millis" }] })
        const start = Date.now()
        const reply = yield* call("GET", "/v3/compatible-vehicles")
        assert.strictEqual(reply.status, 200)
        assert.isAtLeast(Date.now() - start, 140)
      }).pipe(Effect.provide(makeLayer())))

    it.live("malformed JSON is a 200 whose body does not parse", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator
        yield* sim.injectFaults({ path: "/v3/compatible-vehicles", faults: [{ _tag: "MalformedJson" }] })
        const reply = yield* call("GET", "/v3/compatible-vehicles")
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.headers["content-type"], "application/json")
        assert.isUndefined(reply.json)
        assert.isAbove(reply.text.length, 0)
      }).pipe(Effect.provide(makeLayer())))

    it.live("stalled body: status and headers arrive, the body never ends", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator
        const client = yield* HttpClient.HttpClient
        yield* sim.injectFaults({ faults: [{ _tag: "StallBody" }] })
        const outcome = yield* Effect.scoped(Effect.gen(function*() {
          const response = yield* client.execute(HttpClientRequest.get(sim.url + "/v3/compatible-vehicles"))
          assert.strictEqual(response.status, 200)
          return yield* response.stream.pipe(Stream.runDrain, Effect.timeoutOption("300 millis"))
        }))
        assert.strictEqual(outcome._tag, "None")
        const log = yield* sim.requests
        assert.strictEqual(log[0]!.status, 200)
      }).pipe(Effect.provide(makeLayer())))

    it.live("dropped connection is a transport error", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator
        yield* sim.injectFaults({ faults: [{ _tag: "Drop" }] })
        const error = yield* call("GET", "/v3/compatible-vehicles").pipe(Effect.flip)
        assert.strictEqual(error._tag, "HttpClientError")
        assert.strictEqual((error as any).reason._tag, "TransportError")
        // the next request is served
        assert.strictEqual((yield* call("GET", "/v3/compatible-vehicles")).status, 200)
        const log = yield* sim.requests
        assert.strictEqual(log[0]!.status, 0)
      }).pipe(Effect.provide(makeLayer())))
  })
}

describe("a Delay fault's delay is a Duration input", () => {
  /** The defect of injecting `faults` in process, if any. */
  const injected = (faults: ReadonlyArray<Fault>) =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const exit = yield* Effect.exit(sim.injectFaults({ faults }))
      return Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    }).pipe(Effect.provide(layerTest()))

  it.effect("the renamed millis, given from JavaScript, dies with an InvalidArgument naming delay", () =>
    Effect.gen(function*() {
      const error = yield* injected([{ _tag: "Drop" }, { _tag: "Delay", millis: 150 } as unknown as Fault])
      assert.instanceOf(error, InvalidArgument)
      assert.strictEqual((error as InvalidArgument).field, "faults[1].millis")
      assert.include((error as InvalidArgument).message, "faults[1].millis was renamed faults[1].delay")
    }))

  it.effect("a delay that is negative, not finite, not a duration or absent dies with an InvalidArgument naming it", () =>
    Effect.gen(function*() {
      for (const delay of [-1, Number.NaN, "Infinity", "soon", undefined]) {
        const error = yield* injected([{ _tag: "Delay", delay } as Fault])
        assert.instanceOf(error, InvalidArgument, String(delay))
        assert.strictEqual((error as InvalidArgument).field, "faults[0].delay")
      }
      assert.isUndefined(yield* injected([{ _tag: "Delay", delay: Duration.seconds(1) }, { _tag: "Delay", delay: 0 }]))
    }))

  it.live("over HTTP a delay stays milliseconds (delay=N in the header syntax)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(parseFaultHeader("delay=250"), { fault: { _tag: "Delay", delay: Duration.millis(250) }, times: undefined })
      assert.strictEqual((yield* call("POST", "/_simulator/faults", { json: { faults: ["delay=120"] } })).status, 201)
      const start = Date.now()
      assert.strictEqual((yield* call("GET", "/v3/compatible-vehicles")).status, 200)
      assert.isAtLeast(Date.now() - start, 110)
    }).pipe(Effect.provide(Loopback())))
})

describe("control header", () => {
  it.live("spells every fault", () =>
    Effect.gen(function*() {
      const h = (value: string) => ({ headers: { "x-simulator-fault": value } })
      const s503 = yield* call("GET", "/v3/compatible-vehicles", h("503"))
      assert.strictEqual(s503.status, 503)
      assert.isTrue(isEnvelope(s503.json))
      const s429 = yield* call("GET", "/v3/compatible-vehicles", h("status=429; retry-after=5"))
      assert.strictEqual(s429.status, 429)
      assert.strictEqual(s429.headers["retry-after"], "5")
      const oauth = yield* call("POST", "/oauth/token", h("500"))
      assert.strictEqual(oauth.status, 500)
      assert.strictEqual(oauth.json.error, "server_error")
      const malformed = yield* call("GET", "/v3/compatible-vehicles", h("malformed-json"))
      assert.isUndefined(malformed.json)
      const delayed = Date.now()
      assert.strictEqual((yield* call("GET", "/v3/compatible-vehicles", h("delay=100"))).status, 200)
      assert.isAtLeast(Date.now() - delayed, 90)
      const dropped = yield* call("GET", "/v3/compatible-vehicles", h("drop")).pipe(Effect.flip)
      assert.strictEqual(dropped._tag, "HttpClientError")
      const invalid = yield* call("GET", "/v3/compatible-vehicles", h("explode"))
      assert.strictEqual(invalid.status, 400)
      assert.match(invalid.json.errors[0].detail, /x-simulator-fault/)
      const outOfRange = yield* call("GET", "/v3/compatible-vehicles", h("status=200"))
      assert.strictEqual(outOfRange.status, 400)
    }).pipe(Effect.provide(Loopback())))
})

describe("run-wide options", () => {
  it.live("failureRate 1 fails everything with 500, seeded rate fails some", () =>
    Effect.gen(function*() {
      const all = yield* Effect.forEach([1, 2, 3], () => call("GET", "/v3/compatible-vehicles")).pipe(
        Effect.provide(Loopback({ failureRate: 1 }))
      )
      assert.deepStrictEqual(all.map((r) => r.status), [500, 500, 500])
      const run = () =>
        Effect.forEach(Array.from({ length: 40 }), () => call("GET", "/v3/compatible-vehicles")).pipe(
          Effect.map((replies) => replies.map((r) => r.status)),
          Effect.provide(layerTest({ failureRate: 0.3, seed: 7 }))
        )
      const a = yield* run()
      const b = yield* run()
      assert.deepStrictEqual(a, b)
      const failed = a.filter((s) => s === 500).length
      assert.isAbove(failed, 3)
      assert.isBelow(failed, 25)
    }))

  it.live("latency is added to every request", () =>
    Effect.gen(function*() {
      const start = Date.now()
      yield* call("GET", "/v3/compatible-vehicles")
      yield* call("GET", "/v3/compatible-vehicles")
      assert.isAtLeast(Date.now() - start, 190)
    }).pipe(Effect.provide(Loopback({ latency: "100 millis" }))))
})

describe("request log and reset", () => {
  it("keeps the last LOG_LIMIT requests, oldest first", () => {
    const state = new State({ now: () => 0, seed: 1, failureRate: 0 })
    for (let i = 0; i < LOG_LIMIT + 5; i++) {
      state.record("GET", `/v3/webhooks/${i}?n=${i}`, { authorization: `Bearer t${i}`, host: "h" }, `r${i}`).status = 200
    }
    const log = state.requests()
    assert.strictEqual(log.length, LOG_LIMIT)
    assert.deepStrictEqual(log[0], {
      method: "GET",
      path: "/v3/webhooks/5",
      query: "n=5",
      headers: { authorization: "<redacted>", host: "h" },
      status: 200,
      requestId: "r5"
    })
    assert.strictEqual(log[LOG_LIMIT - 1]!.requestId, `r${LOG_LIMIT + 4}`)
    state.resetLog()
    state.record("GET", "/v3/webhooks", {}, "again")
    assert.deepStrictEqual(state.requests().map((entry) => entry.requestId), ["again"])
  })

  it("every header that carries a credential is logged as <redacted>, within the bounds or cut to them", () => {
    const state = new State({ now: () => 0, seed: 1, failureRate: 0 })
    const secrets = {
      authorization: "Bearer a",
      "proxy-authorization": "Basic b",
      cookie: "session=c",
      "set-cookie": ["d=1", "e=2"],
      "x-api-key": "k"
    }
    const redacted = Object.fromEntries(Object.keys(secrets).map((key) => [key, "<redacted>"]))
    state.record("GET", "/v3/webhooks", { ...secrets, host: "h" }, "small")
    state.record("GET", "/v3/webhooks", { ...secrets, host: "h", "x-big": "b".repeat(2_000) }, "big")
    const [small, big] = state.requests()
    assert.deepStrictEqual(small!.headers, { ...redacted, host: "h" })
    assert.deepStrictEqual({ ...big!.headers, "x-big": "" }, { ...redacted, host: "h", "x-big": "" })
    assert.strictEqual(big!.truncated, true)
  })

  it("an entry keeps at most 1,024 characters of URL, 16 headers and 1,024 characters of them, cut with a marker", () => {
    const state = new State({ now: () => 0, seed: 1, failureRate: 0 })
    const big: Record<string, string> = { authorization: "Bearer t", host: "h" }
    for (let i = 0; i < 100; i++) big[`x-h${i}`] = "v".repeat(10)
    const long = { authorization: `Bearer ${"t".repeat(16_000)}`, "x-big": "b".repeat(16_000), host: "h" }
    state.record("GET", `/v3/webhooks?q=${"q".repeat(20_000)}`, long, "a").status = 200
    state.recordAnswered("GET", "/v3/webhooks", big, "b", 200)
    state.record("GET", "/v3/webhooks?x=1", { host: "h" }, "c")
    const [first, second, third] = state.requests()
    assert.strictEqual(first!.path + "?" + first!.query, `/v3/webhooks?q=${"q".repeat(1_024 - 15)}...[${20_015 - 1_024} more characters]`)
    assert.deepStrictEqual(Object.keys(first!.headers), ["authorization", "x-big"])
    assert.strictEqual(first!.headers["authorization"], "<redacted>")
    // the authorization is kept as "<redacted>" (10 characters): the rest of the 1,024 go to the next
    assert.strictEqual(first!.headers["x-big"], `${"b".repeat(1_024 - 13 - 10 - 5)}...[${16_000 - 996} more characters]`)
    assert.strictEqual(first!.truncated, true)
    assert.strictEqual(Object.keys(second!.headers).length, 16)
    assert.strictEqual(second!.truncated, true)
    assert.deepStrictEqual(third, { method: "GET", path: "/v3/webhooks", query: "x=1", headers: { host: "h" }, status: 0, requestId: "c" })
    const size = JSON.stringify(state.requests()).length
    assert.isBelow(size, 3 * (1_100 + 1_100))
    // a long authorization alone is kept as "<redacted>": nothing a read shows was cut
    state.resetLog()
    state.record("GET", "/v3/webhooks", { authorization: `Bearer ${"j".repeat(4_000)}` }, "d")
    assert.deepStrictEqual(state.requests()[0]!.headers, { authorization: "<redacted>" })
    assert.isUndefined(state.requests()[0]!.truncated)
  })

  it.live("a client's big headers and URLs keep the log read small", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      for (let i = 0; i < 50; i++) {
        yield* call("GET", `/v3/compatible-vehicles?i=${i}&pad=${"p".repeat(8_000)}`, { headers: { "x-pad": "x".repeat(8_000) } })
      }
      const log = yield* call("GET", "/_simulator/requests")
      assert.strictEqual(log.json.requests.length, 50)
      assert.isBelow(log.text.length, 50 * 4_000)
      assert.isTrue(log.json.requests.every((entry: { readonly truncated?: true }) => entry.truncated === true))
      assert.isBelow(JSON.stringify(yield* sim.requests).length, 50 * 4_000)
      // ?limit=N: the newest N
      const newest = yield* call("GET", "/_simulator/requests?limit=2")
      assert.deepStrictEqual(newest.json.requests.map((entry: { readonly query: string }) => entry.query.slice(0, 4)), ["i=48", "i=49"])
      // limit repeated, even with one value: a 400, not the first one read
      for (const query of ["limit=0", "limit=x", "limit=-1", "page=2", "limit=1&limit=2", "limit=2&limit=2"]) {
        const refused = yield* call("GET", `/_simulator/requests?${query}`)
        assert.strictEqual(refused.status, 400, query)
        assert.isTrue(isEnvelope(refused.json), refused.text)
      }
    }).pipe(Effect.provide(Loopback())))

  it.live("GET /_simulator/requests: a header whose name may carry a credential is <redacted> (the rule of query names), the others are kept", () =>
    Effect.gen(function*() {
      const secrets = {
        "x-auth-token": "SECRET-1",
        "x-access-token": "SECRET-2",
        "api-key": "SECRET-3",
        "x-client-secret": "SECRET-4",
        "x-session-id": "SECRET-5",
        "x-auth": "SECRET-6",
        "proxy-authorization": "Basic SECRET-7",
        "x-access-key": "SECRET-8",
        "ocp-apim-subscription-key": "SECRET-9",
        "sessionid": "SECRET-10",
        "dpop": "SECRET-11",
        "authentication": "SECRET-12"
      }
      yield* call("GET", "/v3/compatible-vehicles", { headers: { ...secrets, "sc-user-id": "usr_1", "x-trace": "t" } })
      const log = yield* call("GET", "/_simulator/requests")
      const headers = log.json.requests[0].headers as Record<string, string>
      for (const name of Object.keys(secrets)) assert.strictEqual(headers[name], "<redacted>", name)
      assert.strictEqual(headers["sc-user-id"], "usr_1")
      assert.strictEqual(headers["x-trace"], "t")
      for (const value of Object.values(secrets)) assert.notInclude(log.text, value)
    }).pipe(Effect.provide(Loopback())))

  it.live("logs requests with the authorization redacted; resetLog and reset", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      yield* call("GET", "/v3/webhooks?page=1&pageSize=2", { headers: bearer(token) })
      const log = yield* sim.requests
      assert.strictEqual(log.length, 2)
      assert.strictEqual(log[0]!.method, "POST")
      assert.strictEqual(log[0]!.path, "/oauth/token")
      assert.strictEqual(log[0]!.headers["authorization"], "<redacted>")
      assert.strictEqual(log[1]!.path, "/v3/webhooks")
      assert.strictEqual(log[1]!.query, "page=1&pageSize=2")
      assert.strictEqual(log[1]!.status, 200)
      assert.notInclude(JSON.stringify(log), token)
      yield* sim.resetLog
      assert.strictEqual((yield* sim.requests).length, 0)
      yield* sim.injectFaults({ faults: [{ _tag: "Status", status: 500 }] })
      yield* sim.reset
      // tokens and scripted faults are gone
      const after = yield* call("GET", "/v3/webhooks", { headers: bearer(token) })
      assert.strictEqual(after.status, 401)
      assert.strictEqual((yield* sim.requests).length, 1)
    }).pipe(Effect.provide(Loopback())))

  it.live("in-memory client answers relative paths and only its own origin", () =>
    Effect.gen(function*() {
      const client = yield* HttpClient.HttpClient
      const ok = yield* client.get("/v3/compatible-vehicles").pipe(Effect.scoped)
      assert.strictEqual(ok.status, 200)
      const full = yield* client.get("http://simulator.test/v3/compatible-vehicles").pipe(Effect.scoped)
      assert.strictEqual(full.status, 200)
      const elsewhere = yield* client.get("http://example.com/").pipe(Effect.scoped, Effect.flip)
      assert.strictEqual(elsewhere._tag, "HttpClientError")
    }).pipe(Effect.provide(layerTest())))
})

describe("POST /_simulator/faults: pathPattern is a glob matched in linear time", () => {
  it.live("* stays in a segment, ** crosses them, the whole path is matched; a regular expression is a 400", () =>
    Effect.gen(function*() {
      const token = yield* appToken
      const get = (path: string) => Effect.map(call("GET", path, { headers: bearer(token) }), (reply) => reply.status)
      const script = (pathPattern: string) => call("POST", "/_simulator/faults", { json: { pathPattern, faults: ["status=502"] } })
      assert.strictEqual((yield* script("/v3/vehicles/*/odometer")).status, 201)
      assert.strictEqual(yield* get("/v3/vehicles/a/b/odometer"), 404) // * does not cross a "/"
      assert.strictEqual(yield* get("/v3/vehicles/nope/odometer"), 502)
      assert.strictEqual((yield* script("/V3/**")).status, 201) // compared with the lower-case path
      assert.strictEqual(yield* get("/v3/webhooks"), 502)
      assert.strictEqual(yield* get("/v3/webhooks"), 200)
      for (const regex of ["^/v3/vehicles/", "/v3/(a+)+", "/v3/vehicles/.*/odometer", "v3/webhooks", "/x".repeat(200)]) {
        const refused = yield* script(regex)
        assert.strictEqual(refused.status, 400, regex)
        assert.isTrue(isEnvelope(refused.json), refused.text)
        assert.strictEqual(refused.json.errors[0].type, "VALIDATION")
        assert.include(refused.json.errors[0].detail, "pathPattern", refused.text)
      }
      // a glob no normalised path can match takes no slot: it is refused, saying why
      for (const [never, why] of [["/v3/webhooks/", "trailing"], ["/v3//webhooks", "repeated"], ["/v3/a%20b", "percent-decoded"]]) {
        const refused = yield* script(never!)
        assert.strictEqual(refused.status, 400, never)
        assert.strictEqual(refused.json.errors[0].type, "VALIDATION")
        assert.include(refused.json.errors[0].detail, why!, refused.text)
      }
      // a reserved character's encoding stays encoded in a normalised path: such a pattern may match
      assert.strictEqual((yield* script("/v3/vehicles/a%2fb/**")).status, 201)
      assert.strictEqual(yield* get("/v3/vehicles/a%2Fb/odometer"), 502)
      // a "." is literal, unless it starts a segment as ".*" (a regular expression's "anything")
      assert.strictEqual((yield* script("/v3/webhooks.*")).status, 201)
      assert.strictEqual((yield* script("/v3/*.*")).status, 201)
      assert.strictEqual(yield* get("/v3/webhooks"), 200)
      assert.strictEqual(yield* get("/v3/webhooks.json"), 502)
      assert.strictEqual(yield* get("/v3/connections.x"), 502)
    }).pipe(Effect.provide(Loopback())))

  it.live("a path no request can match, path with pathPattern, or a method that is not a token: 400, no slot taken", () =>
    Effect.gen(function*() {
      const token = yield* appToken
      const get = (path: string) => Effect.map(call("GET", path, { headers: bearer(token) }), (reply) => reply.status)
      const script = (json: Record<string, unknown>) => call("POST", "/_simulator/faults", { json: { faults: ["status=500"], ...json } })
      const refusals: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ path: "v3/webhooks" }, "can never match"],
        [{ path: "/v3/webhooks?page=2" }, "can never match"],
        [{ path: "/v3/webhooks;v=1" }, "can never match"],
        [{ path: "https://x/v3/webhooks" }, "can never match"],
        [{ path: "/v3/webhooks/" }, "can never match"],
        [{ path: "/v3//webhooks" }, "can never match"],
        [{ path: "/v3/a%20b" }, "percent-encoding"],
        [{ path: "/x".repeat(200) }, "at most"],
        [{ path: "/v3/webhooks", pathPattern: "/v3/connections" }, "not both"],
        [{ path: "/v3/webhooks", method: "GET POST" }, "method"],
        [{ path: "/v3/webhooks", method: "" }, "method"]
      ]
      for (const [json, why] of refusals) {
        const refused = yield* script(json)
        assert.strictEqual(refused.status, 400, JSON.stringify(json))
        assert.isTrue(isEnvelope(refused.json), refused.text)
        assert.strictEqual(refused.json.errors[0].type, "VALIDATION")
        assert.include(refused.json.errors[0].detail, why, refused.text)
      }
      // nothing was queued: the next request is answered
      assert.strictEqual(yield* get("/v3/webhooks"), 200)
      // a path (any case) and a method token are taken, matched as a prefix at a "/"
      assert.strictEqual((yield* script({ path: "/V3/Webhooks", method: "get" })).status, 201)
      assert.strictEqual(yield* get("/v3/webhooks"), 500)
      assert.strictEqual(yield* get("/v3/webhooks"), 200)
    }).pipe(Effect.provide(Loopback())))

  it.live("a pending pattern with many stars costs time linear in a long path", () =>
    Effect.gen(function*() {
      const token = yield* appToken
      const pattern = `/${"**a".repeat(40)}**b`
      assert.strictEqual((yield* call("POST", "/_simulator/faults", { json: { pathPattern: pattern, faults: ["status=502"] } })).status, 201)
      const start = Date.now()
      const reply = yield* call("GET", `/${"a".repeat(4000)}`, { headers: bearer(token) })
      assert.strictEqual(reply.status, 404)
      assert.isBelow(Date.now() - start, 2000)
      assert.strictEqual((yield* call("GET", `/${"a".repeat(50)}b`, { headers: bearer(token) })).status, 502)
    }).pipe(Effect.provide(Loopback())))
})

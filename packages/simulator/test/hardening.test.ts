/**
 * Review findings, over loopback HTTP: path spellings and the credential,
 * request ids, OpenAPI security, keyed faults and the control routes, query
 * and body limits, token-endpoint headers, token sweeping.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { request } from "node:http"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { FAULT_RULE_LIMIT } from "../src/State.ts"
import { appToken, basic, bearer, call, isEnvelope, isOAuthBody, userTokens } from "./helpers.ts"

const Loopback = Layer.mergeAll(simulatorLayer({ seed: 5 }), FetchHttpClient.layer)

/** A raw request: the target is sent exactly as written (no URL normalisation by a client). */
const raw = (origin: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
  Effect.promise(() =>
    new Promise<{ status: number; headers: Record<string, any>; json: any }>((resolve, reject) => {
      const url = new URL(origin)
      const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let json: unknown
          try {
            json = JSON.parse(text)
          } catch {
            json = text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json })
        })
      })
      req.on("error", reject)
      if (body !== undefined) req.write(body)
      req.end()
    })
  )

layer(Loopback)("path spellings", (it) => {
  it.effect("every spelling the router accepts needs the bearer token (401 without, 200 with)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const user = (yield* userTokens()).access
      for (const path of ["/%763/connections", "//v3/connections", "/V3/connections", "/v3//connections/", "/v3/Connections;x"]) {
        const anonymous = yield* raw(sim.url, "GET", path)
        assert.strictEqual(anonymous.status, 401, `${path}: ${JSON.stringify(anonymous.json)}`)
        assert.strictEqual((yield* raw(sim.url, "GET", path, bearer(token))).status, 200, path)
      }
      for (const path of ["/%76%32.0/vehicles", "/V2.0/vehicles", "//v2.0//vehicles"]) {
        assert.strictEqual((yield* raw(sim.url, "GET", path)).status, 401, path)
        assert.strictEqual((yield* raw(sim.url, "GET", path, bearer(user))).status, 200, path)
      }
      assert.strictEqual((yield* raw(sim.url, "GET", "/V3/Compatible-Vehicles")).status, 200)
    }))
})

layer(Loopback)("request id", (it) => {
  it.effect("echoed or generated on every response, in envelopes (also per batch item) and in the log", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const echoed = yield* call("GET", "/v3/connections", { headers: { "x-request-id": "trace-123" } })
      assert.strictEqual(echoed.status, 401)
      assert.strictEqual(echoed.headers["x-request-id"], "trace-123")
      assert.strictEqual(echoed.json.errors[0].meta.debug.requestId, "trace-123")
      const generated = yield* call("GET", "/v3/compatible-vehicles")
      assert.match(generated.headers["x-request-id"]!, /^req-5-\d+$/)
      const token = yield* call("POST", "/oauth/token", { headers: { authorization: yield* basic }, form: { grant_type: "client_credentials" } })
      assert.match(token.headers["x-request-id"]!, /^req-5-\d+$/)
      const user = yield* userTokens({ scope: "read_odometer" })
      const vehicle = sim.data.vehiclesOf(sim.data.users[0]!.id)[0]!
      const batch = yield* call("POST", `/v2.0/vehicles/${vehicle}/batch`, {
        headers: { ...bearer(user.access), "x-request-id": "batch-1" },
        json: { requests: [{ path: "/odometer" }, { path: "/vin" }] }
      })
      assert.strictEqual(batch.status, 200, JSON.stringify(batch.json))
      assert.strictEqual(batch.json.responses[1].code, 403)
      assert.strictEqual(batch.json.responses[1].body.errors[0].meta.debug.requestId, "batch-1")
      const log = yield* sim.requests
      assert.isTrue(log.some((entry) => entry.requestId === "trace-123" && entry.status === 401))
    }))
})

layer(Loopback)("client errors", (it) => {
  it.effect("oversized headers are 431 VALIDATION with their own code", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const reply = yield* raw(sim.url, "GET", "/v3/compatible-vehicles", { "x-big": "a".repeat(20_000) })
      assert.strictEqual(reply.status, 431)
      assert.isTrue(isEnvelope(reply.json))
      assert.deepInclude(reply.json.errors[0], { status: "431", type: "VALIDATION", code: "REQUEST_HEADER_FIELDS_TOO_LARGE" })
    }))
})

layer(Loopback)("OpenAPI document", (it) => {
  it.effect("declares bearer and basic security", () =>
    Effect.gen(function*() {
      const doc = (yield* call("GET", "/openapi.json")).json
      assert.deepStrictEqual(Object.keys(doc.components.securitySchemes).sort(), ["basicAuth", "bearerAuth"])
      assert.strictEqual(doc.components.securitySchemes.bearerAuth.scheme, "bearer")
      assert.deepStrictEqual(doc.paths["/v3/connections"].get.security, [{ bearerAuth: [] }])
      assert.deepStrictEqual(doc.paths["/v2.0/vehicles"].get.security, [{ bearerAuth: [] }])
      assert.deepStrictEqual(doc.paths["/oauth/token"].post.security, [{ basicAuth: [] }])
      assert.deepStrictEqual(doc.paths["/v3/compatible-vehicles"].get.security, [])
      const params = doc.paths["/v3/connections"].get.parameters as Array<{ name: string }>
      assert.isFalse(params.some((p) => p.name === "authorization"))
    }))
})

layer(Loopback)("faults over HTTP", (it) => {
  it.effect("x-simulator-fault with times=N and a key: N faults, then the real answer", () =>
    Effect.gen(function*() {
      const headers = { "x-simulator-fault": "status=500;times=2", "x-simulator-fault-key": "run-1" }
      const statuses: Array<number> = []
      for (let i = 0; i < 4; i++) statuses.push((yield* call("GET", "/v3/compatible-vehicles", { headers })).status)
      assert.deepStrictEqual(statuses, [500, 500, 200, 200])
      const other = yield* call("GET", "/v3/compatible-vehicles", { headers: { ...headers, "x-simulator-fault-key": "run-2" } })
      assert.strictEqual(other.status, 500)
      const unkeyed = yield* call("GET", "/v3/compatible-vehicles", { headers: { "x-simulator-fault": "status=500;times=2" } })
      assert.strictEqual(unkeyed.status, 400)
    }))

  it.effect("Retry-After must be delta-seconds or an HTTP-date; 429 under /oauth is temporarily_unavailable", () =>
    Effect.gen(function*() {
      const bad = yield* call("GET", "/v3/compatible-vehicles", { headers: { "x-simulator-fault": "status=429;retry-after=abc" } })
      assert.strictEqual(bad.status, 400)
      assert.match(bad.json.errors[0].detail, /retry-after/)
      const seconds = yield* call("GET", "/v3/compatible-vehicles", { headers: { "x-simulator-fault": "status=429;retry-after=3" } })
      assert.strictEqual(seconds.status, 429)
      assert.strictEqual(seconds.headers["retry-after"], "3")
      const date = "Wed, 21 Oct 2026 07:28:00 GMT"
      const dated = yield* call("GET", "/v3/compatible-vehicles", { headers: { "x-simulator-fault": `status=429;retry-after=${date}` } })
      assert.strictEqual(dated.headers["retry-after"], date)
      const oauth = yield* call("POST", "/oauth/token", { headers: { "x-simulator-fault": "429" }, form: { grant_type: "client_credentials" } })
      assert.strictEqual(oauth.status, 429)
      assert.strictEqual(oauth.json.error, "temporarily_unavailable")
    }))

  it.effect("malformed-json keeps the status of the real answer", () =>
    Effect.gen(function*() {
      const reply = yield* call("GET", "/nothing", { headers: { "x-simulator-fault": "malformed-json" } })
      assert.strictEqual(reply.status, 404)
      assert.isUndefined(reply.json)
    }))

  it.effect("control routes: scripted faults, the request log, reset", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const queued = yield* call("POST", "/_simulator/faults", {
        json: { path: "/v3/compatible-vehicles", method: "GET", faults: ["status=503;times=2", "drop"] }
      })
      assert.strictEqual(queued.status, 201, JSON.stringify(queued.json))
      assert.strictEqual(queued.json.queued, 3)
      assert.strictEqual((yield* call("GET", "/v3/compatible-vehicles")).status, 503)
      assert.strictEqual((yield* call("GET", "/v3/compatible-vehicles")).status, 503)
      const dropped = yield* Effect.exit(call("GET", "/v3/compatible-vehicles"))
      assert.isTrue(dropped._tag === "Failure")
      assert.strictEqual((yield* call("GET", "/v3/compatible-vehicles")).status, 200)
      const invalid = yield* call("POST", "/_simulator/faults", { json: { faults: ["explode"] } })
      assert.strictEqual(invalid.status, 400)
      const log = yield* call("GET", "/_simulator/requests")
      assert.isTrue(log.json.requests.some((e: any) => e.path === "/v3/compatible-vehicles" && e.status === 503))
      assert.isFalse(log.json.requests.some((e: any) => e.path.startsWith("/_simulator")))
      assert.strictEqual((yield* call("POST", "/_simulator/reset")).status, 204)
      assert.deepStrictEqual((yield* call("GET", "/_simulator/requests")).json.requests, [])
      assert.deepStrictEqual(yield* sim.requests, [])
    }))

  it.effect("control routes: times=1000000 on many faults is kept as one entry each; past FAULT_RULE_LIMIT pending rules, 409", () =>
    Effect.gen(function*() {
      const before = process.memoryUsage().heapUsed
      // 200 faults of a million each: 200,000,000 requests' worth, a few entries
      const big = yield* call("POST", "/_simulator/faults", {
        json: { path: "/v3/never-asked", faults: Array.from({ length: 200 }, () => "status=503;times=1000000") }
      })
      assert.strictEqual(big.status, 201, JSON.stringify(big.json))
      assert.strictEqual(big.json.queued, 200_000_000)
      assert.isBelow(process.memoryUsage().heapUsed - before, 64 * 1024 * 1024)
      // a rule of times=2 then another fault, consumed in order, then gone
      yield* call("POST", "/_simulator/faults", { json: { path: "/v3/compatible-vehicles", faults: ["status=502;times=2", "status=504"] } })
      const statuses: Array<number> = []
      for (let i = 0; i < 4; i++) statuses.push((yield* call("GET", "/v3/compatible-vehicles")).status)
      assert.deepStrictEqual(statuses, [502, 502, 504, 200])
      for (let i = 1; i < FAULT_RULE_LIMIT; i++) {
        const one = yield* call("POST", "/_simulator/faults", { json: { path: "/v3/never-asked", faults: ["drop"] } })
        if (one.status !== 201) assert.fail(`rule ${i}: ${one.status}`)
      }
      const refused = yield* call("POST", "/_simulator/faults", { json: { path: "/v3/never-asked", faults: ["drop"] } })
      assert.strictEqual(refused.status, 409)
      assert.isTrue(isEnvelope(refused.json), JSON.stringify(refused.json))
      assert.include(refused.json.detail ?? JSON.stringify(refused.json), "fault rules are pending")
      assert.strictEqual((yield* call("POST", "/_simulator/reset")).status, 204)
      assert.strictEqual((yield* call("POST", "/_simulator/faults", { json: { path: "/v3/never-asked", faults: ["drop"] } })).status, 201)
      yield* call("POST", "/_simulator/reset")
    }))
})

layer(Loopback)("query and body limits", (it) => {
  it.effect("unknown or empty list parameters are 400 VALIDATION naming the key", () =>
    Effect.gen(function*() {
      const token = yield* appToken
      const enabled = yield* call("GET", "/v3/subscriptions?filter[enabled]=true", { headers: bearer(token) })
      assert.strictEqual(enabled.status, 400)
      assert.strictEqual(enabled.json.errors[0].type, "VALIDATION")
      assert.match(enabled.json.errors[0].detail, /filter\[enabled\].*filter\[mode\]/)
      const foo = yield* call("GET", "/v3/connections?filter[foo]=1", { headers: bearer(token) })
      assert.strictEqual(foo.status, 400)
      const empty = yield* call("GET", "/v3/connections?filter[userExternalId]=", { headers: bearer(token) })
      assert.strictEqual(empty.status, 400)
      assert.match(empty.json.errors[0].detail, /filter\[userExternalId\] must not be empty/)
      assert.strictEqual((yield* call("GET", "/v3/subscriptions?filter[mode]=live&page=1", { headers: bearer(token) })).status, 200)
    }))

  it.effect("bodies over 1 MiB are 413; batches take 1..50 paths", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const big = yield* call("POST", "/oauth/token", { headers: { authorization: yield* basic }, body: "a".repeat(2 * 1024 * 1024), contentType: "application/x-www-form-urlencoded" })
      assert.strictEqual(big.status, 413)
      assert.isTrue(isOAuthBody(big.json))
      const user = (yield* userTokens()).access
      const vehicle = sim.data.vehiclesOf(sim.data.users[0]!.id)[0]!
      const many = yield* call("POST", `/v2.0/vehicles/${vehicle}/batch`, {
        headers: bearer(user),
        json: { requests: Array.from({ length: 51 }, () => ({ path: "/odometer" })) }
      })
      assert.strictEqual(many.status, 400)
      assert.match(many.json.errors[0].detail, /at most 50/)
      const none = yield* call("POST", `/v2.0/vehicles/${vehicle}/batch`, { headers: bearer(user), json: { requests: [] } })
      assert.strictEqual(none.status, 400)
      assert.strictEqual(none.json.errors[0].detail, "requests must hold at least one path")
      const huge = yield* call("POST", `/v2.0/vehicles/${vehicle}/batch`, {
        headers: bearer(user),
        body: JSON.stringify({ requests: Array.from({ length: 200_000 }, () => ({ path: "/odometer" })) }),
        contentType: "application/json"
      })
      assert.strictEqual(huge.status, 413)
      assert.isTrue(isEnvelope(huge.json))
      assert.strictEqual(huge.json.errors[0].type, "VALIDATION")
    }))
})

layer(Loopback)("token endpoint", (it) => {
  it.effect("no-store, WWW-Authenticate: Basic on 401, readable form errors; mode=test is simulated", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const ok = yield* call("POST", "/oauth/token", { headers: { authorization: yield* basic }, form: { grant_type: "client_credentials" } })
      assert.strictEqual(ok.headers["cache-control"], "no-store")
      assert.strictEqual(ok.headers["pragma"], "no-cache")
      const unknown = yield* call("POST", "/oauth/token", { headers: { authorization: "Basic eDp5" }, form: { grant_type: "client_credentials" } })
      assert.strictEqual(unknown.status, 401)
      assert.match(unknown.headers["www-authenticate"]!, /^Basic/)
      assert.strictEqual(unknown.headers["cache-control"], "no-store")
      const empty = yield* call("POST", "/oauth/token", { headers: { authorization: yield* basic }, body: "", contentType: "application/x-www-form-urlencoded" })
      assert.strictEqual(empty.status, 400)
      assert.match(empty.json.error_description, /grant_type is required; accepted: authorization_code, refresh_token, client_credentials/)
      const noCode = yield* call("POST", "/oauth/token", { headers: { authorization: yield* basic }, form: { grant_type: "authorization_code" } })
      assert.match(noCode.json.error_description, /requires code and redirect_uri/)
      const query = new URLSearchParams({ response_type: "code", client_id: sim.clientId, redirect_uri: "https://app.example/cb", mode: "test" })
      assert.strictEqual((yield* call("GET", `/oauth/authorize?${query}`)).status, 302)
    }))
})

describe("token sweeping", () => {
  it.effect("expired tokens are swept in bulk and still answer \"expired\"", () =>
    Effect.gen(function*() {
      const token = yield* appToken
      const list = () => call("GET", "/v3/connections", { headers: bearer(token) })
      yield* TestClock.adjust("7201 seconds")
      yield* appToken // issuing sweeps the expired one
      for (let i = 0; i < 2; i++) {
        const reply = yield* list()
        assert.strictEqual(reply.status, 401)
        assert.strictEqual(reply.json.errors[0].detail, "The access token expired")
      }
    }).pipe(Effect.provide(Loopback)))
})

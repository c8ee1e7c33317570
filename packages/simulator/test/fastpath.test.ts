/**
 * The loopback server answers the plain successful hot reads (v3 signals list
 * and get, the legacy v2.0 reads) on a fast path in front of the full
 * application (`internal/fastPath`). Over loopback, each answer is compared
 * with the full application's answer to the same request (sent with
 * `x-simulator-fault: delay=0`, which the fast path declines): the same
 * status, the same headers in the same order (but `Date`) and the same bytes.
 * That the fast path served the plain request is seen from Node's
 * `writeHead`, which it calls with a raw header list.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { request, ServerResponse } from "node:http"
import { ServiceApi } from "@connected-vehicle/schema/Api"
import { LegacyEndpoints } from "@connected-vehicle/schema/Legacy"
import { matchRoute, paramPattern, routes } from "../src/internal/fastPath.ts"
import * as RouteMatch from "../src/internal/routeMatch.ts"
import { layer as simulatorLayer, layerRoots, Simulator, SimulatorRoots } from "../src/Simulator.ts"
import { LOG_LIMIT, State } from "../src/State.ts"
import { appToken, bearer, call, defaultAppToken, userTokens } from "./helpers.ts"
import type { RawResponse } from "./raw.ts"
import { openRaw, rawRequest } from "./raw.ts"

interface Raw {
  readonly status: number
  readonly headers: ReadonlyArray<string>
  readonly body: string
  /** Whether the server called `writeHead` with a raw header list (the fast path). */
  readonly fast: boolean
}

/** How the last response was written: `writeHead` with an array of headers is the fast path's. */
let lastWriteHeadRaw = false
const writeHead = ServerResponse.prototype.writeHead
ServerResponse.prototype.writeHead = function(this: ServerResponse, ...args: Array<any>) {
  lastWriteHeadRaw = args.some((a) => Array.isArray(a))
  return (writeHead as any).apply(this, args)
} as any

const get = (origin: string, path: string, headers: Record<string, string>) =>
  Effect.promise(() =>
    new Promise<Raw>((resolve, reject) => {
      const url = new URL(origin)
      lastWriteHeadRaw = false
      const req = request({ host: url.hostname, port: url.port, path, headers }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          const raw: Array<string> = []
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            if (res.rawHeaders[i] !== "Date") raw.push(res.rawHeaders[i]!, res.rawHeaders[i + 1]!)
          }
          resolve({ status: res.statusCode ?? 0, headers: raw, body: Buffer.concat(chunks).toString(), fast: lastWriteHeadRaw })
        })
      })
      req.on("error", reject)
      req.end()
    })
  )

/** The value of `name` in a raw header list (names as sent, compared in lower case). */
const headerOf = (raw: ReadonlyArray<string>, name: string): string | undefined => {
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) return raw[i + 1]
  return undefined
}

/** The plain request (fast path) and the same through the full application: equal answers. */
const sameAnswer = (origin: string, path: string, headers: Record<string, string>, status = 200) =>
  Effect.gen(function*() {
    const fast = yield* get(origin, path, { ...headers, "x-request-id": "trace-fast" })
    const full = yield* get(origin, path, { ...headers, "x-request-id": "trace-fast", "x-simulator-fault": "delay=0" })
    assert.strictEqual(fast.status, status, `${path}: ${fast.body}`)
    assert.strictEqual(fast.fast, status === 200, `${path}: served by the fast path`)
    assert.isFalse(full.fast, `${path}: the full application`)
    assert.deepStrictEqual(fast.headers, full.headers, path)
    assert.strictEqual(fast.body, full.body, path)
    // the request id under both names
    assert.strictEqual(headerOf(fast.headers, "x-request-id"), "trace-fast", path)
    assert.strictEqual(headerOf(fast.headers, "sc-request-id"), "trace-fast", path)
    return fast
  })

const Loopback = Layer.mergeAll(simulatorLayer({ seed: 21, connections: 30, vehicles: 30, users: 6 }), FetchHttpClient.layer)

layer(Loopback)("fast path", (it) => {
  it.effect("v3 signals list and get: the full application's status, headers and bytes", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      for (const vehicleId of sim.data.vehicleIds.slice(0, 6)) {
        const headers = { ...bearer(token), "sc-user-id": sim.data.connectionOf(vehicleId)!.userId }
        yield* sameAnswer(sim.url, `/v3/vehicles/${vehicleId}/signals`, headers)
        for (const code of sim.data.vehicle(vehicleId)!.signalCodes.slice(0, 4)) {
          yield* sameAnswer(sim.url, `/v3/vehicles/${vehicleId}/signals/${code}`, headers)
        }
      }
      // a reading set through the control surface, on both paths
      const vehicleId = sim.data.vehicleIds[0]!
      const headers = { ...bearer(token), "sc-user-id": sim.data.connectionOf(vehicleId)!.userId }
      yield* sim.setSignal(vehicleId, "odometer-traveleddistance", { unit: "km", value: 4321 })
      const list = yield* sameAnswer(sim.url, `/v3/vehicles/${vehicleId}/signals`, headers)
      assert.include(list.body, "\"body\":{\"unit\":\"km\",\"value\":4321}")
      yield* sameAnswer(sim.url, `/v3/vehicles/${vehicleId}/signals/odometer-traveleddistance`, headers)
      // declined: another user's vehicle, a query, an upper-case spelling
      const other = sim.data.connectionOf(sim.data.vehicleIds[1]!)!.userId
      yield* sameAnswer(sim.url, `/v3/vehicles/${vehicleId}/signals`, { ...bearer(token), "sc-user-id": other }, 403)
      assert.isFalse((yield* get(sim.url, `/v3/vehicles/${vehicleId}/signals?pageSize=3`, headers)).fast)
      const upper = yield* get(sim.url, `/V3/vehicles/${vehicleId}/signals`, headers)
      assert.strictEqual(upper.status, 200)
      assert.isFalse(upper.fast)
      yield* sim.reset
    }))

  it.effect("legacy reads in both unit systems, the deprecation headers, the request log", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicles = sim.data.vehicleIds.slice(0, sim.data.connectionCount).map((id) => sim.data.vehicle(id)!)
      const supported = vehicles.find((v) => v.supportsServiceHistory)!
      for (const v of [vehicles[0]!, supported]) {
        const userId = sim.data.connectionOf(v.id)!.userId
        const headers = bearer((yield* userTokens({ userId })).access)
        const reads = ["/odometer", "/location", "/vin", "/engine/oil", "/tires/pressure"]
        if (v.supportsServiceHistory) reads.push("/service/history")
        for (const read of reads) {
          for (const unit of [{}, { "sc-unit-system": "metric" }, { "sc-unit-system": "imperial" }]) {
            const answer = yield* sameAnswer(sim.url, `/v2.0/vehicles/${v.id}${read}`, { ...headers, ...unit })
            assert.include(answer.headers, "deprecation")
          }
        }
        // just answered in this clock millisecond (TestClock), and still checked per request:
        // no permission for the read, or another user's vehicle, is the full application's 403
        const narrow = bearer((yield* userTokens({ userId, scope: "read_vin" })).access)
        yield* sameAnswer(sim.url, `/v2.0/vehicles/${v.id}/odometer`, narrow, 403)
        const stranger = vehicles.map((o) => sim.data.connectionOf(o.id)!.userId).find((u) => u !== userId)!
        const foreign = bearer((yield* userTokens({ userId: stranger })).access)
        yield* sameAnswer(sim.url, `/v2.0/vehicles/${v.id}/odometer`, foreign, 403)
      }
      yield* sim.resetLog
      const v = vehicles[0]!
      const headers = bearer((yield* userTokens({ userId: sim.data.connectionOf(v.id)!.userId })).access)
      yield* sim.resetLog
      const served = yield* get(sim.url, `/v2.0/vehicles/${v.id}/odometer`, headers)
      assert.isTrue(served.fast)
      const [entry] = yield* sim.requests
      assert.strictEqual(entry!.status, 200)
      assert.strictEqual(entry!.method, "GET")
      assert.strictEqual(entry!.path, `/v2.0/vehicles/${v.id}/odometer`)
      assert.strictEqual(entry!.query, "")
      assert.strictEqual(entry!.headers["authorization"], "<redacted>")
      assert.strictEqual(entry!.requestId, served.headers[served.headers.indexOf("x-request-id") + 1])
    }))

  it.effect("hot reads after an Upgrade in the same write (raw socket): the same answers as the full application's", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[3]!
      const v = sim.data.vehicle(vehicleId)!
      const app = { ...bearer(yield* appToken), "sc-user-id": sim.data.connectionOf(vehicleId)!.userId }
      const user = bearer((yield* userTokens({ userId: sim.data.connectionOf(vehicleId)!.userId })).access)
      const reads = [
        { path: `/v3/vehicles/${vehicleId}/signals`, headers: app },
        { path: `/v3/vehicles/${vehicleId}/signals/${v.signalCodes[0]}`, headers: app },
        { path: `/v2.0/vehicles/${vehicleId}/odometer`, headers: user }
      ]
      const upgrade = { connection: "Upgrade", upgrade: "websocket", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" }
      /** The read with `Upgrade`, then the plain read, in one write; each answer without its `Date`. */
      const pair = (path: string, headers: Record<string, string>, extra: Record<string, string>) =>
        Effect.promise(async () => {
          const connection = await openRaw(sim.url)
          connection.send(Buffer.concat([
            rawRequest("GET", path, { ...headers, ...extra, ...upgrade, "x-request-id": "trace-up" }),
            rawRequest("GET", path, { ...headers, ...extra, "x-request-id": "trace-plain" })
          ]))
          const answers = [await connection.next(), await connection.next()]
          connection.socket.destroy()
          return answers.map(({ headers: { date: _, ...rest }, ...response }): RawResponse => ({ ...response, headers: rest }))
        })
      for (const { headers, path } of reads) {
        const fast = yield* pair(path, headers, {})
        const full = yield* pair(path, headers, { "x-simulator-fault": "delay=0" })
        assert.deepStrictEqual(fast.map((a) => a.status), [200, 200], path)
        assert.deepStrictEqual(fast, full, path)
      }
    }))

  it.effect("every route at the contract's path: the fast path's answer, the full application's bytes", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicles = sim.data.vehicleIds.slice(0, sim.data.connectionCount).map((id) => sim.data.vehicle(id)!)
      const v = vehicles.find((v) => v.supportsServiceHistory)!
      const userId = sim.data.connectionOf(v.id)!.userId
      const app = { ...bearer(yield* appToken), "sc-user-id": userId }
      const user = bearer((yield* userTokens({ userId })).access)
      for (const route of routes) {
        const path = fill(route.path, { vehicleId: v.id, id: v.id, signalCode: v.signalCodes[0]! })
        yield* sameAnswer(sim.url, path, route.group === "signals" ? app : user)
      }
    }))

  it.effect("a scripted fault and a bad token still reach the full application", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[2]!
      const headers = { ...bearer(yield* appToken), "sc-user-id": sim.data.connectionOf(vehicleId)!.userId }
      yield* sim.injectFaults({ path: `/v3/vehicles/${vehicleId}/signals`, faults: [{ _tag: "Status", status: 503 }] })
      assert.strictEqual((yield* get(sim.url, `/v3/vehicles/${vehicleId}/signals`, headers)).status, 503)
      assert.isTrue((yield* get(sim.url, `/v3/vehicles/${vehicleId}/signals`, headers)).fast)
      const bad = yield* call("GET", `/v3/vehicles/${vehicleId}/signals`, { headers: { ...headers, authorization: "Bearer nope" } })
      assert.strictEqual(bad.status, 401)
    }))
})

/** The endpoints the fast path answers: the v3 signal list and get, and every legacy read. */
const hotEndpoints = [
  ["signals", "list"],
  ["signals", "get"],
  ["legacy", "odometer"],
  ["legacy", "location"],
  ["legacy", "vin"],
  ["legacy", "engineOil"],
  ["legacy", "tirePressure"],
  ["legacy", "serviceHistory"]
] as const

const contractEndpoint = ([group, endpoint]: (typeof hotEndpoints)[number]) =>
  (ServiceApi.groups[group].endpoints as Record<string, { readonly path: string; readonly method: string }>)[endpoint]!

/** A contract path template with its parameters filled in. */
const fill = (path: string, params: Record<string, string>) => path.replace(/:(\w+)/g, (_, name: string) => params[name]!)

describe("fast path routes", () => {
  it("are the contract's paths of exactly the hot endpoints (GETs), and every legacy read", () => {
    assert.deepStrictEqual(
      routes.map((route) => [route.group, route.endpoint, route.path]),
      hotEndpoints.map((key) => [...key, contractEndpoint(key).path])
    )
    for (const key of hotEndpoints) assert.strictEqual(contractEndpoint(key).method, "GET", key.join("."))
    assert.sameMembers(routes.flatMap((route) => route.group === "legacy" ? [route.read] : []), Object.keys(LegacyEndpoints))
  })

  it("match the contract's paths filled with the simulator's ids, and nothing else", () => {
    const id = "0f8fad5b-d9cb-469f-a165-70867728950e"
    const params = { vehicleId: id, id, signalCode: "odometer-traveleddistance" }
    for (const route of routes) {
      const path = fill(route.path, params)
      const matched = matchRoute(path)
      assert.strictEqual(matched?.route, route, path)
      for (const name of route.path.match(/(?<=:)\w+/g)!) {
        assert.strictEqual(matched!.params[name], params[name as keyof typeof params], `${path} :${name}`)
      }
      for (const other of [path.toUpperCase(), `${path}/`, `${path}/x/y`, `${path}?page=1`, path.replace(id, "not-an-id")]) {
        assert.isUndefined(matchRoute(other), other)
      }
    }
    assert.isUndefined(matchRoute(fill(ServiceApi.groups.legacy.endpoints.batch.path, params)))
    assert.isUndefined(matchRoute(ServiceApi.groups.legacy.endpoints.vehicles.path))
  })

  it("compile: a shared prefix is matched once; a route given twice or an unknown parameter is a defect", () => {
    const match = RouteMatch.compile(
      [{ path: "/a/:x" }, { path: "/a/:x/b" }, { path: "/a/:y/c/:z" }, { path: "/d.e" }],
      () => "[a-z]+"
    )
    assert.deepStrictEqual(match("/a/q"), { route: { path: "/a/:x" }, params: { x: "q" } })
    assert.deepStrictEqual(match("/a/q/b"), { route: { path: "/a/:x/b" }, params: { x: "q" } })
    assert.deepStrictEqual(match("/a/q/c/r"), { route: { path: "/a/:y/c/:z" }, params: { y: "q", z: "r" } })
    assert.isDefined(match("/d.e"))
    assert.isUndefined(match("/dxe"))
    assert.isUndefined(RouteMatch.compile([], () => "")(""))
    assert.throws(() => RouteMatch.compile([{ path: "/a" }, { path: "/a" }], () => ""), /given twice/)
    assert.throws(() => paramPattern("other"), /no pattern for the path parameter :other/)
  })
})

layer(Layer.mergeAll(layerRoots({ seed: 3 }), FetchHttpClient.layer))("fast path on separate roots", (it) => {
  it.effect("a hot read on another root's port is that root's 404", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const roots = yield* SimulatorRoots
      const vehicleId = sim.data.vehicleIds[0]!
      const token = yield* defaultAppToken(`${roots.authorization}/oauth/token`)
      const headers = { ...bearer(token), "sc-user-id": sim.data.connectionOf(vehicleId)!.userId }
      yield* sameAnswer(roots.vehicle, `/v3/vehicles/${vehicleId}/signals`, headers)
      const elsewhere = yield* get(roots.legacy, `/v3/vehicles/${vehicleId}/signals`, headers)
      assert.strictEqual(elsewhere.status, 404)
      assert.isFalse(elsewhere.fast)
    }))
})

describe("request log ring with answered requests", () => {
  it("reuses the slots of answered requests only; generated ids read as req-<seed>-<n>", () => {
    const state = new State({ now: () => 0, seed: 9, failureRate: 0 })
    const headers = { host: "127.0.0.1", authorization: "Bearer secret" }
    // one request still in flight, then a whole ring of answered ones and a little more
    const inFlight = state.record("GET", "/slow", headers, state.nextRequestId())
    for (let i = 0; i < LOG_LIMIT + 5; i++) {
      state.recordAnswered("GET", `/fast?i=${i}`, headers, i % 2 === 0 ? state.nextRequestNumber() : `own-${i}`, 200)
    }
    inFlight.status = 503 // the slow request ends after its slot left the ring: no other entry changes
    const log = state.requests()
    assert.strictEqual(log.length, LOG_LIMIT)
    assert.strictEqual(log[0]!.query, "i=5")
    assert.strictEqual(log.at(-1)!.query, `i=${LOG_LIMIT + 4}`)
    assert.isTrue(log.every((e) => e.status === 200 && e.path === "/fast"))
    assert.strictEqual(log.at(-1)!.requestId, `req-9-${(LOG_LIMIT + 4) / 2 + 2}`)
    assert.strictEqual(log.at(-2)!.requestId, `own-${LOG_LIMIT + 3}`)
    assert.strictEqual(log[0]!.headers["authorization"], "<redacted>")
    // a fresh request after the ring wrapped gets its own slot
    const next = state.record("GET", "/slow-again", headers, "r")
    next.status = 201
    assert.deepStrictEqual(state.requests().at(-1)!.status, 201)
    assert.strictEqual(state.requests().at(-2)!.query, `i=${LOG_LIMIT + 4}`)
  })
})

/**
 * Request limits and usage counters over loopback, under `TestClock` (the
 * fixed windows follow `TestClock.adjust`; the HTTP is real): the 429 with
 * the envelope and `retry-after`, on the fast path (plain reads, seen from
 * Node's raw `writeHead`) and the full application (the same reads with
 * `x-simulator-fault: delay=0`), the legacy batch charged per entry, the
 * application limit, the token grants, and the control routes.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { request, ServerResponse } from "node:http"
import {
  APPLICATION_RATE_LIMITED,
  DEFAULT_COUNT_WINDOW,
  MAX_WINDOW,
  RateLimitConfigError,
  VEHICLE_RATE_LIMITED
} from "../src/RateLimit.ts"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { RateLimitOptions, UsageSnapshot } from "../src/RateLimit.ts"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { retryAfterValue } from "../src/internal/limits.ts"
import { appToken, basic, bearer, call, isEnvelope, userTokens } from "./helpers.ts"

let lastWriteHeadRaw = false
const writeHead = ServerResponse.prototype.writeHead
ServerResponse.prototype.writeHead = function(this: ServerResponse, ...args: Array<any>) {
  lastWriteHeadRaw = args.some((a) => Array.isArray(a))
  return (writeHead as any).apply(this, args)
} as any

interface Raw {
  readonly status: number
  readonly retryAfter: string | undefined
  readonly json: any
  readonly fast: boolean
}

/** A raw GET over loopback; `fast` tells whether the fast path wrote the answer. */
const get = (origin: string, path: string, headers: Record<string, string>) =>
  Effect.promise(() =>
    new Promise<Raw>((resolve, reject) => {
      const url = new URL(origin)
      lastWriteHeadRaw = false
      const req = request({ host: url.hostname, port: url.port, path, headers }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers["retry-after"],
            json: JSON.parse(Buffer.concat(chunks).toString()),
            fast: lastWriteHeadRaw
          }))
      })
      req.on("error", reject)
      req.end()
    })
  )

const Loopback = (rateLimit?: RateLimitOptions) =>
  Layer.mergeAll(
    simulatorLayer({ seed: 5, vehicles: 12, connections: 12, users: 4, ...(rateLimit === undefined ? {} : { rateLimit }) }),
    FetchHttpClient.layer
  )

const full = { "x-simulator-fault": "delay=0" }

const assertLimited = (reply: Raw, code: string, retryAfter: string) => {
  assert.strictEqual(reply.status, 429)
  assert.isFalse(reply.fast)
  assert.strictEqual(reply.retryAfter, retryAfter)
  assert.isTrue(isEnvelope(reply.json))
  const [item] = reply.json.errors
  assert.strictEqual(item.type, "RATE_LIMIT")
  assert.strictEqual(item.code, code)
  assert.strictEqual(item.status, "429")
  assert.strictEqual(item.resolution.type, "RETRY_LATER")
}

const usageOf = (usage: UsageSnapshot, vehicleId: string) => usage.vehicles.find((v) => v.vehicleId === vehicleId)

describe("request limits", () => {
  it.effect("per vehicle: fast path and full application share one fixed window; 429 with retry-after", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const [a, b] = sim.data.vehicleIds
      const headersOf = (id: string) => ({ ...bearer(token), "sc-user-id": sim.data.connectionOf(id)!.userId })
      const signals = (id: string) => `/v3/vehicles/${id}/signals`
      // two on the fast path, one through the full application: the limit (3) is reached
      assert.isTrue((yield* get(sim.url, signals(a!), headersOf(a!))).fast)
      assert.isTrue((yield* get(sim.url, `${signals(a!)}/odometer-traveleddistance`, headersOf(a!))).fast)
      const third = yield* get(sim.url, signals(a!), { ...headersOf(a!), ...full })
      assert.deepStrictEqual([third.status, third.fast], [200, false])
      // the plain request the fast path would serve is refused (by the full application), and so is the full one
      assertLimited(yield* get(sim.url, signals(a!), headersOf(a!)), VEHICLE_RATE_LIMITED, "10")
      yield* TestClock.adjust("4 seconds")
      assertLimited(yield* get(sim.url, signals(a!), { ...headersOf(a!), ...full }), VEHICLE_RATE_LIMITED, "6")
      // another vehicle has its own window
      assert.strictEqual((yield* get(sim.url, signals(b!), headersOf(b!))).status, 200)
      yield* TestClock.adjust("6 seconds")
      const again = yield* get(sim.url, signals(a!), headersOf(a!))
      assert.deepStrictEqual([again.status, again.fast], [200, true])
      const usage = yield* sim.usage
      assert.deepStrictEqual(usageOf(usage, a!), { vehicleId: a!, accepted: 4, limited: 2, maxInWindow: 3 })
      assert.deepStrictEqual(usageOf(usage, b!), { vehicleId: b!, accepted: 1, limited: 0, maxInWindow: 1 })
      assert.deepStrictEqual(usage.application, { accepted: 5, limited: 2, maxInWindow: 3 })
      assert.strictEqual(usage.limits.perVehicle?.limit, 3)
      assert.isTrue(Duration.equals(usage.limits.perVehicle!.window, Duration.seconds(10)))
      assert.isNull(usage.limits.perApplication)
    }).pipe(Effect.provide(Loopback({ perVehicle: { limit: 3, window: "10 seconds" } }))))

  it.effect("legacy: a read on the fast path counts one, a batch one per entry (refused whole)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[0]!
      const headers = bearer((yield* userTokens({ userId: sim.data.connectionOf(vehicleId)!.userId })).access)
      assert.isTrue((yield* get(sim.url, `/v2.0/vehicles/${vehicleId}/odometer`, headers)).fast)
      const batch = (paths: ReadonlyArray<string>) =>
        call("POST", `/v2.0/vehicles/${vehicleId}/batch`, { headers, json: { requests: paths.map((path) => ({ path })) } })
      assert.strictEqual((yield* batch(["/odometer", "/vin", "/location"])).status, 200)
      const refused = yield* batch(["/odometer", "/vin"])
      assert.strictEqual(refused.status, 429)
      assert.strictEqual(refused.headers["retry-after"], "1")
      assert.strictEqual(refused.json.errors[0].code, VEHICLE_RATE_LIMITED)
      assert.strictEqual(refused.headers["deprecation"] !== undefined, true)
      assert.strictEqual((yield* batch(["/odometer"])).status, 200)
      const usage = usageOf(yield* sim.usage, vehicleId)
      assert.deepStrictEqual(usage, { vehicleId, accepted: 5, limited: 2, maxInWindow: 5 })
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* batch(["/odometer", "/vin"])).status, 200)
      // more entries than the whole limit never fit: 400, not a 429 no wait satisfies; nothing counted
      yield* TestClock.adjust("1 second")
      const tooBig = yield* batch(["/odometer", "/vin", "/location", "/odometer", "/vin", "/location"])
      assert.strictEqual(tooBig.status, 400, tooBig.text)
      assert.strictEqual(tooBig.json.errors[0].type, "VALIDATION")
      assert.strictEqual(tooBig.json.errors[0].detail, "a batch of 6 requests exceeds the per-vehicle limit of 5")
      assert.isUndefined(tooBig.headers["retry-after"])
      assert.deepStrictEqual(usageOf(yield* sim.usage, vehicleId), { vehicleId, accepted: 7, limited: 2, maxInWindow: 5 })
      assert.strictEqual((yield* batch(["/odometer", "/vin", "/location", "/odometer", "/vin"])).status, 200)
    }).pipe(Effect.provide(Loopback({ perVehicle: { limit: 5, window: 1000 } }))))

  it.effect("per application: every authenticated request counts once; the token endpoint and unauthenticated requests do not", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const [a, b] = sim.data.vehicleIds
      const headersOf = (id: string) => ({ ...bearer(token), "sc-user-id": sim.data.connectionOf(id)!.userId })
      assert.strictEqual((yield* call("GET", `/v3/vehicles/${a}/signals`)).status, 401)
      assert.strictEqual((yield* get(sim.url, `/v3/vehicles/${a}/signals`, headersOf(a!))).status, 200)
      assert.strictEqual((yield* call("GET", "/v3/webhooks", { headers: bearer(token) })).status, 200)
      assertLimited(yield* get(sim.url, `/v3/vehicles/${b}/signals`, headersOf(b!)), APPLICATION_RATE_LIMITED, "60")
      const usage = yield* sim.usage
      assert.deepStrictEqual(usage.application, { accepted: 2, limited: 1, maxInWindow: 2 })
      assert.deepStrictEqual(usageOf(usage, b!), { vehicleId: b!, accepted: 0, limited: 1, maxInWindow: 0 })
      assert.strictEqual(usage.tokenGrants.clientCredentials, 1)
    }).pipe(Effect.provide(Loopback({ perApplication: { limit: 2, window: "1 minute" } }))))

  it.effect("counters without limits; token grants by type; reset", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      yield* appToken
      const user = yield* userTokens({ userId: sim.data.connectionOf(sim.data.vehicleIds[0]!)!.userId })
      const refreshed = yield* call("POST", "/oauth/token", {
        headers: { authorization: yield* basic },
        form: { grant_type: "refresh_token", refresh_token: user.refresh }
      })
      assert.strictEqual(refreshed.status, 200)
      const replayed = yield* call("POST", "/oauth/token", {
        headers: { authorization: yield* basic },
        form: { grant_type: "refresh_token", refresh_token: user.refresh }
      })
      assert.strictEqual(replayed.status, 400)
      const vehicleId = sim.data.vehicleIds[1]!
      const headers = { ...bearer(token), "sc-user-id": sim.data.connectionOf(vehicleId)!.userId }
      for (let i = 0; i < 7; i++) assert.strictEqual((yield* get(sim.url, `/v3/vehicles/${vehicleId}/signals`, headers)).status, 200)
      yield* TestClock.adjust("1 second")
      yield* get(sim.url, `/v3/vehicles/${vehicleId}/signals`, headers)
      const usage = yield* sim.usage
      assert.deepStrictEqual(usage.tokenGrants, { total: 4, authorizationCode: 1, refreshToken: 1, clientCredentials: 2 })
      assert.strictEqual(usage.tokenRequests, 5)
      assert.deepStrictEqual(usage.vehicles, [{ vehicleId, accepted: 8, limited: 0, maxInWindow: 7 }])
      assert.isTrue(Duration.equals(usage.vehicleWindow, Duration.seconds(1)))
      assert.isTrue(Duration.equals(usage.applicationWindow, DEFAULT_COUNT_WINDOW))
      yield* sim.resetUsage
      const after = yield* sim.usage
      assert.deepStrictEqual([after.vehicles, after.tokenGrants.total, after.tokenRequests], [[], 0, 0])
    }).pipe(Effect.provide(Loopback())))

  it.effect("accessTokenLifetime: shorter tokens, each new one a counted grant", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const grant = yield* call("POST", "/oauth/token", {
        headers: { authorization: yield* basic },
        form: { grant_type: "client_credentials" }
      })
      assert.strictEqual(grant.json.expires_in, 30)
      const vehicleId = sim.data.vehicleIds[0]!
      const headers = { ...bearer(grant.json.access_token), "sc-user-id": sim.data.connectionOf(vehicleId)!.userId }
      assert.strictEqual((yield* get(sim.url, `/v3/vehicles/${vehicleId}/signals`, headers)).status, 200)
      yield* TestClock.adjust("30 seconds")
      const expired = yield* get(sim.url, `/v3/vehicles/${vehicleId}/signals`, headers)
      assert.strictEqual(expired.status, 401)
      yield* appToken
      assert.strictEqual((yield* sim.usage).tokenGrants.clientCredentials, 2)
      assert.throws(() => simulatorLayer({ accessTokenLifetime: "1500 millis" }), InvalidArgument)
    }).pipe(Effect.provide(Layer.mergeAll(simulatorLayer({ seed: 5, accessTokenLifetime: "30 seconds" }), FetchHttpClient.layer))))

  it.effect("control routes: PUT/GET rate-limits, GET/DELETE usage; bad limits are refused", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const put = (json: unknown) => call("PUT", "/_simulator/rate-limits", { json })
      const set = yield* put({ perVehicle: { limit: 1, window: "30 seconds" } })
      assert.strictEqual(set.status, 200)
      assert.deepStrictEqual(set.json.limits, { perVehicle: { limit: 1, windowMillis: 30_000 }, perApplication: null })
      const token = yield* appToken
      const vehicleId = sim.data.vehicleIds[2]!
      const headers = { ...bearer(token), "sc-user-id": sim.data.connectionOf(vehicleId)!.userId }
      assert.strictEqual((yield* get(sim.url, `/v3/vehicles/${vehicleId}/signals`, headers)).status, 200)
      assertLimited(yield* get(sim.url, `/v3/vehicles/${vehicleId}/signals`, headers), VEHICLE_RATE_LIMITED, "30")
      const usage = yield* call("GET", "/_simulator/usage")
      assert.deepStrictEqual(usage.json.vehicles, [{ vehicleId, accepted: 1, limited: 1, maxInWindow: 1 }])
      // JSON has no duration: the windows are numbers of milliseconds there, named so
      assert.deepStrictEqual(usage.json.limits, { perVehicle: { limit: 1, windowMillis: 30_000 }, perApplication: null })
      assert.deepStrictEqual([usage.json.vehicleWindowMillis, usage.json.applicationWindowMillis], [30_000, 1_000])
      assert.strictEqual(usage.json.tokenGrants.clientCredentials, 1)
      assert.strictEqual((yield* call("DELETE", "/_simulator/usage")).status, 204)
      assert.deepStrictEqual((yield* call("GET", "/_simulator/usage")).json.vehicles, [])
      for (const bad of [{ perVehicle: { limit: 0, window: 1000 } }, { perApplication: { limit: 2, window: "soon" } }, { perVehicle: 3 }]) {
        const refused = yield* put(bad)
        assert.strictEqual(refused.status, 400, JSON.stringify(bad))
        assert.isTrue(isEnvelope(refused.json))
      }
      assert.strictEqual((yield* put({})).status, 200)
      assert.deepStrictEqual((yield* call("GET", "/_simulator/rate-limits")).json.limits, { perVehicle: null, perApplication: null })
      assert.strictEqual((yield* get(sim.url, `/v3/vehicles/${vehicleId}/signals`, headers)).status, 200)
      const exit = yield* Effect.exit(sim.setRateLimits({ perVehicle: { limit: 1.5, window: "1 second" } }))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      assert.isTrue(error?._tag === "Fail" && error.error instanceof RateLimitConfigError)
    }).pipe(Effect.provide(Loopback())))

  it.effect("changing the limits starts every window afresh: maxInWindow counts the new windows only", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[0]!
      const headers = bearer((yield* userTokens({ userId: sim.data.connectionOf(vehicleId)!.userId })).access)
      const odometer = () => get(sim.url, `/v2.0/vehicles/${vehicleId}/odometer`, headers)
      const six = yield* Effect.all(Array.from({ length: 6 }, odometer), { concurrency: "unbounded" })
      assert.deepStrictEqual(six.map((r) => r.status), [200, 200, 200, 200, 200, 200])
      const before = (yield* call("GET", "/_simulator/usage")).json
      assert.deepStrictEqual(before.vehicles, [{ vehicleId, accepted: 6, limited: 0, maxInWindow: 6 }])
      const set = yield* call("PUT", "/_simulator/rate-limits", { json: { perVehicle: { limit: 3, window: "1 hour" } } })
      assert.strictEqual(set.status, 200)
      assert.strictEqual((yield* odometer()).status, 200)
      const after = (yield* call("GET", "/_simulator/usage")).json
      // the totals stay; the most in one window is of the windows since the change (never above the limit unrefused)
      assert.deepStrictEqual(after.vehicles, [{ vehicleId, accepted: 7, limited: 0, maxInWindow: 1 }])
      assert.deepStrictEqual(after.application, { accepted: 7, limited: 0, maxInWindow: 1 })
      // the new window holds 3: two more, then a 429
      assert.strictEqual((yield* odometer()).status, 200)
      assert.strictEqual((yield* odometer()).status, 200)
      assertLimited(yield* odometer(), VEHICLE_RATE_LIMITED, "3600")
      assert.deepStrictEqual(usageOf(yield* sim.usage, vehicleId), { vehicleId, accepted: 9, limited: 1, maxInWindow: 3 })
      // the in-process setter starts afresh too
      yield* sim.setRateLimits({})
      assert.deepStrictEqual((yield* sim.usage).application, { accepted: 9, limited: 1, maxInWindow: 0 })
    }).pipe(Effect.provide(Loopback())))

  it.effect("a window is at most a day: longer is a 400 naming it (an InvalidArgument in-process); retry-after whole seconds", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const put = (json: unknown) => call("PUT", "/_simulator/rate-limits", { json })
      for (const window of [1e300, Duration.toMillis(MAX_WINDOW) + 1, "2 days"]) {
        const refused = yield* put({ perApplication: { limit: 1, window } })
        assert.strictEqual(refused.status, 400, String(window))
        assert.include(refused.json.errors[0].detail, "perApplication.window", String(window))
        assert.include(refused.json.errors[0].detail, "at most a day", String(window))
      }
      assert.deepStrictEqual((yield* call("GET", "/_simulator/rate-limits")).json.limits, { perVehicle: null, perApplication: null })
      const exit = yield* Effect.exit(sim.setRateLimits({ perVehicle: { limit: 1, window: 1e300 } }))
      assert.isTrue(Exit.isFailure(exit))
      // the longest window: a 429 says when it ends in whole decimal seconds
      const set = yield* put({ perApplication: { limit: 1, window: "1 day" } })
      assert.deepStrictEqual(set.json.limits.perApplication, { limit: 1, windowMillis: 86_400_000 })
      const token = yield* appToken
      const vehicleId = sim.data.vehicleIds[0]!
      const headers = { ...bearer(token), "sc-user-id": sim.data.connectionOf(vehicleId)!.userId }
      yield* TestClock.adjust("1 hour")
      assert.strictEqual((yield* get(sim.url, `/v3/vehicles/${vehicleId}/signals`, headers)).status, 200)
      assertLimited(yield* get(sim.url, `/v3/vehicles/${vehicleId}/signals`, headers), APPLICATION_RATE_LIMITED, "82800")
      for (const [options, field] of [
        [{ perApplication: { limit: 1, window: 1e300 } }, "rateLimit.perApplication"],
        [{ perVehicle: { limit: 1, window: "25 hours" } }, "rateLimit.perVehicle"],
        [{ perVehicle: { limit: 0, window: "1 second" } }, "rateLimit.perVehicle"]
      ] as const) {
        let error: unknown = undefined
        try {
          simulatorLayer({ rateLimit: options })
        } catch (e) {
          error = e
        }
        assert.instanceOf(error, InvalidArgument, field)
        assert.strictEqual((error as InvalidArgument).field, field)
      }
      assert.doesNotThrow(() => simulatorLayer({ rateLimit: { perVehicle: { limit: 1, window: MAX_WINDOW } } }))
      // whatever the seconds, delta-seconds: digits only
      assert.deepStrictEqual([1e297, 0.2, 29.5, Number.NaN].map(retryAfterValue), ["86400", "1", "30", "86400"])
    }).pipe(Effect.provide(Loopback())))
  it.effect("a window is whole milliseconds: 1.5 or \"1.5 millis\" is a 400, a RateLimitConfigError, an InvalidArgument (never floored)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      for (const window of [1.5, "1.5 millis", "1500 micros"] as const) {
        const refused = yield* call("PUT", "/_simulator/rate-limits", { json: { perVehicle: { limit: 1, window } } })
        assert.strictEqual(refused.status, 400, String(window))
        assert.include(refused.json.errors[0].detail, "perVehicle.window", String(window))
        assert.include(refused.json.errors[0].detail, "whole milliseconds", String(window))
        const exit = yield* Effect.exit(sim.setRateLimits({ perApplication: { limit: 1, window } }))
        const reason = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
        assert.isTrue(reason?._tag === "Fail" && reason.error instanceof RateLimitConfigError, String(window))
        let error: unknown = undefined
        try {
          simulatorLayer({ rateLimit: { perVehicle: { limit: 1, window } } })
        } catch (e) {
          error = e
        }
        assert.instanceOf(error, InvalidArgument, String(window))
        assert.strictEqual((error as InvalidArgument).field, "rateLimit.perVehicle")
      }
      assert.deepStrictEqual((yield* call("GET", "/_simulator/rate-limits")).json.limits, { perVehicle: null, perApplication: null })
      const set = yield* call("PUT", "/_simulator/rate-limits", { json: { perVehicle: { limit: 1, window: "2000 micros" } } })
      assert.deepStrictEqual(set.json.limits.perVehicle, { limit: 1, windowMillis: 2 })
    }).pipe(Effect.provide(Loopback())))
})

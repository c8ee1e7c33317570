import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import { FetchHttpClient, HttpServerResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { layer, layerRoots, layerTest, Simulator } from "../src/Simulator.ts"
import type { SimulatorOptions } from "../src/Simulator.ts"
import { DEPRECATION_DATE, deprecationHeaders, guideResponse, isRetired, MIGRATION_GUIDE_PATH, retiredResponse } from "../src/Sunset.ts"
import { appToken, bearer, call, isEnvelope, userTokens } from "./helpers.ts"
import { openRaw, rawRequest } from "./raw.ts"
import type { Reply } from "./helpers.ts"

const loopback = (options: SimulatorOptions = {}) => Layer.mergeAll(layer({ ...options, port: 0 }), FetchHttpClient.layer)

const DEPRECATION_EPOCH = DateTime.toEpochMillis(DEPRECATION_DATE)

/** A removal date given to the simulator (the spec gives none). */
const REMOVAL = "2027-06-01T00:00:00Z"
const REMOVAL_HTTP_DATE = "Tue, 01 Jun 2027 00:00:00 GMT"

/** `Deprecation` and `Link rel="deprecation"`; `Sunset` only with `sunset`. */
const assertDeprecated = (reply: Reply, what: string, sunset?: string) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    assert.strictEqual(reply.headers["deprecation"], "@1796083200", what)
    assert.strictEqual(reply.headers["sunset"], sunset, what)
    assert.strictEqual(reply.headers["link"], `<${sim.url}${MIGRATION_GUIDE_PATH}>; rel="deprecation"; type="text/markdown"`, what)
  })

const assertNotDeprecated = (reply: Reply, what: string) => {
  assert.isUndefined(reply.headers["deprecation"], what)
  assert.isUndefined(reply.headers["sunset"], what)
  assert.isUndefined(reply.headers["link"], what)
}

/** A user with a vehicle whose service history v2.0 refuses (409), and one it answers. */
const owner = Effect.gen(function*() {
  const sim = yield* Simulator
  for (const user of sim.data.users) {
    const vehicles = sim.data.vehiclesOf(user.id).map((id) => sim.data.vehicle(id)!)
    const unsupported = vehicles.find((v) => !v.supportsServiceHistory)
    if (unsupported !== undefined && vehicles.length > 1) return { user, unsupported, vehicles }
  }
  return yield* Effect.die("no suitable user")
})

/** The vehicle list's answers: 200 and its errors. */
const listReplies = (access: string) =>
  Effect.gen(function*() {
    const auth = bearer(access)
    return [
      ["list", yield* call("GET", "/v2.0/vehicles", { headers: auth }), 200],
      ["list paged", yield* call("GET", "/v2.0/vehicles?limit=2&offset=1", { headers: auth }), 200],
      ["list 400", yield* call("GET", "/v2.0/vehicles?limit=99", { headers: auth }), 400],
      ["list 401", yield* call("GET", "/v2.0/vehicles"), 401],
      ["list 401 invalid token", yield* call("GET", "/v2.0/vehicles", { headers: bearer("nope") }), 401],
      ["list 403 app token", yield* call("GET", "/v2.0/vehicles", { headers: bearer(yield* appToken) }), 403]
    ] as const
  })

/** The deprecated endpoints' answers: the reads, the batch, their errors. */
const deprecatedReplies = Effect.gen(function*() {
  const sim = yield* Simulator
  const { unsupported, user, vehicles } = yield* owner
  const auth = bearer((yield* userTokens({ userId: user.id })).access)
  const other = sim.data.vehicleIds.find((id) => sim.data.connectionOf(id)?.userId !== user.id)!
  const replies: Array<readonly [string, Reply, number]> = [
    ["odometer 401", yield* call("GET", `/v2.0/vehicles/${vehicles[0]!.id}/odometer`), 401],
    ["odometer 403 not the user's", yield* call("GET", `/v2.0/vehicles/${other}/odometer`, { headers: auth }), 403],
    ["odometer 404", yield* call("GET", "/v2.0/vehicles/no-such-vehicle/odometer", { headers: auth }), 404],
    ["unknown path 404", yield* call("GET", `/v2.0/vehicles/${unsupported.id}/nothing`, { headers: auth }), 404],
    ["history 409", yield* call("GET", `/v2.0/vehicles/${unsupported.id}/service/history`, { headers: auth }), 409],
    [
      "batch",
      yield* call("POST", `/v2.0/vehicles/${vehicles[0]!.id}/batch`, {
        headers: auth,
        json: { requests: [{ path: "/odometer" }, { path: "/service/history" }, { path: "/nothing" }] }
      }),
      200
    ],
    ["batch 400", yield* call("POST", `/v2.0/vehicles/${vehicles[0]!.id}/batch`, { headers: auth, json: { requests: [] } }), 400]
  ]
  for (const path of ["/odometer", "/location", "/vin", "/engine/oil", "/tires/pressure"]) {
    replies.push([path, yield* call("GET", `/v2.0/vehicles/${vehicles[0]!.id}${path}`, { headers: auth }), 200])
  }
  return { replies, access: (yield* userTokens({ userId: user.id })).access }
})

describe("v2.0 deprecation", () => {
  it.effect("the deprecated endpoints carry Deprecation and Link without Sunset (no removal date); the vehicle list and v3 carry none", () =>
    Effect.gen(function*() {
      const { access, replies } = yield* deprecatedReplies
      for (const [what, reply, status] of replies) {
        assert.strictEqual(reply.status, status, `${what}: ${reply.text}`)
        yield* assertDeprecated(reply, what)
      }
      for (const [what, reply, status] of yield* listReplies(access)) {
        assert.strictEqual(reply.status, status, `${what}: ${reply.text}`)
        assertNotDeprecated(reply, what)
      }
      const v3 = yield* call("GET", "/v3/connections", { headers: bearer(yield* appToken) })
      assert.strictEqual(v3.status, 200)
      assertNotDeprecated(v3, "v3")
      const guide = yield* call("GET", MIGRATION_GUIDE_PATH)
      assert.strictEqual(guide.status, 200)
      assert.include(guide.text, "odometer-traveleddistance")
      assert.include(guide.text, "v2.0 is deprecated as of Tue, 01 Dec 2026 00:00:00 GMT")
      assert.include(guide.text, "no removal (sunset) date is announced")
      assert.include(guide.text, "The legacy vehicle list (GET /v2.0/vehicles) is not deprecated")
    }).pipe(Effect.provide(loopback({ seed: 5 }))))

  it.effect("legacySunset: the deprecated endpoints carry Sunset with it too; the vehicle list still carries nothing", () =>
    Effect.gen(function*() {
      const { access, replies } = yield* deprecatedReplies
      for (const [what, reply, status] of replies) {
        assert.strictEqual(reply.status, status, `${what}: ${reply.text}`)
        yield* assertDeprecated(reply, what, REMOVAL_HTTP_DATE)
      }
      for (const [what, reply] of yield* listReplies(access)) assertNotDeprecated(reply, what)
      const guide = yield* call("GET", MIGRATION_GUIDE_PATH)
      assert.include(guide.text, `its sunset date is ${REMOVAL_HTTP_DATE} (RFC 8594 Sunset header)`)
    }).pipe(Effect.provide(loopback({ seed: 5, legacySunset: REMOVAL }))))

  it.effect("the in-memory simulator answers the same headers", () =>
    Effect.gen(function*() {
      const { vehicles } = yield* owner
      const sim = yield* Simulator
      const { access } = yield* userTokens({ userId: sim.data.connectionOf(vehicles[0]!.id)!.userId })
      const read = yield* call("GET", `/v2.0/vehicles/${vehicles[0]!.id}/vin`, { headers: bearer(access) })
      assert.strictEqual(read.headers["deprecation"], "@1796083200")
      assert.isUndefined(read.headers["sunset"])
      assertNotDeprecated(yield* call("GET", "/v2.0/vehicles", { headers: bearer(access) }), "list")
    }).pipe(Effect.provide(layerTest({ seed: 5 }))))

  it.effect("/openapi.json marks the v2.0 reads and batch deprecated, not the vehicle list nor any v3 operation", () =>
    Effect.gen(function*() {
      const reply = yield* call("GET", "/openapi.json")
      assert.strictEqual(reply.status, 200)
      const deprecated: Array<string> = []
      for (const [path, item] of Object.entries<Record<string, any>>(reply.json.paths)) {
        for (const [method, operation] of Object.entries<any>(item)) {
          if (operation?.deprecated === true) deprecated.push(`${method} ${path}`)
        }
      }
      assert.strictEqual(deprecated.length, 7, "the six reads and the batch")
      assert.isTrue(deprecated.every((operation) => operation.includes(" /v2.0/vehicles/{id}/")), deprecated.join(", "))
      assert.notStrictEqual(reply.json.paths["/v2.0/vehicles"].get.deprecated, true)
    }).pipe(Effect.provide(loopback())))

  it.effect("retireLegacy: true answers the deprecated /v2.0 requests 410 Gone; the vehicle list and v3 still answer", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { user, vehicles } = yield* owner
      const { access } = yield* userTokens({ userId: user.id })
      for (
        const reply of [
          yield* call("GET", `/v2.0/vehicles/${vehicles[0]!.id}/odometer`, { headers: bearer(access) }),
          yield* call("GET", `/v2.0/vehicles/${vehicles[0]!.id}/odometer`),
          yield* call("POST", `/v2.0/vehicles/${vehicles[0]!.id}/batch`, { headers: bearer(access), json: { requests: [{ path: "/vin" }] } })
        ]
      ) {
        assert.strictEqual(reply.status, 410, reply.text)
        assert.isTrue(isEnvelope(reply.json), reply.text)
        assert.strictEqual(reply.json.errors[0].code, "GONE")
        assert.include(reply.json.errors[0].detail, "The v2.0 interface (deprecated as of 2026-12-01) is retired; use v3")
        yield* assertDeprecated(reply, "retired")
      }
      const list = yield* call("GET", "/v2.0/vehicles", { headers: bearer(access) })
      assert.strictEqual(list.status, 200, list.text)
      assert.include(list.json.vehicles, vehicles[0]!.id)
      assertNotDeprecated(list, "list")
      const userId = sim.data.connectionOf(vehicles[0]!.id)!.userId
      const v3 = yield* call("GET", `/v3/vehicles/${vehicles[0]!.id}/signals`, {
        headers: { ...bearer(yield* appToken), "sc-user-id": userId }
      })
      assert.strictEqual(v3.status, 200)
    }).pipe(Effect.provide(loopback({ seed: 5, retireLegacy: true }))))

  it.effect("retireLegacy: afterSunset answers until the simulator's clock reaches legacySunset, 410 from then on (not the list)", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse(REMOVAL) - 60_000)
      const { user, vehicles } = yield* owner
      const { access } = yield* userTokens({ userId: user.id })
      const odometer = `/v2.0/vehicles/${vehicles[0]!.id}/odometer`
      assert.strictEqual((yield* call("GET", odometer, { headers: bearer(access) })).status, 200)
      yield* TestClock.adjust("1 minute")
      const gone = yield* call("GET", odometer, { headers: bearer(access) })
      assert.strictEqual(gone.status, 410, gone.text)
      assert.include(gone.json.errors[0].detail, "was retired on 2027-06-01")
      yield* assertDeprecated(gone, "after the sunset", REMOVAL_HTTP_DATE)
      assert.strictEqual((yield* call("GET", "/v2.0/vehicles", { headers: bearer(access) })).status, 200)
    }).pipe(Effect.provide(loopback({ seed: 5, legacySunset: REMOVAL, retireLegacy: "afterSunset" }))))

  it.effect("retireLegacy: true before legacySunset is a rehearsal (no past tense for a future date); after it, \"was retired on\"", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse(REMOVAL) - 86_400_000)
      const { user, vehicles } = yield* owner
      const { access } = yield* userTokens({ userId: user.id })
      const odometer = `/v2.0/vehicles/${vehicles[0]!.id}/odometer`
      const rehearsal = yield* call("GET", odometer, { headers: bearer(access) })
      assert.strictEqual(rehearsal.status, 410, rehearsal.text)
      const detail: string = rehearsal.json.errors[0].detail
      assert.notInclude(detail, "was retired")
      assert.include(detail, "is answered 410 in a removal rehearsal (--retire-v2 / retireLegacy); the announced removal date is 2027-06-01")
      yield* TestClock.adjust("1 day")
      const gone = yield* call("GET", odometer, { headers: bearer(access) })
      assert.include(gone.json.errors[0].detail, "was retired on 2027-06-01")
      // the public helper: the same wording at its `now`
      const helper = (now: string) =>
        Effect.promise(() => HttpServerResponse.toWeb(retiredResponse("http://127.0.0.1:4010", REMOVAL, now)).json() as Promise<any>)
      assert.include((yield* helper("2027-01-15")).errors[0].detail, "the announced removal date is 2027-06-01")
      assert.include((yield* helper("2027-07-01")).errors[0].detail, "was retired on 2027-06-01")
    }).pipe(Effect.provide(loopback({ seed: 5, legacySunset: REMOVAL, retireLegacy: true }))))

  it.effect("the deprecation date does not retire anything", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(DEPRECATION_EPOCH + 86_400_000)
      const { user, vehicles } = yield* owner
      const { access } = yield* userTokens({ userId: user.id })
      const read = yield* call("GET", `/v2.0/vehicles/${vehicles[0]!.id}/vin`, { headers: bearer(access) })
      assert.strictEqual(read.status, 200)
      yield* assertDeprecated(read, "after the deprecation date")
    }).pipe(Effect.provide(loopback({ seed: 5 }))))

  it.live("legacySunset: the answers of the parser's rejections (431) under a deprecated /v2.0 path carry Sunset too, not the list's", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      for (const [path, sunset] of [["/v2.0/vehicles/00000000-0000-0000-0000-000000000000/vin", REMOVAL_HTTP_DATE], ["/v2.0/vehicles", undefined]] as const) {
        const response = yield* Effect.promise(async () => {
          const connection = await openRaw(sim.url)
          connection.send(rawRequest("GET", path, { "x-big": "a".repeat(20 * 1024) }))
          const answer = await connection.next()
          await connection.closed
          return answer
        })
        assert.strictEqual(response.status, 431, path)
        assert.strictEqual(response.headers["sunset"], sunset, path)
        assert.strictEqual(response.headers["deprecation"], sunset === undefined ? undefined : "@1796083200", path)
      }
    }).pipe(Effect.provide(loopback({ seed: 5, legacySunset: REMOVAL }))))

  it("legacySunset that is not a date or is before the deprecation date, or afterSunset without it, is an InvalidArgument naming it, from every layer", () => {
    const cases = [
      [{ legacySunset: "soon" }, "legacySunset"],
      // ISO 8601 fields that do not exist: not the day Date rolls them over to (2 March, 1 July)
      [{ legacySunset: "2027-02-30" }, "legacySunset"],
      [{ legacySunset: "2027-06-31T00:00:00Z" }, "legacySunset"],
      [{ legacySunset: "2027-06-01T24:00:00Z" }, "legacySunset"],
      [{ legacySunset: Number.NaN }, "legacySunset"],
      [{ legacySunset: new Date("nope") }, "legacySunset"],
      // before the deprecation date (RFC 9745: Sunset is not before Deprecation)
      [{ legacySunset: "2026-06-01" }, "legacySunset"],
      [{ legacySunset: DEPRECATION_EPOCH - 1 }, "legacySunset"],
      [{ legacySunset: new Date("2026-11-30T23:59:59Z") }, "legacySunset"],
      // at or after 10000-01-01: the Sunset header is an IMF-fixdate, a 4-digit year
      [{ legacySunset: "99999" }, "legacySunset"],
      [{ legacySunset: "10000-01-01" }, "legacySunset"],
      [{ legacySunset: 8.64e15 }, "legacySunset"],
      [{ legacySunset: Date.UTC(10000, 0, 1) }, "legacySunset"],
      [{ legacySunset: new Date("9999-12-31T23:00:00-05:00") }, "legacySunset"],
      [{ retireLegacy: "afterSunset" }, "retireLegacy"]
    ] as const
    for (const [options, field] of cases) {
      for (const make of [layer, layerRoots, layerTest]) {
        let error: unknown = undefined
        try {
          make(options)
        } catch (e) {
          error = e
        }
        assert.instanceOf(error, InvalidArgument)
        assert.strictEqual((error as InvalidArgument).field, field)
      }
    }
    // the deprecation date itself is a removal date
    assert.doesNotThrow(() => layer({ legacySunset: DEPRECATION_EPOCH }))
    let early: unknown = undefined
    try {
      layer({ legacySunset: "2026-06-01" })
    } catch (e) {
      early = e
    }
    assert.include((early as InvalidArgument).message, "not earlier than the v2.0 deprecation date, 2026-12-01")
    assert.include((early as InvalidArgument).message, "2026-06-01T00:00:00.000Z")
    // the last instant an IMF-fixdate writes is a removal date
    assert.doesNotThrow(() => layer({ legacySunset: Date.UTC(10000, 0, 1) - 1 }))
    let late: unknown = undefined
    try {
      layer({ legacySunset: "99999" })
    } catch (e) {
      late = e
    }
    assert.include((late as InvalidArgument).message, "before 10000-01-01")
  })

  it.effect("legacySunset: the last year an IMF-fixdate writes is served as Sunset", () =>
    Effect.gen(function*() {
      const { vehicles } = yield* owner
      const sim = yield* Simulator
      const { access } = yield* userTokens({ userId: sim.data.connectionOf(vehicles[0]!.id)!.userId })
      const reply = yield* call("GET", `/v2.0/vehicles/${vehicles[0]!.id}/vin`, { headers: bearer(access) })
      yield* assertDeprecated(reply, "odometer", "Fri, 31 Dec 9999 00:00:00 GMT")
    }).pipe(Effect.provide(loopback({ seed: 5, legacySunset: "9999-12-31" }))))

  it("the Sunset utilities take dates (a DateTime, a Date, epoch milliseconds, an ISO 8601 string); anything else is an InvalidArgument naming it", () => {
    assert.strictEqual(DateTime.formatIso(DEPRECATION_DATE), "2026-12-01T00:00:00.000Z")
    for (const sunset of [REMOVAL, new Date(REMOVAL), DateTime.makeUnsafe(REMOVAL), Date.parse(REMOVAL)]) {
      const headers = deprecationHeaders("http://127.0.0.1:4010", sunset)
      assert.strictEqual(headers["sunset"], REMOVAL_HTTP_DATE)
      assert.strictEqual(headers["deprecation"], "@1796083200")
      assert.isTrue(isRetired("afterSunset", DateTime.makeUnsafe(REMOVAL), sunset))
      assert.isFalse(isRetired("afterSunset", new Date("2027-05-31T23:59:59Z"), sunset))
      assert.strictEqual(retiredResponse("http://127.0.0.1:4010", sunset).status, 410)
      assert.strictEqual(guideResponse(sunset).status, 200)
    }
    assert.isUndefined(deprecationHeaders("http://127.0.0.1:4010")["sunset"])
    assert.isFalse(isRetired("afterSunset", REMOVAL))
    assert.isTrue(isRetired(true, DEPRECATION_DATE))
    for (const [call, field] of [
      [() => deprecationHeaders("http://127.0.0.1:4010", "2027-02-30"), "sunset"],
      [() => retiredResponse("http://127.0.0.1:4010", Number.NaN), "sunset"],
      [() => guideResponse(new Date("nope")), "sunset"],
      [() => isRetired("afterSunset", "soon", REMOVAL), "now"],
      [() => deprecationHeaders("http://127.0.0.1:4010", "99999"), "sunset"],
      [() => retiredResponse("http://127.0.0.1:4010", 8.64e15), "sunset"],
      [() => guideResponse("10000-01-01"), "sunset"],
      [() => isRetired("afterSunset", REMOVAL, Date.UTC(10000, 0, 1)), "sunset"]
    ] as const) {
      let error: unknown = undefined
      try {
        call()
      } catch (e) {
        error = e
      }
      assert.instanceOf(error, InvalidArgument)
      assert.strictEqual((error as InvalidArgument).field, field)
    }
  })
})

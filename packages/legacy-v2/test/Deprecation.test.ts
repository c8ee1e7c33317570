import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Logger } from "effect"
import { TestClock } from "effect/testing"
import { endpointOf, fromHeaders, Warned, warnOnce } from "../src/Deprecation.ts"

const SUNSET = "2026-12-01T00:00:00.000Z"

describe("Deprecation headers", () => {
  it("fromHeaders reads RFC 9745, RFC 8594 and the deprecation link; leaves out malformed values", () => {
    const full = fromHeaders({
      deprecation: "@1796083200",
      sunset: "Tue, 01 Dec 2026 00:00:00 GMT",
      link: "<https://example.com/other>; rel=\"help\", <https://example.com/docs/migrating-to-v3>; rel=\"deprecation\"; type=\"text/html\""
    })!
    assert.strictEqual(DateTime.formatIso(full.deprecatedAt!), SUNSET)
    assert.strictEqual(DateTime.formatIso(full.sunsetAt!), SUNSET)
    assert.strictEqual(full.link, "https://example.com/docs/migrating-to-v3")
    assert.isUndefined(fromHeaders({ "content-type": "application/json" }))
    assert.isUndefined(fromHeaders({ link: "<https://example.com/next>; rel=next" }))
    const partial = fromHeaders({ deprecation: "soon", sunset: "not a date", link: "<https://x.example/d>; rel=deprecation" })!
    assert.deepStrictEqual(Object.keys(partial), ["link"])
    assert.strictEqual(DateTime.formatIso(fromHeaders({ deprecation: "Sun, 01 Nov 2026 00:00:00 GMT" })!.deprecatedAt!), "2026-11-01T00:00:00.000Z")
  })

  it("endpointOf names the endpoint without the vehicle id, the query or the origin", () => {
    assert.strictEqual(endpointOf("GET", "http://127.0.0.1:1/v2.0/vehicles/abc/tires/pressure?x=1"), "GET /v2.0/vehicles/{id}/tires/pressure")
    assert.strictEqual(endpointOf("GET", "http://u:secret@h/v2.0/vehicles?limit=5"), "GET /v2.0/vehicles")
    assert.strictEqual(endpointOf("POST", "http://h/prefix/v2.0/vehicles/x/batch"), "POST /v2.0/vehicles/{id}/batch")
    assert.isUndefined(endpointOf("GET", "http://h/v3/connections"))
    assert.strictEqual(endpointOf("GET", "http://h/v2.0/vehicles/abc?next=/x/y"), "GET /v2.0/vehicles/{id}")
    assert.strictEqual(endpointOf("GET", "http://h/v2.0/vehicles/abc/odometer#a/b"), "GET /v2.0/vehicles/{id}/odometer")
    assert.strictEqual(endpointOf("GET", "http://h/v2.0/vehicles/?x=1"), "GET /v2.0/vehicles/")
    assert.strictEqual(endpointOf("GET", "http://h/v2.0/vehicles//vin"), "GET /v2.0/vehicles//vin")
  })

  describe("warnOnce: deprecated as of the Deprecation date; a sunset only when the response carried one, told by the Clock", () => {
    const deprecated = fromHeaders({ deprecation: "@1796083200", link: "<https://example.com/docs/migrating-to-v3>; rel=\"deprecation\"" })!
    const withSunset = fromHeaders({ deprecation: "@1796083200", sunset: "Tue, 01 Jun 2027 00:00:00 GMT" })!
    /** The warning of one endpoint with the clock at `at`. */
    const warningAt = (at: string, deprecation = withSunset) =>
      Effect.gen(function*() {
        const lines: Array<string> = []
        yield* TestClock.setTime(DateTime.toEpochMillis(DateTime.makeUnsafe(at)))
        yield* warnOnce("GET /v2.0/vehicles/{id}/vin", deprecation, "warn").pipe(
          Effect.provideService(Warned, new Set<string>()),
          Effect.provide(Logger.layer([Logger.make((entry) => lines.push(Logger.formatLogFmt.log(entry)))]))
        )
        assert.strictEqual(lines.length, 1)
        return lines[0]!
      })

    it.effect("no Sunset header (v2.0 as the spec gives it): deprecated as of 2026-12-01, no sunset named, before and after", () =>
      Effect.gen(function*() {
        assert.isUndefined(deprecated.sunsetAt)
        for (const at of ["2026-11-27T12:00:00Z", "2026-12-01T00:00:00Z", "2030-01-01T00:00:00Z"]) {
          const line = yield* warningAt(at, deprecated)
          assert.include(line, "The connected-vehicle v2.0 endpoint GET /v2.0/vehicles/{id}/vin is deprecated as of 2026-12-01; v3 replacement: Migration.vin")
          assert.include(line, "see https://example.com/docs/migrating-to-v3")
          assert.notInclude(line, "sunset")
        }
      }))

    it.effect("an endpoint without a v3 equivalent (the service history) says so, naming no replacement of @connected-vehicle/v3", () =>
      Effect.gen(function*() {
        const lines: Array<string> = []
        yield* warnOnce("GET /v2.0/vehicles/{id}/service/history", deprecated, "warn").pipe(
          Effect.provideService(Warned, new Set<string>()),
          Effect.provide(Logger.layer([Logger.make((entry) => lines.push(Logger.formatLogFmt.log(entry)))]))
        )
        assert.strictEqual(lines.length, 1)
        assert.include(lines[0]!, "is deprecated as of 2026-12-01; it has no v3 equivalent: export the data you need while v2.0 answers (see docs/migrating-to-v3.md)")
        assert.notInclude(lines[0]!, "v3 replacement")
        assert.notInclude(lines[0]!, "of @connected-vehicle/v3")
      }))

    it.effect("before a Sunset date: sunsets on it", () =>
      Effect.gen(function*() {
        for (const at of ["2026-11-27T12:00:00Z", "2027-05-31T23:59:59.999Z"]) {
          const line = yield* warningAt(at)
          assert.include(line, "is deprecated as of 2026-12-01 and sunsets on 2027-06-01")
          assert.notInclude(line, "was sunset")
        }
      }))

    it.effect("from a Sunset date on: was sunset on it", () =>
      Effect.gen(function*() {
        for (const at of ["2027-06-01T00:00:00Z", "2030-01-01T00:00:00Z"]) {
          const line = yield* warningAt(at)
          assert.include(line, "is deprecated as of 2026-12-01 and was sunset on 2027-06-01 (it may stop answering at any time)")
          assert.notInclude(line, "sunsets on")
          assert.include(line, "sunsetAt=2027-06-01T00:00:00.000Z")
        }
      }))
  })
})

import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { Compatibility } from "@connected-vehicle/v3/Compatibility"
import { flipReason, layerLoopback, requestsTo } from "./utils.ts"
import * as Simulator from "@connected-vehicle/simulator/Simulator"

const compatRequests = requestsTo(/\/v3\/compatible-vehicles$/)

describe("Compatibility", () => {
  it.live("filters by region, make (case-insensitive) and powertrain, EV included, without a credential", () =>
    Effect.gen(function*() {
      const compatibility = yield* Compatibility
      const everything = yield* compatibility.list()
      assert.isTrue(everything.data.length > 0)
      assert.strictEqual(everything.meta.page, 1)
      assert.strictEqual(everything.meta.totalCount, everything.data.length)

      const us = yield* compatibility.list({ region: "US" })
      assert.isTrue(us.data.length > 0 && us.data.every((e) => e.attributes.region === "US"))
      assert.strictEqual(us.data.length, everything.data.filter((e) => e.attributes.region === "US").length)

      const make = everything.data[0]!.attributes.make
      const byMake = yield* compatibility.list({ make: make.toUpperCase() })
      assert.strictEqual(byMake.data.length, everything.data.filter((e) => e.attributes.make === make).length)

      const ev = yield* compatibility.list({ powertrainType: "EV" })
      assert.strictEqual(
        ev.data.length,
        everything.data.filter((e) => e.attributes.powertrainType === "BEV" || e.attributes.powertrainType === "PHEV").length
      )
      const ice = yield* compatibility.list({ powertrainType: "ICE", region: "EUROPE" })
      assert.isTrue(ice.data.every((e) => e.attributes.powertrainType === "ICE" && e.attributes.region === "EUROPE"))

      const none = yield* compatibility.list({ make: "No Such Make" })
      assert.strictEqual(none.data.length, 0)

      const log = yield* compatRequests
      assert.strictEqual(log.length, 6)
      assert.isTrue(log.every((entry) => entry.headers["authorization"] === undefined))
      const queries = log.map((entry) => new URLSearchParams(entry.query))
      assert.strictEqual(queries[1]!.get("filter[region]"), "US")
      assert.strictEqual(queries[3]!.get("filter[powertrainType]"), "EV")
      // no token was ever requested
      assert.strictEqual((yield* requestsTo(/oauth/)).length, 0)
    }).pipe(Effect.provide(layerLoopback())))

  it.effect("caches each filter combination for 24 hours, then asks again", () =>
    Effect.gen(function*() {
      const compatibility = yield* Compatibility
      const first = yield* compatibility.list({ region: "CA", make: "Ford" })
      const again = yield* compatibility.list({ region: "CA", make: "FORD" })
      assert.deepStrictEqual(again, first)
      assert.strictEqual((yield* compatRequests).length, 1)

      yield* compatibility.list({ region: "US" })
      assert.strictEqual((yield* compatRequests).length, 2, "another filter is another entry")

      yield* TestClock.adjust("23 hours")
      yield* compatibility.list({ region: "CA", make: "ford" })
      assert.strictEqual((yield* compatRequests).length, 2, "still fresh after 23 hours")

      yield* TestClock.adjust("1 hour")
      yield* compatibility.list({ region: "CA", make: "Ford" })
      assert.strictEqual((yield* compatRequests).length, 3, "expired after 24 hours")
    }).pipe(Effect.provide(layerLoopback())))

  it.effect("takes a configurable time to live", () =>
    Effect.gen(function*() {
      const compatibility = yield* Compatibility
      yield* compatibility.list({ powertrainType: "BEV" })
      yield* TestClock.adjust("47 hours")
      yield* compatibility.list({ powertrainType: "BEV" })
      assert.strictEqual((yield* compatRequests).length, 1)
      yield* TestClock.adjust("1 hour")
      yield* compatibility.list({ powertrainType: "BEV" })
      assert.strictEqual((yield* compatRequests).length, 2)
    }).pipe(Effect.provide(layerLoopback({ compatibility: { timeToLive: "48 hours" } }))))

  it.live("retries a 500 and does not cache failures", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const compatibility = yield* Compatibility
      yield* sim.injectFaults({ path: "/v3/compatible-vehicles", faults: [{ _tag: "Status", status: 500 }] })
      const page = yield* compatibility.list({ region: "US" })
      assert.isTrue(page.data.length > 0)
      assert.deepStrictEqual((yield* compatRequests).map((r) => r.status), [500, 200])

      yield* sim.injectFaults({
        path: "/v3/compatible-vehicles",
        faults: Array.from({ length: 4 }, () => ({ _tag: "Status" as const, status: 500 }))
      })
      const error = yield* flipReason(compatibility.list({ region: "CA" }))
      assert.strictEqual(error._tag, "Server")
      const recovered = yield* compatibility.list({ region: "CA" })
      assert.isTrue(recovered.data.every((e) => e.attributes.region === "CA"))
      assert.strictEqual((yield* compatRequests).length, 2 + 4 + 1)
    }).pipe(Effect.provide(layerLoopback())))

  it.live("rejects an unknown region or powertrain without a request", () =>
    Effect.gen(function*() {
      const compatibility = yield* Compatibility
      const region = yield* flipReason(compatibility.list({ region: "MARS" as "US" }))
      assert.strictEqual(region._tag, "InvalidArgument")
      if (region._tag === "InvalidArgument") {
        assert.strictEqual(region.field, "region")
        assert.strictEqual(region.message, "region: Expected \"US\" | \"CA\" | \"EUROPE\", got \"MARS\"")
      }
      const powertrain = yield* flipReason(compatibility.list({ powertrainType: "DIESEL" as "ICE" }))
      assert.strictEqual(powertrain._tag, "InvalidArgument")
      assert.strictEqual((yield* requestsTo(/./)).length, 0)
    }).pipe(Effect.provide(layerLoopback())))
})

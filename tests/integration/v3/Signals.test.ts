import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { partition, Signals } from "@connected-vehicle/v3/Signals"
import { flipReason, layerLoopback, requestsTo } from "./utils.ts"

const connected = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const vehicleId = sim.data.vehicleIds[0]!
  const userId = sim.data.connectionOf(vehicleId)!.userId
  return { sim, vehicleId, userId, codes: sim.data.vehicle(vehicleId)!.signalCodes }
})

describe("Signals", () => {
  it.live("lists one page with meta, links and included.vehicle, sending sc-user-id", () =>
    Effect.gen(function*() {
      const { codes, sim, userId, vehicleId } = yield* connected
      const signals = yield* Signals
      const page = yield* signals.list({ vehicleId, userId, page: 1, pageSize: 2 })
      assert.strictEqual(page.data.length, 2)
      assert.deepStrictEqual(page.data.map((s) => s.attributes.code), codes.slice(0, 2))
      assert.strictEqual(page.meta.pageNumber, 1)
      assert.strictEqual(page.meta.pageSize, 2)
      assert.strictEqual(page.meta.totalCount, codes.length)
      assert.isNull(page.links.prev)
      assert.isNotNull(page.links.next)
      assert.strictEqual(page.included.vehicle.id, vehicleId)
      assert.strictEqual(page.included.vehicle.attributes.make, sim.data.vehicle(vehicleId)!.make)
      const [request] = yield* requestsTo(/\/signals$/)
      assert.strictEqual(request!.headers["sc-user-id"], userId)
      assert.strictEqual(request!.headers["authorization"], "<redacted>")
    }).pipe(Effect.provide(layerLoopback())))

  it.live("streams every signal of a vehicle across several pages", () =>
    Effect.gen(function*() {
      const { codes, userId, vehicleId } = yield* connected
      const signals = yield* Signals
      const all = yield* Stream.runCollect(signals.stream({ vehicleId, userId, pageSize: 3 }))
      assert.deepStrictEqual(all.map((s) => s.attributes.code), [...codes])
      const pages = yield* requestsTo(/\/signals$/)
      assert.strictEqual(pages.length, Math.ceil(codes.length / 3))
      assert.isTrue(pages.length >= 2)
    }).pipe(Effect.provide(layerLoopback())))

  it.live("gets one signal by code with included.vehicle", () =>
    Effect.gen(function*() {
      const { codes, sim, userId, vehicleId } = yield* connected
      const signals = yield* Signals
      const code = codes[1]!
      const one = yield* signals.get({ vehicleId, userId, code })
      assert.strictEqual(one.data.attributes.code, code)
      assert.strictEqual(one.data.attributes.status.value, sim.data.signalStatus(vehicleId, code))
      assert.strictEqual(one.included.vehicle.id, vehicleId)
    }).pipe(Effect.provide(layerLoopback())))

  it.live("partitions a page by status, keeping each failure's error and resolution", () =>
    Effect.gen(function*() {
      const { sim } = yield* connected
      const signals = yield* Signals
      // look at several connected vehicles so that every status shows up
      const vehicles = sim.data.vehicleIds.slice(0, 10)
      let failures = 0
      for (const vehicleId of vehicles) {
        const owner = sim.data.connectionOf(vehicleId)!.userId
        const page = yield* signals.list({ vehicleId, userId: owner, pageSize: 100 })
        const parts = partition(page)
        const expected = (status: string) =>
          page.data.filter((s) => sim.data.signalStatus(vehicleId, s.attributes.code) === status).map((s) => s.id)
        assert.deepStrictEqual(parts.succeeded.map((s) => s.id), expected("SUCCESS"))
        assert.deepStrictEqual(parts.failed.map((f) => f.signal.id), expected("ERROR"))
        assert.deepStrictEqual(parts.unavailable.map((s) => s.id), expected("UNAVAILABLE"))
        assert.strictEqual(parts.unrecognized.length, 0)
        for (const f of parts.failed) {
          assert.isDefined(f.error)
          assert.strictEqual(f.resolution, f.error!.resolution?.type)
          failures++
        }
      }
      assert.isTrue(failures > 0, "the seed has failed signals")
    }).pipe(Effect.provide(layerLoopback())))

  it.live("rejects invalid paging before any request", () =>
    Effect.gen(function*() {
      const { userId, vehicleId } = yield* connected
      const signals = yield* Signals
      const cases = [{ pageSize: 0 }, { pageSize: 101 }, { page: 0 }, { pageSize: 2.5 }]
      for (const paging of cases) {
        const error = yield* flipReason(signals.list({ vehicleId, userId, ...paging }))
        assert.strictEqual(error._tag, "InvalidArgument")
        if (error._tag === "InvalidArgument") assert.strictEqual(error.field, Object.keys(paging)[0])
      }
      const streamError = yield* flipReason(Stream.runCollect(signals.stream({ vehicleId, userId, pageSize: 500 })))
      assert.strictEqual(streamError._tag, "InvalidArgument")
      assert.strictEqual((yield* requestsTo(/./)).length, 0)
    }).pipe(Effect.provide(layerLoopback())))

  it.live("reports an unknown vehicle as NotFound", () =>
    Effect.gen(function*() {
      const { userId } = yield* connected
      const signals = yield* Signals
      const error = yield* flipReason(signals.get({ vehicleId: "no-such-vehicle", userId, code: "x" }))
      assert.strictEqual(error._tag, "NotFound")
    }).pipe(Effect.provide(layerLoopback())))
})

import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import type { LegacyPath } from "@connected-vehicle/schema/Legacy"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
import { busiestUser, flipReason, layerLoopback, requestsTo } from "./utils.ts"

const invalid = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(flipReason(effect), (error) => {
    assert.strictEqual(error._tag, "InvalidArgument")
    return error as unknown as { readonly field: string; readonly message: string }
  })

describe("legacy arguments", () => {
  it.live("an empty batch, an empty or unsafe vehicle id and null arguments fail with InvalidArgument, nothing sent", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const vehicleId = sim.data.vehiclesOf(busiestUser(sim))[0]!
      const vehicles = yield* Vehicles.Vehicles
      const empty = [] as unknown as readonly [LegacyPath]
      const batch = yield* invalid(vehicles.batch(vehicleId, empty))
      assert.strictEqual(batch.field, "paths")
      assert.strictEqual(batch.message, "paths: Expected at least one path, got []")
      // an unknown path is named by its place in the list
      const unknown = ["/vin", "/nope"] as unknown as readonly [LegacyPath]
      const entry = yield* invalid(vehicles.batch(vehicleId, unknown))
      assert.strictEqual(entry.field, "paths[1]")
      assert.match(entry.message, /^paths\[1\]: Expected /)
      assert.strictEqual((yield* invalid(vehicles.odometer(""))).field, "vehicleId")
      assert.strictEqual((yield* invalid(vehicles.vin("veh\r\n1"))).field, "vehicleId")
      assert.strictEqual((yield* invalid(vehicles.batch("", ["/vin"]))).field, "vehicleId")
      const unsafe = <F extends (...args: Array<any>) => any>(f: F) => f as (...args: Array<unknown>) => ReturnType<F>
      assert.strictEqual((yield* invalid(unsafe(vehicles.list)(null))).field, "arguments")
      assert.strictEqual((yield* invalid(Stream.runDrain(unsafe(vehicles.stream)(null)))).field, "arguments")
      assert.strictEqual((yield* invalid(unsafe(vehicles.list)({ limt: 5 }))).field, "limt")
      assert.deepStrictEqual(yield* requestsTo(/^\/v2\.0\//), [])
    }).pipe(Effect.provide(layerLoopback())))

  it.live("read options that cannot be read or are null, and a non-object stream argument, are InvalidArgument, not throws", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const vehicleId = sim.data.vehiclesOf(busiestUser(sim))[0]!
      const vehicles = yield* Vehicles.Vehicles
      const unsafe = <F extends (...args: Array<any>) => any>(f: F) => f as (...args: Array<unknown>) => ReturnType<F>
      const throwing = Object.defineProperty({}, "unitSystem", { enumerable: true, get: () => { throw new Error("boom") } })
      const cases: ReadonlyArray<readonly [() => Effect.Effect<unknown, { readonly _tag: string }>, string]> = [
        [() => unsafe(vehicles.odometer)(vehicleId, throwing), "options"],
        [() => unsafe(vehicles.vin)(vehicleId, null), "options"],
        [() => unsafe(vehicles.location)(vehicleId, { timeout: Number.NaN }), "timeout"],
        [() => unsafe(vehicles.batch)(vehicleId, ["/vin"], throwing), "options"],
        [() => Stream.runDrain(unsafe(vehicles.stream)(42)), "arguments"],
        [() => Stream.runDrain(unsafe(vehicles.stream)(Object.defineProperty({}, "limit", { enumerable: true, get: () => { throw new Error("boom") } }))), "arguments"]
      ]
      for (const [call, field] of cases) {
        const error = yield* invalid(Effect.suspend(call))
        assert.strictEqual(error.field, field, error.message)
      }
      assert.deepStrictEqual(yield* requestsTo(/^\/v2\.0\//), [])
      // an onResponse that returns no Effect is ignored
      const reading = yield* unsafe(vehicles.vin)(vehicleId, { onResponse: () => undefined })
      assert.isString(reading.value.vin)
    }).pipe(Effect.provide(layerLoopback())))

  it.live("the stream's limit is read as any property is: an inherited one counts", () =>
    Effect.gen(function*() {
      const vehicles = yield* Vehicles.Vehicles
      const ids = yield* Stream.runCollect(vehicles.stream(Object.create({ limit: 1 }) as { readonly limit?: number }))
      const pages = yield* requestsTo(/^\/v2\.0\/vehicles$/)
      assert.isAbove(ids.length, 0)
      assert.isTrue(pages.length > 0 && pages.every((r) => new URLSearchParams(r.query).get("limit") === "1"), JSON.stringify(pages.map((r) => r.query)))
    }).pipe(Effect.provide(layerLoopback())))

  it.live("transformClient applies to the legacy requests", () =>
    Effect.gen(function*() {
      const vehicles = yield* Vehicles.Vehicles
      const ids = yield* Stream.runCollect(vehicles.stream())
      yield* vehicles.odometer(ids[0]!)
      const requests = yield* requestsTo(/^\/v2\.0\//)
      assert.isTrue(requests.length >= 2)
      assert.isTrue(requests.every((r) => r.headers["x-team"] === "fleet"))
    }).pipe(Effect.provide(layerLoopback({
      transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-team", "fleet"))
    }))))

  it.live("the batch's paths and the stream's options are read once: a getter that throws on its second read is not reached again", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const user = busiestUser(sim)
      const vehicleId = sim.data.vehiclesOf(user)[0]!
      const vehicles = yield* Vehicles.Vehicles
      const readOnce = <T extends object>(target: T, key: PropertyKey, value: unknown): T => {
        let reads = 0
        return Object.defineProperty(target, key, {
          enumerable: true,
          get: () => {
            if (reads++ > 0) throw new Error(`${String(key)} read twice`)
            return value
          }
        })
      }
      const paths = readOnce(["/odometer"], 1, "/vin") as unknown as readonly ["/odometer", "/vin"]
      const batch = yield* vehicles.batch(vehicleId, paths)
      assert.deepStrictEqual(Object.keys(batch).filter((key) => key.startsWith("/")).sort(), ["/odometer", "/vin"])
      // every page's request of the stream: the options as they were read once
      const ids = yield* Stream.runCollect(vehicles.stream({ limit: 1 }, readOnce({}, "timeout", "5 seconds")))
      assert.strictEqual(ids.length, sim.data.vehiclesOf(user).length)
      assert.isTrue(ids.length > 1)
      // a list that cannot be read is the caller's: an InvalidArgument naming paths
      const unreadable = new Proxy(["/vin"], { get: () => { throw new Error("boom") } }) as unknown as readonly ["/vin"]
      assert.strictEqual((yield* invalid(vehicles.batch(vehicleId, unreadable))).field, "paths")
    }).pipe(Effect.provide(layerLoopback())))
})

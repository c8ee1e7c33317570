import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, DateTime, Effect, Logger, References, Result, Stream } from "effect"
import { HttpClient } from "effect/http"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { Warned } from "@connected-vehicle/legacy-v2/Deprecation"
import type { WarningLevel } from "@connected-vehicle/legacy-v2/Deprecation"
import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
import { flipReason, layerLoopback } from "./utils.ts"

const DEPRECATED = "2026-12-01T00:00:00.000Z"
/** A removal date given to the simulator (the spec gives none). */
const REMOVAL = "2099-06-01T00:00:00.000Z"

/** Every log line (level and text), and the bearer tokens the client sent. */
const capture = () => {
  const logs: Array<{ readonly level: string; readonly text: string }> = []
  const tokens = new Set<string>()
  const logger = Logger.make((options) => {
    logs.push({ level: options.logLevel, text: Logger.formatLogFmt.log(options) })
  })
  const warnings = () => logs.filter((l) => l.text.includes("v2.0 endpoint"))
  const recordTokens = HttpClient.tapRequest((request) =>
    Effect.sync(() => {
      const authorization = request.headers["authorization"]
      if (authorization !== undefined) tokens.add(authorization.replace(/^Bearer\s+/i, ""))
    })
  )
  const around = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.provide(Logger.layer([logger])),
      Effect.provideService(References.MinimumLogLevel, "All"),
      // a fresh "once per process" registry for this test
      Effect.provideService(Warned, new Set<string>())
    )
  return { logs, tokens, warnings, recordTokens, around }
}

const withEnv = (env: Record<string, string>) => Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))

/** Every read and the batch (and its entries) expose the response's deprecation, the list none. */
const exposed = (sunset: string | undefined) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const vehicles = yield* Vehicles
    const page = yield* vehicles.list()
    assert.isUndefined(page.deprecation, "the vehicle list is not deprecated (spec section 9.3)")
    const id = page.vehicles[0]!
    const link = `${sim.url}/docs/migrating-to-v3`
    const check = (d: { readonly deprecatedAt?: DateTime.Utc; readonly sunsetAt?: DateTime.Utc; readonly link?: string } | undefined) => {
      assert.isDefined(d)
      assert.strictEqual(DateTime.formatIso(d!.deprecatedAt!), DEPRECATED)
      assert.strictEqual(d!.sunsetAt === undefined ? undefined : DateTime.formatIso(d!.sunsetAt), sunset)
      assert.strictEqual(d!.link, link)
    }
    check((yield* vehicles.odometer(id)).deprecation)
    check((yield* vehicles.location(id)).deprecation)
    check((yield* vehicles.vin(id)).deprecation)
    check((yield* vehicles.engineOil(id)).deprecation)
    check((yield* vehicles.tirePressure(id, { unitSystem: "imperial" })).deprecation)
    const batch = yield* vehicles.batch(id, ["/odometer", "/vin"])
    check(batch.deprecation)
    assert.isTrue(Result.isSuccess(batch["/odometer"]))
    if (Result.isSuccess(batch["/odometer"])) check(batch["/odometer"].success.deprecation)
  })

/** The deprecation warnings of a tour of the endpoints: reads, batches, the list, a 404. */
const warningsOfTour = (c: ReturnType<typeof capture>) =>
  Effect.gen(function*() {
    const vehicles = yield* Vehicles
    const ids = yield* Stream.runCollect(vehicles.stream({ limit: 2 }))
    for (let i = 0; i < 3; i++) {
      for (const id of ids) {
        yield* vehicles.odometer(id)
        yield* vehicles.vin(id, { unitSystem: "imperial" })
        yield* vehicles.batch(id, ["/odometer", "/location"])
      }
      yield* vehicles.list({ limit: 1 })
      // an error response warns too (its own endpoint), once
      const error = yield* flipReason(vehicles.engineOil("no-such-vehicle"))
      assert.strictEqual(error._tag, "NotFound")
    }
    const warnings = c.warnings()
    const endpoints = warnings.map((w) => /endpoint=("[^"]*"|\S+)/.exec(w.text)?.[1]?.replace(/"/g, ""))
    // not the vehicle list: it is not deprecated (spec section 9.3)
    assert.deepStrictEqual([...endpoints].sort(), [
      "GET /v2.0/vehicles/{id}/engine/oil",
      "GET /v2.0/vehicles/{id}/odometer",
      "GET /v2.0/vehicles/{id}/vin",
      "POST /v2.0/vehicles/{id}/batch"
    ])
    return { ids, warnings }
  })

describe("Deprecation headers", () => {
  it.live("every read and the batch (and its entries) expose the response's deprecation, without a sunset; the list none", () =>
    exposed(undefined).pipe(Effect.provide(layerLoopback({ deprecationWarnings: "off" }))))

  it.live("with a removal date configured in the simulator (Sunset header): sunsetAt too", () =>
    exposed(REMOVAL).pipe(Effect.provide(layerLoopback({ deprecationWarnings: "off", simulator: { legacySunset: REMOVAL } }))))

  it.live("with a Sunset header: the warning names the sunset", () => {
    const c = capture()
    return Effect.gen(function*() {
      const { warnings } = yield* warningsOfTour(c)
      for (const w of warnings) assert.include(w.text, "is deprecated as of 2026-12-01 and sunsets on 2099-06-01; v3 replacement")
    }).pipe(Effect.provide(layerLoopback({ simulator: { legacySunset: REMOVAL } })), c.around)
  })

  it.live("one warning per endpoint per process, not per call, from successes and errors alike, never with a token", () => {
    const c = capture()
    return Effect.gen(function*() {
      const { ids, warnings } = yield* warningsOfTour(c)
      for (const w of warnings) {
        assert.strictEqual(w.level, "Warn")
        // no Sunset header (the spec gives no removal date): no sunset named
        assert.include(w.text, "is deprecated as of 2026-12-01; v3 replacement")
        assert.notInclude(w.text, "sunset")
        assert.include(w.text, "CONNECTED_VEHICLE_DEPRECATION_WARNINGS=off")
      }
      assert.include(warnings.find((w) => w.text.includes("/odometer"))!.text, "Migration.odometer")
      assert.isTrue(c.tokens.size > 0, "the client sent its bearer token")
      for (const token of c.tokens) {
        for (const line of c.logs) assert.notInclude(line.text, token)
      }
      for (const id of ids) for (const line of warnings) assert.notInclude(line.text, id)
    }).pipe(Effect.provide(layerLoopback({ transformClient: c.recordTokens })), c.around)
  })

  for (const [name, options, expected] of [
    ["the option sets the level", { deprecationWarnings: "info" }, ["Info"]],
    ["the option turns it off", { deprecationWarnings: "off" }, []],
    ["warn by default (Vehicles.layer reads no environment)", {}, ["Warn"]]
  ] as Array<readonly [string, { readonly deprecationWarnings?: WarningLevel }, Array<string>]>) {
    it.live(`level: ${name}`, () => {
      const c = capture()
      return Effect.gen(function*() {
        const vehicles = yield* Vehicles
        const id = (yield* vehicles.list()).vehicles[0]!
        yield* vehicles.vin(id)
        yield* vehicles.vin(id)
        assert.deepStrictEqual(c.warnings().map((w) => w.level), expected)
      }).pipe(Effect.provide(layerLoopback(options)), withEnv({ CONNECTED_VEHICLE_DEPRECATION_WARNINGS: "off" }), c.around)
    })
  }
})

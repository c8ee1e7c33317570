/**
 * `Transport.Options.admit` over loopback: it runs before each attempt of a
 * call with a credential (retries and the 401 replay included), after the
 * credential is read (the request goes as soon as it is admitted), outside
 * the attempt's timeout, bounded by the call's budget; its failure is the
 * call's error.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Redacted } from "effect"
import { HttpClient } from "effect/http"
import { CompatibilityApi, VehicleApi } from "@connected-vehicle/schema/Api"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import { Connection, ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { Timeout } from "@connected-vehicle/transport/ConnectedVehicleError"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import { appToken, fast, flipReason, loopback } from "./utils.ts"

/** What happened, in order: `admit <path>`, `token <value>`, `refresh`. */
type Events = Array<string>

/** The transport of `loopback` (with `config`) whose `admit` is `admit`, recording into `events` (and `sent`, when given, the instant each request goes to the `HttpClient`). */
const admitting = (events: Events, admit: Transport.Admit, config: Parameters<typeof loopback>[0] = fast, sent?: Map<string, number>) =>
  Layer.effect(
    Transport.Transport,
    Transport.make({
      admit: (request) => Effect.andThen(Effect.sync(() => events.push(`admit ${new URL(request.url).pathname}`)), admit(request)),
      transformClient: HttpClient.tapRequest((request) => Effect.sync(() => sent?.set(new URL(request.url).pathname, Date.now())))
    })
  ).pipe(Layer.provideMerge(loopback(config)))

/** Credentials that start with `first` (a rejected token when "stale") and refresh to a token of the simulator. */
const credentials = (events: Events, first: string, onRefresh: Effect.Effect<void> = Effect.void) =>
  Effect.gen(function*() {
    const valid = yield* appToken
    let current = first === "stale" ? Redacted.make("stale") : valid
    const service: Credentials["Service"] = {
      token: Effect.sync(() => {
        events.push(`token ${Redacted.value(current) === "stale" ? "stale" : "valid"}`)
        return current
      }),
      refresh: () =>
        Effect.andThen(onRefresh, Effect.sync(() => {
          events.push("refresh")
          current = valid
          return true
        }))
    }
    return service
  })

/** One v3 read of a vehicle of the simulator's dataset (the first by default). */
const read = (options?: Transport.CallOptions, index = 0) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    const vehicleId = sim.data.vehicleIds[index]!
    const signals = yield* Transport.client(VehicleApi, "signals")
    return yield* signals.list({ params: { vehicleId }, headers: { "sc-user-id": sim.data.connectionOf(vehicleId)!.userId } }, options)
  })

const withCredentials = (events: Events, first: string, onRefresh?: Effect.Effect<void>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(credentials(events, first, onRefresh), (service) => Effect.provideService(effect, Credentials, service))

describe("Transport admit", () => {
  it.live("runs after the credential is read and outside the attempt's timeout: a wait longer than the timeout is no Timeout", () => {
    const events: Events = []
    return Effect.gen(function*() {
      const result = yield* read({ timeout: 200, maxRetries: 0 }).pipe(withCredentials(events, "valid"))
      assert.strictEqual(result.status, 200)
      const path = events.find((e) => e.startsWith("admit"))!
      // the credential is read before its admission, and again after it (it comes at once), then sent
      // (appToken's own call is public: not admitted)
      assert.deepStrictEqual(events, ["token valid", path, "token valid"])
      assert.match(path, /^admit \/v3\/vehicles\/[^/]+\/signals$/)
    }).pipe(Effect.provide(admitting(events, () => Effect.sleep(500))))
  })

  it.live("every attempt is admitted: the 401 replay and a retry, each after the token it sends is read", () => {
    const events: Events = []
    return Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[0]!
      // the replay after the refresh is answered 503
      const unavailable = sim.injectFaults({ path: `/v3/vehicles/${vehicleId}/signals`, faults: [{ _tag: "Status", status: 503 }] })
      const result = yield* read({ maxRetries: 2 }).pipe(withCredentials(events, "stale", unavailable))
      assert.strictEqual(result.status, 200)
      const admit = `admit /v3/vehicles/${vehicleId}/signals`
      // stale token: 401, refresh, replay (admitted again) answered 503, retry (admitted again)
      assert.deepStrictEqual(events, [
        ["token stale", admit, "token stale"],
        ["refresh", "token valid", admit, "token valid"],
        ["token valid", admit, "token valid"]
      ].flat())
      const sent = (yield* sim.requests).filter((e) => e.path === `/v3/vehicles/${vehicleId}/signals`)
      assert.strictEqual(sent.length, 3)
    }).pipe(Effect.provide(admitting(events, () => Effect.void)))
  })

  it.live("a failure of admit is the call's error: nothing sent", () => {
    const events: Events = []
    const refused = new ConnectedVehicleError({ reason: new Connection({ method: "GET", url: "redis://limits", description: "no slot store" }) })
    return Effect.gen(function*() {
      const sim = yield* Simulator
      const error = yield* Effect.flip(read({ maxRetries: 0 }).pipe(withCredentials(events, "valid")))
      assert.strictEqual(error, refused)
      assert.deepStrictEqual(events.filter((e) => e.startsWith("token")), ["token valid"])
      assert.strictEqual((yield* sim.requests).filter((e) => e.path.startsWith("/v3/vehicles/")).length, 0)
    }).pipe(Effect.provide(admitting(events, () => Effect.fail(refused))))
  })

  it.live("a wait longer than the call's budget (retry.maxElapsed) fails the call with Timeout, at the budget", () => {
    const events: Events = []
    return Effect.gen(function*() {
      const sim = yield* Simulator
      const start = Date.now()
      const error = yield* flipReason(read({ retry: { maxElapsed: 300 } }).pipe(withCredentials(events, "valid")))
      const took = Date.now() - start
      assert.strictEqual(error._tag, "Timeout")
      assert.strictEqual(Duration.toMillis((error as Timeout).timeout), 300)
      assert.match((error as Timeout).url, /\/v3\/vehicles\/[^/]+\/signals$/)
      assert.isAtLeast(took, 250)
      assert.isBelow(took, 2_000)
      assert.strictEqual((yield* sim.requests).filter((e) => e.path.startsWith("/v3/vehicles/")).length, 0)
    }).pipe(Effect.provide(admitting(events, () => Effect.never)))
  })

  it.live("the attempt after a wait has what is left of the call's budget, not a whole attempt's timeout", () => {
    const events: Events = []
    return Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicleId = sim.data.vehicleIds[0]!
      yield* sim.injectFaults({ path: `/v3/vehicles/${vehicleId}/signals`, faults: [{ _tag: "StallBody" }] })
      const start = Date.now()
      const error = yield* flipReason(read({ timeout: 5_000, retry: { maxElapsed: 600 } }).pipe(withCredentials(events, "valid")))
      const took = Date.now() - start
      assert.strictEqual(error._tag, "Timeout")
      // 300 ms of waiting, then an attempt cut at what was left (about 300 ms), not at 5 s: what ran
      // out is the call's budget, and the reason names it
      assert.isAtLeast(took, 550)
      assert.isBelow(took, 2_500)
      assert.strictEqual(Duration.toMillis((error as Timeout).timeout), 600)
    }).pipe(Effect.provide(admitting(events, () => Effect.sleep(300))))
  })

  it.live("a credential that takes time: each request is sent when its slot is taken, not in a burst once the token comes", () => {
    const events: Events = []
    const sent = new Map<string, number>()
    const slots = new Map<string, number>()
    const spacing = 100
    let next = 0
    // a limiter of one slot per `spacing` ms: the slot's instant recorded, then waited for
    const admit: Transport.Admit = (request) =>
      Effect.suspend(() => {
        const slot = Math.max(Date.now(), next)
        next = slot + spacing
        slots.set(new URL(request.url).pathname, slot)
        return Effect.sleep(slot - Date.now())
      })
    return Effect.gen(function*() {
      const service = yield* credentials(events, "valid")
      // one renewal that every call waits for (a slow token endpoint): the token comes 600 ms from now
      const ready = Date.now() + 600
      const slow: Credentials["Service"] = { ...service, token: Effect.andThen(Effect.suspend(() => Effect.sleep(Math.max(0, ready - Date.now()))), service.token) }
      yield* Effect.all(Array.from({ length: 8 }, (_, i) => read({ maxRetries: 0 }, i)), { concurrency: "unbounded" }).pipe(
        Effect.provideService(Credentials, slow)
      )
      assert.strictEqual(slots.size, 8)
      for (const [path, slot] of slots) {
        // sent within the admission's tolerance of its slot (before the fix: all at once, up to 600 ms late)
        assert.isAtMost(sent.get(path)! - slot, 50, path)
        assert.isAtLeast(slot, ready - 5, path)
      }
    }).pipe(Effect.provide(admitting(events, admit, fast, sent)))
  })

  it.live("a token renewed while the attempt waited for admit is the one sent: no 401", () => {
    const events: Events = []
    return Effect.gen(function*() {
      const sim = yield* Simulator
      const service = yield* credentials(events, "stale")
      // the first read gives the old token; the renewal lands during the wait for the slot
      let reads = 0
      const renewing: Credentials["Service"] = {
        ...service,
        token: Effect.andThen(Effect.suspend(() => ++reads === 2 ? service.refresh(Redacted.make("stale")) : Effect.void), service.token)
      }
      const result = yield* read({ maxRetries: 0 }).pipe(Effect.provideService(Credentials, renewing))
      assert.strictEqual(result.status, 200)
      const admit = events.find((e) => e.startsWith("admit"))!
      assert.deepStrictEqual(events, ["token stale", admit, "refresh", "token valid"])
      const sent = (yield* sim.requests).filter((e) => e.path.startsWith("/v3/vehicles/"))
      assert.deepStrictEqual(sent.map((e) => e.status), [200])
    }).pipe(Effect.provide(admitting(events, () => Effect.void)))
  })

  it.live("a token read again after admit that does not come at once (a renewal) is not waited for: the one read before goes at once", () => {
    const events: Events = []
    const sent = new Map<string, number>()
    let admitted = 0
    return Effect.gen(function*() {
      const service = yield* credentials(events, "valid")
      let reads = 0
      // the second read waits for a renewal of 1 s
      const slow: Credentials["Service"] = { ...service, token: Effect.andThen(Effect.suspend(() => ++reads === 2 ? Effect.sleep(1_000) : Effect.void), service.token) }
      const result = yield* read({ maxRetries: 0 }).pipe(Effect.provideService(Credentials, slow))
      assert.strictEqual(result.status, 200)
      assert.strictEqual(reads, 2)
      assert.deepStrictEqual(events.filter((e) => e.startsWith("token")), ["token valid"])
      assert.isAtMost([...sent.values()][0]! - admitted, 150)
    }).pipe(Effect.provide(admitting(events, () => Effect.sync(() => {
      admitted = Date.now()
    }), fast, sent)))
  })

  it.live("a call without a credential (publicClient) is not admitted", () => {
    const events: Events = []
    return Effect.gen(function*() {
      const compatibility = yield* Transport.publicClient(CompatibilityApi, "compatibility")
      const result = yield* compatibility.list()
      assert.strictEqual(result.status, 200)
      assert.deepStrictEqual(events, [])
    }).pipe(Effect.provide(admitting(events, () => Effect.never)))
  })
})

/**
 * `Transport.Options.admit` over loopback: it runs before each attempt of a
 * call with a credential (retries and the 401 replay included), before the
 * credential is read, outside the attempt's timeout, bounded by the call's
 * budget; its failure is the call's error.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Redacted } from "effect"
import { CompatibilityApi, VehicleApi } from "@connected-vehicle/schema/Api"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import { Connection, ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { Timeout } from "@connected-vehicle/transport/ConnectedVehicleError"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import { appToken, fast, flipReason, loopback } from "./utils.ts"

/** What happened, in order: `admit <path>`, `token <value>`, `refresh`. */
type Events = Array<string>

/** The transport of `loopback` (with `config`) whose `admit` is `admit`, recording into `events`. */
const admitting = (events: Events, admit: Transport.Admit, config: Parameters<typeof loopback>[0] = fast) =>
  Layer.effect(
    Transport.Transport,
    Transport.make({
      admit: (request) => Effect.andThen(Effect.sync(() => events.push(`admit ${new URL(request.url).pathname}`)), admit(request))
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

/** One v3 read of the first vehicle of the simulator's dataset. */
const read = (options?: Transport.CallOptions) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    const vehicleId = sim.data.vehicleIds[0]!
    const signals = yield* Transport.client(VehicleApi, "signals")
    return yield* signals.list({ params: { vehicleId }, headers: { "sc-user-id": sim.data.connectionOf(vehicleId)!.userId } }, options)
  })

const withCredentials = (events: Events, first: string, onRefresh?: Effect.Effect<void>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(credentials(events, first, onRefresh), (service) => Effect.provideService(effect, Credentials, service))

describe("Transport admit", () => {
  it.live("runs before the credential is read and outside the attempt's timeout: a wait longer than the timeout is no Timeout", () => {
    const events: Events = []
    return Effect.gen(function*() {
      const result = yield* read({ timeout: 200, maxRetries: 0 }).pipe(withCredentials(events, "valid"))
      assert.strictEqual(result.status, 200)
      const path = events.find((e) => e.startsWith("admit"))!
      // the credential the call sends is read after its admission (appToken's own call is public: not admitted)
      assert.deepStrictEqual(events, [path, "token valid"])
      assert.match(path, /^admit \/v3\/vehicles\/[^/]+\/signals$/)
    }).pipe(Effect.provide(admitting(events, () => Effect.sleep(500))))
  })

  it.live("every attempt is admitted: the 401 replay and a retry, each before the token it sends", () => {
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
      assert.deepStrictEqual(events, [admit, "token stale", "refresh", admit, "token valid", admit, "token valid"])
      const sent = (yield* sim.requests).filter((e) => e.path === `/v3/vehicles/${vehicleId}/signals`)
      assert.strictEqual(sent.length, 3)
    }).pipe(Effect.provide(admitting(events, () => Effect.void)))
  })

  it.live("a failure of admit is the call's error: nothing sent, no credential read", () => {
    const events: Events = []
    const refused = new ConnectedVehicleError({ reason: new Connection({ method: "GET", url: "redis://limits", description: "no slot store" }) })
    return Effect.gen(function*() {
      const sim = yield* Simulator
      const error = yield* Effect.flip(read({ maxRetries: 0 }).pipe(withCredentials(events, "valid")))
      assert.strictEqual(error, refused)
      assert.deepStrictEqual(events.filter((e) => e.startsWith("token")), [])
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

/**
 * The advice of the deprecation warnings and of the `@deprecated` JSDoc runs
 * as written: every v3 call a replacement names (`Connections.stream({ userId })`,
 * `Migration.odometer`, `Signals.get CODE`, `Signals.list`) is parsed out of
 * the text and run against the in-memory simulator, with the arguments the
 * text gives. An argument the v3 client does not take (such as
 * `"filter[userId]"`, the wire name of the query) fails the call.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { isConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { Connections } from "@connected-vehicle/v3/Connections"
import * as Migration from "@connected-vehicle/v3/Migration"
import { Signals } from "@connected-vehicle/v3/Signals"
import * as V3 from "@connected-vehicle/v3/V3"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { replacements } from "@connected-vehicle/legacy-v2/Deprecation"

/** The v3 services on the in-memory simulator, with the application's credential. */
const V3Live = Layer.unwrap(Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const TransportLive = Transport.layer.pipe(Layer.provide(TransportConfig.layerOrigin(Simulator.TEST_ORIGIN)))
  const CredentialsLive = Session.layerApplication().pipe(
    Layer.provide([
      TokenStore.layerMemory,
      OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret }),
      TransportLive
    ])
  )
  return V3.layer().pipe(Layer.provide([TransportLive, CredentialsLive]))
})).pipe(Layer.provideMerge(Simulator.layerTest()))

/** What a piece of advice may refer to: the vehicle and its user. */
interface Subject {
  readonly vehicleId: string
  readonly userId: string
}

/** One v3 call named by a piece of advice: `Service.method`, its argument object as written, a signal code. */
interface Call {
  readonly text: string
  readonly service: string
  readonly method: string
  readonly args: string | undefined
  readonly code: string | undefined
}

/** The v3 calls a text names: `Connections.stream({ userId })`, `Migration.odometer (Signals.get CODE)`, `Signals.list`. */
const callsOf = (text: string): ReadonlyArray<Call> =>
  [...text.matchAll(/\b(Connections|Signals|Migration)\.(\w+)`?(?:\(\{([^}]*)\}\))?(?:`? (?:code `)?([a-z]+-[a-z-]+))?/g)].map(
    (m) => ({ text: m[0], service: m[1]!, method: m[2]!, args: m[3], code: m[4] })
  )

/** The argument object as written (`{ userId }`, `{ "filter[userId]": userId }`), its values taken from the subject. */
const argsOf = (written: string, subject: Subject): Record<string, string> =>
  Object.fromEntries(written.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "").map((entry) => {
    const [key, value = key] = entry.split(/:\s*/) as [string, string?]
    const name = key.startsWith("\"") ? JSON.parse(key) as string : key
    assert.oneOf(value, Object.keys(subject), `${entry}: the advice names a value the caller does not have`)
    return [name, subject[value as keyof Subject]]
  }))

/** Runs one call as the advice writes it. */
const runCall = (call: Call, subject: Subject) =>
  Effect.gen(function*() {
    const args = call.args === undefined ? subject : argsOf(call.args, subject)
    if (call.service === "Migration") {
      const read = (Migration as unknown as Record<string, unknown>)[call.method]
      assert.isFunction(read, `${call.text}: not a function of Migration`)
      return yield* (read as (target: Subject) => Effect.Effect<unknown, unknown, V3.Services>)(subject)
    }
    const service = call.service === "Connections" ? yield* Connections : yield* Signals
    const method = (service as unknown as Record<string, (args: unknown) => unknown>)[call.method]
    assert.isFunction(method, `${call.text}: not a method of ${call.service}`)
    const result = method!.call(service, call.code === undefined ? args : { ...subject, code: call.code })
    return Stream.isStream(result)
      ? yield* Stream.runCollect(Stream.take(result as Stream.Stream<unknown, unknown>, 3))
      : yield* (result as Effect.Effect<unknown, unknown>)
  }).pipe(
    // the service's answer about this vehicle (a signal unavailable, credentials expired) is a run of the call
    Effect.catchIf((error) => isConnectedVehicleError(error) && error.status !== undefined, (error) => Effect.succeed(error)),
    Effect.mapError((error) => new Error(`${call.text} fails: ${String(error)}`))
  )

/** A connected vehicle of the simulator and its user. */
const subjectOf = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const user = sim.data.users.find((u) => sim.data.vehiclesOf(u.id).length > 0)!
  return { vehicleId: sim.data.vehiclesOf(user.id)[0]!, userId: user.id }
})

/** The legacy package's sources (in the workspace its modules resolve to them). */
const legacySource = (file: string) =>
  readFileSync(createRequire(import.meta.url).resolve(`@connected-vehicle/legacy-v2/${file.replace(/\.ts$/, "")}`), "utf8")

/** The `@deprecated` (and "v3 equivalent", for the vehicle list, not deprecated) lines of the legacy sources that name a call with its arguments. */
const deprecatedCalls = ["Vehicles.ts", "Batch.ts", "Reading.ts"].flatMap((file) =>
  legacySource(file).split("\n")
    .filter((line) => (line.includes("@deprecated") || line.includes("v3 equivalent")) && /\.\w+\(\{/.test(line))
    .map((line) => ({ file, line: line.trim() }))
)

describe("the advice of the deprecation warnings runs as written", () => {
  it.effect("every replacement a warning names: each call it names runs against the simulator", () =>
    Effect.gen(function*() {
      const subject = yield* subjectOf
      for (const [path, advice] of Object.entries(replacements)) {
        const calls = callsOf(advice)
        if (calls.length === 0) {
          assert.include(advice, "no v3 equivalent", `${path}: "${advice}" names no v3 call`)
          continue
        }
        for (const call of calls) yield* runCall(call, subject)
      }
      // the list's replacement takes the user, under the argument name of the v3 client
      assert.strictEqual(replacements["/vehicles"], "Connections.stream({ userId })")
    }).pipe(Effect.provide(V3Live)))

  it.effect("every `@deprecated` or v3-equivalent JSDoc that writes a call with arguments: the call runs", () =>
    Effect.gen(function*() {
      const subject = yield* subjectOf
      assert.isAtLeast(deprecatedCalls.length, 2)
      for (const { file, line } of deprecatedCalls) {
        const calls = callsOf(line).filter((call) => call.args !== undefined)
        assert.isAtLeast(calls.length, 1, `${file}: ${line}`)
        for (const call of calls) yield* runCall(call, subject)
      }
    }).pipe(Effect.provide(V3Live)))

  it.effect("the advice's argument is the one the v3 client takes: the wire name is refused", () =>
    Effect.gen(function*() {
      const subject = yield* subjectOf
      const wire = yield* Effect.flip(runCall(callsOf("Connections.stream({ \"filter[userId]\": userId })")[0]!, subject))
      assert.include(wire.message, "unknown argument")
      const typed = yield* Stream.runCollect((yield* Connections).stream({ userId: subject.userId }))
      assert.isAtLeast(typed.length, 1)
      assert.isTrue(typed.every((c) => c.attributes.user.id === subject.userId))
    }).pipe(Effect.provide(V3Live)))
})

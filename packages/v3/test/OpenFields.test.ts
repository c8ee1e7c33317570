/**
 * Fields the spec leaves open, over a real loopback connection: a signal's
 * `body.value` of any JSON kind, a failed signal without a body, a webhook
 * without an error callback, a `null` body and a `null` unit decode (they
 * failed the whole page with an `InvalidResponse`), and a migrated read that
 * needs a number still fails with its `InvalidResponse` when the value is not
 * one.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, type Schema, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { numericValue } from "@connected-vehicle/schema/Signal"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as Migration from "../src/Migration.ts"
import { Signals, partition } from "../src/Signals.ts"
import * as V3 from "../src/V3.ts"
import { Webhooks } from "../src/Webhooks.ts"
import { nullsVehicleId, startCanned, userId, vehicleId, vin } from "./canned.ts"

let server: Awaited<ReturnType<typeof startCanned>>
beforeAll(async () => {
  server = await startCanned()
})
afterAll(() => server.close())

const live = () =>
  V3.layer().pipe(
    Layer.provide(Credentials.layerStatic(Redacted.make("app-token"))),
    Layer.provide(Transport.layer),
    Layer.provide([TransportConfig.layerOrigin(server.origin, { retry: { maxAttempts: 1 } }), FetchHttpClient.layer])
  )

const target = { vehicleId, userId }

describe("v3 services: fields the spec leaves open", () => {
  it.effect("signals.list: every value kind, and failed signals without a body, in one page", () =>
    Effect.gen(function*() {
      const signals = yield* Signals
      const page = yield* signals.list(target)
      const values: ReadonlyArray<Schema.Json | undefined> = page.data.map((s) => s.attributes.body.value)
      assert.deepStrictEqual(values, [vin, true, null, undefined, undefined, "far", [220, 221, 215, 216], 81])
      const { failed, succeeded, unavailable } = partition(page)
      assert.deepStrictEqual(failed.map((f) => [f.signal.attributes.code, f.signal.attributes.body, f.error?.code]), [
        ["location-preciselocation", {}, "ASLEEP"]
      ])
      assert.deepStrictEqual(unavailable.map((s) => [s.attributes.code, s.attributes.body]), [["tractionbattery-range", {}]])
      assert.deepStrictEqual(succeeded.map((s) => numericValue(s.attributes.body)), [undefined, undefined, undefined, undefined, undefined, 81])
      // the stream and a single read decode the same
      const streamed = yield* Stream.runCollect(signals.stream(target))
      assert.deepStrictEqual(streamed.map((s) => s.attributes.body), page.data.map((s) => s.attributes.body))
      const one = yield* signals.get({ ...target, code: "vehicleidentification-vin" })
      assert.strictEqual(one.data.attributes.body.value, vin)
      const unavailableOne = yield* signals.get({ ...target, code: "tractionbattery-range" })
      assert.deepStrictEqual(unavailableOne.data.attributes.body, {})
    }).pipe(Effect.provide(live())))

  it.effect("signals.list and get: a null body decodes as {} and a null unit as sent, without failing the page", () =>
    Effect.gen(function*() {
      const signals = yield* Signals
      const nulls = { vehicleId: nullsVehicleId, userId }
      const page = yield* signals.list(nulls)
      assert.deepStrictEqual(page.data.map((s) => [s.attributes.code, s.attributes.body]), [
        ["tractionbattery-range", {}],
        ["closure-islocked", { unit: null, value: true }],
        ["charge-voltage", { unit: "volts", value: 240 }],
        ["odometer-traveleddistance", {}]
      ])
      const units: ReadonlyArray<string | null | undefined> = page.data.map((s) => s.attributes.body.unit)
      assert.deepStrictEqual(units, [undefined, null, "volts", undefined])
      assert.deepStrictEqual((yield* signals.get({ ...nulls, code: "tractionbattery-range" })).data.attributes.body, {})
      assert.deepStrictEqual((yield* signals.get({ ...nulls, code: "closure-islocked" })).data.attributes.body, { unit: null, value: true })
      // a read that needs a number: the body's own InvalidResponse, not a failed decode of the response
      const odometer = reasonOf(yield* Effect.flip(Migration.odometer(nulls)))
      assert.strictEqual(odometer._tag, "InvalidResponse")
      assert.include(odometer.message, "odometer-traveleddistance has no numeric value")
    }).pipe(Effect.provide(live())))

  it.effect("Migration.vin reads a VIN sent as the body's value; a read that needs a number fails with its InvalidResponse", () =>
    Effect.gen(function*() {
      const read = yield* Migration.vin(target)
      assert.deepStrictEqual(read.value, { vin })
      const odometer = reasonOf(yield* Effect.flip(Migration.odometer(target)))
      assert.strictEqual(odometer._tag, "InvalidResponse")
      assert.include(odometer.message, "odometer-traveleddistance has no numeric value")
      // a signal whose status is not SUCCESS (no body) fails with its own reason
      const location = reasonOf(yield* Effect.flip(Migration.location(target)))
      assert.strictEqual(location._tag, "VehicleState")
    }).pipe(Effect.provide(live())))

  it.effect("webhooks.list and get: an error callback absent, null or empty", () =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      const page = yield* webhooks.list()
      const uris: ReadonlyArray<string | null | undefined> = page.data.map((w) => w.attributes.errorCallbackUri)
      assert.deepStrictEqual(uris, [undefined, null, "", "https://hooks.example.test/cv-errors"])
      assert.isFalse("errorCallbackUri" in page.data[0]!.attributes)
      const one = yield* webhooks.get("wh_absent")
      assert.isUndefined(one.data.attributes.errorCallbackUri)
      assert.isNull((yield* webhooks.get("wh_null")).data.attributes.errorCallbackUri)
    }).pipe(Effect.provide(live())))
})

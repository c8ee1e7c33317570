import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import {
  DeliveredAt,
  type DeliveredEvent,
  isFailedSignal,
  VehicleErrorEvent,
  VehicleStateEvent,
  VerifyEvent,
  WebhookEvent,
  WebhookEventFromJson
} from "../src/WebhookEvent.ts"
import { fromJsonString, parse } from "../src/Json.ts"
import { seeded } from "./seed.ts"

// Samples shaped like the wire format of issue 12 (the real service's docs).
const at = "2025-08-26T10:00:00.000Z"
const atMillis = Date.parse(at)

const meta = { version: "4.0", webhookId: "wh_1", webhookName: "Fleet", deliveryId: "dlv_1", deliveredAt: at }

const verify = { eventId: "evt_v", eventType: "VERIFY", data: { challenge: "a1b2c3" }, meta }

const vehicleState = {
  eventId: "evt_1",
  eventType: "VEHICLE_STATE",
  vehicleId: "veh_1",
  data: {
    user: { id: "usr_1" },
    vehicle: { id: "veh_1", make: "TESLA", model: "Model 3", year: 2024 },
    triggers: [{ code: "charge-ischarging", name: "IsCharging", group: "Charge" }],
    signals: [
      {
        code: "charge-ischarging",
        name: "IsCharging",
        group: "Charge",
        body: { value: true },
        meta: { oemUpdatedAt: at, fetchedAt: at }
      },
      {
        code: "tractionbattery-stateofcharge",
        name: "StateOfCharge",
        group: "TractionBattery",
        body: { unit: "percent", value: 81 },
        meta: { oemUpdatedAt: at, fetchedAt: at }
      },
      {
        code: "location-preciselocation",
        name: "PreciseLocation",
        group: "Location",
        status: { value: "ERROR", error: { code: "VEHICLE_ASLEEP", type: "VEHICLE_STATE" } }
      }
    ]
  },
  meta: { ...meta, signalCount: 3, mode: "LIVE" }
}

const vehicleError = {
  eventId: "evt_e",
  eventType: "VEHICLE_ERROR",
  vehicleId: "veh_1",
  data: {
    errors: [{
      type: "PERMISSION",
      code: "PERMISSION_REVOKED",
      state: "ERROR",
      description: "The owner revoked the location permission.",
      suggestedUserMessage: "Reconnect your vehicle to share its location.",
      resolution: { type: "REAUTHENTICATE" },
      signals: [{ code: "location-preciselocation", name: "PreciseLocation", group: "Location" }]
    }]
  },
  meta
}

const decodeJson = Schema.decodeUnknownSync(WebhookEventFromJson)
const decode = Schema.decodeUnknownSync(WebhookEvent)
const encode = Schema.encodeSync(WebhookEvent)

const failure = (input: string): string => {
  try {
    decodeJson(input)
  } catch (error) {
    return String(error)
  }
  throw new Error("expected the decode to fail")
}

describe("WebhookEvent", () => {
  for (const [name, sample] of [["VERIFY", verify], ["VEHICLE_STATE", vehicleState], ["VEHICLE_ERROR", vehicleError]] as const) {
    it(`${name} decodes from JSON text and re-encodes to the same JSON`, () => {
      const event = decodeJson(JSON.stringify(sample))
      assert.strictEqual(event.eventType, name)
      assert.deepStrictEqual(encode(event), sample)
      assert.deepStrictEqual(JSON.parse(Schema.encodeSync(WebhookEventFromJson)(event)), sample)
    })
  }

  it("VEHICLE_STATE carries the vehicle, user, triggers and every signal, read or failed", () => {
    const event = decodeJson(JSON.stringify(vehicleState, null, 2))
    assert.strictEqual(event.eventType, "VEHICLE_STATE")
    if (event.eventType !== "VEHICLE_STATE") return
    assert.strictEqual(event.vehicleId, "veh_1")
    assert.strictEqual(event.data.user.id, "usr_1")
    assert.strictEqual(event.data.vehicle.year, 2024)
    assert.deepStrictEqual(event.data.triggers.map((t) => t.code), ["charge-ischarging"])
    assert.strictEqual(event.meta.signalCount, 3)
    assert.strictEqual(event.meta.mode, "LIVE")
    const [charging, soc, location] = event.data.signals
    assert.isFalse(isFailedSignal(charging!))
    assert.isFalse(isFailedSignal(soc!))
    assert.isTrue(isFailedSignal(location!))
    if (!isFailedSignal(soc!)) {
      assert.strictEqual(soc!.body.value, 81)
      assert.isTrue(DateTime.isDateTime(soc!.meta.oemUpdatedAt))
    }
    if (isFailedSignal(location!)) {
      assert.deepStrictEqual(location!.status.error, { code: "VEHICLE_ASLEEP", type: "VEHICLE_STATE" })
    }
  })

  it("a signal read with a null body decodes with `body: {}`; a null unit is kept as sent", () => {
    const [charging, soc, location] = vehicleState.data.signals
    const signals = [{ ...charging, body: null }, { ...soc, body: { unit: null, value: 81 } }, location]
    const sample = { ...vehicleState, data: { ...vehicleState.data, signals } }
    const event = decodeJson(JSON.stringify(sample))
    if (event.eventType !== "VEHICLE_STATE") return assert.fail(event.eventType)
    const bodies = event.data.signals.map((signal) => isFailedSignal(signal) ? undefined : signal.body)
    assert.deepStrictEqual(bodies, [{}, { unit: null, value: 81 }, undefined])
    const encoded = JSON.parse(Schema.encodeSync(WebhookEventFromJson)(event))
    assert.deepStrictEqual(encoded.data.signals.map((signal: { body?: unknown }) => signal.body), [{}, { unit: null, value: 81 }, undefined])
    // a body of another type still fails
    assert.include(failure(JSON.stringify({ ...sample, data: { ...sample.data, signals: [{ ...charging, body: "x" }] } })), "body")
  })

  it("the first delivery's trigger has a code alone", () => {
    const first = { ...vehicleState, data: { ...vehicleState.data, triggers: [{ code: "FIRST_DELIVERY" }] } }
    const event = decode(first) as typeof VehicleStateEvent.Type
    assert.deepStrictEqual(event.data.triggers, [{ code: "FIRST_DELIVERY" }])
  })

  it("deliveredAt decodes from epoch milliseconds and from an ISO string to the same instant", () => {
    const fromMillis = decode({ ...verify, meta: { ...meta, deliveredAt: atMillis } }) as VerifyEvent
    const fromIso = decode(verify) as VerifyEvent
    const fromOffset = decode({ ...verify, meta: { ...meta, deliveredAt: "2025-08-26T12:00:00+02:00" } }) as VerifyEvent
    assert.isTrue(DateTime.isDateTime(fromMillis.meta.deliveredAt))
    assert.isTrue(DateTime.Equivalence(fromMillis.meta.deliveredAt, fromIso.meta.deliveredAt))
    assert.isTrue(DateTime.Equivalence(fromOffset.meta.deliveredAt, fromIso.meta.deliveredAt))
    assert.strictEqual(DateTime.toEpochMillis(fromMillis.meta.deliveredAt), atMillis)
    // both forms encode back as the ISO string
    assert.strictEqual(Schema.encodeSync(DeliveredAt)(fromMillis.meta.deliveredAt), at)
  })

  it("a malformed deliveredAt is rejected", () => {
    for (const deliveredAt of [1.5, "yesterday", "2025-08-26", "2025-08-26T10:00:00", 1e17, null, true]) {
      const message = failure(JSON.stringify({ ...verify, meta: { ...meta, deliveredAt } }))
      assert.include(message, "deliveredAt")
    }
  })

  it("VEHICLE_ERROR decodes ERROR and RESOLVED states, with or without user and vehicle", () => {
    const resolved = {
      ...vehicleError,
      eventId: "evt_e2",
      data: {
        user: { id: "usr_1" },
        vehicle: { id: "veh_1", make: "TESLA", model: "Model 3", year: 2024 },
        errors: [{ ...vehicleError.data.errors[0]!, state: "RESOLVED" }]
      },
      meta: { ...meta, deliveredAt: atMillis, mode: "SIMULATED" }
    }
    const event = decode(resolved) as VehicleErrorEvent
    assert.strictEqual(event.data.errors[0]?.state, "RESOLVED")
    assert.strictEqual(event.data.user?.id, "usr_1")
    assert.strictEqual(event.meta.mode, "SIMULATED")
    assert.deepStrictEqual(event.data.errors[0]?.resolution, { type: "REAUTHENTICATE" })
  })

  it("an unknown eventType decodes to an UnknownEvent keeping the raw object", () => {
    const raw = { eventId: "evt_x", eventType: "VEHICLE_DELETED", vehicleId: "veh_1", data: { reason: "sold" }, meta }
    const event = decodeJson(JSON.stringify(raw))
    assert.strictEqual(event.eventType, "UNKNOWN")
    if (event.eventType !== "UNKNOWN") return
    assert.strictEqual(event.receivedEventType, "VEHICLE_DELETED")
    assert.strictEqual(event.eventId, "evt_x")
    assert.deepStrictEqual(event.raw, raw)
    assert.deepStrictEqual(encode(event), raw)
  })

  it("open enumerations accept values this SDK does not know", () => {
    const state = decode({ ...vehicleState, meta: { ...vehicleState.meta, mode: "REPLAY" } }) as VehicleStateEvent
    assert.strictEqual(state.meta.mode, "REPLAY")
    const error = decode({
      ...vehicleError,
      data: { errors: [{ ...vehicleError.data.errors[0]!, state: "ESCALATED" }] }
    }) as VehicleErrorEvent
    assert.strictEqual(error.data.errors[0]?.state, "ESCALATED")
  })

  it("unknown fields are ignored", () => {
    const withExtras = {
      ...vehicleState,
      future: { nested: true },
      data: { ...vehicleState.data, extra: 1, user: { id: "usr_1", email: "x@example.test" } }
    }
    const event = decode(withExtras) as VehicleStateEvent
    assert.deepStrictEqual(event.data.user, { id: "usr_1" })
    assert.notProperty(event, "future")
  })

  it("the events narrow on eventType", () => {
    const describeEvent = (event: DeliveredEvent): string => {
      switch (event.eventType) {
        case "VEHICLE_STATE":
          return `${event.data.signals.length} signals`
        case "VEHICLE_ERROR":
          return `${event.data.errors.length} errors`
        case "UNKNOWN":
          return event.receivedEventType
      }
    }
    assert.strictEqual(describeEvent(decode(vehicleState) as DeliveredEvent), "3 signals")
    assert.strictEqual(describeEvent(decode(vehicleError) as DeliveredEvent), "1 errors")
  })

  describe("malformed bodies are rejected, never taken for unknown events", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["not JSON", "{\"eventId\":"],
      ["an empty body", ""],
      ["a JSON array", "[]"],
      ["a JSON string", "\"VERIFY\""],
      ["no eventType", JSON.stringify({ eventId: "evt_1", data: {} })],
      ["a numeric eventType", JSON.stringify({ eventId: "evt_1", eventType: 7 })],
      ["an unknown event without eventId", JSON.stringify({ eventType: "NEW_KIND" })],
      ["VERIFY without a challenge", JSON.stringify({ ...verify, data: {} })],
      ["VERIFY without meta", JSON.stringify({ ...verify, meta: undefined })],
      ["VEHICLE_STATE without vehicleId", JSON.stringify({ ...vehicleState, vehicleId: undefined })],
      ["VEHICLE_STATE with a signal that has neither body nor status", JSON.stringify({
        ...vehicleState,
        data: { ...vehicleState.data, signals: [{ code: "a", name: "A", group: "G" }] }
      })],
      ["VEHICLE_STATE with a failed signal whose status is not ERROR", JSON.stringify({
        ...vehicleState,
        data: {
          ...vehicleState.data,
          signals: [{ code: "a", name: "A", group: "G", status: { value: "OK", error: { code: "X", type: "Y" } } }]
        }
      })],
      ["VEHICLE_STATE with a string signalCount", JSON.stringify({ ...vehicleState, meta: { ...vehicleState.meta, signalCount: "3" } })],
      ["VEHICLE_STATE with a bad oemUpdatedAt", JSON.stringify({
        ...vehicleState,
        data: {
          ...vehicleState.data,
          signals: [{ ...vehicleState.data.signals[0]!, meta: { oemUpdatedAt: "now", fetchedAt: at } }]
        }
      })],
      ["VEHICLE_ERROR without errors", JSON.stringify({ ...vehicleError, data: {} })]
    ]
    for (const [name, body] of cases) {
      it(name, () => {
        const message = failure(body)
        assert.isAbove(message.length, 0)
      })
    }
  })
})

// Generated events survive JSON text both ways (as in Properties.test.ts).
describe("round trip of generated events", () => {
  for (const [name, schema] of Object.entries({ VerifyEvent, VehicleStateEvent, VehicleErrorEvent })) {
    const codec = fromJsonString(schema as unknown as Schema.Codec<unknown, unknown>)
    const encodeJson = Schema.encodeSync(codec)
    const decodeText = Schema.decodeUnknownSync(codec)
    it.prop(name, { value: schema as Schema.Codec<unknown, unknown> }, ({ value }) => {
      const text = encodeJson(value)
      assert.strictEqual(encodeJson(decodeText(text)), text)
      // and through the union, which picks the same member
      assert.deepStrictEqual(parse(Schema.encodeSync(WebhookEventFromJson)(decodeJson(text) as never)), parse(text))
    }, { timeout: 20_000, arbitrary: seeded({ runs: 100 }) })
  }
})

describe("a body with escaped keys (issue 22, item 9)", () => {
  // The shrunk counterexample of the round trip above (seed -549389037946125):
  // a signal body with the keys "unit", "\u0000" and "". V8's `JSON.parse`
  // read "\u0000" as "\\" once a body with a "\\" key at that place had been
  // parsed (nodejs/node#63785); the property's earlier runs had parsed one.
  const text = String.raw`{"eventId":"","eventType":"VEHICLE_STATE","vehicleId":"","data":{"user":{"id":""},"vehicle":{"id":"","make":"","model":"","year":0},"triggers":[],"signals":[{"group":"","name":"","code":"","body":{"unit":"","\u0000":"","":{}},"meta":{"oemUpdatedAt":"1970-01-01T00:00:00.000Z","fetchedAt":"1970-01-01T00:00:00.000Z"}}]},"meta":{"version":"","webhookId":"","webhookName":"","deliveryId":"","deliveredAt":"1970-01-01T00:00:00.000Z","signalCount":0,"mode":"LIVE"}}`
  const bodyKeys = (event: unknown) => Object.keys((event as { data: { signals: Array<{ body: object }> } }).data.signals[0]!.body)

  it("keeps its keys after a body with a backslash key at the same place", () => {
    JSON.parse(text.replace(String.raw`"\u0000"`, String.raw`"\\"`))
    const event = decodeJson(text)
    assert.deepStrictEqual(bodyKeys(event), ["unit", "\u0000", ""])
    assert.strictEqual(Schema.encodeSync(WebhookEventFromJson)(event), text)
    const codec = fromJsonString(VehicleStateEvent)
    assert.strictEqual(Schema.encodeSync(codec)(Schema.decodeUnknownSync(codec)(text)), text)
  })
})

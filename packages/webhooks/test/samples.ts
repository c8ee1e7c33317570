// Deliveries shaped like the wire format of issue 12 (the real service's docs).
import { Redacted } from "effect"
import { sign } from "../src/Signature.ts"

export const secretText = "mgmt-token-7f3a9c1e5b2d4f60a8e1c3b5d7f9a2c4"
export const secret = Redacted.make(secretText)
export const otherSecret = Redacted.make("another-application-token")

const at = "2025-08-26T10:00:00.000Z"

const meta = { version: "4.0", webhookId: "wh_1", webhookName: "Fleet", deliveryId: "dlv_1", deliveredAt: 1756202400000 }

export const verifyEvent = (challenge = "c4a1f0e2b7d94c3a") => ({
  eventId: "evt_verify",
  eventType: "VERIFY",
  data: { challenge },
  meta: { ...meta, deliveredAt: "2025-08-26T10:00:00.000Z" }
})

export const vehicleStateEvent = (eventId = "evt_state_1", make = "RENAULT") => ({
  eventId,
  eventType: "VEHICLE_STATE",
  vehicleId: "veh_1",
  data: {
    user: { id: "usr_1" },
    vehicle: { id: "veh_1", make, model: "Zoé", year: 2022 },
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
})

export const vehicleErrorEvent = (eventId = "evt_error_1") => ({
  eventId,
  eventType: "VEHICLE_ERROR",
  vehicleId: "veh_1",
  data: {
    errors: [{
      type: "PERMISSION",
      code: "PERMISSION_REVOKED",
      state: "ERROR",
      description: "The owner revoked the location permission.",
      suggestedUserMessage: "Reconnect your vehicle.",
      resolution: { type: "REAUTHENTICATE" },
      signals: [{ code: "location-preciselocation", name: "PreciseLocation", group: "Location" }]
    }]
  },
  meta
})

/** The same JSON value pretty-printed, with every non-ASCII character as a `\uXXXX` escape. */
export const prettyEscaped = (value: unknown): string =>
  JSON.stringify(value, null, 2).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** A body and its signature with the shared secret. */
export const signed = (body: string | Uint8Array, key = secret) => ({ body, signature: sign(body, key) })

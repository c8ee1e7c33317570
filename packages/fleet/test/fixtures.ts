/**
 * Deliveries as the service sends them: an event's JSON body signed with
 * `@connected-vehicle/webhooks`' `Signature.sign`.
 */
import { Signature } from "@connected-vehicle/webhooks"
import { Redacted } from "effect"

export const secret = Redacted.make("mgmt-token-fleet-tests-5b2d4f60a8e1")

const at = "2025-08-26T10:00:00.000Z"

export const stateEvent = (eventId: string, vehicleId = "veh_1") => ({
  eventId,
  eventType: "VEHICLE_STATE",
  vehicleId,
  data: {
    user: { id: "usr_1" },
    vehicle: { id: vehicleId, make: "RENAULT", model: "Zoé", year: 2022 },
    triggers: [{ code: "tractionbattery-stateofcharge", name: "StateOfCharge", group: "TractionBattery" }],
    signals: [{
      code: "tractionbattery-stateofcharge",
      name: "StateOfCharge",
      group: "TractionBattery",
      body: { unit: "percent", value: 81 },
      meta: { oemUpdatedAt: at, fetchedAt: at }
    }]
  },
  meta: { version: "4.0", webhookId: "wh_1", webhookName: "Fleet", deliveryId: `dlv_${eventId}`, deliveredAt: 1756202400000, signalCount: 1, mode: "LIVE" }
})

export const verifyEvent = (challenge: string) => ({
  eventId: "evt_verify",
  eventType: "VERIFY",
  data: { challenge },
  meta: { version: "4.0", webhookId: "wh_1", webhookName: "Fleet", deliveryId: "dlv_verify", deliveredAt: at }
})

/** The body and `SC-Signature` of a delivery of `event`. */
export const delivery = (event: unknown, key: Redacted.Redacted<string> = secret) => {
  const body = JSON.stringify(event)
  return { body, signature: Signature.sign(body, key) }
}

/** Posts a delivery to a receiver over HTTP; answers the status and the body. */
export const post = async (url: string, event: unknown, key: Redacted.Redacted<string> = secret) => {
  const { body, signature } = delivery(event, key)
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "sc-signature": signature }, body })
  return { status: response.status, body: await response.text() }
}

import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { CompatibilityPage } from "../src/Compatibility.ts"
import { ConnectionResponse, ConnectionsPage } from "../src/Connection.ts"
import * as Legacy from "../src/Legacy.ts"
import { AppTokenResponse, TokenResponse } from "../src/OAuth.ts"
import { ErrorEnvelope } from "../src/ServiceError.ts"
import { SignalResponse, SignalsPage } from "../src/Signal.ts"
import { SubscriptionResponse, SubscriptionsPage } from "../src/Subscription.ts"
import { WebhookResponse, WebhooksPage } from "../src/Webhook.ts"

// Every top-level response schema: a value generated from the schema encodes to
// JSON, survives JSON text, decodes back, and encodes to the same JSON again.
const responses = {
  SignalsPage,
  SignalResponse,
  ConnectionsPage,
  ConnectionResponse,
  SubscriptionsPage,
  SubscriptionResponse,
  WebhooksPage,
  WebhookResponse,
  CompatibilityPage,
  ErrorEnvelope,
  Odometer: Legacy.Odometer,
  Location: Legacy.Location,
  Vin: Legacy.Vin,
  EngineOil: Legacy.EngineOil,
  TirePressure: Legacy.TirePressure,
  ServiceHistory: Legacy.ServiceHistory,
  VehicleList: Legacy.VehicleList,
  BatchResponse: Legacy.BatchResponse,
  TokenResponse,
  AppTokenResponse
} as const

describe("round trip of generated values", () => {
  for (const [name, schema] of Object.entries(responses)) {
    const codec = schema as unknown as Schema.Codec<unknown, unknown>
    const encode = Schema.encodeSync(codec)
    const decode = Schema.decodeUnknownSync(codec)
    it.prop(`${name}`, { value: schema as Schema.Codec<unknown, unknown> }, ({ value }) => {
      // JSON text is the wire: it is what must survive (it has no -0, for one;
      // key order is not significant).
      const json = JSON.parse(JSON.stringify(encode(value)))
      assert.deepStrictEqual(JSON.parse(JSON.stringify(encode(decode(json)))), json)
    }, { timeout: 20_000, arbitrary: { runs: 100 } })
  }
})

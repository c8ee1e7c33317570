import { assert, describe, it } from "@effect/vitest"
import { DateTime, Redacted, Schema } from "effect"
import { CompatibilityFilters, CompatibilityQuery, ConnectionsQuery } from "../src/Api.ts"
import { powertrainsOf, Timestamp } from "../src/Common.ts"
import { CompatibilityPage } from "../src/Compatibility.ts"
import { ConnectionResponse, ConnectionsPage } from "../src/Connection.ts"
import * as Legacy from "../src/Legacy.ts"
import { AppTokenResponse, TokenResponse } from "../src/OAuth.ts"
import * as ServiceError from "../src/ServiceError.ts"
import * as ServiceReason from "../src/ServiceReason.ts"
import { SignalResponse, SignalsPage } from "../src/Signal.ts"
import { SubscriptionResponse, SubscriptionsPage } from "../src/Subscription.ts"
import { WebhookResponse, WebhooksPage } from "../src/Webhook.ts"
import * as Samples from "./samples.ts"

const roundTrips: ReadonlyArray<readonly [string, Schema.Top, unknown]> = [
  ["SignalsPage", SignalsPage, Samples.signalsPage],
  ["SignalResponse", SignalResponse, Samples.signalResponse],
  ["ConnectionsPage", ConnectionsPage, Samples.connectionsPage],
  ["ConnectionResponse", ConnectionResponse, Samples.connectionResponse],
  ["SubscriptionsPage", SubscriptionsPage, Samples.subscriptionsPage],
  ["SubscriptionResponse", SubscriptionResponse, Samples.subscriptionResponse],
  ["WebhooksPage", WebhooksPage, Samples.webhooksPage],
  ["WebhookResponse", WebhookResponse, Samples.webhookResponse],
  ["CompatibilityPage", CompatibilityPage, Samples.compatibilityPage],
  ["ErrorEnvelope", ServiceError.ErrorEnvelope, Samples.errorEnvelope],
  ["Odometer", Legacy.Odometer, Samples.odometer],
  ["Location", Legacy.Location, Samples.location],
  ["Vin", Legacy.Vin, Samples.vin],
  ["EngineOil", Legacy.EngineOil, Samples.engineOil],
  ["TirePressure", Legacy.TirePressure, Samples.tirePressure],
  ["ServiceHistory", Legacy.ServiceHistory, Samples.serviceHistory],
  ["VehicleList", Legacy.VehicleList, Samples.vehicleList],
  ["BatchRequest", Legacy.BatchRequest, Samples.batchRequest],
  ["BatchResponse", Legacy.BatchResponse, Samples.batchResponse],
  ["TokenResponse", TokenResponse, Samples.tokenResponse]
]

const decode = (schema: Schema.Top) => Schema.decodeUnknownSync(schema as Schema.Codec<unknown, unknown>)
const encode = (schema: Schema.Top) => Schema.encodeSync(schema as Schema.Codec<unknown, unknown>)

/** The readable message of a failed decode. */
const failure = (schema: Schema.Top, input: unknown): string => {
  try {
    decode(schema)(input)
  } catch (error) {
    return String(error)
  }
  throw new Error("expected the decode to fail")
}

describe("samples shaped like the spec", () => {
  for (const [name, schema, sample] of roundTrips) {
    it(`${name} decodes and re-encodes to the same JSON`, () => {
      const decoded = decode(schema)(sample)
      assert.deepStrictEqual(encode(schema)(decoded), sample)
    })
  }

  it("unknown extra fields do not break decoding", () => {
    const withExtras = {
      ...Samples.signalsPage,
      jsonapi: { version: "1.1" },
      data: [{ ...Samples.successSignal, attributes: { ...Samples.successSignal.attributes, future: 1 } }]
    }
    const decoded = decode(SignalsPage)(withExtras) as typeof SignalsPage.Type
    assert.strictEqual(decoded.data[0]?.attributes.code, "charge-voltage")
  })

  it("timestamps decode to DateTime.Utc and accept any zone", () => {
    const utc = Schema.decodeUnknownSync(Timestamp)("2025-08-26T12:00:00+02:00")
    assert.isTrue(DateTime.isDateTime(utc))
    assert.strictEqual(Schema.encodeSync(Timestamp)(utc), "2025-08-26T10:00:00.000Z")
  })

  it("tokens are Redacted from the moment they are decoded", () => {
    const token = Schema.decodeUnknownSync(TokenResponse)(Samples.tokenResponse)
    assert.isTrue(Redacted.isRedacted(token.access_token))
    assert.strictEqual(Redacted.value(token.refresh_token), "rt-secret-value")
    const shown = `${String(token.access_token)} ${JSON.stringify(token)} ${Object.prototype.toString.call(token)}`
    assert.notInclude(shown, "at-secret-value")
    assert.notInclude(shown, "rt-secret-value")
    const app = Schema.decodeUnknownSync(AppTokenResponse)({ access_token: "x", token_type: "Bearer", expires_in: 7200 })
    assert.isUndefined(app.refresh_token)
  })
})

describe("malformed variants fail with a readable message", () => {
  it("missing required field", () => {
    const { code: _, ...attributes } = Samples.successSignal.attributes
    const message = failure(SignalResponse, { ...Samples.signalResponse, data: { ...Samples.successSignal, attributes } })
    assert.include(message, "code")
    assert.include(message, "Missing key")
  })

  it("wrong literal type", () => {
    const message = failure(SignalResponse, { ...Samples.signalResponse, data: { ...Samples.successSignal, type: "signals" } })
    assert.include(message, `"signal"`)
    assert.include(message, `["data"]["type"]`)
  })

  it("wrong type", () => {
    const message = failure(ConnectionsPage, {
      ...Samples.connectionsPage,
      meta: { ...Samples.connectionsPage.meta, totalCount: "1" }
    })
    assert.include(message, "Expected number")
    assert.include(message, `["meta"]["totalCount"]`)
  })

  it("empty errors array", () => {
    const message = failure(ServiceError.ErrorEnvelope, { errors: [] })
    assert.include(message, `["errors"]`)
  })

  it("bad timestamp", () => {
    const message = failure(Legacy.ServiceHistory, [{ ...Samples.serviceHistory[0], serviceDate: "yesterday" }])
    assert.include(message, "ISO 8601")
  })

  it("oil life outside 0..1", () => {
    assert.include(failure(Legacy.EngineOil, { lifeRemaining: 35 }), "lifeRemaining")
  })

  it("strict request enums reject unknown values", () => {
    assert.include(failure(CompatibilityFilters, { "filter[region]": "ASIA" }), `"US" | "CA" | "EUROPE"`)
    assert.include(failure(ConnectionsQuery, { "filter[mode]": "LIVE" }), `"live" | "simulated"`)
  })
})

describe("compatibility query", () => {
  it("the listing's query takes any value and repeated parameters (section 4.5 answers 200 to every query)", () => {
    const decodeQuery = Schema.decodeUnknownSync(Schema.toCodecArrayFromSingle(CompatibilityQuery))
    assert.deepStrictEqual(decodeQuery({ "filter[region]": "MARS", "filter[powertrainType]": "" }), {
      "filter[region]": "MARS",
      "filter[powertrainType]": ""
    })
    assert.deepStrictEqual(decodeQuery({ "filter[region]": ["US", "CA"] }), { "filter[region]": ["US", "CA"] })
  })
})

describe("enumerations", () => {
  it("server enumerations keep unknown values as a typed fallback", () => {
    const page = decode(SignalsPage)({
      ...Samples.signalsPage,
      data: [{ ...Samples.successSignal, attributes: { ...Samples.successSignal.attributes, status: { value: "PENDING" } } }],
      included: { vehicle: { ...Samples.vehicle, attributes: { ...Samples.vehicle.attributes, powertrainType: "FCEV" } } }
    }) as typeof SignalsPage.Type
    assert.strictEqual(page.data[0]?.attributes.status.value, "PENDING")
    assert.strictEqual(page.included.vehicle.attributes.powertrainType, "FCEV")
  })

  it("EV means BEV and PHEV", () => {
    assert.deepStrictEqual(powertrainsOf("EV"), ["BEV", "PHEV"])
    assert.deepStrictEqual(powertrainsOf("ICE"), ["ICE"])
  })
})

describe("error envelope to reasons", () => {
  const tags = {
    AUTHENTICATION: "Authentication",
    BILLING: "Billing",
    COMPATIBILITY: "Compatibility",
    CONNECTED_SERVICES_ACCOUNT: "ConnectedServicesAccount",
    RATE_LIMIT: "RateLimit",
    RESOURCE_NOT_FOUND: "NotFound",
    SERVER: "Server",
    UPSTREAM: "Upstream",
    VALIDATION: "Validation",
    VEHICLE_STATE: "VehicleState"
  } as const
  for (const type of ServiceError.ErrorTypeValues) {
    it(`${type} becomes ${tags[type]}`, () => {
      const envelope = ServiceError.makeEnvelope(type, "details here", { requestId: "req_9" })
      const decoded = decode(ServiceError.ErrorEnvelope)(envelope) as ServiceError.ErrorEnvelope
      const error = ServiceReason.fromEnvelope(decoded, { status: ServiceError.statusOfType[type], method: "GET", url: "/x" })
      assert.strictEqual(error._tag, tags[type])
      assert.strictEqual(error.type, type)
      assert.strictEqual(error.detail, "details here")
      assert.strictEqual(error.requestId, "req_9")
      assert.include(error.message, "details here")
    })
  }

  it("keeps every field of the first item", () => {
    const error = ServiceReason.fromEnvelope(
      decode(ServiceError.ErrorEnvelope)(Samples.errorEnvelope) as ServiceError.ErrorEnvelope,
      { status: 401, requestId: "hdr-req" }
    )
    assert.strictEqual(error._tag, "Authentication")
    assert.strictEqual(error.code, "UNAUTHORIZED")
    assert.strictEqual(error.title, "Unauthorized")
    assert.strictEqual(error.resolution, "REAUTHENTICATE")
    assert.strictEqual(error.suggestedUserMessage, "Please sign in again.")
    assert.strictEqual(error.about, "https://docs.example.test/errors/authentication#unauthorized")
    assert.strictEqual(error.requestId, "hdr-req")
  })

  it("an AUTHENTICATION with a 403 is PermissionDenied; a 429 is RateLimit whatever the type", () => {
    const [item] = ServiceError.makeEnvelope("AUTHENTICATION", "no scope").errors
    assert.strictEqual(ServiceReason.fromEnvelope({ errors: [{ ...item, status: "403" }] }, { status: 403 })._tag, "PermissionDenied")
    const rateLimited = ServiceReason.fromEnvelope(ServiceError.makeEnvelope("SERVER", "slow down"), { status: 429 })
    assert.strictEqual(rateLimited._tag, "RateLimit")
    assert.strictEqual(rateLimited.type, "SERVER")
  })

  it("isRetryable: a 429, a 408, and a 500, 502, 503 or 504 whatever the type", () => {
    const of = (type: (typeof ServiceError.ErrorTypeValues)[number], status: number) =>
      ServiceReason.fromEnvelope(ServiceError.makeEnvelope(type, "x", { status }), { status }).isRetryable
    assert.deepStrictEqual(
      [of("SERVER", 500), of("SERVER", 501), of("UPSTREAM", 502), of("VALIDATION", 503), of("VALIDATION", 400), of("RATE_LIMIT", 429), of("VALIDATION", 408)],
      [true, false, true, true, false, true, true]
    )
  })

  it("an unknown type is kept as Unrecognized", () => {
    const envelope = decode(ServiceError.ErrorEnvelope)({
      errors: [{ status: "418", type: "TEAPOT", code: "X", title: "T", detail: "D" }]
    }) as ServiceError.ErrorEnvelope
    const error = ServiceReason.fromEnvelope(envelope, { status: 418 })
    assert.strictEqual(error._tag, "Unrecognized")
    assert.strictEqual(error.type, "TEAPOT")
  })

  it("standard errors carry the spec's codes and titles", () => {
    const [notFound] = ServiceError.makeEnvelope("RESOURCE_NOT_FOUND", "x").errors
    assert.deepStrictEqual([notFound.status, notFound.code, notFound.title], ["404", "NOT_FOUND", "Not Found"])
    const [bad] = ServiceError.makeEnvelope("VALIDATION", "x").errors
    assert.deepStrictEqual([bad.status, bad.code, bad.title], ["400", "BAD_REQUEST", "Bad Request"])
    const [forbidden] = ServiceError.makeEnvelope("AUTHENTICATION", "x", { status: 403 }).errors
    assert.deepStrictEqual([forbidden.status, forbidden.code, forbidden.title], ["403", "FORBIDDEN", "Forbidden"])
  })
})

describe("legacy batch", () => {
  it("decodes each item's body by its path", () => {
    const response = decode(Legacy.BatchResponse)(Samples.batchResponse) as Legacy.BatchResponse
    const [odometer, vin, missing] = response.responses
    assert.deepStrictEqual(decode(Legacy.decodeBatchBody("/odometer"))(odometer?.body), Samples.odometer)
    assert.deepStrictEqual(decode(Legacy.decodeBatchBody("/vin"))(vin?.body), Samples.vin)
    assert.strictEqual(missing?.code, 404)
    const envelope = decode(ServiceError.ErrorEnvelope)(missing?.body) as ServiceError.ErrorEnvelope
    assert.strictEqual(envelope.errors[0].type, "RESOURCE_NOT_FOUND")
  })

  it("rejects an empty batch", () => {
    assert.include(failure(Legacy.BatchRequest, { requests: [] }), `["requests"]`)
  })
})

/**
 * The Promise client on fields the spec leaves open, over a real loopback
 * connection (a `node:http` server on 127.0.0.1 answering the token request
 * and canned v3 bodies): a signal's `body.value` of any JSON kind, a failed
 * signal without a body and a webhook without an error callback decode (the
 * page failed with an `InvalidResponseError`); a migrated read that needs a
 * number still fails with `InvalidResponseError` when the value is not one.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import type { Schema } from "effect"
import { createServer } from "node:http"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as Client from "../src/Client.ts"

const vehicleId = "0117da09-c8c4-487f-97da-4a874f0fcb76"
const userId = "f9af4e7e-fe5f-48fa-af4e-fe8f108c92e3"
const vin = "1HGCM82633A004352"
const at = "2025-08-26T10:00:00.000Z"
const links = { self: "s", first: "f", prev: null, next: null, last: "l" }
const vehicle = {
  id: vehicleId,
  type: "vehicle",
  attributes: { make: "HONDA", model: "Accord", year: 2003, powertrainType: "ICE", mode: "live" },
  links: { self: "v" }
}

const signal = (code: string, status: object, body?: object) => ({
  id: code,
  type: "signal",
  attributes: { code, name: code, group: "g", status, ...(body === undefined ? {} : { body }) },
  meta: { retrievedAt: at, oemUpdatedAt: at, ingestedAt: at },
  links: { self: code }
})
const signals = [
  signal("vehicleidentification-vin", { value: "SUCCESS" }, { value: vin }),
  signal("closure-islocked", { value: "SUCCESS" }, { value: true }),
  signal("charge-voltage", { value: "SUCCESS" }, { unit: "volts", value: null }),
  signal("location-preciselocation", { value: "ERROR", error: { type: "VEHICLE_STATE", code: "ASLEEP", title: "t", detail: "d" } }),
  signal("tractionbattery-range", { value: "UNAVAILABLE" }),
  signal("odometer-traveleddistance", { value: "SUCCESS" }, { unit: "km", value: { km: 1 } })
]
const webhook = (id: string, errorCallbackUri?: string | null) => ({
  id,
  type: "webhook",
  attributes: {
    name: id,
    triggers: [],
    data: [],
    callbackUri: "https://hooks.example.test/cv",
    ...(errorCallbackUri === undefined ? {} : { errorCallbackUri }),
    isEnabled: true,
    autoSubscribe: false
  },
  meta: { createdAt: at },
  links: { self: id }
})
const webhooks = [webhook("wh_absent"), webhook("wh_null", null), webhook("wh_set", "https://hooks.example.test/errors")]

const routes: Record<string, unknown> = {
  "/oauth/token": { access_token: "app-token", token_type: "Bearer", expires_in: 3600 },
  [`/v3/vehicles/${vehicleId}/signals`]: { data: signals, meta: { pageNumber: 1, pageSize: 10, totalCount: signals.length }, links, included: { vehicle } },
  ...Object.fromEntries(signals.map((s) => [`/v3/vehicles/${vehicleId}/signals/${s.id}`, { data: s, included: { vehicle } }])),
  "/v3/webhooks": { data: webhooks, meta: { pageNumber: 1, pageSize: 10, totalCount: 3, orderBy: "createdAt", orderDirection: "DESC" }, links },
  "/v3/webhooks/wh_absent": { data: webhooks[0] }
}

let server: Server
let origin: string

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume()
    const body = routes[(request.url ?? "").split("?")[0]!]
    response.writeHead(body === undefined ? 404 : 200, { "content-type": "application/json" })
    response.end(JSON.stringify(body ?? { errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail: "x" }] }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const makeClient = () => Client.createClient({ clientId: "client-id", clientSecret: "client-secret", origin, maxRetries: 0 })
const target = { vehicleId, userId }

describe("Promise client: fields the spec leaves open", () => {
  it("signals.list, iterate and get: every value kind, failed signals with an empty body", async () => {
    await using client = makeClient()
    const page = await client.v3.signals.list(target)
    const values: ReadonlyArray<Schema.Json | undefined> = page.data.map((s) => s.attributes.body.value)
    assert.deepStrictEqual(values, [vin, true, null, undefined, undefined, { km: 1 }])
    assert.deepStrictEqual(page.data.slice(3).map((s) => s.attributes.body), [{}, {}, { unit: "km", value: { km: 1 } }])
    const iterated: Array<unknown> = []
    for await (const s of client.v3.signals.iterate(target)) iterated.push(s.attributes.body)
    assert.deepStrictEqual(iterated, page.data.map((s) => s.attributes.body))
    assert.strictEqual((await client.v3.signals.get({ ...target, code: "vehicleidentification-vin" })).data.attributes.body.value, vin)
  })

  it("migration.vin reads the VIN sent as the value; odometer, whose value is no number, is an InvalidResponseError", async () => {
    await using client = makeClient()
    assert.deepStrictEqual((await client.v3.migration.vin(target)).value, { vin })
    const error = await client.v3.migration.odometer(target).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, Client.InvalidResponseError)
    assert.include((error as Error).message, "odometer-traveleddistance has no numeric value")
  })

  it("webhooks.list and get: an error callback absent or null", async () => {
    await using client = makeClient()
    const page = await client.v3.webhooks.list()
    const uris: ReadonlyArray<string | null | undefined> = page.data.map((w) => w.attributes.errorCallbackUri)
    assert.deepStrictEqual(uris, [undefined, null, "https://hooks.example.test/errors"])
    assert.isUndefined((await client.v3.webhooks.get("wh_absent")).data.attributes.errorCallbackUri)
  })
})

/**
 * The Promise client's legacy batch never shows the user's token the server
 * echoed into an entry: an entry's request id and its error envelope come
 * redacted, like an error response's. A `node:http` server on 127.0.0.1
 * answers `POST /v2.0/vehicles/veh_1/batch`.
 */
import { inspect } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import * as Client from "../src/Client.ts"
import { serveFile } from "./loopback.ts"

const accessToken = "at-0123456789-secret"

/** The entries the server answers with, given the request's `authorization` header. */
let entries: (authorization: string) => ReadonlyArray<unknown>

const server = serveFile((request, response) => {
  response.writeHead(200, { "content-type": "application/json" })
  response.end(JSON.stringify({ responses: entries(request.headers.authorization ?? "") }))
})

const envelope = (detail: string) => ({
  errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail }]
})

const batch = async () => {
  await using client = Client.createClient({ clientId: "client-id", clientSecret: "client-secret", origin: server.origin(), transport: { retry: { maxAttempts: 1 } } })
  await client.legacy.setUserToken({ accessToken })
  return await client.legacy.batch("veh_1", ["/odometer", "/vin"])
}

describe("Promise client: a legacy batch's entries", () => {
  it("an entry's request id and envelope echoing the token: redacted", async () => {
    entries = (authorization) => [
      { path: "/odometer", code: 200, body: { distance: 12.5 }, headers: { "sc-unit-system": "metric", "x-request-id": `echo ${authorization}` } },
      { path: "/vin", code: 404, body: envelope(`no vehicle for ${authorization}`), headers: { "x-request-id": `echo ${authorization}` } }
    ]
    const result = await batch()
    const odometer = result["/odometer"]
    assert.isTrue(odometer.ok)
    if (odometer.ok) {
      assert.strictEqual(odometer.reading.value.distance, 12.5)
      assert.strictEqual(odometer.reading.requestId, "echo <redacted>")
    }
    const vin = result["/vin"]
    assert.isFalse(vin.ok)
    if (!vin.ok) {
      assert.instanceOf(vin.error, Client.NotFoundError)
      const error = vin.error as Client.NotFoundError
      assert.strictEqual(error.requestId, "echo <redacted>")
      assert.strictEqual(error.detail, "no vehicle for <redacted>")
      assert.strictEqual(error.errors?.[0]?.detail, "no vehicle for <redacted>")
      for (const text of [String(error), error.message, JSON.stringify(error), inspect(error, { depth: 10 })]) assert.notInclude(text, accessToken)
    }
  })

  it("entries without secrets: as the server wrote them", async () => {
    entries = () => [
      { path: "/odometer", code: 200, body: { distance: 3 }, headers: { "sc-unit-system": "metric", "x-request-id": "req-1" } },
      { path: "/vin", code: 404, body: envelope("no vehicle veh_1"), headers: { "x-request-id": "req-2" } }
    ]
    const result = await batch()
    const odometer = result["/odometer"]
    assert.deepStrictEqual(odometer.ok ? [odometer.reading.value.distance, odometer.reading.requestId] : [], [3, "req-1"])
    const vin = result["/vin"]
    assert.deepStrictEqual(vin.ok ? [] : [vin.error.requestId, (vin.error as Client.NotFoundError).detail], ["req-2", "no vehicle veh_1"])
  })
})

/**
 * A `node:http` server on 127.0.0.1 answering canned bodies by method and
 * path (and the client-credentials token request), for responses the
 * simulator does not give: fields the spec leaves open, in the shapes a real
 * service may send.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export const vehicleId = "0117da09-c8c4-487f-97da-4a874f0fcb76"
export const userId = "f9af4e7e-fe5f-48fa-af4e-fe8f108c92e3"
export const vin = "1HGCM82633A004352"

const at = "2025-08-26T10:00:00.000Z"
const vehicle = {
  id: vehicleId,
  type: "vehicle",
  attributes: { make: "HONDA", model: "Accord", year: 2003, powertrainType: "ICE", mode: "live" },
  links: { self: `/v3/vehicles/${vehicleId}` }
}

/** A signal resource; `body` left out when `undefined`. */
export const signal = (code: string, status: object, body: unknown) => ({
  id: code,
  type: "signal",
  attributes: { code, name: code, group: code.split("-")[0], status, ...(body === undefined ? {} : { body }) },
  meta: { retrievedAt: at, oemUpdatedAt: at, ingestedAt: at },
  links: { self: `/v3/vehicles/${vehicleId}/signals/${code}` }
})

const success = { value: "SUCCESS" }
const failed = {
  value: "ERROR",
  error: { type: "VEHICLE_STATE", code: "ASLEEP", title: "Asleep", detail: "The vehicle is asleep", resolution: { type: "RETRY_LATER" } }
}

/** Every signal of the vehicle: values of every JSON kind, and failed signals without a body. */
export const signals = [
  signal("vehicleidentification-vin", success, { value: vin }),
  signal("closure-islocked", success, { value: true }),
  signal("charge-voltage", success, { unit: "volts", value: null }),
  signal("location-preciselocation", failed, undefined),
  signal("tractionbattery-range", { value: "UNAVAILABLE" }, undefined),
  signal("odometer-traveleddistance", success, { unit: "km", value: "far" }),
  signal("wheel-tirepressures", success, { unit: "kPa", value: [220, 221, 215, 216] }),
  signal("tractionbattery-stateofcharge", success, { unit: "percent", value: 81 })
]

/** A vehicle whose signals carry a `null` body or a `null` unit. */
export const nullsVehicleId = "5a7d51cb-2c44-4a8e-9a52-0c0d0f6a2b11"

/** Signals with a `null` body (a failed one and a read one) and with a `null` unit. */
export const nullSignals = [
  signal("tractionbattery-range", { value: "UNAVAILABLE" }, null),
  signal("closure-islocked", success, { unit: null, value: true }),
  signal("charge-voltage", success, { unit: "volts", value: 240 }),
  signal("odometer-traveleddistance", success, null)
]

const webhook = (id: string, errorCallbackUri: unknown) => ({
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
  links: { self: `/v3/webhooks/${id}` }
})

/** Webhooks without an error callback (absent, `null`, empty) and with one. */
export const webhooks = [
  webhook("wh_absent", undefined),
  webhook("wh_null", null),
  webhook("wh_empty", ""),
  webhook("wh_set", "https://hooks.example.test/cv-errors")
]

const links = { self: "s", first: "f", prev: null, next: null, last: "l" }

const routes: Record<string, unknown> = {
  [`/v3/vehicles/${vehicleId}/signals`]: {
    data: signals,
    meta: { pageNumber: 1, pageSize: 10, totalCount: signals.length },
    links,
    included: { vehicle }
  },
  ...Object.fromEntries(signals.map((s) => [`/v3/vehicles/${vehicleId}/signals/${s.id}`, { data: s, included: { vehicle } }])),
  [`/v3/vehicles/${nullsVehicleId}/signals`]: {
    data: nullSignals,
    meta: { pageNumber: 1, pageSize: 10, totalCount: nullSignals.length },
    links,
    included: { vehicle }
  },
  ...Object.fromEntries(nullSignals.map((s) => [`/v3/vehicles/${nullsVehicleId}/signals/${s.id}`, { data: s, included: { vehicle } }])),
  "/v3/webhooks": {
    data: webhooks,
    meta: { pageNumber: 1, pageSize: 10, totalCount: webhooks.length, orderBy: "createdAt", orderDirection: "DESC" },
    links
  },
  ...Object.fromEntries(webhooks.map((w) => [`/v3/webhooks/${w.id}`, { data: w }]))
}

/** Starts the server; `close` stops it. */
export const startCanned = async () => {
  const server = createServer((request, response) => {
    request.resume()
    const path = (request.url ?? "").split("?")[0]!
    const body = path === "/oauth/token"
      ? { access_token: "app-token", token_type: "Bearer", expires_in: 3600 }
      : request.method === "GET"
      ? routes[path]
      : undefined
    if (body === undefined) {
      response.writeHead(404, { "content-type": "application/json" })
      response.end(JSON.stringify({ errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail: path }] }))
      return
    }
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

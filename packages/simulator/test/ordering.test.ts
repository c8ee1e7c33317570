/**
 * The order in which a request is refused, on every authenticated endpoint
 * of the contract: 401 (no or an invalid token) before 403 (the wrong kind
 * of token, a token without the endpoint's permission) before 400 (a
 * malformed query, header or body).
 */
import { ServiceApi } from "@connected-vehicle/schema/Api"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call, isEnvelope, userTokens } from "./helpers.ts"

const Loopback = Layer.mergeAll(simulatorLayer({ seed: 5, connections: 30, vehicles: 30, users: 10 }), FetchHttpClient.layer)

interface Case {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly headers?: Record<string, string>
  readonly json?: unknown
  /** The status with the right token: 400 when the request is malformed, 200 when the endpoint has nothing to malform. */
  readonly valid: 400 | 200
  /** The token kind the endpoint takes. */
  readonly takes: "app" | "user"
  /** The request needs a permission the narrow user token lacks. */
  readonly permission?: boolean
}

const kelvin = { "sc-unit-system": "kelvin" }

layer(Loopback)("401, then 403, then 400", (it) => {
  it.effect("every authenticated endpoint of the contract refuses in that order", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const vehicle = sim.data.vehicleIds[0]!
      const { connectionId, userId } = sim.data.connectionOf(vehicle)!
      const app = yield* appToken
      const user = (yield* userTokens({ userId })).access
      // a user token holding only read_vehicle_info: no legacy read's permission
      const narrow = (yield* userTokens({ userId, scope: "read_vehicle_info" })).access
      const subscriptionId = (yield* call("GET", "/v3/subscriptions", { headers: bearer(app) })).json.data[0].id
      const webhookId = sim.data.webhooks[0]!.id
      const read = (path: string): Case => ({ method: "GET", path: `/v2.0/vehicles/${vehicle}${path}`, headers: kelvin, valid: 400, takes: "user", permission: true })
      const cases: Record<string, Case> = {
        "signals.list": { method: "GET", path: `/v3/vehicles/${vehicle}/signals?page=0`, headers: { "sc-user-id": userId }, valid: 400, takes: "app" },
        // sc-user-id is required
        "signals.get": { method: "GET", path: `/v3/vehicles/${vehicle}/signals/odometer-traveleddistance`, valid: 400, takes: "app" },
        "connections.list": { method: "GET", path: "/v3/connections?pageSize=0", valid: 400, takes: "app" },
        "connections.get": { method: "GET", path: `/v3/connections/${connectionId}`, valid: 200, takes: "app" },
        "subscriptions.list": { method: "GET", path: "/v3/subscriptions?pageSize=101", valid: 400, takes: "app" },
        "subscriptions.get": { method: "GET", path: `/v3/subscriptions/${subscriptionId}`, valid: 200, takes: "app" },
        "webhooks.list": { method: "GET", path: "/v3/webhooks", valid: 200, takes: "app" },
        "webhooks.get": { method: "GET", path: `/v3/webhooks/${webhookId}`, valid: 200, takes: "app" },
        "legacy.vehicles": { method: "GET", path: "/v2.0/vehicles?limit=0", valid: 400, takes: "user" },
        "legacy.odometer": read("/odometer"),
        "legacy.location": read("/location"),
        "legacy.vin": read("/vin"),
        "legacy.engineOil": read("/engine/oil"),
        "legacy.tirePressure": read("/tires/pressure"),
        "legacy.serviceHistory": read("/service/history"),
        "legacy.batch": { method: "POST", path: `/v2.0/vehicles/${vehicle}/batch`, json: { requests: "no" }, valid: 400, takes: "user" }
      }
      // every endpoint that takes a token has its case: a new one cannot be left out
      const authenticated = Object.values(ServiceApi.groups).flatMap((group) =>
        Object.values(group.endpoints)
          // section 5.1 and 5.3: every v3 endpoint but the compatibility listing, and v2.0
          .filter((endpoint) => /^\/(v3|v2\.0)\//.test(endpoint.path) && !endpoint.path.startsWith("/v3/compatible-vehicles"))
          .map((endpoint) => `${group.identifier}.${endpoint.identifier}`)
      )
      assert.deepStrictEqual(authenticated.sort(), Object.keys(cases).sort())
      const failures: Array<string> = []
      for (const [name, c] of Object.entries(cases)) {
        const send = (token: string | undefined) =>
          call(c.method, c.path, {
            headers: { ...c.headers, ...(token === undefined ? {} : bearer(token)) },
            ...(c.json === undefined ? {} : { json: c.json })
          })
        const right = c.takes === "app" ? app : user
        const wrong = c.takes === "app" ? user : app
        const expected: ReadonlyArray<readonly [string, string | undefined, number]> = [
          ["no token", undefined, 401],
          ["an unknown token", "not-a-token", 401],
          ["the wrong kind of token", wrong, 403],
          ...(c.takes === "user" ? [["a token without the permission", narrow, c.permission === true ? 403 : c.valid] as const] : []),
          ["the right token", right, c.valid]
        ]
        for (const [who, token, status] of expected) {
          const reply = yield* send(token)
          if (reply.status !== status) failures.push(`${name} with ${who}: ${reply.status}, expected ${status}: ${reply.text.slice(0, 160)}`)
          if (status >= 400 && !(isEnvelope(reply.json) && reply.json.errors[0].status === String(status))) {
            failures.push(`${name} with ${who}: not the section 7 envelope of ${status}: ${reply.text.slice(0, 160)}`)
          }
        }
      }
      assert.deepStrictEqual(failures, [])
    }))
})

/**
 * The statuses and error bodies of every endpoint of the contract against
 * the spec: each probe's status is one the spec lists for the endpoint (when
 * it lists them) and one the contract declares (its OpenAPI responses), and
 * every error body is the section 7 envelope (the OAuth body under /oauth)
 * whose first item carries the status, and for the standard statuses the
 * type, code and title of section 7.
 */
import { ServiceApi } from "@connected-vehicle/schema/Api"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { appToken, basic, bearer, call, isEnvelope, isOAuthBody, userTokens } from "./helpers.ts"
import type { CallOptions } from "./helpers.ts"

const Loopback = Layer.mergeAll(simulatorLayer({ seed: 3, connections: 40, vehicles: 40, users: 8, webhooks: 6 }), FetchHttpClient.layer)

/** Section 7, standard errors. */
const standard: Readonly<Record<number, readonly [type: string, code: string, title: string]>> = {
  400: ["VALIDATION", "BAD_REQUEST", "Bad Request"],
  401: ["AUTHENTICATION", "UNAUTHORIZED", "Unauthorized"],
  403: ["AUTHENTICATION", "FORBIDDEN", "Forbidden"],
  404: ["RESOURCE_NOT_FOUND", "NOT_FOUND", "Not Found"],
  500: ["SERVER", "the service", "the service Server Error"]
}

const all = [200, 400, 401, 403, 404, 500]

/** Section 4: the statuses each endpoint may answer; undefined where the spec does not show them. */
const specStatuses: Readonly<Record<string, ReadonlyArray<number> | undefined>> = {
  "signals.list": all,
  "signals.get": all,
  "connections.list": all,
  "connections.get": all,
  "subscriptions.list": [200, 400, 401, 403, 500],
  "subscriptions.get": all,
  "webhooks.list": [200, 401, 403, 500],
  "webhooks.get": undefined,
  "compatibility.list": [200, 404, 500],
  "oauth.authorize": undefined,
  "oauth.token": undefined,
  "legacy.vehicles": undefined,
  "legacy.odometer": undefined,
  "legacy.location": undefined,
  "legacy.vin": undefined,
  "legacy.engineOil": undefined,
  "legacy.tirePressure": undefined,
  "legacy.serviceHistory": undefined,
  "legacy.batch": undefined
}

interface Probe {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly options?: CallOptions
}

const fault500 = { "x-simulator-fault": "500" }

/** The probes of every endpoint: a valid request, and each way it may be refused. */
const probesOf = Effect.gen(function*() {
  const sim = yield* Simulator
  const vehicle = sim.data.vehicleIds[0]!
  const { connectionId, userId } = sim.data.connectionOf(vehicle)!
  const other = sim.data.vehicleIds.find((id) => sim.data.connectionOf(id) !== undefined && sim.data.connectionOf(id)!.userId !== userId)!
  const app = yield* appToken
  const user = (yield* userTokens({ userId })).access
  const narrow = (yield* userTokens({ userId, scope: "read_vehicle_info" })).access
  const noHistory = sim.data.vehicleIds.find((id) => sim.data.connectionOf(id) !== undefined && !sim.data.vehicle(id)!.supportsServiceHistory)!
  const noHistoryUser = (yield* userTokens({ userId: sim.data.connectionOf(noHistory)!.userId })).access
  const subscriptionId = (yield* call("GET", "/v3/subscriptions", { headers: bearer(app) })).json.data[0].id
  const webhookId = sim.data.webhooks[0]!.id
  const nobody = "00000000-0000-4000-8000-000000000000"
  const owner = { "sc-user-id": userId }
  const v3 = (path: string, headers: Record<string, string> = {}): ReadonlyArray<Probe> => [
    { method: "GET", path, options: { headers: { ...bearer(app), ...headers } } },
    { method: "GET", path, options: { headers } },
    { method: "GET", path, options: { headers: { ...bearer("expired-or-unknown"), ...headers } } },
    { method: "GET", path, options: { headers: { ...bearer(user), ...headers } } },
    { method: "GET", path, options: { headers: { ...bearer(app), ...headers, ...fault500 } } }
  ]
  const withApp = (path: string, headers: Record<string, string> = {}): Probe => ({ method: "GET", path, options: { headers: { ...bearer(app), ...headers } } })
  const listQueries = (path: string) =>
    ["page=0", "page=x", "pageSize=0", "pageSize=101", "filter[foo]=1", "page=", "page=1&page=2"].map((q) => withApp(`${path}?${q}`))
  const legacy = (path: string, token = user): ReadonlyArray<Probe> => [
    { method: "GET", path: `/v2.0/vehicles/${vehicle}${path}`, options: { headers: bearer(token) } },
    { method: "GET", path: `/v2.0/vehicles/${vehicle}${path}`, options: {} },
    { method: "GET", path: `/v2.0/vehicles/${vehicle}${path}`, options: { headers: bearer(app) } },
    { method: "GET", path: `/v2.0/vehicles/${vehicle}${path}`, options: { headers: bearer(narrow) } },
    { method: "GET", path: `/v2.0/vehicles/${vehicle}${path}`, options: { headers: { ...bearer(token), "sc-unit-system": "kelvin" } } },
    { method: "GET", path: `/v2.0/vehicles/${other}${path}`, options: { headers: bearer(token) } },
    { method: "GET", path: `/v2.0/vehicles/${nobody}${path}`, options: { headers: bearer(token) } },
    { method: "GET", path: `/v2.0/vehicles/${vehicle}${path}`, options: { headers: { ...bearer(token), ...fault500 } } }
  ]
  const batch = (json: unknown, token = user): Probe => ({ method: "POST", path: `/v2.0/vehicles/${vehicle}/batch`, options: { headers: bearer(token), json } })
  const token = (form: Record<string, string>, authorization?: string): Probe => ({
    method: "POST",
    path: "/oauth/token",
    options: { headers: authorization === undefined ? {} : { authorization }, form }
  })
  const authorize = (query: string): Probe => ({ method: "GET", path: `/oauth/authorize?${query}` })
  /** The probe with an injected 500 (fault injection, as `--failure-rate` gives it). */
  const faulted = (probe: Probe): Probe => ({ ...probe, options: { ...probe.options, headers: { ...probe.options?.headers, ...fault500 } } })
  const client = `client_id=${sim.clientId}&response_type=code&redirect_uri=${encodeURIComponent("https://app.example/cb")}`
  const v3Probes: Record<string, ReadonlyArray<Probe>> = {
    "signals.list": [
      ...v3(`/v3/vehicles/${vehicle}/signals`, owner),
      ...listQueries(`/v3/vehicles/${vehicle}/signals`).map((p) => ({ ...p, options: { headers: { ...p.options!.headers, ...owner } } })),
      withApp(`/v3/vehicles/${vehicle}/signals`),
      withApp(`/v3/vehicles/${vehicle}/signals`, { "sc-user-id": "" }),
      withApp(`/v3/vehicles/${other}/signals`, owner),
      withApp(`/v3/vehicles/${nobody}/signals`, owner)
    ],
    "signals.get": [
      ...v3(`/v3/vehicles/${vehicle}/signals/odometer-traveleddistance`, owner),
      withApp(`/v3/vehicles/${vehicle}/signals/odometer-traveleddistance`),
      withApp(`/v3/vehicles/${vehicle}/signals/no-such-signal`, owner),
      withApp(`/v3/vehicles/${other}/signals/odometer-traveleddistance`, owner)
    ],
    "connections.list": [
      ...v3("/v3/connections"),
      ...listQueries("/v3/connections"),
      withApp("/v3/connections?filter[mode]=parked"),
      withApp("/v3/connections?filter[userId]=abc"),
      withApp(`/v3/connections?filter[userId]=${nobody}`)
    ],
    "connections.get": [...v3(`/v3/connections/${connectionId}`), withApp(`/v3/connections/${nobody}`)],
    "subscriptions.list": [
      ...v3("/v3/subscriptions"),
      ...listQueries("/v3/subscriptions"),
      withApp("/v3/subscriptions?filter[mode]=parked"),
      withApp("/v3/subscriptions?filter[webhookId]=x")
    ],
    "subscriptions.get": [...v3(`/v3/subscriptions/${subscriptionId}`), withApp(`/v3/subscriptions/${nobody}`)],
    "webhooks.list": [
      ...v3("/v3/webhooks"),
      ...listQueries("/v3/webhooks"),
      withApp("/v3/webhooks?filter[isEnabled]=yes"),
      withApp("/v3/webhooks?filter[autoSubscribe]="),
      withApp("/v3/webhooks?filter[name]=")
    ],
    "webhooks.get": [...v3(`/v3/webhooks/${webhookId}`), withApp(`/v3/webhooks/${nobody}`)]
  }
  const otherProbes: Record<string, ReadonlyArray<Probe>> = {
    "compatibility.list": [
      { method: "GET", path: "/v3/compatible-vehicles" },
      { method: "GET", path: "/v3/compatible-vehicles?filter[region]=MARS&filter[powertrainType]=DIESEL" },
      { method: "GET", path: "/v3/compatible-vehicles", options: { headers: { ...bearer(user) } } },
      { method: "GET", path: "/v3/compatible-vehicles", options: { headers: fault500 } }
    ],
    "oauth.authorize": [
      authorize(client),
      authorize("client_id=nobody&response_type=code"),
      authorize(`${client}&scope=fly`),
      authorize(`${client}&scope=`),
      faulted(authorize(client))
    ],
    "oauth.token": [
      token({ grant_type: "client_credentials" }, yield* basic),
      token({ grant_type: "client_credentials" }),
      token({ grant_type: "client_credentials" }, "Basic " + Buffer.from("x:y").toString("base64")),
      token({ grant_type: "authorization_code", code: "nope", redirect_uri: "https://app.example/cb" }, yield* basic),
      token({ grant_type: "teleport" }, yield* basic),
      faulted(token({ grant_type: "client_credentials" }, yield* basic))
    ],
    "legacy.vehicles": [
      { method: "GET", path: "/v2.0/vehicles", options: { headers: bearer(user) } },
      { method: "GET", path: "/v2.0/vehicles", options: {} },
      { method: "GET", path: "/v2.0/vehicles", options: { headers: bearer(app) } },
      { method: "GET", path: "/v2.0/vehicles?limit=51", options: { headers: bearer(user) } },
      { method: "GET", path: "/v2.0/vehicles?offset=-1", options: { headers: bearer(user) } }
    ],
    "legacy.odometer": legacy("/odometer"),
    "legacy.location": legacy("/location"),
    "legacy.vin": legacy("/vin"),
    "legacy.engineOil": legacy("/engine/oil"),
    "legacy.tirePressure": legacy("/tires/pressure"),
    "legacy.serviceHistory": [
      ...legacy("/service/history"),
      { method: "GET", path: `/v2.0/vehicles/${noHistory}/service/history`, options: { headers: bearer(noHistoryUser) } }
    ],
    "legacy.batch": [
      batch({ requests: [{ path: "/odometer" }, { path: "/nowhere" }] }),
      batch({ requests: [{ path: "/odometer" }] }, app),
      batch({ requests: "no" }),
      batch({ requests: [] }),
      batch({ requests: Array.from({ length: 51 }, () => ({ path: "/vin" })) }),
      { method: "POST", path: `/v2.0/vehicles/${vehicle}/batch`, options: { json: { requests: [] } } },
      { method: "POST", path: `/v2.0/vehicles/${nobody}/batch`, options: { headers: bearer(user), json: { requests: [{ path: "/vin" }] } } }
    ]
  }
  return { ...v3Probes, ...otherProbes }
})

/** Why an error body is not the one section 7 (or, under /oauth, the OAuth body) gives `status`, or undefined. */
const errorBodyProblem = (status: number, json: any, oauth: boolean): string | undefined => {
  if (oauth ? !isOAuthBody(json) : !isEnvelope(json)) return `not the ${oauth ? "OAuth body" : "section 7 envelope"}`
  const item = json.errors?.[0]
  if (item === undefined) return undefined
  if (item.status !== String(status)) return `errors[0].status is ${item.status}`
  const expected = standard[status]
  if (expected !== undefined && (item.type !== expected[0] || item.code !== expected[1] || item.title !== expected[2])) {
    return `errors[0] is ${item.type} / ${item.code} / ${item.title}, not ${expected.join(" / ")}`
  }
  return typeof item.detail !== "string" || item.detail === "" ? "no detail" : undefined
}

layer(Loopback)("statuses and error bodies per endpoint", (it) => {
  it.effect("every probe of every endpoint answers a status of the spec and of the contract, with the section 7 body", () =>
    Effect.gen(function*() {
      const probes = yield* probesOf
      const endpoints = Object.values(ServiceApi.groups).flatMap((group) =>
        Object.values(group.endpoints).map((endpoint) => ({ name: `${group.identifier}.${endpoint.identifier}`, endpoint }))
      )
      assert.deepStrictEqual(endpoints.map((e) => e.name).sort(), Object.keys(probes).sort())
      assert.deepStrictEqual(Object.keys(specStatuses).sort(), Object.keys(probes).sort())
      const openapi = (yield* call("GET", "/openapi.json")).json
      const failures: Array<string> = []
      for (const { endpoint, name } of endpoints) {
        const documented = endpoint.path.replace(/:(\w+)/g, "{$1}")
        const declared = Object.keys(openapi.paths[documented][endpoint.method.toLowerCase()].responses).map(Number)
        const shown = specStatuses[name]
        // the contract declares no status the spec rules out (429: the spec shows no status for rate limiting)
        if (shown !== undefined) {
          const extra = declared.filter((status) => !shown.includes(status) && status !== 429)
          if (extra.length > 0) failures.push(`${name}: the contract declares ${extra.join(", ")}, not in section 4 (${shown.join(", ")})`)
        }
        for (const probe of probes[name]!) {
          const reply = yield* call(probe.method, probe.path, probe.options)
          const where = `${name}: ${probe.method} ${probe.path} ${JSON.stringify(probe.options?.headers ?? {})} -> ${reply.status} ${reply.text.slice(0, 140)}`
          if (shown !== undefined && !shown.includes(reply.status)) failures.push(`status not in section 4: ${where}`)
          if (!declared.includes(reply.status)) failures.push(`status not declared by the contract: ${where}`)
          const problem = reply.status < 400 ? undefined : errorBodyProblem(reply.status, reply.json, probe.path.startsWith("/oauth/"))
          if (problem !== undefined) failures.push(`${problem}: ${where}`)
        }
      }
      assert.deepStrictEqual(failures, [])
    }))
})

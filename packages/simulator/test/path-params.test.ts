/**
 * Path parameters of any length reach their handler (the router's own
 * 100-character limit is lifted): an unknown long id is the endpoint's 404,
 * never a 405 whose `Allow` lists the request's own method. A malformed
 * percent-encoding in the path is a 400 (section 7: a malformed request).
 */
import { ServiceApi } from "@connected-vehicle/schema/Api"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { layer, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call, isEnvelope, isOAuthBody, userTokens } from "./helpers.ts"
import { openRaw, rawRequest } from "./raw.ts"

const Loopback = Layer.mergeAll(layer({ seed: 3 }), FetchHttpClient.layer)

/** Every endpoint of the contract with a path parameter. */
const parameterised = Object.values(ServiceApi.groups).flatMap((group) =>
  Object.values(group.endpoints)
    .filter((endpoint) => endpoint.path.includes(":"))
    .map((endpoint) => ({ group: group.identifier, name: endpoint.identifier, method: endpoint.method, path: endpoint.path }))
)

/** The credentials an endpoint's group takes: the application token (v3), the user's (v2.0). */
const credentials = Effect.gen(function*() {
  const sim = yield* Simulator
  const vehicleId = sim.data.vehicleIds[0]!
  const userId = sim.data.connectionOf(vehicleId)!.userId
  const app = { ...bearer(yield* appToken), "sc-user-id": userId }
  const user = bearer((yield* userTokens({ userId })).access)
  return { vehicleId, headersOf: (group: string) => group === "legacy" ? user : app }
})

const detailOf = (json: any): string => json.errors[0].detail

describe("long path parameters", () => {
  it.effect("a 101- and a 1000-character id on every parameterised endpoint: the endpoint's 404, never 405", () =>
    Effect.gen(function*() {
      const { headersOf, vehicleId } = yield* credentials
      assert.deepStrictEqual(parameterised.map((e) => `${e.group}.${e.name}`).sort(), [
        "connections.get",
        "legacy.batch",
        "legacy.engineOil",
        "legacy.location",
        "legacy.odometer",
        "legacy.serviceHistory",
        "legacy.tirePressure",
        "legacy.vin",
        "signals.get",
        "signals.list",
        "subscriptions.get",
        "webhooks.get"
      ])
      for (const length of [100, 101, 1000]) {
        const id = "a".repeat(length)
        for (const endpoint of parameterised) {
          const path = endpoint.path.replace(/:\w+/g, id)
          const json = endpoint.method === "POST" ? { requests: [{ path: "/odometer" }] } : undefined
          const reply = yield* call(endpoint.method, path, { headers: headersOf(endpoint.group), ...(json === undefined ? {} : { json }) })
          const where = `${endpoint.method} ${endpoint.group}.${endpoint.name} (${length}): ${reply.text.slice(0, 200)}`
          assert.strictEqual(reply.status, 404, where)
          assert.isUndefined(reply.headers["allow"], where)
          assert.isTrue(isEnvelope(reply.json), where)
          assert.deepStrictEqual([reply.json.errors[0].type, reply.json.errors[0].code], ["RESOURCE_NOT_FOUND", "NOT_FOUND"], where)
          // the id named, shown cut short (its first 40 characters)
          assert.include(detailOf(reply.json), `'${id.slice(0, 40)}'...`, where)
          assert.isBelow(detailOf(reply.json).length, 200, where)
          if (endpoint.method === "GET") {
            const head = yield* call("HEAD", path, { headers: headersOf(endpoint.group) })
            assert.strictEqual(head.status, 404, `HEAD ${where}`)
          }
        }
        const connection = yield* call("GET", `/v3/connections/${id}`, { headers: headersOf("connections") })
        assert.strictEqual(detailOf(connection.json), `No connection with id '${id.slice(0, 40)}'...`)
        // a known vehicle and a long signal code: the signal's 404
        const signal = yield* call("GET", `/v3/vehicles/${vehicleId}/signals/${id}`, { headers: headersOf("signals") })
        assert.strictEqual(signal.status, 404, signal.text)
        assert.include(detailOf(signal.json), id)
      }
    }).pipe(Effect.provide(Loopback)))

  it.effect("a wrong method on a long id is still the 405 of the path, with its Allow", () =>
    Effect.gen(function*() {
      const { headersOf } = yield* credentials
      const reply = yield* call("DELETE", `/v3/connections/${"a".repeat(500)}`, { headers: headersOf("connections") })
      assert.strictEqual(reply.status, 405, reply.text)
      assert.strictEqual(reply.headers["allow"], "GET, HEAD")
    }).pipe(Effect.provide(Loopback)))
})

describe("malformed percent-encoding in the path", () => {
  it.effect("400 VALIDATION / BAD_REQUEST (the OAuth body under /oauth), never 405, after the token checks", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { headersOf, vehicleId } = yield* credentials
      const port = new URL(sim.url).port
      const cases: ReadonlyArray<readonly [string, string, Record<string, string>, string?]> = [
        ["GET", "/v3/connections/%", headersOf("connections")],
        ["GET", "/v3/connections/%zz", headersOf("connections")],
        ["GET", "/v3/connections/%FF", headersOf("connections")],
        ["GET", "/v3/webhooks/a%2", headersOf("webhooks")],
        ["GET", `/v3/vehicles/${vehicleId}/signals/%C3%28`, headersOf("signals")],
        ["GET", "/v2.0/vehicles/%zz/odometer", headersOf("legacy")],
        ["POST", "/v2.0/vehicles/%zz/batch", headersOf("legacy"), JSON.stringify({ requests: [{ path: "/odometer" }] })],
        ["GET", "/v3/nothing/%zz", headersOf("connections")],
        ["GET", "/oauth/%zz", {}]
      ]
      for (const [method, target, headers, body] of cases) {
        const connection = yield* Effect.promise(() => openRaw(`http://127.0.0.1:${port}`))
        connection.send(rawRequest(method, target, {
          ...headers,
          connection: "close",
          ...(body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) })
        }, body ?? ""))
        const reply = yield* Effect.promise(() => connection.next())
        connection.socket.destroy()
        const where = `${method} ${target}: ${reply.status} ${reply.body.slice(0, 200)}`
        assert.strictEqual(reply.status, 400, where)
        assert.isUndefined(reply.headers["allow"], where)
        const json = JSON.parse(reply.body)
        if (target.startsWith("/oauth/")) {
          assert.isTrue(isOAuthBody(json), where)
          assert.strictEqual(json.error, "invalid_request", where)
        } else {
          assert.isTrue(isEnvelope(json), where)
          assert.deepStrictEqual([json.errors[0].type, json.errors[0].code], ["VALIDATION", "BAD_REQUEST"], where)
        }
        assert.include(JSON.stringify(json), "malformed percent-encoding", where)
      }
      const head = yield* call("HEAD", "/v3/connections/%zz", { headers: headersOf("connections") })
      assert.strictEqual(head.status, 400)
      // 401 before 400: without a token the request is refused for that first
      const anonymous = yield* call("GET", "/v3/connections/%zz")
      assert.strictEqual(anonymous.status, 401, anonymous.text)
    }).pipe(Effect.provide(Loopback)))
})

import { ConnectionResponse, ConnectionsPage } from "@connected-vehicle/schema/Connection"
import { CompatibilityPage } from "@connected-vehicle/schema/Compatibility"
import { SignalResponse, SignalsPage } from "@connected-vehicle/schema/Signal"
import { SubscriptionResponse, SubscriptionsPage } from "@connected-vehicle/schema/Subscription"
import { WebhookResponse, WebhooksPage } from "@connected-vehicle/schema/Webhook"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { FetchHttpClient } from "effect/http"
import * as http from "node:http"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call, isEnvelope, userTokens } from "./helpers.ts"
import type { Reply } from "./helpers.ts"

const Loopback = Layer.mergeAll(simulatorLayer({ seed: 11, connections: 60, vehicles: 70, users: 12, webhooks: 15 }), FetchHttpClient.layer)

const decodes = (schema: Schema.Top, reply: Reply) => {
  assert.strictEqual(reply.status, 200, reply.text)
  Schema.decodeUnknownSync(schema as Schema.Codec<unknown, unknown>)(reply.json)
}

const fails = (reply: Reply, status: number, type: string) => {
  assert.strictEqual(reply.status, status, reply.text)
  assert.isTrue(isEnvelope(reply.json), reply.text)
  assert.strictEqual(reply.json.errors[0].status, String(status))
  assert.strictEqual(reply.json.errors[0].type, type)
}

/** A GET whose header `name` is sent once per value (separate header lines). */
const repeatedHeader = (url: string, token: string, name: string, values: ReadonlyArray<string>) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = http.request(url, { method: "GET" }, (response) => {
      let text = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => text += chunk)
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text }))
    })
    request.setHeader("authorization", `Bearer ${token}`)
    request.setHeader(name, [...values])
    request.on("error", reject)
    request.end()
  })

const get = (path: string, token?: string, headers: Record<string, string> = {}) =>
  call("GET", path, { headers: { ...(token === undefined ? {} : bearer(token)), ...headers } })

layer(Loopback)("v3 signals", (it) => {
  it.effect("list pages with meta, links and included.vehicle", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const vehicleId = sim.data.vehicleIds[0]!
      const user = sim.data.connectionOf(vehicleId)!.userId
      const view = sim.data.vehicle(vehicleId)!
      const total = view.signalCodes.length
      const first = yield* get(`/v3/vehicles/${vehicleId}/signals?pageSize=4`, token, { "sc-user-id": user })
      decodes(SignalsPage, first)
      assert.deepStrictEqual(first.json.meta, { pageNumber: 1, pageSize: 4, totalCount: total })
      assert.strictEqual(first.json.data.length, 4)
      assert.isNull(first.json.links.prev)
      assert.match(first.json.links.next, /page=2&pageSize=4/)
      assert.match(first.json.links.self, new RegExp(`^${sim.url}/v3/vehicles/${vehicleId}/signals\\?page=1&pageSize=4$`))
      assert.deepStrictEqual(first.json.included.vehicle.attributes, {
        make: view.make, model: view.model, year: view.year, powertrainType: view.powertrainType, mode: view.mode
      })
      const lastPage = Math.ceil(total / 4)
      const last = yield* get(`/v3/vehicles/${vehicleId}/signals?page=${lastPage}&pageSize=4`, token, { "sc-user-id": user })
      decodes(SignalsPage, last)
      assert.isNull(last.json.links.next)
      assert.match(last.json.links.prev, new RegExp(`page=${lastPage - 1}`))
      assert.strictEqual(last.json.data.length, total - (lastPage - 1) * 4)
      const all = yield* get(`/v3/vehicles/${vehicleId}/signals?pageSize=100`, token, { "sc-user-id": user })
      assert.deepStrictEqual(all.json.data.map((s: any) => s.id), view.signalCodes)
      const defaults = yield* get(`/v3/vehicles/${vehicleId}/signals`, token, { "sc-user-id": user })
      assert.strictEqual(defaults.json.meta.pageSize, 10)
      const beyond = yield* get(`/v3/vehicles/${vehicleId}/signals?page=9`, token, { "sc-user-id": user })
      assert.strictEqual(beyond.status, 200)
      assert.deepStrictEqual(beyond.json.data, [])
      assert.isNull(beyond.json.links.next)
    }))

  it.effect("a realistic mix of SUCCESS, ERROR (with resolution) and UNAVAILABLE", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const seen = new Map<string, any>()
      for (const vehicleId of sim.data.vehicleIds.slice(0, 20)) {
        const user = sim.data.connectionOf(vehicleId)!.userId
        const page = yield* get(`/v3/vehicles/${vehicleId}/signals?pageSize=100`, token, { "sc-user-id": user })
        for (const signal of page.json.data) {
          seen.set(signal.attributes.status.value, signal)
          assert.strictEqual(signal.attributes.status.value, sim.data.signalStatus(vehicleId, signal.id))
        }
      }
      assert.deepStrictEqual([...seen.keys()].sort(), ["ERROR", "SUCCESS", "UNAVAILABLE"])
      assert.isString(seen.get("ERROR").attributes.status.error.resolution.type)
      const first = sim.data.vehicleIds[0]!
      const located = yield* get(`/v3/vehicles/${first}/signals/location-preciselocation`, token, { "sc-user-id": sim.data.connectionOf(first)!.userId })
      assert.strictEqual(located.json.data.attributes.status.error.resolution.type, "REAUTHENTICATE")
      const success = seen.get("SUCCESS")
      assert.isDefined(success.attributes.body)
    }))

  it.effect("get one signal; errors 400, 401, 403, 404", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const vehicleId = sim.data.vehicleIds[1]!
      const user = sim.data.connectionOf(vehicleId)!.userId
      const one = yield* get(`/v3/vehicles/${vehicleId}/signals/odometer-traveleddistance`, token, { "sc-user-id": user })
      decodes(SignalResponse, one)
      assert.strictEqual(one.json.data.attributes.code, "odometer-traveleddistance")
      assert.strictEqual(one.json.included.vehicle.id, vehicleId)
      fails(yield* get(`/v3/vehicles/${vehicleId}/signals`, token), 400, "VALIDATION")
      fails(yield* get(`/v3/vehicles/${vehicleId}/signals/odometer-traveleddistance`, token), 400, "VALIDATION")
      // an empty sc-user-id is malformed like a missing one: 400, before the vehicle is looked up
      for (const id of [vehicleId, "00000000-0000-4000-8000-000000000000"]) {
        fails(yield* get(`/v3/vehicles/${id}/signals`, token, { "sc-user-id": "" }), 400, "VALIDATION")
        fails(yield* get(`/v3/vehicles/${id}/signals/odometer-traveleddistance`, token, { "sc-user-id": "" }), 400, "VALIDATION")
      }
      // a repeated sc-user-id (joined with ", " by Node) is malformed too, even when both name the owner
      for (const path of [`/v3/vehicles/${vehicleId}/signals`, `/v3/vehicles/${vehicleId}/signals/odometer-traveleddistance`]) {
        const repeated = yield* Effect.promise(() => repeatedHeader(sim.url + path, token, "sc-user-id", [user, user]))
        assert.strictEqual(repeated.status, 400, repeated.text)
        assert.strictEqual(JSON.parse(repeated.text).errors[0].type, "VALIDATION")
        assert.include(JSON.parse(repeated.text).errors[0].detail, "one user")
      }
      fails(yield* get(`/v3/vehicles/${vehicleId}/signals`, undefined, { "sc-user-id": user }), 401, "AUTHENTICATION")
      fails(yield* get(`/v3/vehicles/${vehicleId}/signals`, "not-a-token", { "sc-user-id": user }), 401, "AUTHENTICATION")
      const other = sim.data.users.find((u) => u.id !== user)!.id
      fails(yield* get(`/v3/vehicles/${vehicleId}/signals`, token, { "sc-user-id": other }), 403, "AUTHENTICATION")
      const unconnected = sim.data.vehicleIds[sim.data.vehicleIds.length - 1]!
      assert.isUndefined(sim.data.connectionOf(unconnected))
      fails(yield* get(`/v3/vehicles/${unconnected}/signals`, token, { "sc-user-id": user }), 403, "AUTHENTICATION")
      const userToken = (yield* userTokens()).access
      fails(yield* get(`/v3/vehicles/${vehicleId}/signals`, userToken, { "sc-user-id": user }), 403, "AUTHENTICATION")
      fails(yield* get(`/v3/vehicles/00000000-0000-4000-8000-000000000000/signals`, token, { "sc-user-id": user }), 404, "RESOURCE_NOT_FOUND")
      fails(yield* get(`/v3/vehicles/${vehicleId}/signals/warp-drive`, token, { "sc-user-id": user }), 404, "RESOURCE_NOT_FOUND")
      for (const q of ["page=0", "pageSize=0", "pageSize=101", "page=abc", "pageSize=1.5"]) {
        fails(yield* get(`/v3/vehicles/${vehicleId}/signals?${q}`, token, { "sc-user-id": user }), 400, "VALIDATION")
      }
      fails(yield* get(`/v3/nothing-here`, token), 404, "RESOURCE_NOT_FOUND")
    }))

  it.effect("values drift over time while ids stay", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-03-01T08:00:00Z"))
      const sim = yield* Simulator
      const token = yield* appToken
      const vehicleId = sim.data.vehicleIds[0]!
      const user = sim.data.connectionOf(vehicleId)!.userId
      const path = `/v3/vehicles/${vehicleId}/signals/odometer-traveleddistance`
      const a = yield* get(path, token, { "sc-user-id": user })
      yield* TestClock.adjust("1 hour")
      const b = yield* get(path, token, { "sc-user-id": user })
      const before = a.json.data.attributes.body.value as number
      const after = b.json.data.attributes.body.value as number
      assert.strictEqual(a.json.data.attributes.body.unit, "km")
      assert.strictEqual(b.json.data.attributes.body.unit, "km")
      // the odometer grew, by less than a car drives in an hour
      assert.isAbove(after, before)
      assert.isBelow(after - before, 200)
      assert.isAbove(Date.parse(b.json.data.meta.retrievedAt) - Date.parse(a.json.data.meta.retrievedAt), 3_599_000)
      assert.strictEqual(b.json.data.id, a.json.data.id)
      assert.strictEqual(b.json.data.links.self, a.json.data.links.self)
      assert.strictEqual(b.json.included.vehicle.id, a.json.included.vehicle.id)
    }).pipe(Effect.provide(Loopback))) // a simulator built on this test's TestClock
})

layer(Loopback)("v3 connections", (it) => {
  it.effect("list: defaults, order, meta and links", () =>
    Effect.gen(function*() {
      const token = yield* appToken
      const page = yield* get("/v3/connections", token)
      decodes(ConnectionsPage, page)
      assert.deepStrictEqual(page.json.meta, { pageNumber: 1, pageSize: 10, totalCount: 60, orderBy: "createdAt", orderDirection: "DESC" })
      const created = page.json.data.map((c: any) => Date.parse(c.meta.createdAt))
      assert.deepStrictEqual(created, [...created].sort((a, b) => b - a))
      assert.isNull(page.json.links.prev)
      assert.match(page.json.links.last, /page=6&pageSize=10/)
      const last = yield* get("/v3/connections?page=6", token)
      assert.isNull(last.json.links.next)
      assert.strictEqual(last.json.data.length, 10)
      const item = page.json.data[0]
      assert.isString(item.attributes.user.externalId)
      assert.isString(item.relationships.user.links.related)
    }))

  it.effect("filters: user id, vehicle id, mode, user external id (combined with paging)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const user = sim.data.users[2]!
      const byUser = yield* get(`/v3/connections?filter[userId]=${user.id}&pageSize=100`, token)
      assert.deepStrictEqual(byUser.json.data.map((c: any) => c.relationships.vehicle.data.id), sim.data.vehiclesOf(user.id))
      assert.isTrue(byUser.json.data.every((c: any) => c.relationships.user.data.id === user.id))
      const byExternal = yield* get(`/v3/connections?filter[userExternalId]=${encodeURIComponent(user.externalId)}&pageSize=100`, token)
      assert.deepStrictEqual(byExternal.json.data, byUser.json.data)
      const vehicleId = sim.data.vehicleIds[5]!
      const byVehicle = yield* get(`/v3/connections?filter[vehicleId]=${vehicleId}`, token)
      assert.strictEqual(byVehicle.json.meta.totalCount, 1)
      assert.strictEqual(byVehicle.json.data[0].id, sim.data.connectionOf(vehicleId)!.connectionId)
      const simulated = yield* get(`/v3/connections?filter[mode]=simulated&pageSize=100`, token)
      const live = yield* get(`/v3/connections?filter[mode]=live&pageSize=100`, token)
      assert.isAbove(simulated.json.meta.totalCount, 0)
      assert.strictEqual(simulated.json.meta.totalCount + live.json.meta.totalCount, 60)
      assert.isTrue(simulated.json.data.every((c: any) => c.attributes.vehicle.mode === "simulated"))
      const paged = yield* get(`/v3/connections?filter[mode]=live&pageSize=7&page=2`, token)
      assert.deepStrictEqual(paged.json.data, live.json.data.slice(7, 14))
      assert.match(paged.json.links.next, /filter%5Bmode%5D=live/)
      const nobody = yield* get(`/v3/connections?filter[userId]=00000000-0000-4000-8000-000000000000`, token)
      assert.strictEqual(nobody.status, 200)
      assert.strictEqual(nobody.json.meta.totalCount, 0)
      const unknownExternal = yield* get(`/v3/connections?filter[userExternalId]=nobody`, token)
      assert.strictEqual(unknownExternal.json.meta.totalCount, 0)
    }))

  it.effect("get one; errors", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const id = sim.data.connectionIds({ offset: 3, limit: 1 })[0]!
      const one = yield* get(`/v3/connections/${id}`, token)
      decodes(ConnectionResponse, one)
      assert.isUndefined(one.json.data.attributes.user)
      assert.isUndefined(one.json.data.relationships.user.links)
      fails(yield* get(`/v3/connections/${id.replace(/^./, id[0] === "a" ? "b" : "a")}`, token), 404, "RESOURCE_NOT_FOUND")
      fails(yield* get(`/v3/connections/${id}`), 401, "AUTHENTICATION")
      fails(yield* get(`/v3/connections/${id}`, (yield* userTokens()).access), 403, "AUTHENTICATION")
      for (const q of ["page=0", "pageSize=0", "pageSize=101", "filter[mode]=parked", "filter[userId]=abc", "filter[vehicleId]=1"]) {
        fails(yield* get(`/v3/connections?${q}`, token), 400, "VALIDATION")
      }
    }))
})

layer(Loopback)("v3 subscriptions and webhooks", (it) => {
  it.effect("subscriptions: list, filters, paging, get, errors", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const all = yield* get("/v3/subscriptions?pageSize=100", token)
      decodes(SubscriptionsPage, all)
      assert.strictEqual(all.json.meta.totalCount, sim.data.subscriptionCount)
      assert.strictEqual(all.json.meta.orderBy, "createdAt")
      assert.strictEqual(all.json.meta.orderDirection, "DESC")
      const sub = all.json.data[4]
      for (const [filter, value, pick] of [
        ["userId", sub.relationships.user.data.id, (s: any) => s.relationships.user.data.id],
        ["webhookId", sub.relationships.webhook.data.id, (s: any) => s.relationships.webhook.data.id],
        ["vehicleId", sub.relationships.vehicle.data.id, (s: any) => s.relationships.vehicle.data.id],
        ["mode", sub.attributes.vehicle.mode, (s: any) => s.attributes.vehicle.mode]
      ] as const) {
        const filtered = yield* get(`/v3/subscriptions?filter[${filter}]=${value}&pageSize=100`, token)
        assert.isAbove(filtered.json.data.length, 0)
        assert.isTrue(filtered.json.data.every((s: any) => pick(s) === value), filter)
        assert.strictEqual(filtered.json.meta.totalCount, all.json.data.filter((s: any) => pick(s) === value).length)
      }
      const one = yield* get(`/v3/subscriptions/${sub.id}`, token)
      decodes(SubscriptionResponse, one)
      assert.strictEqual(one.json.data.links.self, sub.links.self)
      fails(yield* get(`/v3/subscriptions/00000000-0000-4000-8000-000000000000`, token), 404, "RESOURCE_NOT_FOUND")
      fails(yield* get(`/v3/subscriptions`), 401, "AUTHENTICATION")
      fails(yield* get(`/v3/subscriptions`, (yield* userTokens()).access), 403, "AUTHENTICATION")
      for (const q of ["page=0", "page=-1", "pageSize=0", "pageSize=101", "filter[mode]=x", "filter[webhookId]=x"]) {
        fails(yield* get(`/v3/subscriptions?${q}`, token), 400, "VALIDATION")
      }
      const edge = yield* get(`/v3/subscriptions?pageSize=1&page=${sim.data.subscriptionCount}`, token)
      assert.strictEqual(edge.json.data.length, 1)
      assert.isNull(edge.json.links.next)
    }))

  it.effect("webhooks: list, filters (partial, case-insensitive, booleans), paging, get, errors", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const all = yield* get("/v3/webhooks?pageSize=100", token)
      decodes(WebhooksPage, all)
      assert.strictEqual(all.json.meta.totalCount, 15)
      const byName = yield* get(`/v3/webhooks?filter[name]=ALERT`, token)
      assert.deepStrictEqual(byName.json.data.map((w: any) => w.attributes.name), sim.data.webhooks.filter((w) => /alert/i.test(w.name)).map((w) => w.name))
      const byUri = yield* get(`/v3/webhooks?filter[callbackUri]=HOOKS.EXAMPLE&pageSize=100`, token)
      assert.isTrue(byUri.json.data.every((w: any) => w.attributes.callbackUri.includes("hooks.example")))
      assert.strictEqual(byUri.json.meta.totalCount, sim.data.webhooks.filter((w) => w.callbackUri.includes("hooks.example")).length)
      const enabled = yield* get(`/v3/webhooks?filter[isEnabled]=false&pageSize=100`, token)
      assert.strictEqual(enabled.json.meta.totalCount, sim.data.webhooks.filter((w) => !w.isEnabled).length)
      const auto = yield* get(`/v3/webhooks?filter[autoSubscribe]=true&filter[isEnabled]=true&pageSize=100`, token)
      assert.strictEqual(auto.json.meta.totalCount, sim.data.webhooks.filter((w) => w.autoSubscribe && w.isEnabled).length)
      const page2 = yield* get(`/v3/webhooks?page=2&pageSize=4`, token)
      assert.deepStrictEqual(page2.json.data, all.json.data.slice(4, 8))
      const one = yield* get(`/v3/webhooks/${sim.data.webhooks[2]!.id}`, token)
      decodes(WebhookResponse, one)
      fails(yield* get(`/v3/webhooks/00000000-0000-4000-8000-000000000000`, token), 404, "RESOURCE_NOT_FOUND")
      fails(yield* get(`/v3/webhooks`), 401, "AUTHENTICATION")
      fails(yield* get(`/v3/webhooks`, (yield* userTokens()).access), 403, "AUTHENTICATION")
    }))

  it.effect("webhooks: every query is 200 (section 4.4: 200, 401, 403, 500); paging clamped, other values match nothing", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const ids = (yield* get("/v3/webhooks?pageSize=100", token)).json.data.map((w: any) => w.id) as ReadonlyArray<string>
      const where = (keep: (w: (typeof sim.data.webhooks)[number]) => boolean) => ids.filter((id) => keep(sim.data.webhooks.find((w) => w.id === id)!))
      const table: ReadonlyArray<readonly [query: string, page: number, size: number, expected: ReadonlyArray<string>]> = [
        // a page or page size outside its range is the nearest bound
        ["page=0", 1, 10, ids.slice(0, 10)],
        ["page=-3&pageSize=4", 1, 4, ids.slice(0, 4)],
        ["pageSize=0", 1, 1, ids.slice(0, 1)],
        ["pageSize=101", 1, 100, ids],
        // a number as JavaScript reads it: an exponent or a ".0" is the integer it spells
        ["pageSize=1e3", 1, 100, ids],
        ["pageSize=-1e1", 1, 1, ids.slice(0, 1)],
        ["pageSize=.3e1", 1, 3, ids.slice(0, 3)],
        // one that is not one integer is the default
        ["page=x&pageSize=2.5", 1, 10, ids.slice(0, 10)],
        ["page=&pageSize=", 1, 10, ids.slice(0, 10)],
        ["page=2&page=3&pageSize=4", 1, 4, ids.slice(0, 4)],
        ["page=99&pageSize=4", 99, 4, []],
        // a boolean filter that is not true or false matches nothing
        ["filter[isEnabled]=yes&pageSize=100", 1, 100, []],
        ["filter[autoSubscribe]=1x&pageSize=100", 1, 100, []],
        ["filter[isEnabled]=&pageSize=100", 1, 100, []],
        ["filter[isEnabled]=TRUE&pageSize=100", 1, 100, []],
        // a repeated filter: every value must hold
        ["filter[isEnabled]=true&filter[isEnabled]=true&pageSize=100", 1, 100, where((w) => w.isEnabled)],
        ["filter[isEnabled]=true&filter[isEnabled]=false&pageSize=100", 1, 100, []],
        ["filter[name]=a&filter[name]=e&pageSize=100", 1, 100, where((w) => /a/i.test(w.name) && /e/i.test(w.name))],
        // an empty partial match is in every name
        ["filter[name]=&pageSize=100", 1, 100, ids],
        // other parameters are ignored
        ["filter[enabled]=true&foo=1&pageSize=100", 1, 100, ids]
      ]
      for (const [query, page, size, expected] of table) {
        const reply = yield* get(`/v3/webhooks?${query}`, token)
        decodes(WebhooksPage, reply)
        assert.deepStrictEqual(reply.json.data.map((w: any) => w.id), expected, query)
        assert.deepStrictEqual([reply.json.meta.pageNumber, reply.json.meta.pageSize], [page, size], query)
      }
    }))
})

layer(Loopback)("v3 compatibility", (it) => {
  it.effect("no credential, everything in one response, filters", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const all = yield* get("/v3/compatible-vehicles")
      decodes(CompatibilityPage, all)
      const n = all.json.data.length
      assert.deepStrictEqual(all.json.meta, { page: 1, pageSize: n, totalCount: n })
      assert.strictEqual(all.json.links.self, `${sim.url}/v3/compatible-vehicles`)
      // every vehicle's combination is listed
      for (const id of sim.data.vehicleIds) {
        const v = sim.data.vehicle(id)!
        const entry = all.json.data.find((e: any) =>
          e.attributes.make === v.make && e.attributes.model === v.model && e.attributes.region === v.region &&
          e.attributes.powertrainType === v.powertrainType)
        assert.isDefined(entry, `${v.make} ${v.model}`)
        assert.isAtLeast(v.year, entry.attributes.years.start)
        assert.isAtMost(v.year, entry.attributes.years.end)
        assert.deepStrictEqual(entry.attributes.capabilities.filter((c: any) => c.type === "signal").map((c: any) => c.code), v.signalCodes)
      }
      const us = yield* get("/v3/compatible-vehicles?filter[region]=US")
      assert.isTrue(us.json.data.every((e: any) => e.attributes.region === "US"))
      const ford = yield* get("/v3/compatible-vehicles?filter[make]=fOrD")
      assert.isAbove(ford.json.data.length, 0)
      assert.isTrue(ford.json.data.every((e: any) => e.attributes.make === "Ford"))
      const ev = yield* get("/v3/compatible-vehicles?filter[powertrainType]=EV")
      const bev = yield* get("/v3/compatible-vehicles?filter[powertrainType]=BEV")
      const phev = yield* get("/v3/compatible-vehicles?filter[powertrainType]=PHEV")
      const ice = yield* get("/v3/compatible-vehicles?filter[powertrainType]=ICE")
      assert.strictEqual(ev.json.data.length, bev.json.data.length + phev.json.data.length)
      assert.strictEqual(n, ev.json.data.length + ice.json.data.length)
      const combined = yield* get("/v3/compatible-vehicles?filter[region]=EUROPE&filter[make]=tesla&filter[powertrainType]=EV")
      assert.isTrue(combined.json.data.every((e: any) => e.attributes.region === "EUROPE" && e.attributes.make === "Tesla"))
      const none = yield* get("/v3/compatible-vehicles?filter[make]=Trabant")
      assert.strictEqual(none.status, 200)
      assert.deepStrictEqual(none.json.data, [])
      assert.strictEqual(none.json.meta.totalCount, 0)
      fails(yield* get("/v3/compatible-vehicles/extra"), 404, "RESOURCE_NOT_FOUND")
    }))

  it.effect("every query is 200 (section 4.5: 200, 404, 500 only); a value outside the allowed ones matches nothing", () =>
    Effect.gen(function*() {
      const all = (yield* get("/v3/compatible-vehicles")).json.data as ReadonlyArray<any>
      const where = (keep: (e: any) => boolean) => all.filter((e) => keep(e.attributes)).map((e) => e.id)
      const table: ReadonlyArray<readonly [query: string, expected: ReadonlyArray<string>]> = [
        ["filter[region]=MARS", []],
        ["filter[region]=ASIA", []],
        ["filter[powertrainType]=DIESEL", []],
        ["filter[powertrainType]=HYBRID", []],
        // only make is case-insensitive (section 4.5); region and powertrain are spelled as listed
        ["filter[region]=us", []],
        ["filter[powertrainType]=ev", []],
        ["filter[make]=fOrD", where((a) => a.make === "Ford")],
        ["filter[make]=%20Ford%20", where((a) => a.make === "Ford")],
        // an empty value names nothing, so it matches nothing (omit a filter for everything)
        ["filter[region]=", []],
        ["filter[make]=", []],
        ["filter[powertrainType]=", []],
        // a list is not a value
        ["filter[region]=US,CA", []],
        // a repeated parameter is several filters, all must hold
        ["filter[region]=US&filter[region]=US", where((a) => a.region === "US")],
        ["filter[region]=US&filter[region]=CA", []],
        ["filter[powertrainType]=EV&filter[powertrainType]=BEV", where((a) => a.powertrainType === "BEV")],
        ["filter[make]=ford&filter[make]=FORD", where((a) => a.make === "Ford")],
        // other parameters are ignored
        ["filter[foo]=1", all.map((e) => e.id)],
        ["page=0&pageSize=-1&region=US", all.map((e) => e.id)],
        ["filter[region]=EUROPE&filter[color]=red", where((a) => a.region === "EUROPE")]
      ]
      for (const [query, expected] of table) {
        const reply = yield* get(`/v3/compatible-vehicles?${query}`)
        decodes(CompatibilityPage, reply)
        assert.deepStrictEqual(reply.json.data.map((e: any) => e.id), expected, query)
        assert.deepStrictEqual(reply.json.meta, { page: 1, pageSize: expected.length, totalCount: expected.length }, query)
      }
      // the contract declares no 400 for the listing, so the OpenAPI document shows none either
      const openapi = yield* get("/openapi.json")
      assert.deepStrictEqual(Object.keys(openapi.json.paths["/v3/compatible-vehicles"].get.responses).sort(), ["200", "404", "500"])
      // and it still names the allowed values of section 4.5
      const parameters: ReadonlyArray<{ readonly name: string }> = openapi.json.paths["/v3/compatible-vehicles"].get.parameters
      const schemaText = (name: string) => JSON.stringify(parameters.find((p) => p.name === name))
      for (const value of ["US", "CA", "EUROPE"]) assert.include(schemaText("filter[region]"), `"${value}"`)
      for (const value of ["ICE", "BEV", "PHEV", "EV"]) assert.include(schemaText("filter[powertrainType]"), `"${value}"`)
    }))

  it.effect("openapi.json and the docs page come from the contract", () =>
    Effect.gen(function*() {
      const openapi = yield* get("/openapi.json")
      assert.strictEqual(openapi.status, 200)
      assert.property(openapi.json.paths, "/v3/vehicles/{vehicleId}/signals")
      assert.property(openapi.json.paths, "/oauth/token")
      assert.property(openapi.json.paths, "/v2.0/vehicles/{id}/batch")
      const docs = yield* get("/docs")
      assert.strictEqual(docs.status, 200)
      assert.match(docs.text, /<html/i)
    }))
})

layer(Loopback)("v3 list links", (it) => {
  it.effect("every list's links name the spec's path, whatever the request's casing, repeated or trailing slashes", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const vehicleId = sim.data.vehicleIds[0]!
      const user = sim.data.connectionOf(vehicleId)!.userId
      const lists = [
        [`/V3/Vehicles/${vehicleId.toUpperCase()}/SIGNALS`, `/v3/vehicles/${vehicleId}/signals`, { "sc-user-id": user }],
        [`/V3//vehicles/${vehicleId}/Signals/?pageSize=2`, `/v3/vehicles/${vehicleId}/signals`, { "sc-user-id": user }],
        ["/V3/Connections?pageSize=2", "/v3/connections", {}],
        ["/v3/SUBSCRIPTIONS/?pageSize=2", "/v3/subscriptions", {}],
        ["/V3/Webhooks?pageSize=2", "/v3/webhooks", {}],
        ["/V3/Compatible-Vehicles?filter[region]=US", "/v3/compatible-vehicles", {}]
      ] as const
      for (const [requested, canonical, headers] of lists) {
        const reply = yield* get(requested, token, headers)
        assert.strictEqual(reply.status, 200, `${requested}: ${reply.text}`)
        const links = Object.values(reply.json.links).filter((link): link is string => typeof link === "string")
        assert.isAbove(links.length, 0, requested)
        for (const link of links) {
          assert.strictEqual(new URL(link).pathname, canonical, `${requested}: ${link}`)
          assert.isTrue(link.startsWith(`${sim.url}${canonical}`), `${requested}: ${link}`)
        }
      }
      // the other query parameters are kept
      const compat = yield* get("/V3/Compatible-Vehicles?filter[region]=US")
      assert.strictEqual(new URL(compat.json.links.self).searchParams.get("filter[region]"), "US")
    }))
})

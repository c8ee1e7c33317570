import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { Connections } from "@connected-vehicle/v3/Connections"
import { Subscriptions } from "@connected-vehicle/v3/Subscriptions"
import { Webhooks } from "@connected-vehicle/v3/Webhooks"
import { flipReason, layerLoopback, requestsTo } from "./utils.ts"

const queryOf = (entry: { readonly query: string }) => new URLSearchParams(entry.query)

describe("Connections", () => {
  it.live("lists with every filter and paging", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const connections = yield* Connections
      const all = yield* connections.list({ pageSize: 100 })
      assert.strictEqual(all.meta.totalCount, sim.data.connectionCount)

      const defaults = yield* connections.list()
      assert.strictEqual(defaults.meta.pageNumber, 1)
      assert.strictEqual(defaults.meta.pageSize, 10)

      const second = yield* connections.list({ page: 2, pageSize: 7 })
      assert.strictEqual(second.meta.pageNumber, 2)
      assert.deepStrictEqual(second.data.map((c) => c.id), all.data.slice(7, 14).map((c) => c.id))

      const vehicleId = sim.data.vehicleIds[3]!
      const owner = sim.data.connectionOf(vehicleId)!
      const byVehicle = yield* connections.list({ vehicleId })
      assert.deepStrictEqual(byVehicle.data.map((c) => c.id), [owner.connectionId])

      const byUser = yield* connections.list({ userId: owner.userId, pageSize: 100 })
      assert.deepStrictEqual(
        byUser.data.map((c) => c.relationships.vehicle.data.id).sort(),
        [...sim.data.vehiclesOf(owner.userId)].sort()
      )

      const user = sim.data.users.find((u) => u.id === owner.userId)!
      const byExternal = yield* connections.list({ userExternalId: user.externalId, pageSize: 100 })
      assert.deepStrictEqual(byExternal.data.map((c) => c.id), byUser.data.map((c) => c.id))

      const live = yield* connections.list({ mode: "live", pageSize: 100 })
      const simulated = yield* connections.list({ mode: "simulated", pageSize: 100 })
      assert.isTrue(live.data.every((c) => c.attributes.vehicle.mode === "live"))
      assert.isTrue(simulated.data.every((c) => c.attributes.vehicle.mode === "simulated"))
      assert.strictEqual(live.meta.totalCount + simulated.meta.totalCount, sim.data.connectionCount)

      const log = yield* requestsTo(/\/v3\/connections$/)
      const sent = log.map(queryOf)
      assert.strictEqual(sent[3]!.get("filter[vehicleId]"), vehicleId)
      assert.strictEqual(sent[4]!.get("filter[userId]"), owner.userId)
      assert.strictEqual(sent[5]!.get("filter[userExternalId]"), user.externalId)
      assert.strictEqual(sent[6]!.get("filter[mode]"), "live")
      assert.strictEqual(sent[2]!.get("page"), "2")
      assert.strictEqual(sent[2]!.get("pageSize"), "7")
    }).pipe(Effect.provide(layerLoopback())))

  it.live("streams every connection across several pages and gets one", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const connections = yield* Connections
      const ids = yield* Stream.runCollect(Stream.map(connections.stream({ pageSize: 9 }), (c) => c.id))
      assert.deepStrictEqual(ids, [...sim.data.connectionIds({ offset: 0, limit: sim.data.connectionCount })])
      assert.strictEqual((yield* requestsTo(/\/v3\/connections$/)).length, Math.ceil(sim.data.connectionCount / 9))

      const one = yield* connections.get(ids[5]!)
      assert.strictEqual(one.data.id, ids[5])
      assert.strictEqual(one.data.type, "connection")

      const missing = yield* flipReason(connections.get("no-such-connection"))
      assert.strictEqual(missing._tag, "NotFound")
    }).pipe(Effect.provide(layerLoopback())))

  it.live("streams the same connections with and without read-ahead, on demand by default; a bad readAhead is refused without a request", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const connections = yield* Connections
      const expected = [...sim.data.connectionIds({ offset: 0, limit: sim.data.connectionCount })]
      for (const readAhead of [0, 1] as const) {
        const ids = yield* Stream.runCollect(Stream.map(connections.stream({ pageSize: 4 }, { readAhead, timeout: "30 seconds" }), (c) => c.id))
        assert.deepStrictEqual(ids, expected)
      }
      const pages = Math.ceil(sim.data.connectionCount / 4)
      assert.strictEqual((yield* requestsTo(/\/v3\/connections$/)).length, 2 * pages)
      // stopping early: by default only the pages the consumer needed (5 items of pages of 2: 3)
      const firstFive = yield* Stream.runCollect(Stream.take(connections.stream({ pageSize: 2 }), 5))
      assert.deepStrictEqual(firstFive.map((c) => c.id), expected.slice(0, 5))
      const bad = yield* flipReason(Stream.runDrain(connections.stream({}, { readAhead: 2 as 1 })))
      assert.strictEqual(bad._tag, "InvalidArgument")
      assert.include(bad.message, "readAhead")
      // (the simulator logs a request once answered: give a late one time to show)
      yield* Effect.sleep("100 millis")
      assert.strictEqual((yield* requestsTo(/\/v3\/connections$/)).length, 2 * pages + 3)
    }).pipe(Effect.provide(layerLoopback())))

  it.live("rejects an unknown mode and bad paging without a request", () =>
    Effect.gen(function*() {
      const connections = yield* Connections
      const mode = yield* flipReason(connections.list({ mode: "parked" as "live" }))
      assert.strictEqual(mode._tag, "InvalidArgument")
      assert.include(mode.message, "mode: Expected \"live\" | \"simulated\"")
      const size = yield* flipReason(Stream.runDrain(connections.stream({ pageSize: 0 })))
      assert.strictEqual(size._tag, "InvalidArgument")
      assert.strictEqual((yield* requestsTo(/./)).length, 0)
    }).pipe(Effect.provide(layerLoopback())))
})

describe("Subscriptions", () => {
  it.live("lists with every filter, pages, streams and gets one", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const subscriptions = yield* Subscriptions
      const all = yield* Stream.runCollect(subscriptions.stream({ pageSize: 5 }))
      assert.strictEqual(all.length, sim.data.subscriptionCount)
      assert.isTrue(all.length > 5)
      assert.strictEqual(new Set(all.map((s) => s.id)).size, all.length)

      const page2 = yield* subscriptions.list({ page: 2, pageSize: 5 })
      assert.deepStrictEqual(page2.data.map((s) => s.id), all.slice(5, 10).map((s) => s.id))
      assert.strictEqual(page2.meta.totalCount, sim.data.subscriptionCount)

      const sample = all[0]!
      const byWebhook = yield* subscriptions.list({ webhookId: sample.relationships.webhook.data.id, pageSize: 100 })
      assert.isTrue(byWebhook.data.length > 0)
      assert.isTrue(byWebhook.data.every((s) => s.relationships.webhook.data.id === sample.relationships.webhook.data.id))
      assert.strictEqual(
        byWebhook.meta.totalCount,
        all.filter((s) => s.relationships.webhook.data.id === sample.relationships.webhook.data.id).length
      )

      const byUser = yield* subscriptions.list({ userId: sample.relationships.user.data.id, pageSize: 100 })
      assert.strictEqual(
        byUser.meta.totalCount,
        all.filter((s) => s.relationships.user.data.id === sample.relationships.user.data.id).length
      )
      const byVehicle = yield* subscriptions.list({ vehicleId: sample.relationships.vehicle.data.id, pageSize: 100 })
      assert.strictEqual(
        byVehicle.meta.totalCount,
        all.filter((s) => s.relationships.vehicle.data.id === sample.relationships.vehicle.data.id).length
      )
      const simulated = yield* subscriptions.list({ mode: "simulated", pageSize: 100 })
      assert.strictEqual(
        simulated.meta.totalCount,
        all.filter((s) => s.attributes.vehicle.mode === "simulated").length
      )

      const one = yield* subscriptions.get(sample.id)
      assert.strictEqual(one.data.id, sample.id)
      assert.strictEqual(one.data.links.self, sample.links.self)

      const invalid = yield* flipReason(subscriptions.list({ page: -1 }))
      assert.strictEqual(invalid._tag, "InvalidArgument")
      const sent = (yield* requestsTo(/\/v3\/subscriptions$/)).map(queryOf)
      assert.strictEqual(sent.filter((q) => q.get("filter[webhookId]") !== null).length, 1)
      assert.strictEqual(sent.filter((q) => q.get("filter[mode]") === "simulated").length, 1)
      assert.strictEqual(sent.filter((q) => q.get("page") === "-1").length, 0)
    }).pipe(Effect.provide(layerLoopback())))
})

describe("Webhooks", () => {
  it.live("lists with every filter, pages, streams and gets one", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const webhooks = yield* Webhooks
      const all = yield* Stream.runCollect(webhooks.stream({ pageSize: 3 }))
      assert.deepStrictEqual(all.map((w) => w.id).sort(), sim.data.webhooks.map((w) => w.id).sort())
      assert.strictEqual((yield* requestsTo(/\/v3\/webhooks$/)).length, Math.ceil(sim.data.webhooks.length / 3))

      const expectCount = (predicate: (w: (typeof sim.data.webhooks)[number]) => boolean) =>
        sim.data.webhooks.filter(predicate).length
      const enabled = yield* webhooks.list({ isEnabled: true, pageSize: 100 })
      assert.strictEqual(enabled.meta.totalCount, expectCount((w) => w.isEnabled))
      const auto = yield* webhooks.list({ autoSubscribe: false, pageSize: 100 })
      assert.strictEqual(auto.meta.totalCount, expectCount((w) => !w.autoSubscribe))

      const target = sim.data.webhooks[0]!
      const fragment = target.name.slice(1, 4).toUpperCase()
      const byName = yield* webhooks.list({ name: fragment, pageSize: 100 })
      assert.strictEqual(byName.meta.totalCount, expectCount((w) => w.name.toLowerCase().includes(fragment.toLowerCase())))
      assert.isTrue(byName.data.some((w) => w.id === target.id))
      const host = new URL(target.callbackUri).host.toUpperCase()
      const byUri = yield* webhooks.list({ callbackUri: host, pageSize: 100 })
      assert.strictEqual(byUri.meta.totalCount, expectCount((w) => w.callbackUri.toLowerCase().includes(host.toLowerCase())))

      const page2 = yield* webhooks.list({ page: 2, pageSize: 3 })
      assert.strictEqual(page2.meta.pageNumber, 2)
      assert.deepStrictEqual(page2.data.map((w) => w.id), all.slice(3, 6).map((w) => w.id))

      const one = yield* webhooks.get(target.id)
      assert.strictEqual(one.data.attributes.name, target.name)

      const invalid = yield* flipReason(webhooks.list({ isEnabled: "yes" as unknown as boolean }))
      assert.strictEqual(invalid._tag, "InvalidArgument")
      const sent = (yield* requestsTo(/\/v3\/webhooks$/)).map(queryOf)
      assert.strictEqual(sent.filter((q) => q.get("filter[isEnabled]") === "true").length, 1)
      assert.strictEqual(sent.filter((q) => q.get("filter[autoSubscribe]") === "false").length, 1)
      assert.strictEqual(sent.filter((q) => q.get("filter[name]") === fragment).length, 1)
      assert.strictEqual(sent.filter((q) => q.get("filter[callbackUri]") === host).length, 1)
    }).pipe(Effect.provide(layerLoopback())))
})

import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { layer, layerTest, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call } from "./helpers.ts"

describe("100,000 connections", () => {
  it.live("start and page, first to last", () =>
    Effect.gen(function*() {
      // Correctness only: how long this takes is measured by bench/scale.bench.ts, not asserted here.
      const context = yield* Layer.build(Layer.mergeAll(layer({ connections: 100_000, users: 500, seed: 3 }), FetchHttpClient.layer))
      yield* Effect.gen(function*() {
        const sim = yield* Simulator
        const token = yield* appToken
        const first = yield* call("GET", "/v3/connections?pageSize=100", { headers: bearer(token) })
        assert.strictEqual(first.json.meta.totalCount, 100_000)
        const middle = yield* call("GET", "/v3/connections?page=500&pageSize=100", { headers: bearer(token) })
        assert.strictEqual(middle.json.data[0].id, sim.data.connectionIds({ offset: 49_900, limit: 1 })[0])
        const last = yield* call("GET", "/v3/connections?page=1000&pageSize=100", { headers: bearer(token) })
        assert.strictEqual(last.json.data.length, 100)
        assert.isNull(last.json.links.next)
        const byUser = yield* call("GET", `/v3/connections?filter[userId]=${sim.data.users[7]!.id}&pageSize=100`, { headers: bearer(token) })
        assert.strictEqual(byUser.json.meta.totalCount, sim.data.vehiclesOf(sim.data.users[7]!.id).length)
        const byId = yield* call("GET", `/v3/connections/${sim.data.connectionIds({ offset: 99_999, limit: 1 })[0]}`, { headers: bearer(token) })
        assert.strictEqual(byId.status, 200)
        const subscriptions = yield* call("GET", "/v3/subscriptions?page=1000&pageSize=100", { headers: bearer(token) })
        assert.strictEqual(subscriptions.json.meta.totalCount, 100_000)
        assert.strictEqual(subscriptions.json.data.length, 100)
        assert.isNull(subscriptions.json.links.next)
      }).pipe(Effect.provide(context))
    }).pipe(Effect.scoped))

  it.live("a whole walk through 1,000 pages in memory", () =>
    Effect.gen(function*() {
      const token = yield* appToken
      const seen = new Set<string>()
      let next: string | null = "/v3/connections?page=1&pageSize=100"
      let page: { json: { data: ReadonlyArray<{ id: string }>; links: { next: string | null } } }
      let pages = 0
      while (next !== null) {
        page = yield* call("GET", next.replace(/^http:\/\/[^/]+/, ""), { headers: bearer(token) })
        for (const c of page.json.data) seen.add(c.id)
        next = page.json.links.next
        pages++
      }
      assert.strictEqual(pages, 1000)
      assert.strictEqual(seen.size, 100_000)
    }).pipe(Effect.provide(layerTest({ connections: 100_000 }))), 60_000)
})

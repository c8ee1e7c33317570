/**
 * `/openapi.json` and `/docs` over loopback: with the roots on separate ports
 * each path names its root's origin (OpenAPI 3.1 path-level `servers`), so a
 * client of the document reaches every operation; on one origin, no servers.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { layer, layerRoots, Simulator, SimulatorRoots } from "../src/Simulator.ts"
import { defaultAppToken } from "./helpers.ts"

describe("the OpenAPI document's servers", () => {
  it.live("/openapi.json and /docs name each path's root origin (path-level servers): every operation reaches its root", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(layerRoots())
      const roots = Context.get(context, SimulatorRoots)
      const json = (url: string) => Effect.promise(() => fetch(url).then((r) => r.json() as Promise<any>))
      const text = (url: string) => Effect.promise(() => fetch(url).then((r) => r.text()))
      const rootOf: ReadonlyArray<readonly [string, keyof typeof roots]> = [
        ["/v3/vehicles", "vehicle"],
        ["/v3/connections", "vehicle"],
        ["/v3/subscriptions", "management"],
        ["/v3/webhooks", "management"],
        ["/v3/compatible-vehicles", "compatibility"],
        ["/oauth", "authorization"],
        ["/v2.0", "legacy"]
      ]
      for (const served of Object.values(roots)) {
        const document = yield* json(`${served}/openapi.json`)
        const entries = Object.entries<any>(document.paths)
        assert.isAbove(entries.length, 10)
        for (const [path, item] of entries) {
          const root = rootOf.find(([prefix]) => path === prefix || path.startsWith(prefix + "/"))
          assert.isDefined(root, path)
          assert.deepStrictEqual(item.servers, [{ url: roots[root![1]] }], `${served} ${path}`)
        }
      }
      // a client of the document: each operation at its path's server answers from its root (no 404)
      const document = yield* json(`${roots.vehicle}/openapi.json`)
      const at = (path: string) => `${document.paths[path].servers[0].url}${path}`
      const token = yield* defaultAppToken(at("/oauth/token"))
      const status = (url: string) =>
        Effect.promise(() => fetch(url, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status))
      assert.strictEqual(yield* status(at("/v3/webhooks")), 200)
      assert.strictEqual(yield* status(at("/v3/compatible-vehicles")), 200)
      assert.strictEqual(yield* status(at("/v3/connections")), 200)
      // the docs page (its try-it) carries the same document
      const docs = yield* text(`${roots.legacy}/docs`)
      assert.include(docs, roots.management)
      assert.include(docs, roots.authorization)
    }).pipe(Effect.scoped))

  it.live("one origin: the document names no servers (the origin that serves it serves every path)", () =>
    Effect.gen(function*() {
      const sim = Context.get(yield* Layer.build(layer({ port: 0 })), Simulator)
      const document = yield* Effect.promise(() => fetch(`${sim.url}/openapi.json`).then((r) => r.json() as Promise<any>))
      assert.isUndefined(document.servers)
      for (const item of Object.values<any>(document.paths)) assert.isUndefined(item.servers)
    }).pipe(Effect.scoped))
})

/**
 * Page metadata the spec's lists cannot have (section 2.7: pages count from
 * 1, a count is never negative), over a real loopback connection: a 200 with
 * `totalCount: -5`, `pageNumber: 0` or a negative `pageSize` is an
 * `InvalidResponse`, not a page returned as it is (whose iteration would stop
 * quietly); an empty list reporting `pageSize: 0` is a page (the spec bounds
 * the page size a request asks for, not the one a response reports).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as V3 from "../src/V3.ts"
import { Webhooks } from "../src/Webhooks.ts"

/** The `meta` the next `GET /v3/webhooks` answers with. */
let meta: Record<string, unknown> = {}
const links = { self: "s", first: "f", prev: null, next: null, last: "l" }

const server = createServer((request, response) => {
  request.resume()
  response.writeHead(200, { "content-type": "application/json" })
  response.end(JSON.stringify({ data: [], meta: { orderBy: "createdAt", orderDirection: "DESC", ...meta }, links }))
})
let origin = ""
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
)

const live = () =>
  V3.layer().pipe(
    Layer.provide(Credentials.layerStatic(Redacted.make("app-token"))),
    Layer.provide(Transport.layer),
    Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), FetchHttpClient.layer])
  )

describe("v3 page metadata", () => {
  it.effect("a 200 with a negative totalCount or pageSize, or a page number under 1, is an InvalidResponse", () =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      for (
        const bad of [
          { pageNumber: 1, pageSize: 10, totalCount: -5 },
          { pageNumber: 0, pageSize: 10, totalCount: 0 },
          { pageNumber: 1, pageSize: -1, totalCount: 0 },
          { pageNumber: 1, pageSize: 2.5, totalCount: 0 },
          { pageNumber: -1, pageSize: -10, totalCount: 3 }
        ]
      ) {
        meta = bad
        const reason = reasonOf(yield* Effect.flip(webhooks.list()))
        assert.strictEqual(reason._tag, "InvalidResponse", JSON.stringify(bad))
        const streamed = reasonOf(yield* Effect.flip(Stream.runCollect(webhooks.stream())))
        assert.strictEqual(streamed._tag, "InvalidResponse", JSON.stringify(bad))
      }
      // an empty list: page 1, a count of 0
      meta = { pageNumber: 1, pageSize: 10, totalCount: 0 }
      const empty = yield* webhooks.list()
      assert.deepStrictEqual(empty.meta, { pageNumber: 1, pageSize: 10, totalCount: 0, orderBy: "createdAt", orderDirection: "DESC" })
    }).pipe(Effect.provide(live())))

  it.effect("an empty list reporting pageSize 0 (the count of its items) is a page: list returns it, a stream ends empty", () =>
    Effect.gen(function*() {
      const webhooks = yield* Webhooks
      meta = { pageNumber: 1, pageSize: 0, totalCount: 0 }
      const empty = yield* webhooks.list()
      assert.deepStrictEqual(empty.data, [])
      assert.deepStrictEqual(empty.meta, { pageNumber: 1, pageSize: 0, totalCount: 0, orderBy: "createdAt", orderDirection: "DESC" })
      assert.strictEqual((yield* Stream.runCollect(webhooks.stream())).length, 0)
      assert.strictEqual((yield* Stream.runCollect(webhooks.pages())).length, 1)
    }).pipe(Effect.provide(live())))
})

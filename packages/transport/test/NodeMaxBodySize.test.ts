/**
 * Effect's `node:http` client reads bodies up to
 * `HttpIncomingMessage.MaxBodySize`: its `MaxBytesError` is a body over the
 * client's limit, as a `ResponseTooLarge` is (an `InvalidResponse` naming the
 * limit, sent once). A `node:http` server on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import { ByteSize, Effect, Layer } from "effect"
import { HttpIncomingMessage } from "effect/http"
import { NodeHttpClient, NodeStream } from "@effect/platform-node"
import { CompatibilityApi } from "@connected-vehicle/schema/Api"
import { tooLargeIn } from "@connected-vehicle/transport/ResponseTooLarge"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { flipReason, server } from "./utils.ts"

const list = Effect.flatMap(Transport.publicClient(CompatibilityApi, "compatibility"), (compatibility) =>
  compatibility.list({ query: { "filter[region]": "US" } }))

describe("NodeHttpClient.layerNodeHttp and HttpIncomingMessage.MaxBodySize", () => {
  it("tooLargeIn takes a NodeStream.MaxBytesError as a body over its maxBytes", () => {
    assert.strictEqual(tooLargeIn(new NodeStream.MaxBytesError(16))?.limit, 16)
    assert.strictEqual(tooLargeIn(new Error("read failed", { cause: new NodeStream.MaxBytesError(32) }))?.limit, 32)
    assert.isUndefined(tooLargeIn(Object.assign(new Error("x"), { _tag: "Other", maxBytes: 1 })))
  })

  it.live("a 2xx body over MaxBodySize: an InvalidResponse naming the limit, sent once", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ data: [], links: { self: "/v3/compatibility", next: null }, padding: "x".repeat(200) }))
      })
      const layer = Transport.layer.pipe(Layer.provide([
        TransportConfig.layerOrigin(service.origin, { retry: { maxAttempts: 3, initialDelay: 1, maxDelay: 1 } }),
        NodeHttpClient.layerNodeHttp
      ]))
      const error = yield* flipReason(list.pipe(Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(16)), Effect.provide(layer)))
      assert.strictEqual(error._tag, "InvalidResponse")
      assert.include((error as { readonly description: string }).description, "limit of 16 bytes")
      assert.strictEqual(service.requests.length, 1)
    }).pipe(Effect.scoped))
})

/**
 * Which way a typed client builds a request and reads a 200, told by public
 * API only: the encoded form of the contract's success schema and the
 * response's content type (not `effect`'s private markers). Over a real
 * loopback server.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { server } from "./utils.ts"
import * as UndiciHttpClient from "../src/UndiciHttpClient.ts"

const Thing = Schema.Struct({ name: Schema.String })

class Things extends HttpApiGroup.make("things").add(
  HttpApiEndpoint.get("json", "/json", { success: Thing }),
  HttpApiEndpoint.get("form", "/form", { success: Thing.pipe(HttpApiSchema.asFormUrlEncoded()) }),
  HttpApiEndpoint.get("socket", "/socket", { success: HttpApiSchema.Upgrade({ protocol: "tcp" }) })
) {}
const Api = HttpApi.make("custom").add(Things)

class Posts extends HttpApiGroup.make("posts").add(
  HttpApiEndpoint.post("json", "/json", { payload: Schema.Struct({ name: Schema.String, count: Schema.Number }), success: Thing }),
  HttpApiEndpoint.post("form", "/form", {
    payload: Schema.Struct({ name: Schema.String, count: Schema.String }).pipe(HttpApiSchema.asFormUrlEncoded()),
    success: Thing
  })
) {}
const PostApi = HttpApi.make("custom").add(Posts)

class Items extends HttpApiGroup.make("items").add(
  HttpApiEndpoint.get("one", "/items/:id/parts/:part", { params: { id: Schema.String, part: Schema.String }, success: Thing })
) {}
const ItemApi = HttpApi.make("custom").add(Items)

const transportAt = (origin: string) =>
  Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), UndiciHttpClient.layer()]))

describe("success encodings", () => {
  it.live("a JSON 200 is decoded whatever its JSON media type; a form-encoded one by its encoding", () =>
    Effect.gen(function*() {
      const types = ["application/json", "application/json; charset=utf-8", "application/vnd.api+json", "text/plain"]
      let n = 0
      const service = yield* server((request, response) => {
        if (request.url!.endsWith("/form")) {
          response.writeHead(200, { "content-type": "application/x-www-form-urlencoded" })
          response.end("name=%5Cu0000+form")
        } else {
          const type = types[n++ % types.length]!
          response.writeHead(200, { "content-type": type })
          response.end(JSON.stringify({ name: `json ${type}` }))
        }
      })
      yield* Effect.gen(function*() {
        const things = yield* Transport.publicClient(Api, "things")
        for (const type of types) {
          const { value } = yield* things.json()
          assert.deepStrictEqual(value, { name: `json ${type}` })
        }
        const { value } = yield* things.form()
        assert.deepStrictEqual(value, { name: "\\u0000 form" })
      }).pipe(Effect.provide(transportAt(service.origin)))
    }).pipe(Effect.scoped))

  it.live("an endpoint the transport does not build (an Upgrade success) fails each call with an InvalidRequest saying why", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(400, { "content-type": "application/json" })
        response.end("{}")
      })
      const error = yield* Effect.flip(
        Effect.flatMap(Transport.publicClient(Api, "things"), (things) => things.socket() as Effect.Effect<unknown, unknown>).pipe(
          Effect.provide(transportAt(service.origin))
        )
      )
      assert.strictEqual((reasonOf(error) as { readonly _tag?: string } | undefined)?._tag, "InvalidRequest")
      assert.match(String((error as Error).message), /does not build requests of GET \/socket: an upgrade or a streamed success/)
      assert.strictEqual(service.requests.length, 0)
    }).pipe(Effect.scoped))

  it.live("a JSON and a form-urlencoded payload are encoded from the contract, with their content types", () =>
    Effect.gen(function*() {
      const bodies: Array<{ readonly type: string | undefined; readonly body: string }> = []
      const service = yield* server((request, response) => {
        let body = ""
        request.on("data", (chunk) => body += chunk)
        request.on("end", () => {
          bodies.push({ type: request.headers["content-type"], body })
          response.writeHead(200, { "content-type": "application/json" })
          response.end(JSON.stringify({ name: "ok" }))
        })
      })
      yield* Effect.gen(function*() {
        const posts = yield* Transport.publicClient(PostApi, "posts")
        yield* posts.json({ payload: { name: "a é", count: 2 } })
        yield* posts.form({ payload: { name: "a é&b", count: "2" } })
        const invalid = yield* Effect.flip(posts.json({ payload: { name: 1 } } as never))
        assert.strictEqual((invalid as { readonly _tag?: string })._tag, "InvalidArgument")
      }).pipe(Effect.provide(transportAt(service.origin)))
      assert.deepStrictEqual(bodies, [
        { type: "application/json", body: JSON.stringify({ name: "a é", count: 2 }) },
        { type: "application/x-www-form-urlencoded", body: "name=a+%C3%A9%26b&count=2" }
      ])
    }).pipe(Effect.scoped))
})

describe("path parameters", () => {
  it.live("each is sent as encodeURIComponent gives it, whether it needs encoding or not", () =>
    Effect.gen(function*() {
      const service = yield* server((request, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({ name: request.url }))
      })
      const ids = ["veh_1.2-3", "A-z~*'()!", "a b", "\u00e9t\u00e9", "x%y", "a+b&c=d", "\ud83d\ude97", "@:;,$", "[x]", "<\">", "a?b#c"]
      yield* Effect.gen(function*() {
        const items = yield* Transport.publicClient(ItemApi, "items")
        for (const id of ids) {
          const { value } = yield* items.one({ params: { id, part: id } })
          assert.strictEqual(value.name, `/v3/items/${encodeURIComponent(id)}/parts/${encodeURIComponent(id)}`, id)
        }
      }).pipe(Effect.provide(transportAt(service.origin)))
    }).pipe(Effect.scoped))
})

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

const Thing = Schema.Struct({ name: Schema.String })

class Things extends HttpApiGroup.make("things").add(
  HttpApiEndpoint.get("json", "/json", { success: Thing }),
  HttpApiEndpoint.get("form", "/form", { success: Thing.pipe(HttpApiSchema.asFormUrlEncoded()) }),
  HttpApiEndpoint.get("socket", "/socket", { success: HttpApiSchema.Upgrade({ protocol: "tcp" }) })
) {}
const Api = HttpApi.make("custom").add(Things)

const transportAt = (origin: string) =>
  Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), Transport.layerHttpClient]))

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

  it.live("an Upgrade success has its request built by HttpApiClient (which asks for the upgrade)", () =>
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
      // the request carries `upgrade: tcp`, which undici's dispatcher does not
      // send as a header: a typed connection failure, nothing sent (a plain
      // GET, as the transport's own builder makes, would have had the 400)
      assert.strictEqual((reasonOf(error) as { readonly _tag?: string } | undefined)?._tag, "Connection")
      assert.match(String((error as Error).message), /upgrade/i)
      assert.strictEqual(service.requests.length, 0)
    }).pipe(Effect.scoped))
})

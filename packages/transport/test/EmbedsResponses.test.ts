/**
 * An endpoint the contract annotates `EmbedsResponses` (its success body
 * holds responses to the request, as the legacy batch does) has its 200
 * scrubbed of the request's credentials before it is decoded, whatever its
 * content type; any other endpoint's success is decoded as the server wrote
 * it. Over a real loopback server.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Redacted, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { EmbedsResponses } from "@connected-vehicle/schema/Api"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { server } from "./utils.ts"
import * as UndiciHttpClient from "../src/UndiciHttpClient.ts"

const token = "tok/0123456789+secret"

const Echo = Schema.Struct({ responses: Schema.Array(Schema.Struct({ headers: Schema.Record(Schema.String, Schema.String), body: Schema.Unknown })) })

class Echoes extends HttpApiGroup.make("echoes").add(
  HttpApiEndpoint.post("embedded", "/embedded", { success: Echo }).annotate(EmbedsResponses, true),
  HttpApiEndpoint.post("plain", "/plain", { success: Echo })
) {}
const Api = HttpApi.make("custom").add(Echoes)

const layer = (origin: string) =>
  Layer.mergeAll(
    Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), UndiciHttpClient.layer()])),
    Credentials.layerStatic(Redacted.make(token))
  )

describe("EmbedsResponses", () => {
  it.live("an annotated endpoint's 200 without the request's credential in any string, in any spelling or content type", () =>
    Effect.gen(function*() {
      const types = ["application/json", "text/plain"]
      let n = 0
      const service = yield* server((request, response) => {
        const authorization = request.headers.authorization ?? ""
        response.writeHead(200, { "content-type": types[n++ % types.length]! })
        // the header as sent, the token percent-encoded, and JSON-escaped (`\/`) in a key
        response.end(
          `{"responses":[{"headers":{"x-request-id":"echo ${authorization}"},` +
            `"body":{"detail":"no vehicle for ${encodeURIComponent(token)}","${token.replaceAll("/", "\\/")}":1}}]}`
        )
      })
      yield* Effect.gen(function*() {
        const echoes = yield* Transport.client(Api, "echoes")
        for (const _ of types) {
          const { value } = yield* echoes.embedded()
          assert.deepStrictEqual(value.responses[0], {
            headers: { "x-request-id": "echo <redacted>" },
            body: { detail: "no vehicle for <redacted>", "<redacted>": 1 }
          })
        }
        // not annotated: as the server wrote it
        const { value } = yield* echoes.plain()
        assert.strictEqual(value.responses[0]!.headers["x-request-id"], `echo Bearer ${token}`)
      }).pipe(Effect.provide(layer(service.origin)))
    }).pipe(Effect.scoped))

  it.effect("an endpoint marked whose success the transport does not read itself (two successes): its client is refused, saying why", () =>
    Effect.gen(function*() {
      class Two extends HttpApiGroup.make("two").add(
        HttpApiEndpoint.post("two", "/two", { success: [Echo, Schema.Struct({ other: Schema.String }).pipe(HttpApiSchema.status(202))] }).annotate(EmbedsResponses, true)
      ) {}
      const exit = yield* Effect.exit(Transport.client(HttpApi.make("two").add(Two), "two").pipe(Effect.provide(layer("http://127.0.0.1:9"))))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(Cause.pretty((exit as Exit.Failure<unknown, unknown>).cause), "two.two: EmbedsResponses is honoured on an endpoint whose only success is a 200")
    }))
})

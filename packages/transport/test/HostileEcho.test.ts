/**
 * A server that echoes the request's credential many times, or writes it
 * where a URL parser rewrites it, or sends control characters: over a real
 * loopback server, no secret reaches an error or a result, the error is the
 * typed one, the scrub's work is bounded (a body's strings share one budget
 * of tracing: past it, a string holding a secret as written is withheld
 * whole), and an error's message shows no control character raw.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { EmbedsResponses, VehicleApi } from "@connected-vehicle/schema/Api"
import type { ServiceReason } from "@connected-vehicle/schema/ServiceReason"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { UnexpectedStatus } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "../src/UndiciHttpClient.ts"
import { server } from "./utils.ts"

const Echo = Schema.Struct({ responses: Schema.Array(Schema.Struct({ body: Schema.Unknown })) })

class Echoes extends HttpApiGroup.make("echoes").add(HttpApiEndpoint.post("embedded", "/embedded", { success: Echo }).annotate(EmbedsResponses, true)) {}
const Api = HttpApi.make("custom").add(Echoes)

/** The transport with the bearer `bearer`, one attempt per call. */
const layer = (origin: string, bearer: string) =>
  Transport.layer.pipe(
    Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), UndiciHttpClient.layer()]),
    Layer.merge(Credentials.layerStatic(Redacted.make(bearer)))
  )

/** A server that answers every request with `status`, `headers` and `body`. */
const answering = (status: number, body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
  server((request, response) => {
    request.resume()
    request.on("end", () => {
      response.writeHead(status, headers)
      response.end(body)
    })
  })

const getSignal = Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
  signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } }))

const item = (detail: string) => ({ status: "500", type: "SERVER", code: "FAILED", title: "Internal Server Error", detail })

const token = "user-TOKEN-abc%def&ghi"

describe("a body echoing the request's secret in many strings", () => {
  it.live("an error body: only what the error keeps of it is scrubbed (its envelope), not the rest of the body", () =>
    Effect.gen(function*() {
      // written before the envelope: a scrub of the whole body would spend its budget on it first
      const junk = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`${encodeURIComponent(token)}${i}`, `echo ${token} ${i}`]))
      const service = yield* answering(500, JSON.stringify({ junk, errors: [item(`token ${token} refused`)] }))
      const error = yield* Effect.flip(getSignal.pipe(Effect.provide(layer(service.origin, token))))
      const reason = reasonOf(error) as ServiceReason
      assert.strictEqual(reason._tag, "Server")
      assert.strictEqual(reason.detail, "token <redacted> refused")
      assert.notInclude(JSON.stringify(reason), "TOKEN")
      assert.notInclude(error.message, "TOKEN")
    }).pipe(Effect.scoped))

  it.live("an envelope of many items echoing it: each item scrubbed, those past the body's budget withheld whole", () =>
    Effect.gen(function*() {
      const items = Array.from({ length: 6_000 }, (_, i) => item(`token ${token} refused (${i})`))
      const service = yield* answering(500, JSON.stringify({ errors: items }))
      const error = yield* Effect.flip(getSignal.pipe(Effect.provide(layer(service.origin, token))))
      const reason = reasonOf(error) as ServiceReason
      assert.strictEqual(reason._tag, "Server")
      assert.strictEqual(reason.detail, "token <redacted> refused (0)")
      assert.strictEqual(reason.errors.length, items.length)
      assert.strictEqual(reason.errors.at(-1)!.detail, "<redacted>")
      assert.notInclude(JSON.stringify(reason), "TOKEN")
    }).pipe(Effect.scoped))

  it.live("a 200 that embeds responses: its strings share one budget, past it each echoing string is withheld whole", () =>
    Effect.gen(function*() {
      const bearer = "eyJhbGciOiJIUzI1NiJ9.abc+def/ghi="
      const junk = Array.from({ length: 6_000 }, (_, i) => `echo ${bearer} ${i}`)
      const service = yield* answering(200, JSON.stringify({ responses: [{ body: { distance: 5, junk, plain: "kept" } }] }))
      const { value } = yield* Effect.flatMap(Transport.client(Api, "echoes"), (echoes) => echoes.embedded()).pipe(
        Effect.provide(layer(service.origin, bearer))
      )
      const body = value.responses[0]!.body as { readonly distance: number; readonly junk: ReadonlyArray<string>; readonly plain: string }
      assert.strictEqual(body.distance, 5)
      assert.strictEqual(body.plain, "kept")
      assert.strictEqual(body.junk[0], "echo <redacted> 0")
      assert.strictEqual(body.junk.at(-1), "<redacted>")
      assert.notInclude(JSON.stringify(value), "abc+def")
    }).pipe(Effect.scoped))
})

describe("a redirect's location is scrubbed as the server wrote it", () => {
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    // a URL parser reads `\` as `/`: `\/` becomes `//`, and the secret (with `/`) is no longer in it
    ["a secret written with \\/ in the path", "Tok3nSECRET/part2", "https://evil.example/Tok3nSECRET\\/part2?x=1"],
    // a URL parser lower-cases a host: the secret (upper case letters) is no longer in it
    ["a secret as a host's label", "Tok3nSECRETpart2", "https://Tok3nSECRETpart2.evil.example/next"],
    ["a secret in the path as written", "Tok3nSECRET/part2", "https://evil.example/a/Tok3nSECRET/part2"]
  ]
  for (const [name, bearer, location] of cases) {
    it.live(`${name}: redacted`, () =>
      Effect.gen(function*() {
        const service = yield* answering(302, "", { location })
        const error = yield* Effect.flip(getSignal.pipe(Effect.provide(layer(service.origin, bearer))))
        const reason = reasonOf(error) as UnexpectedStatus
        assert.strictEqual(reason._tag, "UnexpectedStatus")
        assert.include(reason.location, "<redacted>")
        assert.notMatch(reason.location!, /secret/i)
        assert.notMatch(error.message, /secret/i)
      }).pipe(Effect.scoped))
  }

  it.live("user information holding an escaped @ beside a secret host: removed whole", () =>
    Effect.gen(function*() {
      const bearer = "Tok3nABCdef123"
      const service = yield* answering(302, "", { location: `https://user:p%40ssw0rd@${bearer}.evil.example/cb` })
      const error = yield* Effect.flip(getSignal.pipe(Effect.provide(layer(service.origin, bearer))))
      const reason = reasonOf(error) as UnexpectedStatus
      assert.notMatch(reason.location!, /ssw0rd|user|tok3n/i)
      assert.include(reason.location, "<redacted>")
    }).pipe(Effect.scoped))
})

describe("control characters a server sends", () => {
  it.live("are escaped in the error's message, kept as sent in its fields", () =>
    Effect.gen(function*() {
      const active = "\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202e\u2066\u200f\u061c\u007f\r\n"
      const envelope = { errors: [{ status: "418", type: "VALIDATION", code: `C${active}`, title: "T", detail: `red${active}end` }] }
      const service = yield* answering(418, JSON.stringify(envelope))
      const error = yield* Effect.flip(getSignal.pipe(Effect.provide(layer(service.origin, token))))
      const reason = reasonOf(error) as ServiceReason
      assert.strictEqual(reason.detail, `red${active}end`)
      const escaped = "\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\\u202e\\u2066\\u200f\\u061c\\u007f\\r\\n"
      assert.strictEqual(error.message, `418 C${escaped}: red${escaped}end`)
      assert.notMatch(error.message, /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/)
      assert.notMatch(error.stack!.split("\n")[0]!, /\u001b/)
    }).pipe(Effect.scoped))
})

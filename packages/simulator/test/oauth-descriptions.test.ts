/**
 * What the token endpoint and the consent step say of a request's own
 * values (over loopback): an `error_description` holds only the characters
 * RFC 6749 section 5.2 allows (printable ASCII but `"` and `\`), a value of
 * the request quoted and cut short, however long or strange it was; and the
 * client's own `client_id` in the token request's body is taken (section
 * 3.2.1).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { basic, call } from "./helpers.ts"

const Loopback = Layer.mergeAll(simulatorLayer({ seed: 11, connections: 4, vehicles: 4, users: 2, webhooks: 0 }), FetchHttpClient.layer)

/** RFC 6749 section 5.2's characters of `error_description`. */
const rfcDescription = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/

const assertDescription = (description: unknown, label: string) => {
  assert.isString(description, label)
  assert.match(description as string, rfcDescription, label)
  assert.isAtMost((description as string).length, 300, label)
}

const form = "application/x-www-form-urlencoded"

layer(Loopback)("OAuth error descriptions", (it) => {
  it.effect("a repeated parameter of control characters, quotes or a 100 KB name is named quoted and cut, within RFC 6749 5.2's characters", () =>
    Effect.gen(function*() {
      const headers = { authorization: yield* basic }
      const long = "k".repeat(100_000)
      for (
        const [key, shown] of [
          ["%01evil%0D%0Aline", "'%01evil%0D%0Aline'"],
          ["a%22b%5Cc%27d%25", "'a%22b%5Cc%27d%25'"],
          [long, `'${"k".repeat(40)}'...`],
          ["caf%C3%A9", "'caf%C3%A9'"]
        ] as const
      ) {
        // the grant valid (the handler's check) and without a grant (the decoding's)
        for (const body of [`grant_type=client_credentials&${key}=1&${key}=2`, `${key}=1&${key}=2`]) {
          const reply = yield* call("POST", "/oauth/token", { headers, body, contentType: form })
          assert.strictEqual(reply.status, 400, reply.text.slice(0, 200))
          assert.strictEqual(reply.json.error, "invalid_request")
          assertDescription(reply.json.error_description, key.slice(0, 20))
          assert.strictEqual(reply.json.error_description, `${shown} is repeated; send it once`)
          assert.strictEqual(reply.json.errors[0].detail, reply.json.error_description)
        }
      }
    }))

  it.effect("an unsupported grant_type or response_type, an unknown permission: quoted, cut after 40 characters, within the characters", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const headers = { authorization: yield* basic }
      const grant = yield* call("POST", "/oauth/token", {
        headers,
        body: `grant_type=${encodeURIComponent("x\"y\\z\u0007\u00e9'" + "g".repeat(5_000))}`,
        contentType: form
      })
      assert.strictEqual(grant.status, 400, grant.text.slice(0, 200))
      assert.strictEqual(grant.json.error, "unsupported_grant_type")
      assertDescription(grant.json.error_description, "grant_type")
      assert.strictEqual(
        grant.json.error_description,
        `Unsupported grant_type 'x%22y%5Cz%07%C3%A9%27${"g".repeat(32)}'...; accepted: authorization_code, refresh_token, client_credentials`
      )
      const responseType = yield* call(
        "GET",
        `/oauth/authorize?${new URLSearchParams({ response_type: "to\"ken\n", client_id: sim.clientId, redirect_uri: "https://app.example/cb" })}`
      )
      assert.strictEqual(responseType.status, 302, responseType.text)
      const typeDescription = new URL(responseType.headers["location"]!).searchParams.get("error_description")
      assertDescription(typeDescription, "response_type")
      assert.strictEqual(typeDescription, "Unsupported response_type 'to%22ken%0A'; accepted: code")
      const scope = yield* call(
        "GET",
        `/oauth/authorize?${new URLSearchParams({
          response_type: "code",
          client_id: sim.clientId,
          redirect_uri: "https://app.example/callback",
          scope: `read_vin "bad\\scope\u0001 ${"s".repeat(2_000)}`
        })}`
      )
      assert.strictEqual(scope.status, 302, scope.text)
      const location = new URL(scope.headers["location"]!)
      assert.strictEqual(location.searchParams.get("error"), "invalid_scope")
      const description = location.searchParams.get("error_description")
      assertDescription(description, "scope")
      assert.strictEqual(description, `Unknown permission: '%22bad%5Cscope%01' '${"s".repeat(40)}'...`)
    }))

  it.effect("the client's own client_id in the body beside its Basic credential gets a token (RFC 6749 3.2.1); another's is refused", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const headers = { authorization: yield* basic }
      const own = yield* call("POST", "/oauth/token", { headers, form: { grant_type: "client_credentials", client_id: sim.clientId } })
      assert.strictEqual(own.status, 200, own.text)
      assert.isString(own.json.access_token)
      const other = yield* call("POST", "/oauth/token", { headers, form: { grant_type: "client_credentials", client_id: `${sim.clientId}x` } })
      assert.strictEqual(other.status, 400, other.text)
      assert.strictEqual(other.json.error, "invalid_request")
      const secret = yield* call("POST", "/oauth/token", {
        headers,
        form: { grant_type: "client_credentials", client_id: sim.clientId, client_secret: "guess" }
      })
      assert.strictEqual(secret.status, 400, secret.text)
      assert.notInclude(secret.text, "guess")
    }))
})

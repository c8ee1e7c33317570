/**
 * What a request that breaks a rule is told (over loopback): a body of another
 * content type, a repeated parameter, another `response_type` (redirected,
 * with the error: see consent-errors.test.ts); and what
 * `/openapi.json` declares of the paging limits, the response headers and
 * open objects.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { appToken, basic, bearer, call, isEnvelope, isOAuthBody, userTokens } from "./helpers.ts"
import type { Reply } from "./helpers.ts"
import { openRaw, rawRequest } from "./raw.ts"

const Loopback = Layer.mergeAll(simulatorLayer({ seed: 7, connections: 12, vehicles: 12, users: 3, webhooks: 2 }), FetchHttpClient.layer)

const refused = (reply: Reply, detail: string) => {
  assert.strictEqual(reply.status, 400, reply.text)
  assert.isTrue(isEnvelope(reply.json), reply.text)
  assert.strictEqual(reply.json.errors[0].detail, detail)
}

layer(Loopback)("requests that break a rule", (it) => {
  it.effect("a token request whose body is not a form is 415 naming application/x-www-form-urlencoded", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const headers = { authorization: yield* basic }
      const expected = "Unsupported content type; POST /oauth/token takes application/x-www-form-urlencoded"
      const bodies = [
        { contentType: "application/json", body: "{\"grant_type\":\"client_credentials\"}" },
        { contentType: "text/plain", body: "grant_type=client_credentials" },
        { contentType: "application/xml", body: "<grant_type>client_credentials</grant_type>" },
        { contentType: "multipart/form-data; boundary=x", body: "--x\r\ncontent-disposition: form-data; name=\"grant_type\"\r\n\r\nclient_credentials\r\n--x--\r\n" }
      ]
      for (const { body, contentType } of bodies) {
        const reply = yield* call("POST", "/oauth/token", { headers, body, contentType })
        assert.strictEqual(reply.status, 415, contentType)
        assert.isTrue(isOAuthBody(reply.json), contentType)
        assert.strictEqual(reply.json.error, "invalid_request", contentType)
        assert.strictEqual(reply.json.error_description, expected, contentType)
      }
      // no content type at all
      const connection = yield* Effect.promise(() => openRaw(sim.url))
      connection.send(rawRequest("POST", "/oauth/token", {
        authorization: headers.authorization,
        "user-agent": "raw",
        "content-length": "29"
      }, "grant_type=client_credentials"))
      const bare = yield* Effect.promise(() => connection.next())
      connection.socket.destroy()
      assert.strictEqual(bare.status, 415, bare.body)
      assert.strictEqual(JSON.parse(bare.body).error_description, expected)
    }))

  it.effect("a batch whose body is not JSON is 415 naming application/json", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { access } = yield* userTokens()
      const vehicle = sim.data.vehiclesOf(sim.data.users[0]!.id)[0]!
      const reply = yield* call("POST", `/v2.0/vehicles/${vehicle}/batch`, {
        headers: bearer(access),
        body: "requests=/odometer",
        contentType: "text/plain"
      })
      assert.strictEqual(reply.status, 415, reply.text)
      assert.strictEqual(reply.json.errors[0].detail, `Unsupported content type; POST /v2.0/vehicles/${vehicle}/batch takes application/json`)
    }))

  it.effect("a repeated query parameter of a list is a 400 that says it is repeated", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const app = yield* appToken
      const { access } = yield* userTokens()
      const vehicle = sim.data.vehicleIds[0]!
      const owner = { ...bearer(app), "sc-user-id": sim.data.connectionOf(vehicle)!.userId }
      refused(yield* call("GET", "/v3/connections?page=1&page=2", { headers: bearer(app) }), "Query parameter page is repeated; send it once")
      refused(
        yield* call("GET", "/v3/subscriptions?pageSize=5&filter[mode]=live&pageSize=5", { headers: bearer(app) }),
        "Query parameter pageSize is repeated; send it once"
      )
      refused(yield* call("GET", `/v3/vehicles/${vehicle}/signals?page=1&page=1`, { headers: owner }), "Query parameter page is repeated; send it once")
      refused(yield* call("GET", "/v2.0/vehicles?limit=5&limit=6", { headers: bearer(access) }), "Query parameter limit is repeated; send it once")
    }))

  it.effect("a repeated token or consent parameter is invalid_request saying it is repeated", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const headers = { authorization: yield* basic }
      const token = yield* call("POST", "/oauth/token", {
        headers,
        body: "grant_type=client_credentials&grant_type=client_credentials",
        contentType: "application/x-www-form-urlencoded"
      })
      assert.strictEqual(token.status, 400, token.text)
      assert.strictEqual(token.json.error, "invalid_request")
      assert.strictEqual(token.json.error_description, "grant_type is repeated; send it once")
      // every parameter is named, `scope` as much as a grant's own, whether the body decodes or not
      for (
        const [body, name] of [
          ["grant_type=client_credentials&scope=read_vin&scope=read_odometer", "scope"],
          ["grant_type=refresh_token&refresh_token=a&refresh_token=b", "refresh_token"],
          ["grant_type=client_credentials&state=a&state=a", "state"]
        ] as const
      ) {
        const repeated = yield* call("POST", "/oauth/token", { headers, body, contentType: "application/x-www-form-urlencoded" })
        assert.strictEqual(repeated.status, 400, repeated.text)
        assert.strictEqual(repeated.json.error, "invalid_request")
        assert.strictEqual(repeated.json.error_description, `${name} is repeated; send it once`)
      }
      const consent = yield* call(
        "GET",
        `/oauth/authorize?response_type=code&client_id=${sim.clientId}&client_id=${sim.clientId}&redirect_uri=https://app.example/cb`
      )
      assert.strictEqual(consent.status, 400, consent.text)
      assert.strictEqual(consent.json.error, "invalid_request")
      assert.strictEqual(consent.json.error_description, "Query parameter client_id is repeated; send it once")
    }))

  it.effect("client_secret in the token request's body besides the Basic credential, or another client's client_id, is 400 invalid_request (RFC 6749 2.3: one method)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const headers = { authorization: yield* basic }
      const secondMethod =
        "The client authenticates with the Basic credential; client_secret in the body as well is a second method (RFC 6749 section 2.3: use one)"
      const otherClient = "client_id in the body is not the Basic credential's client; send the same one, or none (RFC 6749 section 3.2.1)"
      for (
        const [form, expected] of [
          [{ grant_type: "client_credentials", client_id: "other" }, otherClient],
          [{ grant_type: "client_credentials", client_id: sim.clientId, client_secret: "guess" }, secondMethod],
          [{ grant_type: "client_credentials", client_id: "other", client_secret: "guess" }, secondMethod],
          [{ grant_type: "refresh_token", refresh_token: "rt", client_secret: "guess" }, secondMethod]
        ] as const
      ) {
        const reply = yield* call("POST", "/oauth/token", { headers, form })
        assert.strictEqual(reply.status, 400, reply.text)
        assert.strictEqual(reply.json.error, "invalid_request")
        assert.strictEqual(reply.json.error_description, expected)
        assert.notInclude(reply.text, "guess")
        assert.notInclude(reply.text, "access_token")
      }
      // the client's own client_id beside its Basic credential (RFC 6749 3.2.1 lets it send one): a token
      const own = yield* call("POST", "/oauth/token", { headers, form: { grant_type: "client_credentials", client_id: sim.clientId } })
      assert.strictEqual(own.status, 200, own.text)
      assert.isString(own.json.access_token)
      // the Basic credential alone: a token
      const alone = yield* call("POST", "/oauth/token", { headers, form: { grant_type: "client_credentials" } })
      assert.strictEqual(alone.status, 200, alone.text)
    }))

  it.effect("another response_type is redirected with error=unsupported_response_type and the state (RFC 6749 4.1.2.1)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const query = new URLSearchParams({ response_type: "token", client_id: sim.clientId, redirect_uri: "https://app.example/cb", state: "s" })
      const reply = yield* call("GET", `/oauth/authorize?${query}`)
      assert.strictEqual(reply.status, 302, reply.text)
      const location = new URL(reply.headers["location"]!).searchParams
      assert.strictEqual(location.get("error"), "unsupported_response_type")
      assert.strictEqual(location.get("error_description"), "Unsupported response_type 'token'; accepted: code")
      assert.strictEqual(location.get("state"), "s")
      // a missing one is a malformed request
      query.delete("response_type")
      const missing = yield* call("GET", `/oauth/authorize?${query}`)
      assert.strictEqual(new URL(missing.headers["location"]!).searchParams.get("error"), "invalid_request")
    }))
})

layer(Loopback)("/openapi.json", (it) => {
  it.effect("declares the paging limits and defaults of the lists", () =>
    Effect.gen(function*() {
      const { paths } = (yield* call("GET", "/openapi.json")).json
      const parameter = (path: string, name: string) => {
        const found = paths[path].get.parameters.find((p: { readonly name: string }) => p.name === name)
        return { minimum: found.schema.minimum, maximum: found.schema.maximum, default: found.schema.default }
      }
      const max = Number.MAX_SAFE_INTEGER
      for (const path of ["/v3/connections", "/v3/subscriptions", "/v3/vehicles/{vehicleId}/signals"]) {
        assert.deepStrictEqual(parameter(path, "page"), { minimum: 1, maximum: max, default: "1" }, path)
        assert.deepStrictEqual(parameter(path, "pageSize"), { minimum: 1, maximum: 100, default: "10" }, path)
      }
      assert.deepStrictEqual(parameter("/v2.0/vehicles", "limit"), { minimum: 1, maximum: 50, default: "10" })
      assert.deepStrictEqual(parameter("/v2.0/vehicles", "offset"), { minimum: 0, maximum: max, default: "0" })
    }))

  it.effect("declares the response headers, 415 on the token endpoint, the consent's mode=test and login_hint, and open objects", () =>
    Effect.gen(function*() {
      const reply = yield* call("GET", "/openapi.json")
      const { paths } = reply.json
      const headersOf = (path: string, method: string, status: string) => Object.keys(paths[path][method].responses[status].headers ?? {}).sort()
      assert.deepStrictEqual(headersOf("/v3/connections", "get", "429"), ["retry-after"])
      assert.deepStrictEqual(headersOf("/v2.0/vehicles/{id}/odometer", "get", "200"), ["deprecation", "link", "sc-data-age", "sc-unit-system", "sunset"])
      assert.deepStrictEqual(headersOf("/v2.0/vehicles/{id}/odometer", "get", "404"), ["deprecation", "link", "sunset"])
      assert.deepStrictEqual(headersOf("/v2.0/vehicles/{id}/batch", "post", "200"), ["deprecation", "link", "sunset"])
      assert.deepStrictEqual(headersOf("/v2.0/vehicles", "get", "200"), [])
      assert.deepStrictEqual(headersOf("/oauth/authorize", "get", "302"), ["location"])
      assert.property(paths["/oauth/token"].post.responses, "415")
      const consent = paths["/oauth/authorize"].get.parameters
      assert.deepStrictEqual(consent.find((p: { readonly name: string }) => p.name === "mode").schema.enum, ["live", "simulated", "test"])
      assert.isDefined(consent.find((p: { readonly name: string }) => p.name === "login_hint"))
      assert.notInclude(reply.text, "\"additionalProperties\":false")
    }))
})

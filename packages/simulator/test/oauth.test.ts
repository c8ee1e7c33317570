import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { FetchHttpClient } from "effect/http"
import { layer, layerTest, Simulator } from "../src/Simulator.ts"
import { appToken, basic, bearer, call, isOAuthBody, userTokens } from "./helpers.ts"

const Loopback = Layer.mergeAll(layer(), FetchHttpClient.layer)

describe("authorization over loopback", () => {
  it.effect("consent redirects with code and state", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const q = new URLSearchParams({ response_type: "code", client_id: sim.clientId, redirect_uri: "https://app.example/cb?x=1", state: "xyz", scope: "read_odometer read_vin" })
      const reply = yield* call("GET", `/oauth/authorize?${q}`)
      assert.strictEqual(reply.status, 302)
      const location = new URL(reply.headers["location"]!)
      assert.strictEqual(location.origin + location.pathname, "https://app.example/cb")
      assert.strictEqual(location.searchParams.get("x"), "1")
      assert.strictEqual(location.searchParams.get("state"), "xyz")
      assert.match(location.searchParams.get("code")!, /^code_/)
    }).pipe(Effect.provide(Loopback)))
})

const consentQuery = (clientId: string, extra: Record<string, string> = {}) =>
  new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: "https://app.example/callback", state: "s", ...extra })

describe("token exchange, refresh and expiry (TestClock)", () => {
  it.effect("code exchange, single use, redirect_uri check", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const consent = yield* call("GET", `/oauth/authorize?${consentQuery(sim.clientId)}`)
      const code = new URL(consent.headers["location"]!).searchParams.get("code")!
      const auth = { authorization: yield* basic }
      const wrongUri = yield* call("POST", "/oauth/token", { headers: auth, form: { grant_type: "authorization_code", code, redirect_uri: "https://other.example/cb" } })
      assert.strictEqual(wrongUri.status, 400)
      assert.strictEqual(wrongUri.json.error, "invalid_grant")
      // the failed attempt consumed the code (single use)
      const again = yield* call("POST", "/oauth/token", { headers: auth, form: { grant_type: "authorization_code", code, redirect_uri: "https://app.example/callback" } })
      assert.strictEqual(again.status, 400)
      assert.strictEqual(again.json.error, "invalid_grant")

      const consent2 = yield* call("GET", `/oauth/authorize?${consentQuery(sim.clientId)}`)
      const code2 = new URL(consent2.headers["location"]!).searchParams.get("code")!
      const ok = yield* call("POST", "/oauth/token", { headers: auth, form: { grant_type: "authorization_code", code: code2, redirect_uri: "https://app.example/callback" } })
      assert.strictEqual(ok.status, 200)
      assert.strictEqual(ok.json.token_type, "Bearer")
      assert.strictEqual(ok.json.expires_in, 7200)
      assert.isString(ok.json.refresh_token)
      const reuse = yield* call("POST", "/oauth/token", { headers: auth, form: { grant_type: "authorization_code", code: code2, redirect_uri: "https://app.example/callback" } })
      assert.strictEqual(reuse.json.error, "invalid_grant")
    }).pipe(Effect.provide(Loopback)))

  it.effect("access token expires after 7200 s; refresh rotates; refresh token expires after 60 days", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const tokens = yield* userTokens()
      const list = () => call("GET", "/v2.0/vehicles", { headers: bearer(tokens.access) })
      assert.strictEqual((yield* list()).status, 200)
      yield* TestClock.adjust("7199 seconds")
      assert.strictEqual((yield* list()).status, 200)
      yield* TestClock.adjust("1 second")
      const expired = yield* list()
      assert.strictEqual(expired.status, 401)
      assert.strictEqual(expired.json.errors[0].type, "AUTHENTICATION")
      assert.match(expired.json.errors[0].detail, /expired/)

      const auth = { authorization: yield* basic }
      const refreshed = yield* call("POST", "/oauth/token", { headers: auth, form: { grant_type: "refresh_token", refresh_token: tokens.refresh } })
      assert.strictEqual(refreshed.status, 200)
      assert.notStrictEqual(refreshed.json.refresh_token, tokens.refresh)
      assert.strictEqual((yield* call("GET", "/v2.0/vehicles", { headers: bearer(refreshed.json.access_token) })).status, 200)
      const rotated = yield* call("POST", "/oauth/token", { headers: auth, form: { grant_type: "refresh_token", refresh_token: tokens.refresh } })
      assert.strictEqual(rotated.status, 400)
      assert.strictEqual(rotated.json.error, "invalid_grant")

      yield* TestClock.adjust("59 days")
      const stillValid = yield* call("POST", "/oauth/token", { headers: auth, form: { grant_type: "refresh_token", refresh_token: refreshed.json.refresh_token } })
      assert.strictEqual(stillValid.status, 200)
      yield* TestClock.adjust("60 days")
      const late = yield* call("POST", "/oauth/token", { headers: auth, form: { grant_type: "refresh_token", refresh_token: stillValid.json.refresh_token } })
      assert.strictEqual(late.status, 400)
      assert.strictEqual(late.json.error, "invalid_grant")
      assert.match(late.json.error_description, /expired/)
      void sim
    }).pipe(Effect.provide(Loopback)))

  it.effect("authorization codes expire after 10 minutes", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const consent = yield* call("GET", `/oauth/authorize?${consentQuery(sim.clientId)}`)
      const code = new URL(consent.headers["location"]!).searchParams.get("code")!
      yield* TestClock.adjust("10 minutes")
      const reply = yield* call("POST", "/oauth/token", { headers: { authorization: yield* basic }, form: { grant_type: "authorization_code", code, redirect_uri: "https://app.example/callback" } })
      assert.strictEqual(reply.json.error, "invalid_grant")
    }).pipe(Effect.provide(Loopback)))

  it.effect("application tokens expire too", () =>
    Effect.gen(function*() {
      const token = yield* appToken
      assert.strictEqual((yield* call("GET", "/v3/webhooks", { headers: bearer(token) })).status, 200)
      yield* TestClock.adjust("2 hours")
      assert.strictEqual((yield* call("GET", "/v3/webhooks", { headers: bearer(token) })).status, 401)
    }).pipe(Effect.provide(Loopback)))

  it.effect("the in-memory layer runs on the same clock", () =>
    Effect.gen(function*() {
      const token = yield* appToken
      assert.strictEqual((yield* call("GET", "/v3/webhooks", { headers: bearer(token) })).status, 200)
      yield* TestClock.adjust("2 hours")
      assert.strictEqual((yield* call("GET", "/v3/webhooks", { headers: bearer(token) })).status, 401)
    }).pipe(Effect.provide(layerTest())))
})

describe("authorization errors", () => {
  it.effect("client credential problems are 401 invalid_client", () =>
    Effect.gen(function*() {
      const form = { grant_type: "client_credentials" }
      const none = yield* call("POST", "/oauth/token", { form })
      assert.strictEqual(none.status, 401)
      assert.strictEqual(none.json.error, "invalid_client")
      const wrong = yield* call("POST", "/oauth/token", { form, headers: { authorization: "Basic " + Buffer.from("demo-client-id:nope").toString("base64") } })
      assert.strictEqual(wrong.status, 401)
      assert.isTrue(isOAuthBody(wrong.json))
      const garbage = yield* call("POST", "/oauth/token", { form, headers: { authorization: "Bearer abc" } })
      assert.strictEqual(garbage.status, 401)
    }).pipe(Effect.provide(Loopback)))

  it.effect("form problems are 400 with RFC 6749 codes", () =>
    Effect.gen(function*() {
      const headers = { authorization: yield* basic }
      const unsupported = yield* call("POST", "/oauth/token", { headers, form: { grant_type: "password", username: "a" } })
      assert.strictEqual(unsupported.status, 400)
      assert.strictEqual(unsupported.json.error, "unsupported_grant_type")
      const missing = yield* call("POST", "/oauth/token", { headers, form: { grant_type: "authorization_code" } })
      assert.strictEqual(missing.status, 400)
      assert.strictEqual(missing.json.error, "invalid_request")
      const unknownCode = yield* call("POST", "/oauth/token", { headers, form: { grant_type: "authorization_code", code: "nope", redirect_uri: "https://a.example" } })
      assert.strictEqual(unknownCode.json.error, "invalid_grant")
      const json = yield* call("POST", "/oauth/token", { headers, json: { grant_type: "client_credentials" } })
      assert.strictEqual(json.status, 415)
      assert.isTrue(isOAuthBody(json.json))
    }).pipe(Effect.provide(Loopback)))

  it.effect("consent problems", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const badClient = yield* call("GET", `/oauth/authorize?${consentQuery("someone-else")}`)
      assert.strictEqual(badClient.status, 400)
      assert.strictEqual(badClient.json.error, "unauthorized_client")
      const badType = yield* call("GET", `/oauth/authorize?${consentQuery(sim.clientId, { response_type: "token" })}`)
      assert.strictEqual(badType.status, 400)
      assert.isTrue(isOAuthBody(badType.json))
      const badUri = yield* call("GET", `/oauth/authorize?${consentQuery(sim.clientId, { redirect_uri: "not a uri" })}`)
      assert.strictEqual(badUri.json.error, "invalid_request")
      const badScope = yield* call("GET", `/oauth/authorize?${consentQuery(sim.clientId, { scope: "read_odometer fly_car" })}`)
      assert.strictEqual(badScope.status, 302)
      const location = new URL(badScope.headers["location"]!)
      assert.strictEqual(location.searchParams.get("error"), "invalid_scope")
      assert.strictEqual(location.searchParams.get("state"), "s")
      const badHint = yield* call("GET", `/oauth/authorize?${consentQuery(sim.clientId, { login_hint: "nobody" })}`)
      assert.strictEqual(badHint.status, 400)
    }).pipe(Effect.provide(Loopback)))

  it.effect("login_hint picks the consenting user", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const user = sim.data.users[3]!
      const tokens = yield* userTokens({ userId: user.externalId })
      const list = yield* call("GET", "/v2.0/vehicles?limit=50", { headers: bearer(tokens.access) })
      assert.deepStrictEqual(list.json.vehicles, sim.data.vehiclesOf(user.id))
    }).pipe(Effect.provide(Loopback)))
})

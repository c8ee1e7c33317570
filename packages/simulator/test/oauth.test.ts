import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { FetchHttpClient } from "effect/http"
import { layer, layerRoots, layerTest, Simulator, SimulatorRoots } from "../src/Simulator.ts"
import { appToken, basic, bearer, call, isOAuthBody, userTokens } from "./helpers.ts"
import { openRaw, rawRequest } from "./raw.ts"

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

  it.effect("a Basic credential that is not strict base64 (RFC 4648 standard alphabet, padded) is 401 invalid_client", () =>
    Effect.gen(function*() {
      const form = { grant_type: "client_credentials" }
      const good = Buffer.from("demo-client-id:demo-client-secret").toString("base64")
      assert.strictEqual((yield* call("POST", "/oauth/token", { form, headers: { authorization: `Basic ${good}` } })).status, 200)
      const padded = Buffer.from("demo-client-id:x").toString("base64") // "…eA=="
      const urlSafe = Buffer.from([0x69, 0x64, 0x3a, 0xfb, 0xff, 0xfe]).toString("base64url") // "aWQ6-__-"
      assert.isTrue(padded.endsWith("==") && /[-_]/.test(urlSafe))
      const malformed = [
        `!!${good}`, // characters outside the alphabet, which a lax decoder skips
        `${good}===`, // extra padding
        `${good}=`,
        padded.slice(0, -2), // missing padding
        `${padded.slice(0, -3)}B==`, // non-zero bits after the last byte
        urlSafe // base64url alphabet
      ]
      for (const credential of malformed) {
        const reply = yield* call("POST", "/oauth/token", { form, headers: { authorization: `Basic ${credential}` } })
        assert.strictEqual(reply.status, 401, credential)
        assert.strictEqual(reply.json.error, "invalid_client", credential)
        assert.include(reply.json.error_description, "base64", credential)
      }
    }).pipe(Effect.provide(Loopback)))

  it.effect("a token request without a User-Agent (absent or empty) is 400 invalid_request (section 4.6)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const authorization = yield* basic
      const form = "grant_type=client_credentials"
      const responses = yield* Effect.promise(async () => {
        const connection = await openRaw(sim.url)
        const out = []
        for (const userAgent of [null, "", "  ", "raw-test/1.0"]) {
          connection.send(rawRequest("POST", "/oauth/token", {
            authorization,
            "content-type": "application/x-www-form-urlencoded",
            "content-length": String(form.length),
            "user-agent": userAgent
          }, form))
          out.push(await connection.next())
        }
        connection.socket.destroy()
        return out
      })
      for (const response of responses.slice(0, 3)) {
        assert.strictEqual(response.status, 400, response.body)
        const body = JSON.parse(response.body)
        assert.strictEqual(body.error, "invalid_request")
        assert.strictEqual(body.error_description, "User-Agent header is required")
        assert.strictEqual(body.errors[0].detail, "User-Agent header is required")
      }
      assert.strictEqual(responses[3]!.status, 200, responses[3]!.body)
      assert.strictEqual((yield* sim.usage).tokenGrants.clientCredentials, 1)
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

  it.effect("every /oauth error body has RFC 6749's error and section 7's errors (status, type, code, title, detail)", () =>
    Effect.gen(function*() {
      const headers = { authorization: yield* basic }
      const sim = yield* Simulator
      yield* sim.injectFaults({ path: "/oauth/token", faults: [{ _tag: "Status", status: 503, retryAfter: "1" }] })
      const replies = [
        [yield* call("POST", "/oauth/token", { headers, form: { grant_type: "client_credentials" } }), 503, "temporarily_unavailable", "SERVER"],
        [yield* call("POST", "/oauth/token", { form: { grant_type: "client_credentials" } }), 401, "invalid_client", "AUTHENTICATION"],
        [yield* call("POST", "/oauth/token", { headers, form: { grant_type: "password" } }), 400, "unsupported_grant_type", "VALIDATION"],
        [yield* call("POST", "/oauth/token", { headers, form: { grant_type: "refresh_token", refresh_token: "nope" } }), 400, "invalid_grant", "VALIDATION"],
        [yield* call("POST", "/oauth/token", { headers, json: { grant_type: "client_credentials" } }), 415, "invalid_request", "VALIDATION"],
        [yield* call("GET", "/oauth/nowhere"), 404, "invalid_request", "RESOURCE_NOT_FOUND"]
      ] as const
      for (const [reply, status, error, type] of replies) {
        assert.strictEqual(reply.status, status, error)
        assert.isTrue(isOAuthBody(reply.json), error)
        assert.strictEqual(reply.json.error, error)
        const [item, ...rest] = reply.json.errors
        assert.strictEqual(rest.length, 0)
        assert.strictEqual(item.status, String(status))
        assert.strictEqual(item.type, type)
        assert.isString(item.code)
        assert.isString(item.title)
        assert.strictEqual(item.detail, reply.json.error_description)
        assert.isString(item.meta?.debug?.requestId, error)
      }
    }).pipe(Effect.provide(Loopback)))

  it.effect("consent problems", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const badClient = yield* call("GET", `/oauth/authorize?${consentQuery("someone-else")}`)
      assert.strictEqual(badClient.status, 400)
      assert.strictEqual(badClient.json.error, "unauthorized_client")
      // once the client and its redirect URI are known, an error is redirected (RFC 6749 4.1.2.1)
      const badType = yield* call("GET", `/oauth/authorize?${consentQuery(sim.clientId, { response_type: "token" })}`)
      assert.strictEqual(badType.status, 302)
      assert.strictEqual(new URL(badType.headers["location"]!).searchParams.get("error"), "unsupported_response_type")
      const badUri = yield* call("GET", `/oauth/authorize?${consentQuery(sim.clientId, { redirect_uri: "not a uri" })}`)
      assert.strictEqual(badUri.json.error, "invalid_request")
      const badScope = yield* call("GET", `/oauth/authorize?${consentQuery(sim.clientId, { scope: "read_odometer fly_car" })}`)
      assert.strictEqual(badScope.status, 302)
      const location = new URL(badScope.headers["location"]!)
      assert.strictEqual(location.searchParams.get("error"), "invalid_scope")
      assert.strictEqual(location.searchParams.get("state"), "s")
      const badHint = yield* call("GET", `/oauth/authorize?${consentQuery(sim.clientId, { login_hint: "nobody" })}`)
      assert.strictEqual(badHint.status, 302)
      const hintLocation = new URL(badHint.headers["location"]!)
      assert.deepStrictEqual([hintLocation.searchParams.get("error"), hintLocation.searchParams.get("code")], ["invalid_request", null])
    }).pipe(Effect.provide(Loopback)))

  it.effect("an empty or blank scope asks for nothing: error=invalid_scope, no code (absent: every permission)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      for (const scope of ["", " ", "  \t", ",", " , "]) {
        const reply = yield* call("GET", `/oauth/authorize?${consentQuery(sim.clientId, { scope })}`)
        assert.strictEqual(reply.status, 302, `${JSON.stringify(scope)}: ${reply.text}`)
        const location = new URL(reply.headers["location"]!)
        assert.strictEqual(location.searchParams.get("error"), "invalid_scope", JSON.stringify(scope))
        assert.strictEqual(location.searchParams.get("error_description"), "The scope is empty; name at least one permission")
        assert.strictEqual(location.searchParams.get("state"), "s")
        assert.isNull(location.searchParams.get("code"), JSON.stringify(scope))
      }
      const absent = yield* call("GET", `/oauth/authorize?${consentQuery(sim.clientId)}`)
      assert.isNotNull(new URL(absent.headers["location"]!).searchParams.get("code"))
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

const authorizeWith = (clientId: string, redirectUri: string, extra: Record<string, string> = {}) =>
  call("GET", `/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirectUri, state: "s", ...extra })}`)

describe("redirect URIs are registered per client", () => {
  it.effect("the demo client's defaults: loopback http on any port, https://app.example; anything else is 400 without a redirect", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      for (const uri of ["http://127.0.0.1:53100/callback", "http://localhost:1/cb", "http://[::1]:8080/x?y=1", "http://127.0.0.1/", "https://app.example/callback"]) {
        const reply = yield* authorizeWith(sim.clientId, uri)
        assert.strictEqual(reply.status, 302, `${uri}: ${reply.text}`)
        assert.match(new URL(reply.headers["location"]!).searchParams.get("code")!, /^code_/)
      }
      const refused = [
        "vbscript:msgbox(1)",
        "javascript:alert(1)",
        "data:text/html,hi",
        "file:///etc/passwd",
        "https://evil.example.com/cb",
        "http://app.example/callback",
        "https://app.example.evil.test/cb",
        "https://127.0.0.1:8443/cb",
        "http://127.0.0.1.evil.test/cb",
        "http://127.0.0.1:8080@evil.test/cb",
        "http://user@127.0.0.1:8080/cb",
        "http://127.0.0.1:8080/cb#fragment",
        "//127.0.0.1:8080/cb",
        "not a uri"
      ]
      for (const uri of refused) {
        // an unknown scope would redirect with error=invalid_scope for a registered URI: not for these
        for (const extra of [{}, { scope: "fly_car" }]) {
          const reply = yield* authorizeWith(sim.clientId, uri, extra)
          assert.strictEqual(reply.status, 400, `${uri}: ${reply.status} ${reply.text}`)
          assert.isUndefined(reply.headers["location"], uri)
          assert.isTrue(isOAuthBody(reply.json), uri)
          assert.strictEqual(reply.json.error, "invalid_request")
          // a URI the rule refuses says why; a registrable one that it is not registered
          assert.match(reply.json.error_description, /^redirect_uri (?:can be no redirect URI: Expected|is not registered for this client)/, uri)
        }
      }
      // nothing was issued for a refused URI
      assert.isFalse((yield* sim.requests).some((e) => e.status === 302 && refused.some((uri) => e.query.includes(encodeURIComponent(uri)))))
    }).pipe(Effect.provide(Loopback)))

  it.effect("configured redirect URIs replace the defaults: exact paths, host-only entries and port *", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      assert.strictEqual(sim.clientId, "partner")
      const allowed = ["https://partner.example/oauth/cb", "https://partner.example/oauth/cb?from=x", "http://10.0.0.7:9000/anything", "https://any.test/deep/path"]
      for (const uri of allowed) assert.strictEqual((yield* authorizeWith("partner", uri)).status, 302, uri)
      for (const uri of ["https://partner.example/oauth/other", "http://127.0.0.1:5000/callback", "https://app.example/callback", "http://10.0.0.8:9000/x", "http://any.test/deep/path"]) {
        const reply = yield* authorizeWith("partner", uri)
        assert.strictEqual(reply.status, 400, uri)
        assert.isUndefined(reply.headers["location"], uri)
      }
    }).pipe(Effect.provide(Layer.mergeAll(
      layer({ clientId: "partner", redirectUris: ["https://partner.example/oauth/cb", "http://10.0.0.7:*", "https://any.test"] }),
      FetchHttpClient.layer
    ))))
})

const exchange = (code: string, redirectUri = "https://app.example/callback") =>
  Effect.gen(function*() {
    return yield* call("POST", "/oauth/token", {
      headers: { authorization: yield* basic },
      form: { grant_type: "authorization_code", code, redirect_uri: redirectUri }
    })
  })

const refresh = (refreshToken: string) =>
  Effect.gen(function*() {
    return yield* call("POST", "/oauth/token", {
      headers: { authorization: yield* basic },
      form: { grant_type: "refresh_token", refresh_token: refreshToken }
    })
  })

const codeOf = (reply: { readonly headers: Readonly<Record<string, string>> }) =>
  new URL(reply.headers["location"]!).searchParams.get("code")!

describe("token lifetimes (deliberate choices)", () => {
  it.effect("a replayed authorization code revokes every token issued from it, rotated ones included", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const code = codeOf(yield* authorizeWith(sim.clientId, "https://app.example/callback"))
      const first = yield* exchange(code)
      assert.strictEqual(first.status, 200)
      const rotated = yield* refresh(first.json.refresh_token)
      assert.strictEqual(rotated.status, 200)
      // an unrelated grant of the same user
      const other = yield* userTokens()
      const vehicles = (token: string) => call("GET", "/v2.0/vehicles", { headers: bearer(token) })
      assert.strictEqual((yield* vehicles(first.json.access_token)).status, 200)
      assert.strictEqual((yield* vehicles(rotated.json.access_token)).status, 200)

      const replay = yield* exchange(code)
      assert.strictEqual(replay.status, 400)
      assert.strictEqual(replay.json.error, "invalid_grant")
      assert.match(replay.json.error_description, /already used/)
      for (const token of [first.json.access_token, rotated.json.access_token]) {
        const reply = yield* vehicles(token)
        assert.strictEqual(reply.status, 401)
        assert.strictEqual(reply.json.errors[0].detail, "The access token is invalid")
      }
      assert.strictEqual((yield* refresh(rotated.json.refresh_token)).json.error, "invalid_grant")
      // the other grant is untouched
      assert.strictEqual((yield* vehicles(other.access)).status, 200)
      assert.strictEqual((yield* refresh(other.refresh)).status, 200)
    }).pipe(Effect.provide(Loopback)))

  it.effect("a refresh rotates the refresh token; the previous access token stays valid until it expires", () =>
    Effect.gen(function*() {
      const tokens = yield* userTokens()
      const refreshed = yield* refresh(tokens.refresh)
      assert.strictEqual(refreshed.status, 200)
      assert.notStrictEqual(refreshed.json.refresh_token, tokens.refresh)
      assert.strictEqual((yield* refresh(tokens.refresh)).json.error, "invalid_grant")
      const vehicles = (token: string) => call("GET", "/v2.0/vehicles", { headers: bearer(token) })
      assert.strictEqual((yield* vehicles(tokens.access)).status, 200)
      yield* TestClock.adjust("7200 seconds")
      assert.strictEqual((yield* vehicles(tokens.access)).status, 401)
      assert.strictEqual((yield* vehicles(refreshed.json.access_token)).status, 401)
    }).pipe(Effect.provide(Loopback)))

  it.effect("the client credential: any wrong id or secret (shorter, longer, a prefix, same length) is 401", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = (id: string, secret: string) =>
        call("POST", "/oauth/token", {
          headers: { authorization: "Basic " + Buffer.from(`${id}:${secret}`).toString("base64") },
          form: { grant_type: "client_credentials" }
        })
      for (const [id, secret] of [
        [sim.clientId, "demo-client-secreT"],
        [sim.clientId, "demo-client-secre"],
        [sim.clientId, "demo-client-secret-and-more"],
        [sim.clientId, ""],
        ["demo-client-iD", "demo-client-secret"],
        ["", "demo-client-secret"]
      ] as const) {
        const reply = yield* token(id, secret)
        assert.strictEqual(reply.status, 401, `${id}:${secret}`)
        assert.strictEqual(reply.json.error, "invalid_client")
      }
      assert.strictEqual((yield* token(sim.clientId, "demo-client-secret")).status, 200)
    }).pipe(Effect.provide(Loopback)))
})

describe("links come from the configured origin, never from Host", () => {
  it.live("a forged Host header or an absolute-form target does not reach links.self", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const responses = yield* Effect.promise(async () => {
        const connection = await openRaw(sim.url)
        const out = []
        for (const [target, host] of [
          ["/v3/compatible-vehicles", "evil.test"],
          ["/v3/webhooks", "evil.test:666"],
          ["http://evil.test/v3/connections?pageSize=2", "evil.test"]
        ] as const) {
          connection.send(rawRequest("GET", target, { host, authorization: `Bearer ${token}` }))
          out.push(await connection.next())
        }
        connection.socket.destroy()
        return out
      })
      for (const response of responses) {
        assert.strictEqual(response.status, 200, response.body)
        assert.notInclude(response.body, "evil.test")
        assert.isTrue(JSON.parse(response.body).links.self.startsWith(sim.url + "/v3/"))
      }
      const connections = JSON.parse(responses[2]!.body)
      assert.isTrue(connections.data[0].links.self.startsWith(sim.url + "/v3/connections/"))
      assert.isTrue(connections.data[0].relationships.vehicle.links.related.startsWith(sim.url + "/v3/vehicles/"))
    }).pipe(Effect.provide(Layer.mergeAll(layer(), FetchHttpClient.layer))))

  it.live("with one port per root, each link points at the root that serves it", () =>
    Effect.gen(function*() {
      const roots = yield* SimulatorRoots
      const token = yield* Effect.promise(() =>
        fetch(`${roots.authorization}/oauth/token`, {
          method: "POST",
          headers: { authorization: "Basic " + Buffer.from("demo-client-id:demo-client-secret").toString("base64"), "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=client_credentials"
        }).then((r) => r.json() as Promise<{ access_token: string }>)
      )
      const get = (url: string) =>
        Effect.promise(() => fetch(url, { headers: { authorization: `Bearer ${token.access_token}` } }).then((r) => r.json() as Promise<any>))
      const subscriptions = yield* get(`${roots.management}/v3/subscriptions?pageSize=1`)
      const item = subscriptions.data[0]
      assert.isTrue(subscriptions.links.self.startsWith(`${roots.management}/v3/subscriptions?`))
      assert.isTrue(item.links.self.startsWith(`${roots.management}/v3/subscriptions/`))
      assert.isTrue(item.relationships.webhook.links.related.startsWith(`${roots.management}/v3/webhooks/`))
      assert.isTrue(item.relationships.vehicle.links.related.startsWith(`${roots.vehicle}/v3/vehicles/`))
      const compatibility = yield* get(`${roots.compatibility}/v3/compatible-vehicles`)
      assert.isTrue(compatibility.links.self.startsWith(`${roots.compatibility}/v3/compatible-vehicles`))
      // the webhook link resolves on its root
      const webhook = yield* get(item.relationships.webhook.links.related)
      assert.strictEqual(webhook.data.id, item.relationships.webhook.data.id)
    }).pipe(Effect.provide(layerRoots())))
})

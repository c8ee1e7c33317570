import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Consent from "@connected-vehicle/auth/Consent"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"

const redirectUri = "https://app.example/callback"

/** The failure of `self`, its reason when it is a `ConnectedVehicleError`. */
const flipReason = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.map(Effect.flip(self), (e) => reasonOf(e))

describe("Consent URL", () => {
  it.effect("carries response_type, client id, redirect URI, scope, state and mode", () =>
    Effect.gen(function*() {
    const url = new URL(yield* Consent.consentUrl("http://127.0.0.1:9/", "client-1", {
      redirectUri,
      permissions: ["read_odometer", "read_location"],
      state: "abc",
      mode: "simulated"
    }))
    assert.strictEqual(url.pathname, "/oauth/authorize")
    assert.deepStrictEqual(Object.fromEntries(url.searchParams), {
      response_type: "code",
      client_id: "client-1",
      redirect_uri: redirectUri,
      scope: "read_odometer read_location",
      state: "abc",
      mode: "simulated"
    })
  }))

  it.effect("never sends redirect_uri=undefined: an InvalidArgument naming redirectUri, not a crash", () =>
    Effect.gen(function*() {
      for (const missing of [undefined as unknown as string, ""]) {
        const error = yield* flipReason(Consent.consentUrl("http://127.0.0.1:9", "c", { redirectUri: missing, permissions: [] }))
        assert.instanceOf(error, InvalidArgument)
        assert.strictEqual(error.field, "redirectUri")
        assert.match(error.message, /^redirectUri: Expected the redirect URI/)
      }
    }))

  it.effect("a state or redirect URI with a lone surrogate is an InvalidArgument naming it (the URL would carry U+FFFD)", () =>
    Effect.gen(function*() {
      const state = yield* Effect.flip(Consent.consentUrl("http://127.0.0.1:9", "c", { redirectUri, permissions: ["read_vin"], state: "a\ud800b" }))
      assert.instanceOf(state, InvalidArgument)
      assert.strictEqual(state.field, "state")
      assert.include(state.message, "well-formed Unicode")
      const uri = yield* Effect.flip(Consent.consentUrl("http://127.0.0.1:9", "c", { redirectUri: "https://app.example/\udc00", permissions: ["read_vin"] }))
      assert.instanceOf(uri, InvalidArgument)
      assert.strictEqual(uri.field, "redirectUri")
      // a surrogate pair (an emoji) is sent as it is
      const url = new URL(yield* Consent.consentUrl("http://127.0.0.1:9", "c", { redirectUri, permissions: ["read_vin"], state: "a\ud83d\ude00" }))
      assert.strictEqual(url.searchParams.get("state"), "a\ud83d\ude00")
    }))

  it.effect("a redirect URI that is not an absolute URI without a fragment (RFC 6749 3.1.2) is an InvalidArgument naming it: the rule of redirectUriIssue", () =>
    Effect.gen(function*() {
      for (const given of ["../x", "a\u0000b", " ", "\u0085", "/cb", "app.example/cb", " https://app.example/cb", "https://app.example/c b", "https://app.example/cb#x", "javascript:alert(1)", "JavaScript://x/%0Aalert(1)", "data:text/html,x", "file:///etc/passwd", "vbscript:x", "blob:https://a.example/x", "about:blank", "filesystem:https://app.example/temporary/x", "view-source:https://app.example/cb"]) {
        const error = yield* Effect.flip(Consent.consentUrl("http://127.0.0.1:9", "c", { redirectUri: given, permissions: ["read_vin"] }))
        assert.instanceOf(error, InvalidArgument, JSON.stringify(given))
        assert.strictEqual(error.field, "redirectUri")
        assert.strictEqual(error.message, `redirectUri: ${Consent.redirectUriIssue(given)}`)
      }
      for (const given of ["https://app.example/cb?x=1", "com.example.app:/callback", "myapp://callback", "http://127.0.0.1:8080/cb"]) {
        assert.isUndefined(Consent.redirectUriIssue(given), given)
        const url = new URL(yield* Consent.consentUrl("http://127.0.0.1:9", "c", { redirectUri: given, permissions: ["read_vin"] }))
        assert.strictEqual(url.searchParams.get("redirect_uri"), given)
      }
    }))

  it.effect("permissions outside section 5.3, none or an empty list are an InvalidArgument naming permissions", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, RegExp]> = [
        [["read_foo"], /^permissions\.0: Expected "read_odometer" \| .*, got "read_foo"$/],
        [["read_vin", "read_fuel"], /^permissions\.1: /],
        [[], /^permissions: Expected at least one permission/],
        [undefined, /^permissions: /],
        ["read_vin", /^permissions: /]
      ]
      for (const [permissions, message] of cases) {
        const options = { redirectUri, permissions } as unknown as Consent.ConsentOptions
        const error = yield* Effect.flip(Consent.consentUrl("http://127.0.0.1:9", "client-1", options))
        assert.instanceOf(error, InvalidArgument)
        assert.strictEqual(error.field, "permissions", JSON.stringify(permissions))
        assert.match(error.message, message)
      }
      // every permission of section 5.3 is one
      const all = ["read_odometer", "read_location", "read_vin", "read_engine_oil", "read_tires", "read_service_history", "read_vehicle_info", "read_battery"] as const
      const url = new URL(yield* Consent.consentUrl("http://127.0.0.1:9", "client-1", { redirectUri, permissions: all }))
      assert.strictEqual(url.searchParams.get("scope"), all.join(" "))
    }))

  it.effect("an authorization root that is not an absolute http(s) URL without query or fragment is an InvalidArgument naming it, not a defect", () =>
    Effect.gen(function*() {
      for (
        const root of [
          "not a url",
          "",
          "/relative",
          42 as never,
          "javascript:alert(1)",
          "mailto:someone@example.com",
          "data:text/plain,x",
          "http://auth.test/?x=1",
          "http://auth.test/#frag",
          "http://auth.test/?"
        ]
      ) {
        const error = yield* Effect.flip(Consent.consentUrl(root, "client-1", { redirectUri, permissions: ["read_vin"] }))
        assert.instanceOf(error, InvalidArgument)
        assert.strictEqual(error.field, "authorizationUrl")
      }
    }))
})

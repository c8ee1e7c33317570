/**
 * The errors of the consent step over loopback (RFC 6749 section 4.1.2.1): a
 * missing, repeated, unknown or unregistered `client_id` or `redirect_uri` is
 * a 400 OAuth body without a redirect; once both are valid, every other
 * error (another or no `response_type`, a repeated parameter, a `mode` or
 * `login_hint` that names nothing, a bad scope) is a 302 to the redirect URI
 * with `error`, `error_description` and `state`, and no code.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { call, isOAuthBody } from "./helpers.ts"

const Loopback = Layer.mergeAll(simulatorLayer({ seed: 13, connections: 4, vehicles: 4, users: 2, webhooks: 0 }), FetchHttpClient.layer)

const redirectUri = "https://app.example/cb?x=1"

layer(Loopback)("consent errors (RFC 6749 4.1.2.1)", (it) => {
  it.effect("once client_id and redirect_uri are valid, an error goes to the redirect URI with error, error_description and state", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const base = `client_id=${sim.clientId}&redirect_uri=${encodeURIComponent(redirectUri)}&state=s%201`
      const redirected = [
        ["response_type=token", "unsupported_response_type", "Unsupported response_type 'token'; accepted: code"],
        ["response_type=to%22ken%0A", "unsupported_response_type", "Unsupported response_type 'to%22ken%0A'; accepted: code"],
        ["", "invalid_request", "response_type is required; accepted: code"],
        ["response_type=code&scope=read_vin&scope=read_odometer", "invalid_request", "Query parameter scope is repeated; send it once"],
        ["response_type=code&response_type=token", "invalid_request", "Query parameter response_type is repeated; send it once"],
        ["response_type=token&mode=live&mode=live", "invalid_request", "Query parameter mode is repeated; send it once"],
        ["response_type=code&login_hint=nobody", "invalid_request", "login_hint names no user"],
        ["response_type=code&scope=fly", "invalid_scope", "Unknown permission: 'fly'"]
      ] as const
      for (const [extra, error, description] of redirected) {
        const reply = yield* call("GET", `/oauth/authorize?${base}${extra === "" ? "" : "&"}${extra}`)
        assert.strictEqual(reply.status, 302, `${extra}: ${reply.text}`)
        const location = new URL(reply.headers["location"]!)
        assert.strictEqual(`${location.origin}${location.pathname}`, "https://app.example/cb", extra)
        assert.deepStrictEqual(
          Object.fromEntries(location.searchParams),
          { x: "1", error, error_description: description, state: "s 1" },
          extra
        )
      }
      // a mode the contract does not know: the decoding's detail, redirected
      const mode = yield* call("GET", `/oauth/authorize?${base}&response_type=code&mode=parked`)
      assert.strictEqual(mode.status, 302, mode.text)
      const modeLocation = new URL(mode.headers["location"]!).searchParams
      assert.strictEqual(modeLocation.get("error"), "invalid_request")
      assert.include(modeLocation.get("error_description"), "mode")
      assert.isNull(modeLocation.get("code"))
      // a repeated state is not echoed (which one would be the client's?)
      const states = yield* call("GET", `/oauth/authorize?${base}&state=t&response_type=code`)
      assert.strictEqual(states.status, 302, states.text)
      const statesLocation = new URL(states.headers["location"]!).searchParams
      assert.deepStrictEqual(
        [statesLocation.get("error"), statesLocation.get("error_description"), statesLocation.get("state")],
        ["invalid_request", "Query parameter state is repeated; send it once", null]
      )
    }))

  it.effect("a missing, repeated, unknown or unregistered client_id or redirect_uri is a 400 OAuth body, never a redirect", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const uri = `redirect_uri=${encodeURIComponent(redirectUri)}`
      const refused = [
        [`response_type=token&client_id=someone-else&${uri}`, "unauthorized_client", "Unknown client_id"],
        [`response_type=token&${uri}`, "invalid_request", "client_id is required"],
        [`response_type=code&client_id=${sim.clientId}&client_id=${sim.clientId}&${uri}`, "invalid_request", "Query parameter client_id is repeated; send it once"],
        [`response_type=token&client_id=${sim.clientId}`, "invalid_request", "redirect_uri is required"],
        [`response_type=code&client_id=${sim.clientId}&${uri}&${uri}`, "invalid_request", "Query parameter redirect_uri is repeated; send it once"],
        [`response_type=token&client_id=${sim.clientId}&redirect_uri=https%3A%2F%2Fevil.example%2Fcb`, "invalid_request", undefined],
        [`scope=read_vin&scope=read_vin&client_id=${sim.clientId}&redirect_uri=https%3A%2F%2Fevil.example%2Fcb`, "invalid_request", undefined]
      ] as const
      for (const [query, error, description] of refused) {
        const reply = yield* call("GET", `/oauth/authorize?${query}&state=s`)
        assert.strictEqual(reply.status, 400, `${query}: ${reply.text}`)
        assert.isUndefined(reply.headers["location"], query)
        assert.isTrue(isOAuthBody(reply.json), query)
        assert.strictEqual(reply.json.error, error, query)
        if (description !== undefined) assert.strictEqual(reply.json.error_description, description, query)
        else assert.match(reply.json.error_description, /^redirect_uri is not registered for this client/, query)
      }
    }))

  it.effect("a redirect_uri no client can register is refused with the rule's reason, not as unregistered", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const cases = [
        ["http://127.0.0.1:1/cb#frag", "without a fragment"],
        ["JaVaScRiPt:alert(1)", "not a javascript:"],
        ["https:app.example/cb", "scheme://host"]
      ] as const
      for (const [given, reason] of cases) {
        const reply = yield* call("GET", `/oauth/authorize?response_type=code&client_id=${sim.clientId}&redirect_uri=${encodeURIComponent(given)}&state=s`)
        assert.strictEqual(reply.status, 400, given)
        assert.isUndefined(reply.headers["location"], given)
        assert.strictEqual(reply.json.error, "invalid_request", given)
        assert.match(reply.json.error_description, /^redirect_uri can be no redirect URI: Expected /, given)
        assert.include(reply.json.error_description, reason, given)
      }
    }))
})


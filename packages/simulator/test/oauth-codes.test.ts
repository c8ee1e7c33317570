/**
 * Every `error` the simulator's `/oauth` routes answer is an RFC 6749 code of
 * the schema's `OAuthErrorCode`: the refusals of the handlers, of the request
 * checks, and each injected status (`x-simulator-fault: 400` … `599`).
 */
import { OAuthErrorCode } from "@connected-vehicle/schema/OAuth"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { layer, Simulator } from "../src/Simulator.ts"
import { basic, call } from "./helpers.ts"

const isCode = Schema.is(OAuthErrorCode)

describe("OAuth error codes", () => {
  it.effect("each error the /oauth routes send is an OAuthErrorCode", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const authorization = yield* basic
      const ua = { "user-agent": "codes-test" }
      const sent = new Set<string>()
      const check = (reply: { readonly status: number; readonly json: any; readonly text: string }, what: string) => {
        assert.isTrue(reply.status >= 400, `${what}: ${reply.status} ${reply.text}`)
        assert.isTrue(isCode(reply.json?.error), `${what}: ${reply.text}`)
        sent.add(reply.json.error)
      }
      for (let status = 400; status <= 599; status++) {
        if (status === 407) continue // fetch fails on a 407 (proxy authentication) whatever the body
        for (const path of ["/oauth/token", "/oauth/authorize"]) {
          check(yield* call("POST", path, { headers: { "x-simulator-fault": String(status), ...ua } }), `${status} on ${path}`)
        }
      }
      const token = (form: Record<string, string>, headers: Record<string, string> = { authorization, ...ua }) =>
        call("POST", "/oauth/token", { form, headers })
      check(yield* token({ grant_type: "client_credentials" }, ua), "no credential")
      check(yield* token({ grant_type: "client_credentials" }, { authorization: "Basic !!", ...ua }), "bad base64")
      check(yield* token({ grant_type: "client_credentials" }, { authorization, "user-agent": "" }), "empty user agent")
      check(yield* token({}), "no grant type")
      check(yield* token({ grant_type: "password" }), "unsupported grant type")
      check(yield* token({ grant_type: "authorization_code" }), "no code")
      check(yield* token({ grant_type: "authorization_code", code: "nope", redirect_uri: "https://app.example/callback" }), "unknown code")
      check(yield* token({ grant_type: "refresh_token", refresh_token: "nope" }), "unknown refresh token")
      check(yield* call("POST", "/oauth/token", { json: { grant_type: "client_credentials" }, headers: { authorization, ...ua } }), "JSON body")
      check(yield* call("DELETE", "/oauth/token", { headers: ua }), "method")
      check(yield* call("GET", "/oauth/nope", { headers: ua }), "unknown route")
      const consent = (query: Record<string, string>) =>
        call("GET", `/oauth/authorize?${new URLSearchParams({ response_type: "code", state: "s", ...query })}`)
      check(yield* consent({ client_id: "nope", redirect_uri: "https://app.example/callback" }), "unknown client id")
      check(yield* consent({ client_id: sim.clientId, redirect_uri: "https://elsewhere.example/" }), "unregistered redirect")
      // the errors a consent redirects (RFC 6749 4.1.2.1)
      for (const query of [{ login_hint: "nobody" }, { scope: "fly" }, { response_type: "token" }, { mode: "parked" }]) {
        const scoped = yield* consent({ client_id: sim.clientId, redirect_uri: "https://app.example/callback", ...query })
        const redirected = new URL(scoped.headers["location"]!).searchParams.get("error")
        assert.isTrue(isCode(redirected), `redirect error ${redirected}`)
        sent.add(redirected!)
      }
      assert.isTrue(sent.has("temporarily_unavailable"), [...sent].join(", "))
    }).pipe(Effect.provide(Layer.mergeAll(layer(), FetchHttpClient.layer))))
})

/**
 * The token grant's own retries: where sending a token request again is safe,
 * bounded, interruptible between requests, and a `Retry-After` held for every
 * renewal of the key until it ends.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer, Redacted, Scope } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenExchange from "@connected-vehicle/auth/TokenExchange"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { expired, userToken } from "./tokens.ts"

/** A token endpoint answering `status` (with `retryAfter` seconds, if given) and an odometer; the token requests' forms. */
const endpoint = (status: number, retryAfter?: number) => {
  const forms: Array<string> = []
  const client = HttpClient.make((request) =>
    Effect.sync(() => {
      const path = new URL(request.url).pathname
      if (path === "/oauth/token") {
        forms.push(request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : request.body._tag)
        const headers: Record<string, string> = { "content-type": "application/json" }
        if (retryAfter !== undefined) headers["retry-after"] = String(retryAfter)
        return HttpClientResponse.fromWeb(request, new Response(JSON.stringify({ error: "temporarily_unavailable" }), { status, headers }))
      }
      return HttpClientResponse.fromWeb(request, new Response(JSON.stringify({ distance: 42 }), { status: 200, headers: { "content-type": "application/json" } }))
    })
  )
  const transport = Transport.layer.pipe(Layer.provide([
    TransportConfig.layerOrigin("http://service.test", { retry: { maxAttempts: 3, initialDelay: "1 millis", maxDelay: "1 millis", retryNonIdempotent: true } }),
    Layer.succeed(HttpClient.HttpClient, client)
  ]))
  return { forms, transport }
}

const oauth = OAuthConfig.layer({ clientId: "app", clientSecret: Redacted.make("secret") })

const odometer = Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) => legacy.odometer({ params: { id: "veh-1" } }))

describe("TokenExchange: the grant's own retries", () => {
  it.live("a maxRetries that is not an integer from 0 to 10 is an InvalidArgument, nothing sent", () =>
    Effect.gen(function*() {
      const { forms, transport } = endpoint(503)
      for (const maxRetries of [-1, 1.5, Number.NaN, 11, 2 ** 53]) {
        const error = yield* Effect.flip(TokenExchange.clientCredentials(undefined, { maxRetries }).pipe(
          Effect.provide([transport, oauth])
        ))
        assert.strictEqual(error._tag, "InvalidArgument", String(maxRetries))
      }
      assert.deepStrictEqual(forms, [])
    }))

  it.live("a refresh token answered 503 with a Retry-After is not asked again by any renewal of the key before it ends", () =>
    Effect.gen(function*() {
      const { forms, transport } = endpoint(503, 60)
      const memory = yield* TokenStore.makeMemory
      yield* memory.set("user-1", expired())
      const credentials = Session.layerUser("user-1").pipe(Layer.provide([transport, oauth, Layer.succeed(TokenStore.TokenStore, memory)]))
      const errors: Array<unknown> = []
      for (let i = 0; i < 10; i++) errors.push(yield* Effect.flip(odometer.pipe(Effect.provide(credentials), Effect.provide(transport))))
      // the held ones say that no request was sent, with what is left of the wait
      const held = errors[9] as { readonly message: string; readonly status?: number; readonly retryAfter?: Duration.Duration }
      assert.include(held.message, "no token request sent")
      assert.strictEqual(held.message.split("no token request sent").length, 2, "said once, not nested in every later one")
      assert.strictEqual(held.status, 503)
      assert.isTrue(held.retryAfter !== undefined && Duration.toMillis(held.retryAfter) <= 60_000 && Duration.toMillis(held.retryAfter) > 50_000)
      // one request: its Retry-After (60 s) is over the grant's own wait, and held for the next renewals
      assert.deepStrictEqual(forms.length, 1)
      assert.include(forms[0], "refresh_token=refresh-1")
    }))

  it.live("a closing layer does not wait out the wait between two token requests", () =>
    Effect.gen(function*() {
      const { forms, transport } = endpoint(503, 5)
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        Layer.mergeAll(transport, Session.layerApplication().pipe(Layer.provide([transport, oauth, TokenStore.layerMemory]))),
        scope
      )
      const call = yield* Effect.forkChild(Effect.exit(odometer.pipe(Effect.provideContext(context), Effect.timeout("200 millis"))))
      yield* Fiber.join(call)
      // the first request was answered; the grant waits 5 s before the next: closing does not
      const started = Date.now()
      yield* Scope.close(scope, Exit.void)
      assert.isBelow(Date.now() - started, 2_000)
      assert.strictEqual(forms.length, 1)
    }))

  it.live("the hold holds background renewals too, and ends with a sign-in (Session.login)", () =>
    Effect.gen(function*() {
      let refreshes = 0
      let accepted = "access-1"
      const client = HttpClient.make((request) =>
        Effect.sync(() => {
          const path = new URL(request.url).pathname
          const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
            HttpClientResponse.fromWeb(request, new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } }))
          if (path !== "/oauth/token") return request.headers["authorization"] === `Bearer ${accepted}` ? json(200, { distance: 42 }) : json(401, { error: "unauthorized" })
          const form = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
          if (form.includes("grant_type=authorization_code")) {
            return json(200, { access_token: "access-2", token_type: "Bearer", expires_in: 7200, refresh_token: "refresh-2" })
          }
          refreshes++
          return json(429, { error: "slow_down" }, { "retry-after": "60" })
        })
      )
      const transport = Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin("http://service.test"), Layer.succeed(HttpClient.HttpClient, client)]))
      const memory = yield* TokenStore.makeMemory
      // due for renewal (45 s left), still valid: each call renews in the background
      yield* memory.set("user-1", userToken(7_155_000))
      // one session for every call (its background renewals run in its scope)
      const context = yield* Layer.build(Layer.mergeAll(transport, Session.layerUser("user-1").pipe(Layer.provide([transport, oauth, Layer.succeed(TokenStore.TokenStore, memory)]))))
      for (let i = 0; i < 3; i++) {
        assert.strictEqual((yield* odometer.pipe(Effect.provideContext(context))).value.distance, 42)
        yield* Effect.sleep("1100 millis")
      }
      // one request, then the 60 s asked for held every background renewal of the key
      assert.strictEqual(refreshes, 1)
      yield* Session.login("user-1", { code: "the-code", redirectUri: "https://app.example/callback" }).pipe(
        Effect.provide([transport, oauth, Layer.succeed(TokenStore.TokenStore, memory)])
      )
      // the new token refused (401): its refresh is sent, not held by the former token's wait
      accepted = "access-3"
      yield* Effect.exit(odometer.pipe(Effect.provideContext(context)))
      assert.strictEqual(refreshes, 2)
    }).pipe(Effect.scoped), 20_000)

  it.live("the hold holds a session built before a sign-in, and a sign-in lets background renewals start again", () =>
    Effect.gen(function*() {
      let refreshes = 0
      let answer = 429
      const client = HttpClient.make((request) =>
        Effect.sync(() => {
          const path = new URL(request.url).pathname
          const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
            HttpClientResponse.fromWeb(request, new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } }))
          if (path !== "/oauth/token") return json(200, { distance: 42 })
          const form = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
          if (form.includes("grant_type=authorization_code")) {
            return json(200, { access_token: "access-2", token_type: "Bearer", expires_in: 7200, refresh_token: "refresh-2" })
          }
          refreshes++
          return answer === 429 ? json(429, { error: "slow_down" }, { "retry-after": "60" }) : json(200, { access_token: `access-r${refreshes}`, token_type: "Bearer", expires_in: 7200, refresh_token: "refresh-3" })
        })
      )
      const transport = Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin("http://service.test"), Layer.succeed(HttpClient.HttpClient, client)]))
      const memory = yield* TokenStore.makeMemory
      const stores = Layer.mergeAll(transport, oauth, Layer.succeed(TokenStore.TokenStore, memory))
      const context = yield* Layer.build(Layer.mergeAll(transport, Session.layerUser("user-1").pipe(Layer.provide(stores))))
      // signed in after the session was built, then the token expired: the 429's wait holds every later call
      yield* Session.login("user-1", { code: "the-code", redirectUri: "https://app.example/callback" }).pipe(Effect.provide(stores))
      yield* memory.set("user-1", expired())
      for (let i = 0; i < 4; i++) yield* Effect.exit(odometer.pipe(Effect.provideContext(context)))
      assert.strictEqual(refreshes, 1)
      // a sign-in ends the wait: its token, once due, is renewed in the background again
      answer = 200
      yield* Session.login("user-1", { code: "the-code", redirectUri: "https://app.example/callback" }).pipe(Effect.provide(stores))
      yield* memory.set("user-1", userToken(7_155_000, "access-2", "refresh-2"))
      yield* odometer.pipe(Effect.provideContext(context))
      yield* Effect.sleep("300 millis")
      assert.strictEqual(refreshes, 2)
    }).pipe(Effect.scoped), 20_000)
})

/**
 * The session remembers refused refresh tokens per store, for at most
 * `maxRefused` keys, the oldest forgotten first. A token endpoint in memory
 * that refuses every refresh (`invalid_grant`), so that ten thousand keys
 * take a second; the refusal itself over loopback is tested against the
 * simulator (`tests/integration/auth/RefusedRefresh.test.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as Refused from "../src/internal/refused.ts"

describe("Session: the refused refresh tokens remembered", () => {
  it.live("at most maxRefused keys per store, the oldest forgotten first (asked again once, then remembered anew)", () => {
    const paths: Array<string> = []
    const tokenEndpoint = HttpClient.make((request) =>
      Effect.sync(() => {
        paths.push(new URL(request.url).pathname)
        const body = JSON.stringify({ error: "invalid_grant", error_description: "The refresh token is invalid." })
        return HttpClientResponse.fromWeb(request, new Response(body, { status: 400, headers: { "content-type": "application/json" } }))
      })
    )
    const services = Layer.mergeAll(
      Transport.layer.pipe(
        Layer.provide([TransportConfig.layerOrigin("http://service.test"), Layer.succeed(HttpClient.HttpClient, tokenEndpoint)])
      ),
      OAuthConfig.layer({ clientId: "app", clientSecret: Redacted.make("secret") }),
      TokenStore.layerMemory
    )
    return Effect.gen(function*() {
      const store = yield* TokenStore.TokenStore
      const count = Refused.maxRefused + 1
      // every token expired, its refresh token one the token endpoint refuses
      for (let i = 0; i < count; i++) {
        yield* store.set(`user-${i}`, {
          accessToken: Redacted.make(`access-${i}`),
          expiresAt: 0,
          refreshToken: Redacted.make(`refresh-${i}`),
          refreshExpiresAt: undefined
        })
      }
      const token = (i: number) =>
        Effect.flip(Effect.flatMap(Effect.service(Credentials), (c) => c.token)).pipe(
          Effect.map(reasonOf),
          Effect.provide(Session.layerUser(`user-${i}`))
        )
      // each refused in turn, oldest first: one request each
      for (let i = 0; i < count; i++) assert.strictEqual((yield* token(i))._tag, "Credentials")
      assert.strictEqual(paths.length, count)
      assert.isTrue(paths.every((path) => path === "/oauth/token"))
      const refused = Refused.refusedOf(store)
      assert.strictEqual(refused.size, Refused.maxRefused)
      assert.isFalse(refused.has("user-0"))
      assert.isTrue(refused.has("user-1"))
      assert.isTrue(refused.has(`user-${count - 1}`))

      // a key still remembered fails at once: no request
      const remembered = yield* token(1)
      assert.strictEqual(remembered._tag, "Credentials")
      assert.include((remembered as { readonly description: string }).description, "Session.login")
      assert.strictEqual(paths.length, count)
      // the forgotten one asks the token endpoint again, and is remembered anew (the oldest left forgotten)
      assert.strictEqual((yield* token(0))._tag, "Credentials")
      assert.strictEqual(paths.length, count + 1)
      assert.strictEqual(refused.size, Refused.maxRefused)
      assert.isTrue(refused.has("user-0"))
      assert.isFalse(refused.has("user-1"))
    }).pipe(Effect.provide(services))
  }, 60_000)
})

/**
 * A sign-in (`login`) during the rest of a token endpoint's `Retry-After`
 * that a closed layer left held: the renewal sleeping it out ends, its
 * calls get the signed-in token, and the refresh token from before the
 * sign-in is never sent. A `node:http` server on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Redacted, Scope } from "effect"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { json, oauth, odometer, tokenEndpoint } from "./loopback.ts"
import { expired } from "./tokens.ts"

const tokens: Array<{ at: number; grant: string | null; refresh: string | null }> = []
const bearers: Array<string | undefined> = []
const t0 = Date.now()
// the token endpoint answers its first request 429 with `Retry-After: 2`, then grants; the API notes the bearer it was sent
const endpoint = tokenEndpoint((_, response, body) => {
  const form = new URLSearchParams(body.toString("utf8"))
  tokens.push({ at: Date.now() - t0, grant: form.get("grant_type"), refresh: form.get("refresh_token") })
  if (tokens.length === 1) return json(response, 429, { error: "slow_down" }, { "retry-after": "2" })
  json(response, 200, { access_token: `access-${tokens.length}`, token_type: "Bearer", expires_in: 7200, refresh_token: `refresh-${tokens.length}` })
}, (request, response) => {
  bearers.push(request.headers.authorization)
  json(response, 200, { distance: 42 })
})
const read = odometer("5 seconds")

describe("a sign-in during the rest of a Retry-After wait a closed layer left held", () => {
  it.live("ends the wait: the waiting call gets the signed-in token, the refresh token from before it is never sent", () =>
    Effect.gen(function*() {
      const memory = yield* TokenStore.makeMemory
      yield* memory.set("user-1", expired())
      const transport = Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(endpoint.origin()), UndiciHttpClient.layer()]))
      const store = Layer.succeed(TokenStore.TokenStore, memory)
      const layer = Layer.mergeAll(transport, Session.layerUser("user-1").pipe(Layer.provide([transport, oauth, store])))
      const closing = yield* Scope.make()
      const a = yield* Layer.buildWithScope(layer, closing)
      const first = yield* Effect.forkChild(Effect.exit(read.pipe(Effect.provideContext(a))))
      while (tokens.length < 1) yield* Effect.sleep("10 millis")
      yield* Effect.sleep("100 millis")
      yield* Fiber.interrupt(first)
      yield* Scope.close(closing, Exit.void)
      // a new layer's call: sleeps out the rest of the held wait
      const b = yield* Layer.buildWithScope(layer, yield* Effect.scope)
      const waiting = yield* Effect.forkChild(read.pipe(Effect.provideContext(b)))
      yield* Effect.sleep("300 millis")
      // the user signs in again meanwhile ("a sign-in (login) ends it")
      const signedIn = yield* Session.login("user-1", { code: "c", redirectUri: "https://app.example/cb" }).pipe(
        Effect.provide(Layer.mergeAll(transport, oauth, store)))
      yield* Fiber.join(waiting)
      // with the signed-in token (the wait ends on the sign-in, within a step of 100 ms)
      assert.deepStrictEqual(bearers, [`Bearer ${Redacted.value(signedIn.accessToken)}`])
      const stored = yield* memory.get("user-1")
      assert.strictEqual(stored._tag === "Some" ? Redacted.value(stored.value.accessToken) : "none", Redacted.value(signedIn.accessToken))
      // the refused refresh, the sign-in's code: nothing more
      assert.deepStrictEqual(tokens.map((t) => t.grant), ["refresh_token", "authorization_code"])
    }).pipe(Effect.scoped), 15_000)
})

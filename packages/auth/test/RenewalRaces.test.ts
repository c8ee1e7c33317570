/**
 * What happens to the store while a renewal runs: a sign-out (`remove`)
 * made meanwhile wins over the renewal's token (the memory store; the
 * shared store of `@connected-vehicle/fleet` is tested on Redis in its own
 * package); and a refusal of the kept token's refresh token (a granted
 * token whose `set` failed) also refuses the older stored one, whose
 * refresh token its grant used.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Option, Redacted } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import { Credentials, isConnectedVehicleError, reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { expired, userToken } from "./tokens.ts"

const json = (request: Parameters<typeof HttpClientResponse.fromWeb>[0], status: number, body: unknown) =>
  HttpClientResponse.fromWeb(request, new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } }))


/**
 * A service and token endpoint in memory: refresh-n is granted access-(n+1)
 * / refresh-(n+1) once `gate` is open, except those in `refused`
 * (`invalid_grant`), and, when `rotating`, one already used; `rejected`
 * access tokens are answered 401. `sent` lists what was sent.
 */
const service = (gate: Deferred.Deferred<void>, refused: ReadonlySet<string>, rejected: ReadonlySet<string>, rotating = false) => {
  const sent: Array<string> = []
  const used = new Set<string>()
  const client = HttpClient.make((request) =>
    Effect.gen(function*() {
      const path = new URL(request.url).pathname
      if (path === "/oauth/token") {
        const form = new URLSearchParams(request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : "")
        const refreshToken = form.get("refresh_token") ?? ""
        sent.push(`token ${refreshToken}`)
        if (refused.has(refreshToken) || used.has(refreshToken)) return json(request, 400, { error: "invalid_grant" })
        if (rotating) used.add(refreshToken)
        yield* Deferred.await(gate)
        const n = Number(refreshToken.slice("refresh-".length)) + 1
        return json(request, 200, { access_token: `access-${n}`, token_type: "Bearer", expires_in: 7200, refresh_token: `refresh-${n}` })
      }
      const authorization = (request.headers["authorization"] ?? "").slice("Bearer ".length)
      sent.push(`read ${authorization}`)
      return rejected.has(authorization) ? json(request, 401, { error: "unauthorized" }) : json(request, 200, { distance: 42 })
    })
  )
  const transport = Transport.layer.pipe(Layer.provide([
    TransportConfig.layerOrigin("http://service.test", { retry: { maxAttempts: 3, initialDelay: "1 millis", maxDelay: "1 millis" } }),
    Layer.succeed(HttpClient.HttpClient, client)
  ]))
  return { sent, transport }
}

const odometer = Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) => legacy.odometer({ params: { id: "veh-1" } }))

const callWith = (transport: Layer.Layer<Transport.Transport>, store: TokenStore.TokenStore["Service"]) =>
  odometer.pipe(
    Effect.provide(Session.layerUser("user-1").pipe(
      Layer.provide([transport, OAuthConfig.layer({ clientId: "app", clientSecret: Redacted.make("secret") }), Layer.succeed(TokenStore.TokenStore, store)])
    )),
    Effect.provide(transport)
  )

const applicationWith = (transport: Layer.Layer<Transport.Transport>, store: TokenStore.TokenStore["Service"]) =>
  odometer.pipe(
    Effect.provide(Session.layerApplication().pipe(
      Layer.provide([transport, OAuthConfig.layer({ clientId: "app", clientSecret: Redacted.make("secret") }), Layer.succeed(TokenStore.TokenStore, store)])
    )),
    Effect.provide(transport)
  )

/**
 * A store without read-your-writes and without `renewal` (a read replica, a
 * write-behind cache): after each `set`, the next `lag` reads still give
 * what was stored before it.
 */
const lagging = (lag: number) =>
  Effect.map(TokenStore.makeMemory, (memory) => {
    let stale: Option.Option<TokenStore.Token> = Option.none()
    let left = 0
    const store = TokenStore.TokenStore.of({
      get: (key, options) => Effect.suspend(() => left-- > 0 ? Effect.succeed(stale) : memory.get(key, options)),
      set: (key, token) =>
        Effect.flatMap(memory.get(key), (before) =>
          Effect.andThen(
            memory.set(key, token),
            Effect.sync(() => {
              stale = before
              left = lag
            })
          )),
      remove: (key) => memory.remove(key)
    })
    return { memory, store }
  })

const accessOf = (store: TokenStore.TokenStore["Service"]) =>
  Effect.map(store.get("user-1"), Option.map((token) => Redacted.value(token.accessToken)))

/** A call whose renewal (with refresh-1, of the expired token stored) is at the token endpoint, held there until `release`. */
const renewalHeld = Effect.gen(function*() {
  const gate = yield* Deferred.make<void>()
  const { sent, transport } = service(gate, new Set(), new Set())
  const store = yield* TokenStore.makeMemory
  yield* store.set("user-1", expired())
  const call = yield* Effect.forkChild(callWith(transport, store))
  while (!sent.includes("token refresh-1")) yield* Effect.sleep(1)
  return { call, release: Deferred.succeed(gate, undefined), sent, store, transport }
})

describe("Session: the store during a renewal", () => {
  it.live("a sign-out (remove) while the renewal waits for the token endpoint wins: nothing stored, the call fails clearly", () =>
    Effect.gen(function*() {
      const { call, release, sent, store, transport } = yield* renewalHeld
      yield* store.remove("user-1")
      yield* release
      const error = yield* Effect.flip(Fiber.join(call))
      assert.instanceOf(reasonOf(error), Credentials)
      assert.isTrue(isConnectedVehicleError(error) && !error.isRetryable)
      assert.include(error.message, "was removed (a sign-out) while it was renewed")
      assert.deepStrictEqual(yield* accessOf(store), Option.none())
      // the renewed token was not used for the call either
      assert.deepStrictEqual(sent, ["token refresh-1"])
      // later calls: no token stored
      const later = yield* Effect.flip(callWith(transport, store))
      assert.include(later.message, "no token stored for user-1")
      assert.deepStrictEqual(sent, ["token refresh-1"])
    }))

  it.live("a sign-in (set outside the renewal) while the renewal runs wins: its token is stored and used", () =>
    Effect.gen(function*() {
      const { call, release, sent, store } = yield* renewalHeld
      yield* store.set("user-1", userToken(0, "access-9", "refresh-9"))
      yield* release
      assert.strictEqual((yield* Fiber.join(call)).value.distance, 42)
      assert.deepStrictEqual(yield* accessOf(store), Option.some("access-9"))
      assert.deepStrictEqual(sent, ["token refresh-1", "read access-9"])
    }))

  it.live("a store without read-your-writes: a stale read after storing the renewed token is not used (its refresh token is sent once)", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      yield* Deferred.succeed(gate, undefined)
      // access-1 is valid but rejected (revoked): the 401 renews it; a refresh token is used once
      const { sent, transport } = service(gate, new Set(), new Set(["access-1"]), true)
      const { memory, store } = yield* lagging(2)
      const now = Date.now()
      yield* memory.set("user-1", { ...expired(), issuedAt: now, expiresAt: now + 7_200_000 })
      // the renewal's re-read gives access-1 (stale): access-2 is used, refresh-1 not sent again; the
      // call's replay reads the store too, which still gives access-1, the rejected token: the call
      // fails with its 401, not sent again (a store must read its own writes for the replay to carry
      // the new token)
      const error = yield* Effect.flip(callWith(transport, store))
      assert.isTrue(isConnectedVehicleError(error) && error.status === 401)
      assert.deepStrictEqual(sent, ["read access-1", "token refresh-1"])
      assert.deepStrictEqual(yield* accessOf(memory), Option.some("access-2"))
      // the store caught up: access-2, no token request
      assert.strictEqual((yield* callWith(transport, store)).value.distance, 42)
      assert.deepStrictEqual(sent.slice(2), ["read access-2"])
    }))

  it.live("a store without read-your-writes: a read that finds nothing after storing is not a sign-out (an application's first token)", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      yield* Deferred.succeed(gate, undefined)
      const { sent, transport } = service(gate, new Set(), new Set())
      const { memory, store } = yield* lagging(1)
      assert.strictEqual((yield* applicationWith(transport, store)).value.distance, 42)
      assert.deepStrictEqual(sent, ["token ", "read access-1"])
      assert.isTrue(Option.isSome(yield* memory.get("application")))
    }))

  it.live("a sign-out while the kept token is stored again wins: the kept token is not stored over it", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      yield* Deferred.succeed(gate, undefined)
      const { sent, transport } = service(gate, new Set(), new Set())
      const memory = yield* TokenStore.makeMemory
      yield* memory.set("user-1", expired())
      let failSets = 1
      let signOutBeforeSet = false
      const store = TokenStore.TokenStore.of({
        ...memory,
        set: (key, token) =>
          Effect.suspend(() => {
            if (failSets-- > 0) return Effect.fail(new TokenStore.TokenStoreError({ key, reason: "Socket closed unexpectedly", transient: true }))
            if (!signOutBeforeSet) return memory.set(key, token)
            // the user signs out between the session's read and its set
            signOutBeforeSet = false
            return Effect.andThen(memory.remove(key), memory.set(key, token))
          })
      })
      // granted with refresh-1, not stored: access-2 / refresh-2 kept
      const first = yield* Effect.flip(callWith(transport, store))
      assert.include(first.message, "the token request succeeded, but storing its token failed")
      // the next call stores the kept token again: the sign-out made meanwhile wins
      signOutBeforeSet = true
      const second = yield* Effect.flip(callWith(transport, store))
      assert.instanceOf(reasonOf(second), Credentials)
      assert.deepStrictEqual(yield* accessOf(memory), Option.none())
      assert.deepStrictEqual(sent, ["token refresh-1"])
    }))

  it.live("the kept token's refresh token refused (invalid_grant): the stored token's refresh token is not sent again", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      yield* Deferred.succeed(gate, undefined)
      // refresh-2 (the kept token's) is revoked, access-2 rejected
      const { sent, transport } = service(gate, new Set(["refresh-2"]), new Set(["access-2"]))
      const memory = yield* TokenStore.makeMemory
      yield* memory.set("user-1", expired())
      let failSets = 0
      const store = TokenStore.TokenStore.of({
        ...memory,
        set: (key, token) =>
          Effect.suspend(() =>
            failSets-- > 0 ? Effect.fail(new TokenStore.TokenStoreError({ key, reason: "Socket closed unexpectedly", transient: true })) : memory.set(key, token)
          )
      })
      // granted with refresh-1, not stored: access-2 / refresh-2 kept
      failSets = 100
      const first = yield* Effect.flip(callWith(transport, store))
      assert.include(first.message, "the token request succeeded, but storing its token failed")
      // access-2 rejected, refresh-2 refused: sign in again
      const second = yield* Effect.flip(callWith(transport, store))
      assert.include(second.message, "was refused")
      assert.deepStrictEqual(sent, ["token refresh-1", "read access-2", "token refresh-2"])
      // refresh-1 (stored, used by the grant of the kept token) is not sent: sign in again, no request
      failSets = 0
      const third = yield* Effect.flip(callWith(transport, store))
      assert.instanceOf(reasonOf(third), Credentials)
      assert.include(third.message, "sign the user in again")
      assert.deepStrictEqual(sent, ["token refresh-1", "read access-2", "token refresh-2"])
      // a sign-in stores a newer token: used at once
      const now = Date.now()
      yield* memory.set("user-1", {
        accessToken: Redacted.make("access-9"),
        issuedAt: now + 1,
        expiresAt: now + 7_200_000,
        refreshToken: Redacted.make("refresh-9"),
        refreshExpiresAt: now + 86_400_000
      })
      assert.strictEqual((yield* callWith(transport, store)).value.distance, 42)
      assert.deepStrictEqual(sent.slice(3), ["read access-9"])
    }))
})

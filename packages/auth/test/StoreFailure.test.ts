/**
 * A token store that fails for a moment (a database blip) fails the call's
 * attempt with a `Credentials` reason that is `transient`: the call's retry
 * policy tries again, as after a network failure. A failed token request
 * is not retried by the call, nor a grant whose token could not be stored
 * (a retry would send its used refresh token again).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import { Credentials, isConnectedVehicleError, reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { userToken } from "./tokens.ts"

/** A JSON answer to `request`. */
const json = (request: Parameters<typeof HttpClientResponse.fromWeb>[0], status: number, body: unknown) =>
  HttpClientResponse.fromWeb(request, new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } }))

/** The transport on `client`, three attempts a millisecond apart (POSTs too, with `retryNonIdempotent`). */
const transportOn = (client: HttpClient.HttpClient, retryNonIdempotent = false) =>
  Transport.layer.pipe(Layer.provide([
    TransportConfig.layerOrigin("http://service.test", { retry: { maxAttempts: 3, initialDelay: "1 millis", maxDelay: "1 millis", retryNonIdempotent } }),
    Layer.succeed(HttpClient.HttpClient, client)
  ]))


/** A service answering every request `status` (an odometer, or a token endpoint's 503), counting them by path. */
const service = (status: number, retryNonIdempotent = false) => {
  const paths: Array<string> = []
  const client = HttpClient.make((request) =>
    Effect.sync(() => {
      paths.push(new URL(request.url).pathname)
      const body = status === 200 ? { distance: 42 } : { error: "temporarily_unavailable" }
      return json(request, status, body)
    })
  )
  const transport = transportOn(client, retryNonIdempotent)
  return { paths, transport }
}

/** The memory store, whose reads fail the first `failures` times (`transient`: a connection reset, else a value that does not decode). */
const blinking = (failures: number, transient = true) =>
  Effect.map(TokenStore.makeMemory, (store) => {
    let left = failures
    const reason = transient ? "Socket closed unexpectedly" : "the stored value is not a token"
    return TokenStore.TokenStore.of({
      ...store,
      get: (key, options) =>
        Effect.suspend(() => left-- > 0 ? Effect.fail(new TokenStore.TokenStoreError({ key, reason, transient })) : store.get(key, options))
    })
  })

const odometer = Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) => legacy.odometer({ params: { id: "veh-1" } }))

/** The odometer read with `session` on `transport`, its tokens in `store`. */
const odometerWith = (
  session: ReturnType<typeof Session.layerApplication>,
  transport: Layer.Layer<Transport.Transport>,
  store: Layer.Layer<TokenStore.TokenStore>
) =>
  odometer.pipe(
    Effect.provide(session.pipe(Layer.provide([
      transport,
      OAuthConfig.layer({ clientId: "app", clientSecret: Redacted.make("secret") }),
      store
    ]))),
    Effect.provide(transport)
  )

describe("Session: a token store failure during a call", () => {
  it.live("is transient: the call is retried and succeeds", () =>
    Effect.gen(function*() {
      const { paths, transport } = service(200)
      const store = yield* blinking(1)
      yield* store.set("user-1", userToken(0, "access", "refresh"))
      const result = yield* odometerWith(Session.layerUser("user-1"), transport, Layer.succeed(TokenStore.TokenStore, store))
      assert.strictEqual(result.value.distance, 42)
      assert.deepStrictEqual(paths, ["/v2.0/vehicles/veh-1/odometer"])
    }))

  it.live("a store failing for longer: the call fails with a retryable Credentials reason naming the store's error", () =>
    Effect.gen(function*() {
      const { paths, transport } = service(200)
      const store = yield* blinking(100)
      const error = yield* Effect.flip(odometerWith(Session.layerApplication(), transport, Layer.succeed(TokenStore.TokenStore, store)))
      const reason = reasonOf(error)
      assert.instanceOf(reason, Credentials)
      assert.isTrue(isConnectedVehicleError(error) && error.isRetryable)
      assert.include(error.message, "TokenStoreError")
      assert.deepStrictEqual(paths, [])
    }))

  it.live("a store failure that is not transient (a value that does not decode) is not retried: the call fails at once", () =>
    Effect.gen(function*() {
      const { paths, transport } = service(200)
      const store = yield* blinking(1, false)
      let reads = 0
      const counting = TokenStore.TokenStore.of({ ...store, get: (key, options) => Effect.andThen(Effect.sync(() => reads++), store.get(key, options)) })
      const error = yield* Effect.flip(odometerWith(Session.layerApplication(), transport, Layer.succeed(TokenStore.TokenStore, counting)))
      assert.instanceOf(reasonOf(error), Credentials)
      assert.isTrue(isConnectedVehicleError(error) && !error.isRetryable)
      assert.include(error.message, "the stored value is not a token")
      assert.strictEqual(reads, 1)
      assert.deepStrictEqual(paths, [])
    }))

  it.live("a failed token request is sent again by the grant where that is safe (a client-credentials 503, twice more), not by the call", () =>
    Effect.gen(function*() {
      const { paths, transport } = service(503)
      const error = yield* Effect.flip(odometerWith(Session.layerApplication(), transport, TokenStore.layerMemory))
      const reason = reasonOf(error)
      assert.strictEqual(reason._tag, "Credentials")
      assert.strictEqual(reason._tag === "Credentials" ? reason.status : undefined, 503)
      assert.isTrue(isConnectedVehicleError(error) && !error.isRetryable)
      // the grant's own two retries; the call (maxAttempts 3) does not start another renewal; never the odometer
      assert.deepStrictEqual(paths, ["/oauth/token", "/oauth/token", "/oauth/token"])
    }))

  it.live("a refresh-token request is sent again only after an answer that says it was not processed (429, 503): a 500 may have used the refresh token", () =>
    Effect.gen(function*() {
      // `retryNonIdempotent` (for batches) never makes the transport send a token request again
      for (const [status, requests, retryNonIdempotent] of [[500, 1, false], [500, 1, true], [503, 3, false]] as const) {
        const { paths, transport } = service(status, retryNonIdempotent)
        const memory = yield* TokenStore.makeMemory
        // expired: the call renews it with the refresh token
        yield* memory.set("user-1", userToken(7_201_000))
        const error = yield* Effect.flip(odometerWith(Session.layerUser("user-1"), transport, Layer.succeed(TokenStore.TokenStore, memory)))
        assert.strictEqual(reasonOf(error)._tag, "Credentials")
        assert.isFalse(isConnectedVehicleError(error) && error.isRetryable)
        assert.deepStrictEqual(paths, Array(requests).fill("/oauth/token"), `status ${status}`)
      }
    }))

  it.live("a grant whose token cannot be stored is not retried: its refresh token is not sent again, and the error says the grant succeeded", () =>
    Effect.gen(function*() {
      const paths: Array<string> = []
      const client = HttpClient.make((request) =>
        Effect.sync(() => {
          const path = new URL(request.url).pathname
          paths.push(path)
          const body = path === "/oauth/token"
            ? { access_token: "access-2", token_type: "Bearer", expires_in: 7200, refresh_token: "refresh-2" }
            : { distance: 42 }
          return json(request, 200, body)
        })
      )
      const transport = transportOn(client)
      const memory = yield* TokenStore.makeMemory
      // expired: the call renews it with the refresh token
      yield* memory.set("user-1", userToken(7_201_000))
      let failSet = true
      const store = TokenStore.TokenStore.of({
        ...memory,
        set: (key, token) =>
          Effect.suspend(() => {
            if (!failSet) return memory.set(key, token)
            failSet = false
            return Effect.fail(new TokenStore.TokenStoreError({ key, reason: "Socket closed unexpectedly" }))
          })
      })
      const error = yield* Effect.flip(odometerWith(Session.layerUser("user-1"), transport, Layer.succeed(TokenStore.TokenStore, store)))
      assert.instanceOf(reasonOf(error), Credentials)
      assert.isTrue(isConnectedVehicleError(error) && !error.isRetryable)
      assert.include(error.message, "the token request succeeded, but storing its token failed")
      assert.include(error.message, "Socket closed unexpectedly")
      assert.deepStrictEqual(paths, ["/oauth/token"])
    }))

  it.live("a refresh after a 401 whose store read fails for a moment: the call's retry refreshes again, the rejected token is not just sent again", () =>
    Effect.gen(function*() {
      const sent: Array<string> = []
      const client = HttpClient.make((request) =>
        Effect.sync(() => {
          const path = new URL(request.url).pathname
          const authorization = request.headers["authorization"] ?? ""
          sent.push(path === "/oauth/token" ? path : `${path} ${authorization}`)
          const [status, body] = path === "/oauth/token"
            ? [200, { access_token: "access-2", token_type: "Bearer", expires_in: 7200, refresh_token: "refresh-2" }]
            : authorization === "Bearer access-2"
            ? [200, { distance: 42 }]
            : [401, { error: "unauthorized" }]
          return json(request, status, body)
        })
      )
      const transport = transportOn(client)
      const memory = yield* TokenStore.makeMemory
      // valid, but revoked: the service answers 401
      yield* memory.set("user-1", userToken(0))
      // the renewal's read of the store fails once
      let failRead = true
      const store = TokenStore.TokenStore.of({
        ...memory,
        renewal: (key, isDue, use) =>
          Effect.suspend(() => {
            if (!failRead) return memory.renewal!(key, isDue, use)
            failRead = false
            return Effect.fail(new TokenStore.TokenStoreError({ key, reason: "Socket closed unexpectedly", transient: true }))
          })
      })
      const result = yield* odometerWith(Session.layerUser("user-1"), transport, Layer.succeed(TokenStore.TokenStore, store))
      assert.strictEqual(result.value.distance, 42)
      const read = "/v2.0/vehicles/veh-1/odometer"
      // the retry refreshes again without sending the refused token once more
      assert.deepStrictEqual(sent, [`${read} Bearer access-1`, "/oauth/token", `${read} Bearer access-2`])
    }))

  it.live("a grant whose token cannot be stored: later calls use it (its refresh token is never sent again) and store it once the store works", () =>
    Effect.gen(function*() {
      // the token endpoint rotates refresh tokens; access-2 is rejected once (revoked): then refreshed with refresh-2
      const sent: Array<string> = []
      let rejectAccess2 = false
      const client = HttpClient.make((request) =>
        Effect.sync(() => {
          const path = new URL(request.url).pathname
          if (path === "/oauth/token") {
            const form = new URLSearchParams(request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : "")
            const used = form.get("refresh_token") ?? ""
            sent.push(`token ${used}`)
            const n = Number(used.slice("refresh-".length)) + 1
            const body = { access_token: `access-${n}`, token_type: "Bearer", expires_in: 7200, refresh_token: `refresh-${n}` }
            return json(request, 200, body)
          }
          const authorization = request.headers["authorization"] ?? ""
          sent.push(`read ${authorization}`)
          const rejected = authorization === "Bearer access-1" || (rejectAccess2 && authorization === "Bearer access-2")
          if (authorization === "Bearer access-2") rejectAccess2 = false
          const [status, body] = rejected ? [401, { error: "unauthorized" }] : [200, { distance: 42 }]
          return json(request, status, body)
        })
      )
      const transport = transportOn(client)
      const memory = yield* TokenStore.makeMemory
      const now = Date.now()
      // expired: the first call renews it with refresh-1
      yield* memory.set("user-1", userToken(7_201_000))
      let failSets = 0
      const store = TokenStore.TokenStore.of({
        ...memory,
        set: (key, token) =>
          Effect.suspend(() =>
            failSets-- > 0 ? Effect.fail(new TokenStore.TokenStoreError({ key, reason: "Socket closed unexpectedly" })) : memory.set(key, token)
          )
      })
      const stored = Effect.map(memory.get("user-1"), (token) => Option.map(token, (token) => Redacted.value(token.accessToken)))
      const call = odometerWith(Session.layerUser("user-1"), transport, Layer.succeed(TokenStore.TokenStore, store))
      const read = "read Bearer"
      // the grant's set fails, and so does the next call's attempt to store it
      failSets = 2
      const error = yield* Effect.flip(call)
      assert.include(error.message, "the token request succeeded, but storing its token failed")
      assert.deepStrictEqual(sent, ["token refresh-1"])
      assert.strictEqual((yield* call).value.distance, 42)
      assert.deepStrictEqual(sent.slice(1), [`${read} access-2`])
      assert.deepStrictEqual(yield* stored, Option.some("access-1"))
      // the store works again: the kept token is stored
      assert.strictEqual((yield* call).value.distance, 42)
      assert.deepStrictEqual(sent.slice(2), [`${read} access-2`])
      assert.deepStrictEqual(yield* stored, Option.some("access-2"))

      // again kept, then rejected (401): the refresh sends the kept token's refresh token, not the stored one
      yield* memory.set("user-1", userToken(7_201_000))
      sent.length = 0
      failSets = 1
      yield* Effect.flip(call)
      // the store keeps failing: the refresh after the 401 is granted (with refresh-2), not stored, kept
      failSets = 100
      rejectAccess2 = true
      yield* Effect.flip(call)
      assert.deepStrictEqual(sent, ["token refresh-1", `${read} access-2`, "token refresh-2"])
      assert.strictEqual((yield* call).value.distance, 42)
      assert.deepStrictEqual(sent.slice(3), [`${read} access-3`])
      assert.deepStrictEqual(yield* stored, Option.some("access-1"))
      failSets = 0
      assert.strictEqual((yield* call).value.distance, 42)
      assert.deepStrictEqual(yield* stored, Option.some("access-3"))

      // another process stored a newer token meanwhile: it is used, the kept one dropped
      yield* memory.set("user-1", userToken(7_201_000))
      failSets = 1
      yield* Effect.flip(call)
      yield* memory.set("user-1", {
        accessToken: Redacted.make("access-9"),
        issuedAt: Date.now() + 1,
        expiresAt: Date.now() + 7_200_000,
        refreshToken: Redacted.make("refresh-9"),
        refreshExpiresAt: now + 86_400_000
      })
      sent.length = 0
      assert.strictEqual((yield* call).value.distance, 42)
      assert.deepStrictEqual(sent, [`${read} access-9`])
      assert.deepStrictEqual(yield* stored, Option.some("access-9"))
    }))
})

import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as Consent from "@connected-vehicle/auth/Consent"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenExchange from "@connected-vehicle/auth/TokenExchange"
import { TokenStore } from "@connected-vehicle/auth/TokenStore"
import { LegacyApi, VehicleApi } from "@connected-vehicle/schema/Api"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as Pagination from "@connected-vehicle/transport/Pagination"
import * as Transport from "@connected-vehicle/transport/Transport"
import { authorize, loopback, redirectUri, userWithVehicle } from "./utils.ts"

describe("Consent URL", () => {
  it("carries response_type, client id, redirect URI, scope, state and mode", () => {
    const url = new URL(Consent.consentUrl("http://127.0.0.1:9/", "client-1", {
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
  })

  it("never sends redirect_uri=undefined", () => {
    assert.throws(() => Consent.consentUrl("http://127.0.0.1:9", "c", { redirectUri: undefined as unknown as string, permissions: [] }))
    assert.throws(() => Consent.consentUrl("http://127.0.0.1:9", "c", { redirectUri: "", permissions: [] }))
  })

  it.effect("fails with MissingRedirectUri when none is given or configured", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Consent.make({ permissions: ["read_vin"] }))
      assert.strictEqual(error._tag, "MissingRedirectUri")
    }).pipe(Effect.provide(loopback())))
})

describe("OAuth against the simulator (loopback)", () => {
  it.effect("consent, redirect, exchange, call, expiry, refresh, and one refresh for 100 concurrent calls", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const store = yield* TokenStore
      const { userId, vehicleId } = yield* userWithVehicle
      const code = yield* authorize(userId)
      yield* Session.login(userId, { code, redirectUri })
      const exchange = (yield* sim.requests).find((e) => e.path === "/oauth/token")!
      assert.strictEqual(exchange.method, "POST")
      assert.strictEqual(exchange.headers["content-type"], "application/x-www-form-urlencoded")
      assert.strictEqual(exchange.headers["authorization"], "<redacted>")
      assert.match(exchange.headers["user-agent"]!, /^connected-vehicle-sdk\//)
      const first = Option.getOrThrow(yield* store.get(userId))
      assert.isTrue(Redacted.isRedacted(first.accessToken))

      yield* Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        const odometer = () => legacy.odometer({ params: { id: vehicleId } })
        assert.isTrue((yield* odometer()).value.distance >= 0)

        // access token expires after 7200 s: one refresh, whatever the concurrency
        yield* sim.resetLog
        yield* TestClock.adjust("7201 seconds")
        const results = yield* Effect.all(Array.from({ length: 100 }, odometer), { concurrency: "unbounded" })
        assert.strictEqual(results.length, 100)
        const log = yield* sim.requests
        assert.strictEqual(log.filter((e) => e.path === "/oauth/token").length, 1)
        assert.strictEqual(log.filter((e) => e.path.endsWith("/odometer") && e.status === 200).length, 100)
        const second = Option.getOrThrow(yield* store.get(userId))
        assert.notStrictEqual(Redacted.value(second.accessToken), Redacted.value(first.accessToken))

        // refreshed ahead of expiry (60 s window), before the service would say 401
        yield* sim.resetLog
        yield* TestClock.adjust("7150 seconds")
        yield* odometer()
        assert.deepStrictEqual((yield* sim.requests).map((e) => `${e.path} ${e.status}`), [
          "/oauth/token 200",
          `/v2.0/vehicles/${vehicleId}/odometer 200`
        ])
      }).pipe(Effect.provide(Session.layerUser(userId)))
    }).pipe(Effect.provide(loopback())))

  it.effect("the legacy vehicle list streams by offset/limit with a user token", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId } = yield* userWithVehicle
      yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      yield* sim.resetLog
      const ids = yield* Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        return yield* Stream.runCollect(
          Pagination.offsetItems((offset, limit) => legacy.vehicles({ query: { offset, limit } }), { limit: 1 })
        )
      }).pipe(Effect.provide(Session.layerUser(userId)))
      const expected = sim.data.vehiclesOf(userId)
      assert.isTrue(expected.length >= 2)
      assert.deepStrictEqual([...ids].sort(), [...expected].sort())
      assert.strictEqual((yield* sim.requests).filter((e) => e.path === "/v2.0/vehicles").length, expected.length)
    }).pipe(Effect.provide(loopback())))

  it.effect("a 401 triggers one refresh and one replay", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const store = yield* TokenStore
      const { userId, vehicleId } = yield* userWithVehicle
      yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      // the store believes the token is fresh; the service knows it expired
      const token = Option.getOrThrow(yield* store.get(userId))
      yield* store.set(userId, { ...token, expiresAt: Number.MAX_SAFE_INTEGER })
      yield* TestClock.adjust("7201 seconds")
      yield* sim.resetLog
      yield* Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        yield* legacy.vin({ params: { id: vehicleId } })
      }).pipe(Effect.provide(Session.layerUser(userId)))
      assert.deepStrictEqual((yield* sim.requests).map((e) => `${e.path} ${e.status}`), [
        `/v2.0/vehicles/${vehicleId}/vin 401`,
        "/oauth/token 200",
        `/v2.0/vehicles/${vehicleId}/vin 200`
      ])
    }).pipe(Effect.provide(loopback())))

  it.effect("a refused refresh is a CredentialsError, not a loop", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId, vehicleId } = yield* userWithVehicle
      yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      yield* TestClock.adjust("61 days")
      yield* sim.resetLog
      const error = yield* Effect.flip(Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        return yield* legacy.vin({ params: { id: vehicleId } })
      }).pipe(Effect.provide(Session.layerUser(userId))))
      assert.strictEqual(error._tag, "CredentialsError")
      assert.deepStrictEqual((yield* sim.requests).map((e) => `${e.path} ${e.status}`), ["/oauth/token 400"])
    }).pipe(Effect.provide(loopback())))

  it.effect("the code exchange fails with a typed OAuthError for a wrong redirect URI or a reused code", () =>
    Effect.gen(function*() {
      const { userId } = yield* userWithVehicle
      const code = yield* authorize(userId)
      const wrong = yield* Effect.flip(TokenExchange.exchangeCode({ code, redirectUri: "https://other.example/cb" }))
      assert.strictEqual(wrong._tag, "OAuthError")
      if (wrong._tag === "OAuthError") assert.strictEqual(wrong.error, "invalid_grant")
    }).pipe(Effect.provide(loopback())))

  it.effect("v3 application token: client credentials, one fetch for 100 concurrent calls, again after expiry", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId, vehicleId } = yield* userWithVehicle
      yield* Effect.gen(function*() {
        const signals = yield* Transport.client(VehicleApi, "signals")
        const list = () => signals.list({ params: { vehicleId }, headers: { "sc-user-id": userId } })
        yield* Effect.all(Array.from({ length: 100 }, list), { concurrency: "unbounded" })
        yield* TestClock.adjust("7201 seconds")
        yield* Effect.all(Array.from({ length: 100 }, list), { concurrency: "unbounded" })
      }).pipe(Effect.provide(Session.layerApplication()))
      const log = yield* sim.requests
      assert.strictEqual(log.filter((e) => e.path === "/oauth/token").length, 2)
      assert.strictEqual(log.filter((e) => e.path.endsWith("/signals") && e.status === 200).length, 200)
    }).pipe(Effect.provide(loopback())))
})

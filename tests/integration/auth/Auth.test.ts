import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as Consent from "@connected-vehicle/auth/Consent"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenExchange from "@connected-vehicle/auth/TokenExchange"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import { TokenStore, TokenStoreError } from "@connected-vehicle/auth/TokenStore"
import { LegacyApi, VehicleApi } from "@connected-vehicle/schema/Api"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as Simulated from "@connected-vehicle/testing/Simulated"
import { Connections } from "@connected-vehicle/v3/Connections"
import * as Pagination from "@connected-vehicle/transport/Pagination"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { ConnectedVehicleError, OAuth } from "@connected-vehicle/transport/ConnectedVehicleError"
import {
  authorize,
  eventually,
  flipReason,
  loopback,
  redirectUri,
  refreshTokenDroppingProxy,
  userWithVehicle,
  withAuthorizationRoot
} from "./utils.ts"

describe("Consent URL", () => {
  it.effect("fails with an InvalidArgument naming redirectUri when none is given or configured", () =>
    Effect.gen(function*() {
      const error = yield* flipReason(Consent.make({ permissions: ["read_vin"] }))
      assert.instanceOf(error, InvalidArgument)
      assert.strictEqual(error.field, "redirectUri")
      assert.include(error.message, "CONNECTED_VEHICLE_REDIRECT_URI")
      assert.include(error.message, "the client's redirectUri option")
    }).pipe(Effect.provide(loopback())))
})

describe("login arguments", () => {
  it.effect("null, undefined or unreadable input is an InvalidArgument naming arguments, nothing sent", () =>
    Effect.gen(function*() {
      const unsafe = Session.login as (key: string, input: unknown) => ReturnType<typeof Session.login>
      const throwing = Object.defineProperty({ redirectUri }, "code", { enumerable: true, get: () => { throw new Error("boom") } })
      for (const input of [null, undefined, throwing]) {
        const error = yield* Effect.flip(unsafe("user", input))
        assert.instanceOf(error, InvalidArgument)
        assert.strictEqual((error as InvalidArgument).field, "arguments")
      }
      assert.deepStrictEqual(yield* (yield* Simulator).requests, [])
    }).pipe(Effect.provide(loopback())))

  it.effect("a key that is not a store key is an InvalidArgument naming key: the code is not exchanged, nothing stored", () =>
    Effect.gen(function*() {
      const store = yield* TokenStore
      const unsafe = Session.login as (key: unknown, input: unknown) => ReturnType<typeof Session.login>
      const throwing = new Proxy({}, {
        get: () => {
          throw new Error("boom")
        }
      })
      for (const key of [null, undefined, 42, "", throwing, "x".repeat(100_000), "user\r\n42"]) {
        const error = yield* Effect.flip(unsafe(key, { code: "abc", redirectUri }))
        assert.instanceOf(error, InvalidArgument)
        assert.strictEqual((error as InvalidArgument).field, "key")
      }
      assert.deepStrictEqual(yield* (yield* Simulator).requests, [])
      assert.isTrue(Option.isNone(yield* store.get("undefined")))
    }).pipe(Effect.provide(loopback())))

  it.effect("consent options that are missing, of the wrong type or cannot be read are an InvalidArgument, not a defect", () =>
    Effect.gen(function*() {
      const unsafe = Consent.make as (options: unknown) => ReturnType<typeof Consent.make>
      const throwing = Object.defineProperty({ permissions: ["read_vin"] }, "redirectUri", { enumerable: true, get: () => { throw new Error("boom") } })
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [null, "arguments"],
        [throwing, "arguments"],
        [{ redirectUri }, "permissions"],
        [{ redirectUri, permissions: "read_vin" }, "permissions"],
        [{ redirectUri, permissions: ["read_vin"], mode: "test" }, "mode"],
        [{ redirectUri, permissions: ["read_vin"], state: 1 }, "state"],
        [{ redirectUri: 10n, permissions: ["read_vin"] }, "redirectUri"]
      ]
      for (const [options, field] of cases) {
        const error = yield* Effect.flip(unsafe(options))
        assert.instanceOf(error, InvalidArgument)
        assert.strictEqual(error.field, field, error.message)
      }
    }).pipe(Effect.provide(loopback())))
})

describe("malformed stored tokens", () => {
  it.effect("a stored token without a Redacted access token is the store's typed error, not a defect nor a renewal on every call", () =>
    Effect.gen(function*() {
      const store = yield* TokenStore
      const sim = yield* Simulator
      const unsafe = store.set as (key: string, token: unknown) => ReturnType<typeof store.set>
      yield* unsafe("application", { accessToken: "plain", issuedAt: Date.now(), expiresAt: Date.now() + 3_600_000 })
      yield* sim.resetLog
      for (let i = 0; i < 3; i++) {
        const error = yield* Effect.flip((yield* Connections).list({ pageSize: 1 }))
        assert.strictEqual(error._tag, "ConnectedVehicleError")
        assert.strictEqual((error as ConnectedVehicleError).reason._tag, "Credentials")
        assert.include(error.message, "not a Redacted value")
        assert.notInclude(error.message, "plain")
      }
      // nothing was sent: neither the call nor a token request
      assert.deepStrictEqual((yield* sim.requests).map((entry) => entry.path), [])
    }).pipe(Effect.provide(Simulated.layer({ signIn: false }))))
})

describe("OAuth against the simulator (loopback)", () => {
  it.effect("consent, redirect, exchange, call, expiry, refresh, and one refresh for 100 concurrent calls", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const store = yield* TokenStore
      const { userId, vehicleId } = yield* userWithVehicle
      const code = yield* authorize(userId)
      const stored = yield* Session.login(userId, { code, redirectUri })
      const exchange = (yield* sim.requests).find((e) => e.path === "/oauth/token")!
      assert.strictEqual(exchange.method, "POST")
      assert.strictEqual(exchange.headers["content-type"], "application/x-www-form-urlencoded")
      assert.strictEqual(exchange.headers["authorization"], "<redacted>")
      assert.match(exchange.headers["user-agent"]!, /^connected-vehicle-sdk\//)
      const first = Option.getOrThrow(yield* store.get(userId))
      assert.isTrue(Redacted.isRedacted(first.accessToken))
      assert.strictEqual(stored, first) // login returns what it stored

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

        // refreshed ahead of expiry (60 s window), before the service would say 401: in the
        // background, the call going on with the current token meanwhile
        yield* sim.resetLog
        yield* TestClock.adjust("7150 seconds")
        yield* odometer()
        yield* eventually(
          Effect.map(store.get(userId), (t) => Redacted.value(Option.getOrThrow(t).accessToken) !== Redacted.value(second.accessToken)),
          "the renewed token stored"
        )
        assert.deepStrictEqual((yield* sim.requests).map((e) => `${e.path} ${e.status}`).sort(), [
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

  it.effect("an expired refresh token (60 days) is a CredentialsError with no token request", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId, vehicleId } = yield* userWithVehicle
      yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      yield* TestClock.adjust("60 days")
      yield* sim.resetLog
      const error = yield* flipReason(Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        return yield* legacy.vin({ params: { id: vehicleId } })
      }).pipe(Effect.provide(Session.layerUser(userId))))
      assert.strictEqual(error._tag, "Credentials")
      if (error._tag === "Credentials") assert.include(error.description, "reauthenticate")
      assert.deepStrictEqual((yield* sim.requests).map((e) => `${e.path} ${e.status}`), [])
    }).pipe(Effect.provide(loopback())))

  it.effect("a refused refresh is shared: 100 concurrent calls, one token request, 100 CredentialsErrors", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const store = yield* TokenStore
      const { userId, vehicleId } = yield* userWithVehicle
      const token = yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      yield* store.set(userId, { ...token, refreshToken: Redacted.make("revoked-refresh-token") })
      yield* TestClock.adjust("7201 seconds")
      yield* sim.resetLog
      const errors = yield* Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        const vin = () => flipReason(legacy.vin({ params: { id: vehicleId } }))
        return yield* Effect.all(Array.from({ length: 100 }, vin), { concurrency: "unbounded" })
      }).pipe(Effect.provide(Session.layerUser(userId)))
      assert.strictEqual(errors.length, 100)
      for (const error of errors) {
        assert.strictEqual(error._tag, "Credentials")
        if (error._tag === "Credentials") {
          assert.strictEqual(error.status, 400)
          assert.include(error.description, "invalid_grant")
          // the token request's own error, for callers that tell the causes apart
          const cause = error.cause as ConnectedVehicleError
          assert.strictEqual(cause.reason._tag, "OAuth")
          assert.strictEqual((cause.reason as OAuth).error, "invalid_grant")
        }
      }
      assert.deepStrictEqual((yield* sim.requests).map((e) => `${e.path} ${e.status}`), ["/oauth/token 400"])
    }).pipe(Effect.provide(loopback())))

  it.effect("100 concurrent 401s lead to one token request and 100 replays", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const store = yield* TokenStore
      const { userId, vehicleId } = yield* userWithVehicle
      const token = yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      // the store believes the token is fresh; the service knows it expired
      yield* store.set(userId, { ...token, expiresAt: Number.MAX_SAFE_INTEGER })
      yield* TestClock.adjust("7201 seconds")
      yield* sim.resetLog
      const results = yield* Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        return yield* Effect.all(
          Array.from({ length: 100 }, () => legacy.vin({ params: { id: vehicleId } })),
          { concurrency: "unbounded" }
        )
      }).pipe(Effect.provide(Session.layerUser(userId)))
      assert.strictEqual(results.length, 100)
      const log = yield* sim.requests
      assert.strictEqual(log.filter((e) => e.path.endsWith("/vin") && e.status === 401).length, 100)
      assert.deepStrictEqual(log.filter((e) => e.path === "/oauth/token").map((e) => e.status), [200])
      assert.strictEqual(log.filter((e) => e.path.endsWith("/vin") && e.status === 200).length, 100)
    }).pipe(Effect.provide(loopback())))

  it.effect("single flight across two layer instances on the same key (user and application)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId, vehicleId } = yield* userWithVehicle
      yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      const legacyClient = Transport.client(LegacyApi, "legacy").pipe(Effect.provide(Session.layerUser(userId)))
      const [a, b] = [yield* legacyClient, yield* legacyClient]
      const signalsClient = Transport.client(VehicleApi, "signals").pipe(Effect.provide(Session.layerApplication()))
      const [c, d] = [yield* signalsClient, yield* signalsClient]
      yield* TestClock.adjust("7201 seconds")
      yield* sim.resetLog
      yield* Effect.all([
        ...Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).odometer({ params: { id: vehicleId } })),
        ...Array.from({ length: 50 }, (_, i) =>
          (i % 2 === 0 ? c : d).list({ params: { vehicleId }, headers: { "sc-user-id": userId } }))
      ], { concurrency: "unbounded" })
      const log = yield* sim.requests
      const tokenRequests = log.filter((e) => e.path === "/oauth/token")
      assert.deepStrictEqual(tokenRequests.map((e) => e.status), [200, 200]) // one refresh, one client-credentials grant
      assert.strictEqual(log.filter((e) => e.path.endsWith("/odometer") && e.status === 200).length, 50)
      assert.strictEqual(log.filter((e) => e.path.endsWith("/signals") && e.status === 200).length, 50)
    }).pipe(Effect.provide(loopback())))

  it.effect("a refresh response without refresh_token keeps the current one and its expiry", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const store = yield* TokenStore
      const { userId, vehicleId } = yield* userWithVehicle
      const first = yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      const proxy = yield* refreshTokenDroppingProxy(sim.url)
      yield* TestClock.adjust("7201 seconds")
      yield* sim.resetLog
      const odometer = yield* Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        return yield* legacy.odometer({ params: { id: vehicleId } })
      }).pipe(Effect.provide(Session.layerUser(userId)), withAuthorizationRoot(proxy))
      assert.strictEqual(odometer.status, 200)
      const second = Option.getOrThrow(yield* store.get(userId))
      assert.notStrictEqual(Redacted.value(second.accessToken), Redacted.value(first.accessToken))
      assert.strictEqual(Redacted.value(second.refreshToken!), Redacted.value(first.refreshToken!))
      assert.strictEqual(second.refreshExpiresAt, first.refreshExpiresAt)
      assert.deepStrictEqual((yield* sim.requests).map((e) => `${e.path} ${e.status}`), [
        "/oauth/token 200",
        `/v2.0/vehicles/${vehicleId}/odometer 200`
      ])
    }).pipe(Effect.scoped, Effect.provide(loopback())))

  it.effect("a short-lived token keeps half its lifetime before renewal (refresh-ahead capped)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const store = yield* TokenStore
      const { userId, vehicleId } = yield* userWithVehicle
      const token = yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      // a 30 s token: shorter than the 60 s refresh-ahead window
      yield* store.set(userId, { ...token, expiresAt: token.issuedAt! + 30_000 })
      yield* sim.resetLog
      yield* Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        const vin = () => legacy.vin({ params: { id: vehicleId } })
        yield* vin()
        yield* TestClock.adjust("14 seconds")
        yield* vin()
        assert.deepStrictEqual((yield* sim.requests).filter((e) => e.path === "/oauth/token").length, 0)
        // due (after half of 30 s): renewed in the background, this call going on with the current token
        yield* TestClock.adjust("2 seconds")
        yield* vin()
        yield* eventually(
          Effect.map(store.get(userId), (t) => Redacted.value(Option.getOrThrow(t).accessToken) !== Redacted.value(token.accessToken)),
          "the renewed token stored"
        )
        yield* vin()
      }).pipe(Effect.provide(Session.layerUser(userId)))
      const paths = (yield* sim.requests).map((e) => e.path.split("/").pop())
      assert.deepStrictEqual([...paths.slice(0, 2), ...paths.slice(2, 4).sort(), paths[4]], ["vin", "vin", "token", "vin", "vin"])
      assert.strictEqual(paths.length, 5)
    }).pipe(Effect.provide(loopback())))

  it.effect("the client-credentials endpoint is configurable (OAuthConfig and layerApplication)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId, vehicleId } = yield* userWithVehicle
      // the contract's {auth_url}/oauth/token would now be /nowhere/oauth/token (404)
      const elsewhere = withAuthorizationRoot(`${sim.url}/nowhere`)
      const missed = yield* flipReason(TokenExchange.clientCredentials().pipe(elsewhere))
      assert.strictEqual(missed._tag, "NotFound") // the simulator has no /nowhere
      yield* sim.resetLog
      const viaConfig = yield* TokenExchange.clientCredentials().pipe(
        elsewhere,
        Effect.provide(OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret, clientCredentialsUrl: `${sim.url}/oauth/token` }))
      )
      assert.isTrue(Redacted.isRedacted(viaConfig.accessToken))
      yield* Effect.gen(function*() {
        const signals = yield* Transport.client(VehicleApi, "signals")
        yield* signals.list({ params: { vehicleId }, headers: { "sc-user-id": userId } })
      }).pipe(Effect.provide(Session.layerApplication({ key: "app-elsewhere", tokenUrl: `${sim.url}/oauth/token` })), elsewhere)
      assert.deepStrictEqual((yield* sim.requests).map((e) => `${e.path} ${e.status}`), [
        "/oauth/token 200",
        "/oauth/token 200",
        `/v3/vehicles/${vehicleId}/signals 200`
      ])
    }).pipe(Effect.provide(loopback())))

  it.effect("a failing TokenStore is a typed error: TokenStoreError from login, CredentialsError through Credentials", () =>
    Effect.gen(function*() {
      const { userId, vehicleId } = yield* userWithVehicle
      const code = yield* authorize(userId)
      const broken = TokenStore.of({
        get: (key) => Effect.fail(new TokenStoreError({ key, reason: "database unavailable", transient: true })),
        set: (key) => Effect.fail(new TokenStoreError({ key, reason: "database unavailable", transient: true })),
        remove: (key) => Effect.fail(new TokenStoreError({ key, reason: "database unavailable", transient: true }))
      })
      const loginError = yield* flipReason(Session.login(userId, { code, redirectUri })).pipe(
        Effect.provideService(TokenStore, broken)
      )
      assert.strictEqual(loginError._tag, "TokenStoreError")
      const callError = yield* flipReason(Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        // (a transient store failure is retried by the call's policy: not here)
        return yield* legacy.vin({ params: { id: vehicleId } }, { maxRetries: 0 })
      }).pipe(Effect.provide(Session.layerUser(userId)), Effect.provideService(TokenStore, broken)))
      assert.strictEqual(callError._tag, "Credentials")
      if (callError._tag === "Credentials") {
        assert.isTrue(callError.transient)
        assert.isTrue(callError.isRetryable)
        assert.include(callError.description, "TokenStoreError")
        assert.strictEqual((callError.cause as { readonly _tag: string })._tag, "TokenStoreError")
      }
    }).pipe(Effect.provide(loopback())))

  it.effect("the code exchange fails with a typed OAuthError for a wrong redirect URI or a reused code", () =>
    Effect.gen(function*() {
      const { userId } = yield* userWithVehicle
      const code = yield* authorize(userId)
      const wrong = yield* flipReason(TokenExchange.exchangeCode({ code, redirectUri: "https://other.example/cb" }))
      assert.strictEqual(wrong._tag, "OAuth")
      if (wrong._tag === "OAuth") assert.strictEqual(wrong.error, "invalid_grant")
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

  it.live("a failing token endpoint is asked once per attempt of a call: the call's retries send one token request each, not more", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId, vehicleId } = yield* userWithVehicle
      yield* sim.injectFaults({ path: "/oauth/token", faults: Array.from({ length: 8 }, () => ({ _tag: "Status" as const, status: 500 })) })
      const error = yield* flipReason(
        Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
          signals.list({ params: { vehicleId }, headers: { "sc-user-id": userId } })).pipe(Effect.provide(Session.layerApplication()))
      )
      assert.strictEqual(error._tag, "Credentials")
      const log = yield* sim.requests
      assert.strictEqual(log.filter((e) => e.path === "/oauth/token").length, 3)
      assert.strictEqual(log.filter((e) => e.path.endsWith("/signals")).length, 0)
    }).pipe(Effect.provide(loopback({ retry: { maxAttempts: 3, initialDelay: 1, maxDelay: 2 } }))))

  it.live("a token endpoint that fails for a moment (503 once) does not fail the calls waiting for it: they are retried", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId, vehicleId } = yield* userWithVehicle
      yield* sim.injectFaults({ path: "/oauth/token", faults: [{ _tag: "Status", status: 503 }] })
      yield* Effect.gen(function*() {
        const signals = yield* Transport.client(VehicleApi, "signals")
        const list = () => signals.list({ params: { vehicleId }, headers: { "sc-user-id": userId } })
        yield* Effect.all(Array.from({ length: 50 }, list), { concurrency: "unbounded" })
      }).pipe(Effect.provide(Session.layerApplication()))
      const log = yield* sim.requests
      assert.deepStrictEqual(log.filter((e) => e.path === "/oauth/token").map((e) => e.status), [503, 200])
      assert.strictEqual(log.filter((e) => e.path.endsWith("/signals") && e.status === 200).length, 50)
    }).pipe(Effect.provide(loopback({ retry: { initialDelay: 1, maxDelay: 2 } }))))
})

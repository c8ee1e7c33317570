/**
 * A refresh token the token endpoint refused (`invalid_grant`) is not sent
 * again: the user's session fails at once, without any request, until a new
 * token is stored for the key; a token another process stored meanwhile is
 * kept and used. The simulator over loopback; its refresh tokens are single
 * use, so a rotation whose answer was lost leaves the SDK with a dead one.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenExchange from "@connected-vehicle/auth/TokenExchange"
import type { OAuthConfig } from "@connected-vehicle/auth/OAuthConfig"
import { TokenStore } from "@connected-vehicle/auth/TokenStore"
import type { Token } from "@connected-vehicle/auth/TokenStore"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { ConnectedVehicleError, OAuth } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as Refused from "../../../packages/auth/src/internal/refused.ts"
import { authorize, eventually, flipReason, loopback, redirectUri, userWithVehicle } from "./utils.ts"

const log = Effect.flatMap(Effect.service(Simulator), (sim) => sim.requests).pipe(
  Effect.map((entries) => entries.map((e) => `${e.path} ${e.status}`))
)

/** `odometer` of the user's session on a new `layerUser(userId)` (a new layer instance on the same store). */
const odometer = (userId: string, vehicleId: string) =>
  Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) => legacy.odometer({ params: { id: vehicleId } })).pipe(
    Effect.provide(Session.layerUser(userId))
  )

/** Asserts that `error` is the `Credentials` reason telling to sign the user in again, with the refusal as cause. */
const assertSignInAgain = (error: unknown) => {
  const reason = error as { readonly _tag: string; readonly description: string; readonly cause: unknown }
  assert.strictEqual(reason._tag, "Credentials")
  assert.include(reason.description, "invalid_grant")
  assert.include(reason.description, "Session.login")
  const cause = reason.cause as ConnectedVehicleError
  assert.strictEqual(cause.reason._tag, "OAuth")
  assert.strictEqual((cause.reason as OAuth).error, "invalid_grant")
}

/**
 * Asserts that `error` is the `Credentials` reason telling to sign the user
 * in again because a token request that failed may have used the refresh
 * token (an answer lost), with that failure (`first`, a `Credentials` reason) as cause.
 */
const assertSpent = (error: unknown, first: unknown) => {
  const reason = error as { readonly _tag: string; readonly description: string; readonly cause: unknown }
  assert.strictEqual(reason._tag, "Credentials")
  assert.include(reason.description, "may have been used by a token request that failed")
  assert.include(reason.description, "Session.login")
  assert.strictEqual((reason.cause as ConnectedVehicleError).reason, first)
}

/**
 * A store shared with "another process" that renews the token (its refresh
 * token spent at the token endpoint) right after the session's first read
 * that may lead to a renewal, and stores what `stored` makes of its answer.
 */
const otherProcess = (stored: (next: Token, now: number) => Token) =>
  Effect.gen(function*() {
    const memory = yield* TokenStore
    const services = yield* Effect.context<Transport.Transport | OAuthConfig>()
    let theirs: Token | undefined
    // a store without `renewal` (the session reads it with `get` before renewing)
    const { renewal: _renewal, ...plain } = memory
    const shared: TokenStore["Service"] = {
      ...plain,
      get: (key, options) =>
        Effect.tap(memory.get(key, options), (current) =>
          options?.peek === true || theirs !== undefined || Option.isNone(current) ? Effect.void : Effect.gen(function*() {
            const next = yield* Effect.orDie(TokenExchange.refresh(current.value.refreshToken!))
            theirs = stored(next, yield* Clock.currentTimeMillis)
            yield* memory.set(key, theirs)
          }).pipe(Effect.provideContext(services)))
    }
    return { memory, shared, theirs: () => theirs }
  })

describe("Session: a refused refresh token", () => {
  it.effect("a lost rotation: later calls send no request and say sign in again, until Session.login", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId, vehicleId } = yield* userWithVehicle
      yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      yield* TestClock.adjust("7201 seconds")
      yield* sim.resetLog
      // the service rotates the refresh token, but its answer is cut: the store keeps the used one
      yield* sim.injectFaults({ path: "/oauth/token", faults: [{ _tag: "MalformedJson" }] })
      const first = yield* flipReason(odometer(userId, vehicleId))
      assert.strictEqual(first._tag, "Credentials")
      // the refresh token it may have used is not sent again
      assertSpent(yield* flipReason(odometer(userId, vehicleId)), first)
      assert.deepStrictEqual(yield* log, ["/oauth/token 200"])

      // later calls, one by one and concurrent, on new layer instances: no request at all
      yield* sim.resetLog
      for (let i = 0; i < 5; i++) assertSpent(yield* flipReason(odometer(userId, vehicleId)), first)
      const concurrent = yield* Effect.all(Array.from({ length: 20 }, () => flipReason(odometer(userId, vehicleId))), { concurrency: "unbounded" })
      for (const error of concurrent) assertSpent(error, first)
      assert.deepStrictEqual(yield* log, [])

      // signed in again: the refusal is forgotten at once, and calls work
      const store = yield* TokenStore
      assert.strictEqual(Refused.refusedOf(store).size, 1)
      yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      assert.strictEqual(Refused.refusedOf(store).size, 0)
      yield* sim.resetLog
      assert.isTrue((yield* odometer(userId, vehicleId)).value.distance >= 0)
      assert.deepStrictEqual(yield* log, [`/v2.0/vehicles/${vehicleId}/odometer 200`])
      // and so does its refresh after expiry
      yield* TestClock.adjust("7201 seconds")
      yield* sim.resetLog
      yield* odometer(userId, vehicleId)
      assert.deepStrictEqual(yield* log, ["/oauth/token 200", `/v2.0/vehicles/${vehicleId}/odometer 200`])
    }).pipe(Effect.provide(loopback())))

  it.effect("a 401 then invalid_grant: the rejected access token is not sent again either", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const store = yield* TokenStore
      const { userId, vehicleId } = yield* userWithVehicle
      const token = yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      // its rotation answered elsewhere and lost: the refresh token held is used
      yield* TokenExchange.refresh(token.refreshToken!)
      // the store believes the access token is fresh; the service knows it expired
      yield* store.set(userId, { ...token, expiresAt: Number.MAX_SAFE_INTEGER })
      yield* TestClock.adjust("7201 seconds")
      yield* sim.resetLog
      assertSignInAgain(yield* flipReason(odometer(userId, vehicleId)))
      assert.deepStrictEqual(yield* log, [`/v2.0/vehicles/${vehicleId}/odometer 401`, "/oauth/token 400"])
      yield* sim.resetLog
      for (let i = 0; i < 5; i++) assertSignInAgain(yield* flipReason(odometer(userId, vehicleId)))
      assert.deepStrictEqual(yield* log, [])
      // the store is left as it was
      assert.strictEqual(Redacted.value(Option.getOrThrow(yield* store.get(userId)).refreshToken!), Redacted.value(token.refreshToken!))
    }).pipe(Effect.provide(loopback())))

  it.effect("a token due for renewal whose background refresh is refused serves until it expires, then fails with no request", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId, vehicleId } = yield* userWithVehicle
      const token = yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      yield* TokenExchange.refresh(token.refreshToken!)
      yield* Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        const call = legacy.odometer({ params: { id: vehicleId } })
        yield* TestClock.adjust("7150 seconds") // due for renewal, still valid
        yield* sim.resetLog
        yield* call // the refresh runs in the background and is refused
        yield* eventually(Effect.map(log, (entries) => entries.includes("/oauth/token 400")), "the refused background refresh")
        yield* TestClock.adjust("2 seconds") // past the retry pause of a failed background renewal
        yield* sim.resetLog
        for (let i = 0; i < 3; i++) yield* call
        assert.deepStrictEqual(yield* log, Array(3).fill(`/v2.0/vehicles/${vehicleId}/odometer 200`))
        yield* TestClock.adjust("60 seconds") // expired
        yield* sim.resetLog
        for (let i = 0; i < 3; i++) assertSignInAgain(reasonOf(yield* Effect.flip(call)))
        assert.deepStrictEqual(yield* log, [])
      }).pipe(Effect.provide(Session.layerUser(userId)))
    }).pipe(Effect.provide(loopback())))

  it.effect("once a refusal is remembered, a 401's renewal reads the store with peek only (no shared store's lease taken to fail)", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const memory = yield* TokenStore
      // a store that counts the reads that may lead to a renewal (a shared store takes its lease on them)
      let leasing = 0
      const counting: TokenStore["Service"] = {
        ...memory,
        get: (key, options) => {
          if (options?.peek !== true) leasing++
          return memory.get(key, options)
        }
      }
      const { userId, vehicleId } = yield* userWithVehicle
      const token = yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      yield* TokenExchange.refresh(token.refreshToken!)
      yield* Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        const call = legacy.odometer({ params: { id: vehicleId } }, { maxRetries: 0 })
        yield* TestClock.adjust("7150 seconds") // due for renewal, still valid
        yield* sim.resetLog
        yield* call // the refresh runs in the background and is refused
        yield* eventually(Effect.map(log, (entries) => entries.includes("/oauth/token 400")), "the refused background refresh")
        // the service rejects the still valid access token: its renewal fails at once
        yield* sim.injectFaults({ path: `/v2.0/vehicles/${vehicleId}/odometer`, faults: [{ _tag: "Status", status: 401 }] })
        leasing = 0
        yield* sim.resetLog
        assertSignInAgain(reasonOf(yield* Effect.flip(call)))
        assert.deepStrictEqual(yield* log, [`/v2.0/vehicles/${vehicleId}/odometer 401`])
        assert.strictEqual(leasing, 0)
      }).pipe(Effect.provide(Session.layerUser(userId)), Effect.provide(Layer.succeed(TokenStore, counting)))
    }).pipe(Effect.provide(loopback())))

  it.effect("a newer token another process stored between our read and our refresh is kept and used", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId, vehicleId } = yield* userWithVehicle
      yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      // the other process renews right after the session's read before its renewal
      const { memory, shared, theirs } = yield* otherProcess((next) => next)
      yield* TestClock.adjust("7201 seconds")
      yield* sim.resetLog
      const call = odometer(userId, vehicleId).pipe(Effect.provide(Layer.succeed(TokenStore, shared)))
      assert.isTrue((yield* call).value.distance >= 0)
      // theirs (200), ours with the refresh token they used (400), the call with their token
      assert.deepStrictEqual(yield* log, ["/oauth/token 200", "/oauth/token 400", `/v2.0/vehicles/${vehicleId}/odometer 200`])
      assert.strictEqual(Redacted.value(Option.getOrThrow(yield* memory.get(userId)).accessToken), Redacted.value(theirs()!.accessToken))
      yield* sim.resetLog
      for (let i = 0; i < 3; i++) yield* call
      assert.deepStrictEqual(yield* log, Array(3).fill(`/v2.0/vehicles/${vehicleId}/odometer 200`))
      // their refresh token is not taken for the refused one: renewed after expiry
      yield* TestClock.adjust("7201 seconds")
      yield* sim.resetLog
      yield* call
      assert.deepStrictEqual(yield* log, ["/oauth/token 200", `/v2.0/vehicles/${vehicleId}/odometer 200`])
    }).pipe(Effect.provide(loopback())))

  it.effect("a token another process stored meanwhile that is due for renewal (still valid) is used after our refresh is refused", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId, vehicleId } = yield* userWithVehicle
      yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      // stored with 45 s left of two hours: due for renewal (60 s ahead), not expired (30 s margin)
      const { shared } = yield* otherProcess((next, now) => ({ ...next, issuedAt: now - 7_200_000, expiresAt: now + 45_000 }))
      yield* TestClock.adjust("7201 seconds")
      yield* sim.resetLog
      // one attempt: their token must serve this very call, not a retry of it
      const call = Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) => legacy.odometer({ params: { id: vehicleId } }, { maxRetries: 0 })).pipe(
        Effect.provide(Session.layerUser(userId)),
        Effect.provide(Layer.succeed(TokenStore, shared))
      )
      assert.isTrue((yield* call).value.distance >= 0)
      assert.deepStrictEqual((yield* log).slice(0, 3), ["/oauth/token 200", "/oauth/token 400", `/v2.0/vehicles/${vehicleId}/odometer 200`])
    }).pipe(Effect.provide(loopback())))

  it.effect("a refusal is forgotten once the store holds no token for the key; the refusals kept are bounded", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const { userId, vehicleId } = yield* userWithVehicle
      yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      yield* TestClock.adjust("7201 seconds")
      yield* sim.injectFaults({ path: "/oauth/token", faults: [{ _tag: "MalformedJson" }] })
      const first = yield* flipReason(odometer(userId, vehicleId))
      assertSpent(yield* flipReason(odometer(userId, vehicleId)), first)
      const store = yield* TokenStore
      assert.strictEqual(Refused.refusedOf(store).size, 1)
      // the application removed the user's token: no token, the refusal is over
      yield* store.remove(userId)
      const error = yield* flipReason(odometer(userId, vehicleId))
      assert.strictEqual(error._tag, "Credentials")
      assert.notInclude((error as { readonly description: string }).description, "invalid_grant")
      assert.notInclude((error as { readonly description: string }).description, "may have been used")
      assert.strictEqual(Refused.refusedOf(store).size, 0)
      // at most maxRefused keys are remembered, the oldest forgotten first
      const map = new Map<string, number>()
      for (let i = 0; i <= Refused.maxRefused; i++) Refused.remember(map, `k${i}`, i)
      assert.strictEqual(map.size, Refused.maxRefused)
      assert.isFalse(map.has("k0"))
      assert.isTrue(map.has(`k${Refused.maxRefused}`))
    }).pipe(Effect.provide(loopback())))
})


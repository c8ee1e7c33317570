/**
 * A token due for renewal but still valid is handed out at once while one
 * renewal runs in the background; only a caller that finds the token
 * expired (or within `expiryMargin` of it) waits. The simulator over
 * loopback, its token endpoint held by a `Delay` fault on the test clock.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Logger, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as Session from "@connected-vehicle/auth/Session"
import { TokenStore } from "@connected-vehicle/auth/TokenStore"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import { authorize, eventually, loopback, promptly, redirectUri, userWithVehicle } from "./utils.ts"

const tokenRequests = Effect.map(Effect.service(Simulator), (sim) => sim.requests).pipe(
  Effect.flatten,
  Effect.map((log) => log.filter((e) => e.path === "/oauth/token").map((e) => e.status))
)

/** `count` concurrent reads of the token, their values. */
const readers = (count: number) =>
  Effect.flatMap(Effect.service(Credentials), (credentials) =>
    Effect.all(Array.from({ length: count }, () => Effect.map(credentials.token, Redacted.value)), { concurrency: "unbounded" }))

const stored = Effect.flatMap(Effect.service(TokenStore), (store) => store.get("application")).pipe(
  Effect.map((token) => Redacted.value(Option.getOrThrow(token).accessToken))
)

/** The application's session on a fresh token (7200 s), a second of the token endpoint's time held for the next grant. */
const withSlowRenewal = <A, E, R>(test: (first: string) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    const [first] = yield* readers(1)
    yield* sim.resetLog
    yield* sim.injectFaults({ path: "/oauth/token", faults: [{ _tag: "Delay", delay: "1000 millis" }] })
    return yield* test(first!)
  }).pipe(Effect.provide(Session.layerApplication()))

describe("Session: stale-while-revalidate", () => {
  it.effect("a token due for renewal is handed out at once during one slow renewal, then the new one", () =>
    withSlowRenewal((first) =>
      Effect.gen(function*() {
        yield* TestClock.adjust("7150 seconds") // 50 s left: due (60 s window), still handed out (the default margin: 30 s)
        assert.deepStrictEqual(yield* promptly(readers(50)), Array(50).fill(first))
        yield* eventually(Effect.map(tokenRequests, (statuses) => statuses.length > 0), "the renewal at the token endpoint")
        // the renewal is held there for a second of the test clock: readers still go on at once
        assert.deepStrictEqual(yield* promptly(readers(50)), Array(50).fill(first))
        assert.deepStrictEqual(yield* tokenRequests, [0])
        yield* TestClock.adjust("1 second")
        yield* eventually(Effect.map(stored, (value) => value !== first), "the new token stored")
        const next = yield* stored
        assert.deepStrictEqual(yield* readers(50), Array(50).fill(next))
        assert.deepStrictEqual(yield* tokenRequests, [200])
      })
    ).pipe(Effect.provide(loopback())))

  it.effect("an expired token, or one within the margin of its expiry: every reader waits for one renewal", () =>
    withSlowRenewal((first) =>
      Effect.gen(function*() {
        yield* TestClock.adjust("7197 seconds") // 3 s left: within the margin
        const waiting = yield* Effect.forkChild(readers(50))
        yield* eventually(Effect.map(tokenRequests, (statuses) => statuses.length > 0), "the renewal at the token endpoint")
        yield* TestClock.withLive(Effect.sleep("50 millis"))
        assert.isUndefined(waiting.pollUnsafe())
        yield* TestClock.adjust("1 second")
        const values = yield* Fiber.join(waiting)
        assert.notStrictEqual(values[0], first)
        assert.deepStrictEqual(values, Array(50).fill(yield* stored))
        assert.deepStrictEqual(yield* tokenRequests, [200])
      })
    ).pipe(Effect.provide(loopback())))

  it.effect("a failed background renewal is logged; the current token serves until it expires, then the error", () => {
    const warnings: Array<string> = []
    const capture = Logger.layer([Logger.make((options) => {
      const message = String(options.message)
      if (options.logLevel === "Warn" && message.includes("token renewal")) warnings.push(message)
    })])
    return Effect.gen(function*() {
      const sim = yield* Simulator
      yield* Effect.gen(function*() {
        const [first] = yield* readers(1)
        yield* sim.resetLog
        // a 400: a failure the grant does not send again (a 500 it would, after a wait on the test clock)
        yield* sim.injectFaults({ path: "/oauth/token", faults: [{ _tag: "Status", status: 400 }, { _tag: "Status", status: 400 }] })
        yield* TestClock.adjust("7150 seconds")
        assert.deepStrictEqual(yield* promptly(readers(20)), Array(20).fill(first))
        yield* eventually(Effect.map(tokenRequests, (statuses) => statuses.includes(400)), "the failed renewal")
        yield* eventually(Effect.sync(() => warnings.length > 0), "the warning")
        assert.include(warnings[0], "token renewal failed")
        // not tried again in the background within a second: the current token, no new request
        assert.deepStrictEqual(yield* promptly(readers(20)), Array(20).fill(first))
        assert.deepStrictEqual(yield* tokenRequests, [400])
        // within the margin of its expiry (23 s left): the reader waits for a renewal, which fails
        yield* TestClock.adjust("27 seconds")
        const error = reasonOf(yield* Effect.flip(readers(1)))
        assert.strictEqual(error._tag, "Credentials")
        if (error._tag === "Credentials") assert.strictEqual(error.status, 400)
        // the next reader tries again
        const [next] = yield* readers(1)
        assert.notStrictEqual(next, first)
        assert.deepStrictEqual(yield* tokenRequests, [400, 400, 200])
        assert.strictEqual(warnings.length, 1) // the renewals a reader waited for failed to that reader
      }).pipe(Effect.provide(Session.layerApplication()))
    }).pipe(Effect.provide(Layer.merge(loopback(), capture)))
  })

  it.effect("closing a user's layer lets a refresh already at the token endpoint finish and store its token", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const store = yield* TokenStore
      const { userId } = yield* userWithVehicle
      const token = yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
      const first = Redacted.value(token.accessToken)
      yield* sim.resetLog
      yield* sim.injectFaults({ path: "/oauth/token", faults: [{ _tag: "Delay", delay: "1000 millis" }] })
      yield* Effect.gen(function*() {
        yield* TestClock.adjust("7150 seconds")
        assert.deepStrictEqual(yield* promptly(readers(1)), [first])
        yield* eventually(Effect.map(tokenRequests, (statuses) => statuses.length > 0), "the renewal at the token endpoint")
        // the token endpoint answers while the layer closes
        yield* Effect.forkDetach(Effect.andThen(TestClock.withLive(Effect.sleep("50 millis")), TestClock.adjust("1 second")))
      }).pipe(Effect.provide(Session.layerUser(userId)))
      // the layer is closed: its renewal was not cut off, the new token is stored (a refresh token is used once)
      const now = yield* store.get(userId)
      assert.notStrictEqual(Redacted.value(Option.getOrThrow(now).accessToken), first)
      assert.deepStrictEqual(yield* tokenRequests, [200])
    }).pipe(Effect.provide(loopback())))

  it.effect("closing the application's layer interrupts a renewal at the token endpoint (a token can be asked for again)", () =>
    Effect.gen(function*() {
      // the token endpoint never answers (the test clock stands still): the layer's close does not wait for it
      const first = yield* withSlowRenewal((first) =>
        Effect.gen(function*() {
          yield* TestClock.adjust("7150 seconds")
          assert.deepStrictEqual(yield* promptly(readers(1)), [first])
          yield* eventually(Effect.map(tokenRequests, (statuses) => statuses.length > 0), "the renewal at the token endpoint")
          return first
        })
      )
      assert.strictEqual(yield* stored, first)
      // the simulator's answer, to no one (its server closes once it is over)
      yield* TestClock.adjust("1 second")
    }).pipe(Effect.provide(loopback())))
})

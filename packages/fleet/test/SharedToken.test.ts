/**
 * One application token for the fleet, on the project's real Redis: several
 * independent SDK instances, then three child processes, against the
 * simulator over loopback HTTP (tokens that expire within the test, its
 * limits switched on); the simulator counts the token grants.
 *
 * The first tests (`concurrent`) have a simulator, a key prefix and Redis
 * connections of their own and the store's default Redis timeout (2 s): they
 * run at once, most of their time spent waiting for tokens to come due or
 * expire. The tests that follow, with Redis timeouts of a few hundred
 * milliseconds, run one at a time.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { join } from "node:path"
import { Cause, Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Option, Redacted } from "effect"
import { Redis } from "effect/persistence"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import { NodeHttpClient } from "@effect/platform-node"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import * as SignIn from "@connected-vehicle/testing/SignIn"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as Session from "@connected-vehicle/auth/Session"
import { TokenStore } from "@connected-vehicle/auth/TokenStore"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import type * as SharedAccess from "@connected-vehicle/fleet/SharedAccess"
import * as RedisServer from "@connected-vehicle/testing/RedisServer"
import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
import * as SharedToken from "@connected-vehicle/fleet/SharedToken"
import { freshPrefix, instance, readSignals, redisUrl, simulator, targets } from "./shared.ts"
import { eventually } from "./stateFixtures.ts"

/** Runs alongside the adjacent tests marked so (see above). */
const concurrent = true

describe("SharedToken", () => {
  it.live("four instances starting at once get one token; when it is due, one renewal for all", () =>
    Effect.gen(function*() {
      // 10 s: the start of four instances and their first reads take well under the 5 s before it is
      // due, even on a loaded machine (with 4 s, a start slower than 2 s saw the renewal already)
      const sim = yield* simulator({ accessTokenLifetime: "10 seconds" })
      const options = { prefix: freshPrefix("token") }
      const instances = yield* Effect.all(Array.from({ length: 4 }, () => instance(sim, options)), { concurrency: "unbounded" })
      const [target] = targets(sim, 1)
      const readAll = Effect.all(
        instances.flatMap((sdk) => [1, 2, 3].map(() => Effect.exit(Effect.provideContext(readSignals(target!), sdk)))),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual((yield* readAll).filter(Exit.isFailure), [])
      assert.strictEqual((yield* sim.usage).tokenGrants.clientCredentials, 1)
      // due after half its lifetime (refresh-ahead capped at half of 10 s): renewed once for all
      // (in the background while it is still handed out)
      yield* Effect.sleep("5200 millis")
      assert.deepStrictEqual((yield* readAll).filter(Exit.isFailure), [])
      yield* eventually(grants(sim, 2))
      yield* Effect.sleep("300 millis")
      assert.strictEqual((yield* sim.usage).tokenGrants.clientCredentials, 2)
    }).pipe(Effect.scoped), { timeout: 30_000, concurrent })

  it.live("while one instance renews (holding the lease), the other's readers get the current token at once; one grant", () =>
    Effect.gen(function*() {
      const sim = yield* simulator({ accessTokenLifetime: "10 seconds" })
      const options = { prefix: freshPrefix("background") }
      // no margin: handed out, while it is renewed, until it expires (the test has that long, whatever the machine's load)
      const [a, b] = yield* Effect.all([credentialsOf(sim, options, { expiryMargin: 0 }), credentialsOf(sim, options, { expiryMargin: 0 })])
      const read = (credentials: Credentials["Service"]) =>
        Effect.map(Effect.timed(credentials.token), ([took, token]) => ({ millis: Duration.toMillis(took), token: Redacted.value(token) }))
      const lease = Effect.flatMap(Effect.service(Redis.Redis), (redis) => redis.send<string | null>("GET", `${options.prefix}lease:application`)).pipe(
        Effect.provideContext(yield* Layer.build(SharedRedis.layer({ url: redisUrl() })))
      )
      const first = (yield* read(a)).token
      assert.strictEqual((yield* read(b)).token, first)
      // due after 5 s (half of 10 s)
      yield* Effect.sleep("5200 millis")
      yield* sim.injectFaults({ path: "/oauth/token", faults: [{ _tag: "Delay", delay: "2500 millis" }] })
      const fromA = yield* read(a) // starts the renewal in the background: a takes the lease
      yield* eventually(Effect.map(lease, (holder) => holder !== null))
      const fromB = yield* Effect.all(Array.from({ length: 20 }, () => read(b)), { concurrency: "unbounded" })
      assert.isNotNull(yield* lease) // still held: the renewal is at the token endpoint
      for (const { millis, token } of [fromA, ...fromB]) {
        assert.strictEqual(token, first)
        assert.isBelow(millis, 1_500) // the renewal is held 2.5 s at the token endpoint
      }
      yield* eventually(Effect.map(Effect.all([read(a), read(b)]), (reads) => reads.every((r) => r.token !== first)))
      yield* Effect.sleep("300 millis")
      assert.strictEqual((yield* sim.usage).tokenGrants.clientCredentials, 2)
    }).pipe(Effect.scoped), { timeout: 30_000, concurrent })

  it.live("three processes: one token per expiry across them, no vehicle over its limit", () =>
    Effect.gen(function*() {
      const sim = yield* simulator({ accessTokenLifetime: "8 seconds", rateLimit: { perVehicle: { limit: 4, window: "1 second" } } })
      const env = {
        ...process.env,
        REDIS_URL: Redacted.value(redisUrl()),
        SIM_URL: sim.url,
        CLIENT_ID: sim.clientId,
        CLIENT_SECRET: Redacted.value(sim.clientSecret),
        PREFIX: freshPrefix("processes"),
        TARGETS: JSON.stringify(targets(sim, 8)),
        READS: "3",
        VEHICLE_LIMIT: "4",
        MARGIN: "300 millis"
      }
      const children = yield* Effect.all([0, 1, 2].map(() => child(env)), { concurrency: "unbounded" })
      const round = Effect.all(children.map((c) => c.round), { concurrency: "unbounded" })
      assert.deepStrictEqual(yield* round, ["done 0", "done 0", "done 0"])
      assert.strictEqual((yield* sim.usage).tokenGrants.clientCredentials, 1)
      yield* Effect.sleep("4200 millis") // due after half of 8 s
      assert.deepStrictEqual(yield* round, ["done 0", "done 0", "done 0"])
      yield* eventually(grants(sim, 2)) // renewed in the background while the round went on
      yield* Effect.sleep("300 millis")
      const usage = yield* sim.usage
      assert.strictEqual(usage.tokenGrants.clientCredentials, 2)
      for (const vehicle of usage.vehicles) {
        assert.strictEqual(vehicle.accepted, 18, vehicle.vehicleId) // 2 rounds x 3 processes x 3 reads
        assert.isAtMost(vehicle.maxInWindow, 4, vehicle.vehicleId)
        assert.strictEqual(vehicle.limited, 0, vehicle.vehicleId)
      }
    }).pipe(Effect.scoped), { timeout: 60_000, concurrent })

  it.live("the SDK's refresh-ahead window, whatever the store's: one renewal for all", () =>
    Effect.gen(function*() {
      const sim = yield* simulator({ accessTokenLifetime: "8 seconds" })
      // the SDK renews 3.5 s ahead, the store's own window (for `get` alone) is 1 s
      const options = { prefix: freshPrefix("ahead"), token: { refreshAhead: "1 second" } } as const
      const sdks = yield* Effect.all(Array.from({ length: 4 }, () => credentialsOf(sim, options, { refreshAhead: "3500 millis" })))
      yield* Effect.forEach(sdks, (sdk) => sdk.token)
      assert.strictEqual((yield* sim.usage).tokenGrants.clientCredentials, 1)
      yield* Effect.sleep("4700 millis") // due for the SDK, not by the store's window
      // the token endpoint takes 1 s to answer: every instance asks while the first renews
      yield* sim.injectFaults({ path: "/oauth/token", faults: [1, 2, 3, 4].map(() => ({ _tag: "Delay", delay: "1000 millis" }) as const) })
      yield* Effect.forEach(sdks, (sdk) => sdk.token, { concurrency: "unbounded" })
      yield* eventually(grants(sim, 2))
      yield* Effect.sleep("1500 millis")
      assert.strictEqual((yield* sim.usage).tokenGrants.clientCredentials, 2)
    }).pipe(Effect.scoped), { timeout: 30_000, concurrent })

  it.live("a call waiting for another process's renewal waits within its budget (maxElapsed): then a Credentials reason that says so", () =>
    Effect.gen(function*() {
      const sim = yield* simulator({ accessTokenLifetime: "3 seconds" })
      const options = { prefix: freshPrefix("budget") }
      const [a, b] = yield* Effect.all([instance(sim, options), instance(sim, options)])
      const [target] = targets(sim, 1)
      yield* Effect.provideContext(readSignals(target!), a)
      yield* Effect.provideContext(readSignals(target!), b)
      yield* Effect.sleep("3200 millis") // expired in both
      // A renews, its token request taking 5 s; B's call has a budget of 1 s
      yield* sim.injectFaults({ path: "/oauth/token", faults: [{ _tag: "Delay", delay: "5000 millis" }] })
      const renewing = yield* Effect.forkChild(Effect.exit(Effect.provideContext(readSignals(target!), a)))
      yield* Effect.sleep("200 millis")
      const started = Date.now()
      const error = yield* Effect.flip(Effect.provideContext(readSignals(target!, { maxRetries: 0, retry: { maxElapsed: "1 second" } }), b))
      const took = Date.now() - started
      assert.strictEqual(reasonOf(error)._tag, "Credentials")
      assert.match(error.message, /did not come within 1000 ms/)
      assert.isBelow(took, 3_000)
      // A still gets its token, for both
      assert.isTrue(Exit.isSuccess(yield* Fiber.join(renewing)))
      assert.strictEqual((yield* sim.usage).tokenGrants.clientCredentials, 2)
    }).pipe(Effect.scoped), { timeout: 30_000, concurrent })

  it.live("a 401 in two processes: one of them renews the user's token, the other uses it (its refresh token is sent once)", () =>
    Effect.gen(function*() {
      const sim = yield* simulator()
      const prefix = freshPrefix("401")
      const [userId, vehicles] = sim.data.users.map((u) => [u.id, sim.data.vehiclesOf(u.id)] as const).find(([, v]) => v.length > 0)!
      // one "process": its own Redis connection, store and transport
      const processOf = Effect.gen(function*() {
        const redis = yield* Layer.build(SharedRedis.layer({ url: redisUrl() }))
        const store = yield* Effect.provideContext(SharedToken.make({ prefix }), redis)
        return yield* Layer.build(Layer.mergeAll(
          Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(sim.url), NodeHttpClient.layerUndici])),
          OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret }),
          Layer.succeed(TokenStore, store),
          NodeHttpClient.layerUndici,
          Layer.succeed(Simulator.Simulator, sim)
        ))
      })
      const a = yield* processOf
      const b = yield* processOf
      const code = yield* Effect.provideContext(SignIn.authorizationCode(userId, { scope: "read_odometer" }), a)
      const token = yield* Effect.provideContext(Session.login(userId, { code, redirectUri: SignIn.redirectUri }), a)
      // the service no longer accepts the stored access token (revoked); its refresh token is good
      yield* Context.get(a, TokenStore).set(userId, { ...token, accessToken: Redacted.make("revoked-access-token") })
      yield* sim.resetLog
      const odometer = Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) => legacy.odometer({ params: { id: vehicles[0]! } })).pipe(
        Effect.provide(Session.layerUser(userId))
      )
      const exits = yield* Effect.all([Effect.exit(Effect.provideContext(odometer, a)), Effect.exit(Effect.provideContext(odometer, b))], {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(exits.filter(Exit.isFailure), [])
      const grants = (yield* sim.requests).filter((entry) => entry.path === "/oauth/token").map((entry) => entry.status)
      assert.deepStrictEqual(grants, [200])
    }).pipe(Effect.scoped), { timeout: 30_000, concurrent })

  it.live("a sign-out while a process renews the user's token: the renewal's token is not stored, the renewing call fails clearly", () =>
    Effect.gen(function*() {
      const sim = yield* simulator()
      const prefix = freshPrefix("signout-session")
      const [userId, vehicles] = sim.data.users.map((u) => [u.id, sim.data.vehiclesOf(u.id)] as const).find(([, v]) => v.length > 0)!
      const redis = yield* Layer.build(SharedRedis.layer({ url: redisUrl() }))
      const store = yield* Effect.provideContext(SharedToken.make({ prefix }), redis)
      const services = yield* Layer.build(Layer.mergeAll(
        Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(sim.url), NodeHttpClient.layerUndici])),
        OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret }),
        Layer.succeed(TokenStore, store),
        NodeHttpClient.layerUndici,
        Layer.succeed(Simulator.Simulator, sim)
      ))
      const code = yield* Effect.provideContext(SignIn.authorizationCode(userId, { scope: "read_odometer" }), services)
      const token = yield* Effect.provideContext(Session.login(userId, { code, redirectUri: SignIn.redirectUri }), services)
      // revoked: the call's 401 renews it, the token endpoint taking a second; the user signs out meanwhile
      yield* store.set(userId, { ...token, accessToken: Redacted.make("revoked-access-token") })
      yield* sim.injectFaults({ path: "/oauth/token", faults: [{ _tag: "Delay", delay: "1000 millis" }] })
      const odometer = Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) => legacy.odometer({ params: { id: vehicles[0]! } })).pipe(
        Effect.provide(Session.layerUser(userId))
      )
      const call = yield* Effect.forkChild(Effect.flip(Effect.provideContext(odometer, services)))
      yield* eventually(Effect.map(Context.get(redis, Redis.Redis).send<string | null>("GET", `${prefix}lease:${userId}`), (holder) => holder !== null))
      yield* store.remove(userId)
      const error = yield* Fiber.join(call)
      assert.strictEqual(reasonOf(error)._tag, "Credentials")
      assert.include(error.message, "was removed (a sign-out) while it was renewed")
      assert.isTrue(Option.isNone(yield* store.get(userId, { peek: true })))
      assert.isTrue(Option.isNone(yield* store.get(userId, { peek: true }).pipe(Effect.delay("200 millis"))))
    }).pipe(Effect.scoped), { timeout: 30_000, concurrent })

  it.live("a renewal that takes longer than the lease keeps it: no second grant", () =>
    Effect.gen(function*() {
      const sim = yield* simulator({ accessTokenLifetime: "4 seconds" })
      const options = { prefix: freshPrefix("long"), token: { leaseDuration: "600 millis", timeout: "200 millis" } } as const
      const [a, b] = yield* Effect.all([credentialsOf(sim, options), credentialsOf(sim, options)])
      yield* a.token
      yield* b.token
      yield* Effect.sleep("2200 millis") // due (half of 4 s), handed out until 3 s
      // the token request takes two and a half lease durations
      yield* sim.injectFaults({ path: "/oauth/token", faults: [1, 2].map(() => ({ _tag: "Delay", delay: "1500 millis" }) as const) })
      yield* a.token
      yield* Effect.sleep("50 millis")
      yield* b.token
      yield* eventually(grants(sim, 2))
      yield* Effect.sleep("1500 millis")
      assert.strictEqual((yield* sim.usage).tokenGrants.clientCredentials, 2)
    }).pipe(Effect.scoped), 30_000)

  it.live("a renewal lease held by a process that died expires: another process takes it", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(SharedRedis.layer({ url: redisUrl() }))
      const options = { prefix: freshPrefix("lease"), leaseDuration: "500 millis", timeout: "150 millis" } as const
      const [dead, alive] = yield* Effect.all([SharedToken.make(options), SharedToken.make(options)]).pipe(Effect.provideContext(context))
      // timed from before the lease is taken: its 500 ms start after this, whatever the machine's load
      const started = Date.now()
      assert.isTrue(Option.isNone(yield* dead.get("application"))) // it takes the lease, then never renews
      assert.isTrue(Option.isNone(yield* alive.get("application"))) // waits for the lease to expire, then takes it
      assert.isAtLeast(Date.now() - started, 480)
      const token = { accessToken: Redacted.make("t"), issuedAt: Date.now(), expiresAt: Date.now() + 60_000, refreshToken: undefined, refreshExpiresAt: undefined }
      yield* alive.set("application", token)
      const read = yield* dead.get("application")
      assert.strictEqual(Option.map(read, (t) => Redacted.value(t.accessToken)).pipe(Option.getOrNull), "t")
    }).pipe(Effect.scoped), 10_000)

  it.live("a stored token expires in Redis when it is of no more use: its refresh token's expiry, else the access token's", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(SharedRedis.layer({ url: redisUrl() }))
      const prefix = freshPrefix("expiry")
      const store = yield* Effect.provideContext(SharedToken.make({ prefix }), context)
      const ttl = (key: string) => Effect.provideContext(Effect.flatMap(Effect.service(Redis.Redis), (redis) => redis.send<number>("PTTL", `${prefix}token:${key}`)), context)
      const now = Date.now()
      const day = 86_400_000
      const base = { accessToken: Redacted.make("t"), issuedAt: now, expiresAt: now + 60_000 }
      yield* store.set("application", { ...base, refreshToken: undefined, refreshExpiresAt: undefined })
      yield* store.set("user-a", { ...base, refreshToken: Redacted.make("r"), refreshExpiresAt: now + 30 * day })
      yield* store.set("user-b", { ...base, refreshToken: Redacted.make("r"), refreshExpiresAt: undefined })
      const [application, userA, userB] = yield* Effect.all([ttl("application"), ttl("user-a"), ttl("user-b")])
      assert.isTrue(application > 50_000 && application <= 60_000, String(application))
      assert.isTrue(userA > 30 * day - 10_000 && userA <= 30 * day, String(userA))
      assert.isTrue(userB > 60 * day && userB <= 60 * day + 60_000, String(userB)) // 60 days (the spec's) after the access token
      // whatever a token says, an expiry Redis can hold (a year and a day at most): stored, not refused
      yield* store.set("far", { ...base, expiresAt: now + 1e19, refreshToken: undefined, refreshExpiresAt: undefined })
      yield* store.set("far-user", { ...base, expiresAt: now + 1e19, refreshToken: Redacted.make("r"), refreshExpiresAt: Infinity })
      for (const key of ["far", "far-user"]) {
        const kept = yield* ttl(key)
        assert.isTrue(kept > 366 * day - 10_000 && kept <= 366 * day, String(kept))
        assert.isTrue(Option.isSome(yield* store.get(key, { peek: true })))
      }
      // already useless: gone at once
      yield* store.set("stale", { ...base, expiresAt: now - 1_000, refreshToken: undefined, refreshExpiresAt: undefined })
      yield* Effect.sleep("20 millis")
      assert.strictEqual(yield* ttl("stale"), -2)
    }).pipe(Effect.scoped), 10_000)

  it.effect("an option that is not a duration is a Configuration error naming it, not a defect", () =>
    Effect.gen(function*() {
      for (const [options, name] of [[{ leaseDuration: "soon" as never }, "leaseDuration"], [{ pollInterval: "0 millis" }, "pollInterval"]] as const) {
        const error = yield* Effect.flip(SharedToken.make(options)).pipe(Effect.provideService(Redis.Redis, undefined as never))
        assert.strictEqual(error.reason._tag, "Configuration")
        assert.include(error.message, name)
      }
    }))

  it.effect("a leaseDuration under three times the Redis timeout is a Configuration error naming it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(SharedToken.make({ leaseDuration: "1 second", timeout: "400 millis" })).pipe(
        Effect.provideService(Redis.Redis, undefined as never)
      )
      assert.strictEqual(error.reason._tag, "Configuration")
      assert.include(error.message, "leaseDuration")
      assert.include(error.message, "1200 ms")
    }))

  it.live("a holder whose renewal hangs extends its lease for maxRenewal only: then it expires and another process renews", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(SharedRedis.layer({ url: redisUrl() }))
      const options = { prefix: freshPrefix("hung"), leaseDuration: "600 millis", timeout: "200 millis", maxRenewal: "600 millis" } as const
      const [hung, other] = yield* Effect.all([SharedToken.make(options), SharedToken.make(options)]).pipe(Effect.provideContext(context))
      const renewal = (store: TokenStore["Service"], use: Effect.Effect<string>) => store.renewal!("application", () => true, () => use)
      yield* Effect.forkChild(renewal(hung, Effect.never))
      yield* Effect.sleep("100 millis")
      const started = Date.now()
      // the lease is no longer extended after 600 ms: gone 600 ms later at most
      const ran = yield* renewal(other, Effect.succeed("renewed")).pipe(Effect.timeoutOption("5 seconds"))
      assert.deepStrictEqual(ran, Option.some("renewed"))
      assert.isAtLeast(Date.now() - started, 400)
    }).pipe(Effect.scoped), 20_000)

  it.live("a process waiting for another's renewal gives up after maxRenewal and twice leaseDuration (TokenStoreError)", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(SharedRedis.layer({ url: redisUrl() }))
      const prefix = freshPrefix("waiting")
      const store = yield* Effect.provideContext(
        SharedToken.make({ prefix, leaseDuration: "300 millis", timeout: "100 millis", maxRenewal: "300 millis" }),
        context
      )
      // a lease some other process keeps extending, and never a token
      const redis = Context.get(context, Redis.Redis)
      yield* Effect.forkChild(Effect.forever(Effect.andThen(redis.send("SET", `${prefix}lease:application`, "elsewhere", "PX", "300"), Effect.sleep("100 millis"))))
      yield* Effect.sleep("50 millis")
      const exit = yield* store.renewal!("application", () => true, () => Effect.succeed("renewed")).pipe(Effect.exit, Effect.timeoutOption("5 seconds"))
      assert.isTrue(Option.isSome(exit) && Exit.isFailure(exit.value), "gave up, within 5 s")
      const error = Option.getOrThrow(exit).pipe((exit) => Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined)
      assert.strictEqual((error as { _tag?: string })._tag, "TokenStoreError")
    }).pipe(Effect.scoped), 20_000)

  it.live("a renewal does not store its token over one another process stored meanwhile; with nothing newer stored it stores it, lease or not", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(SharedRedis.layer({ url: redisUrl() }))
      const prefix = freshPrefix("newer")
      const [a, b] = yield* Effect.all([SharedToken.make({ prefix }), SharedToken.make({ prefix })]).pipe(Effect.provideContext(context))
      const now = Date.now()
      const tokenOf = (value: string) => ({ accessToken: Redacted.make(value), issuedAt: now, expiresAt: now + 60_000, refreshToken: Redacted.make(`r-${value}`), refreshExpiresAt: undefined })
      const stored = Effect.map(a.get("user", { peek: true }), (token) => Option.getOrNull(Option.map(token, (t) => Redacted.value(t.accessToken))))
      yield* a.set("user", tokenOf("old"))
      // A renews; meanwhile (its lease lost) B took over and stored its token
      yield* a.renewal!("user", () => true, () =>
        Effect.andThen(
          Effect.andThen(Context.get(context, Redis.Redis).send("DEL", `${prefix}lease:user`), b.set("user", tokenOf("from-b"))),
          a.set("user", tokenOf("from-a"))
        ))
      assert.strictEqual(yield* stored, "from-b")
      // A renews, its lease lost, nothing newer stored: its token is kept
      yield* a.renewal!("user", () => true, () =>
        Effect.andThen(Context.get(context, Redis.Redis).send("DEL", `${prefix}lease:user`), a.set("user", tokenOf("from-a-again"))))
      assert.strictEqual(yield* stored, "from-a-again")
      // outside a renewal (a sign-in), set stores whatever is there
      yield* b.set("user", tokenOf("signed-in"))
      assert.strictEqual(yield* stored, "signed-in")
    }).pipe(Effect.scoped), 10_000)

  it.live("a sign-out (remove) during a renewal wins, in this process or another: the renewal's token is not stored", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(SharedRedis.layer({ url: redisUrl() }))
      const prefix = freshPrefix("signout")
      const [a, b] = yield* Effect.all([SharedToken.make({ prefix }), SharedToken.make({ prefix })]).pipe(Effect.provideContext(context))
      const now = Date.now()
      const tokenOf = (value: string) => ({ accessToken: Redacted.make(value), issuedAt: now, expiresAt: now + 60_000, refreshToken: Redacted.make(`r-${value}`), refreshExpiresAt: undefined })
      const stored = Effect.map(a.get("user", { peek: true }), (token) => Option.getOrNull(Option.map(token, (t) => Redacted.value(t.accessToken))))
      for (const signOut of [a, b]) {
        yield* a.set("user", tokenOf("old"))
        yield* a.renewal!("user", () => true, () => Effect.andThen(signOut.remove("user"), a.set("user", tokenOf("renewed"))))
        assert.strictEqual(yield* stored, null)
        // the lease is released all the same
        assert.isNull(yield* Context.get(context, Redis.Redis).send<string | null>("GET", `${prefix}lease:user`))
      }
      // removed before the renewal started: its token is stored (an application token fetched anew)
      yield* a.renewal!("user", () => true, () => a.set("user", tokenOf("fetched")))
      assert.strictEqual(yield* stored, "fetched")
    }).pipe(Effect.scoped), 10_000)

  it.live("a renewal that outlasts the removal marker does not store its token over the sign-out; one whose token expired in Redis meanwhile, its lease held, does", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(SharedRedis.layer({ url: redisUrl() }))
      const prefix = freshPrefix("marker-expired")
      const store = yield* Effect.provideContext(SharedToken.make({ prefix, leaseDuration: "300 millis", timeout: "100 millis", maxRenewal: "200 millis" }), context)
      const now = Date.now()
      const tokenOf = (value: string, expiresIn = 60_000) => ({
        accessToken: Redacted.make(value),
        issuedAt: now,
        expiresAt: Date.now() + expiresIn,
        refreshToken: undefined,
        refreshExpiresAt: undefined
      })
      const stored = Effect.map(store.get("user", { peek: true }), (token) => Option.getOrNull(Option.map(token, (t) => Redacted.value(t.accessToken))))
      yield* store.set("user", tokenOf("old"))
      // the marker lasts maxRenewal + 2 × leaseDuration (800 ms): the renewal stores after it expired
      yield* store.renewal!("user", () => true, () => Effect.andThen(Effect.andThen(store.remove("user"), Effect.sleep("1200 millis")), store.set("user", tokenOf("renewed"))))
      assert.strictEqual(yield* stored, null)
      // the stored token expires in Redis (no refresh token: at its expiry) while the renewal holds its lease: stored
      const long = yield* Effect.provideContext(SharedToken.make({ prefix, maxRenewal: "5 seconds" }), context)
      yield* long.set("app", tokenOf("expiring", 200))
      yield* long.renewal!("app", () => true, () => Effect.andThen(Effect.sleep("400 millis"), long.set("app", tokenOf("fetched"))))
      assert.strictEqual(Option.getOrNull(Option.map(yield* long.get("app", { peek: true }), (t) => Redacted.value(t.accessToken))), "fetched")
    }).pipe(Effect.scoped), 10_000)

  it.live("a sign-in (set) in the renewing process while the renewal releases its lease is stored", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(SharedRedis.layer({ url: redisUrl() }))
      const prefix = freshPrefix("release")
      const store = yield* Effect.provideContext(SharedToken.make({ prefix }), context)
      const now = Date.now()
      const tokenOf = (value: string) => ({ accessToken: Redacted.make(value), issuedAt: now, expiresAt: now + 60_000, refreshToken: Redacted.make(`r-${value}`), refreshExpiresAt: undefined })
      const stored = Effect.map(store.get("user", { peek: true }), (token) => Option.getOrNull(Option.map(token, (t) => Redacted.value(t.accessToken))))
      for (let i = 0; i < 5; i++) {
        yield* store.set("user", tokenOf("old"))
        const renewed = yield* Deferred.make<void>()
        const renewing = yield* Effect.forkChild(store.renewal!("user", () => true, () => Effect.andThen(store.set("user", tokenOf("renewed")), Deferred.succeed(renewed, undefined))))
        // the renewal has stored its token and now releases its lease: a sign-in meanwhile
        yield* Deferred.await(renewed)
        yield* store.set("user", tokenOf(`signed-in-${i}`))
        yield* Fiber.join(renewing)
        assert.strictEqual(yield* stored, `signed-in-${i}`)
      }
    }).pipe(Effect.scoped), 10_000)

  it.live("Redis gone: get fails with TokenStoreError, without hanging", () =>
    Effect.gen(function*() {
      const server = yield* Effect.promise(() => RedisServer.start())
      const context = yield* Layer.build(SharedRedis.layer({ url: Redacted.make(server.url) }))
      const store = yield* Effect.provideContext(SharedToken.make({ timeout: "1 second" }), context)
      yield* Effect.promise(() => server.stop())
      const error = yield* Effect.flip(store.get("application"))
      assert.strictEqual(error._tag, "TokenStoreError")
      // a Redis that cannot be reached may be back soon: transient (the call's retry policy tries again)
      assert.isTrue(error._tag === "TokenStoreError" && error.transient === true)
      assert.strictEqual(TokenStore.key, "@connected-vehicle/auth/TokenStore")
    }).pipe(Effect.scoped, Effect.timeout("10 seconds")), 20_000)
})

/** The simulator has granted `count` client-credentials tokens (or more: the assertion that follows tells). */
const grants = (sim: Simulator.Simulator["Service"], count: number) =>
  Effect.map(sim.usage, (usage) => usage.tokenGrants.clientCredentials >= count)

/** One instance's application `Credentials` (its own Redis connection and store, as `instance`). */
const credentialsOf = (sim: Simulator.Simulator["Service"], options: SharedAccess.Options, oauth?: Pick<OAuthConfig.Options, "expiryMargin" | "refreshAhead">) =>
  Effect.gen(function*() {
    const sdk = yield* instance(sim, options, undefined, undefined, oauth)
    return Context.get(yield* Effect.provideContext(Layer.build(Session.layerApplication()), sdk), Credentials)
  })

/** A `shared-sdk.ts` process, ready; `round` sends `go` and answers its `done` line. */
const child = (env: NodeJS.ProcessEnv) =>
  Effect.gen(function*() {
    const process_ = spawn(process.execPath, [join(import.meta.dirname, "processes", "shared-sdk.ts")], { env, stdio: ["pipe", "pipe", "pipe"] })
    yield* Effect.addFinalizer(() => Effect.sync(() => process_.kill("SIGKILL")))
    let output = ""
    let errors = ""
    const lines: Array<string> = []
    const waiters: Array<(line: string) => void> = []
    process_.stderr.on("data", (chunk) => (errors += chunk))
    process_.stdout.on("data", (chunk) => {
      output += chunk
      let newline: number
      while ((newline = output.indexOf("\n")) >= 0) {
        const line = output.slice(0, newline)
        output = output.slice(newline + 1)
        const waiter = waiters.shift()
        if (waiter === undefined) lines.push(line)
        else waiter(line)
      }
    })
    const next = Effect.callback<string, Error>((resume) => {
      if (lines.length > 0) return resume(Effect.succeed(lines.shift()!))
      waiters.push((line) => resume(Effect.succeed(line)))
      process_.once("exit", (code) => resume(Effect.fail(new Error(`exited ${code}: ${errors}`))))
    }).pipe(Effect.timeout("30 seconds"))
    assert.strictEqual(yield* next, "ready")
    return { round: Effect.andThen(Effect.sync(() => process_.stdin.write("go\n")), next) }
  })

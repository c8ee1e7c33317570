/**
 * Shared request limits on the project's real Redis, against the simulator
 * over loopback HTTP with its limits switched on: independent SDK instances
 * (each its own Redis connection and HttpClient) hammer many vehicles.
 *
 * The first tests (`concurrent`: a simulator or limiter and a key prefix of
 * their own, light work, most of their time spent waiting for a window or a
 * hold to pass) run at once; the application backlog (1,800 admits in 10 s,
 * in this process) and the tests after it run one at a time.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, ConfigProvider, Duration, Effect, Exit, Fiber, Layer, Option, Redacted } from "effect"
import { Redis } from "effect/persistence"
import { HttpClient, HttpClientRequest, HttpClientResponse } from "effect/http"
import { inject } from "vitest"
import { makeEnvelope } from "@connected-vehicle/schema/ServiceError"
import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as RedisServer from "@connected-vehicle/testing/RedisServer"
import * as Simulated from "@connected-vehicle/testing/Simulated"
import { isFleetError } from "@connected-vehicle/fleet/FleetError"
import * as SharedAccess from "@connected-vehicle/fleet/SharedAccess"
import * as SharedLimits from "@connected-vehicle/fleet/SharedLimits"
import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
import { freezableProxy } from "./proxy.ts"
import { freshPrefix, instance, readSignals, redisUrl, simulator, targets } from "./shared.ts"

const perVehicle = { limit: 4, window: "1 second" } as const
const perApplication = { limit: 60, window: "1 second" } as const
/** Runs alongside the adjacent tests marked so (see above). */
const concurrent = true

describe("SharedLimits", () => {
  it.live("three instances on one Redis: no vehicle over its limit, the application under its own, no 429", () =>
    Effect.gen(function*() {
      const sim = yield* simulator({ rateLimit: { perVehicle, perApplication } })
      // a margin of 300 ms: 150 ms of lateness allowed while a request waits for its other key, 150 ms for a loaded machine's jitter
      const options = { prefix: freshPrefix("limits"), perVehicle, perApplication, margin: "300 millis" } as const
      const instances = yield* Effect.all([instance(sim, options), instance(sim, options), instance(sim, options)])
      const vehicles = targets(sim, 10)
      // 3 instances x 10 vehicles x 5 reads: 15 reads per vehicle (4 per second), 150 for the application (60 per second)
      const calls = instances.flatMap((sdk) => vehicles.flatMap((target) => Array.from({ length: 5 }, () => Effect.provideContext(readSignals(target), sdk))))
      const started = yield* Clock.currentTimeMillis
      const exits = yield* Effect.all(calls.map(Effect.exit), { concurrency: "unbounded" })
      const elapsed = (yield* Clock.currentTimeMillis) - started
      assert.deepStrictEqual(exits.filter(Exit.isFailure), [])

      const usage = yield* sim.usage
      assert.strictEqual(usage.vehicles.length, 10)
      for (const vehicle of usage.vehicles) {
        assert.strictEqual(vehicle.accepted, 15, vehicle.vehicleId)
        assert.isAtMost(vehicle.maxInWindow, perVehicle.limit, vehicle.vehicleId)
        assert.strictEqual(vehicle.limited, 0, vehicle.vehicleId)
      }
      assert.isAtMost(usage.application.maxInWindow, perApplication.limit)
      assert.strictEqual(usage.application.limited, 0)
      // one token for the three instances
      assert.strictEqual(usage.tokenGrants.clientCredentials, 1)
      // 15 reads of a vehicle spread at 4 per 1.3 s take about 4.5 s
      assert.isAtLeast(elapsed, 3_000)
      console.log(`150 reads, 10 vehicles, 3 instances: ${elapsed} ms; max per vehicle window ${Math.max(...usage.vehicles.map((v) => v.maxInWindow))}, application ${usage.application.maxInWindow}`)
    }).pipe(Effect.scoped), { timeout: 60_000, concurrent })

  it.live("a backlog on one vehicle: each attempt sent right after its slot with the token read again, outside its timeout: no Timeout, no 429, the limit kept", () =>
    Effect.gen(function*() {
      // tokens live 2 s; 2 requests a second per vehicle: 12 calls at once take about 7 s, far beyond the 1 s timeout and a token's life
      // (the timeout also bounds each wait for a token renewal: 400 ms failed a call under a loaded CI machine)
      const perVehicle = { limit: 2, window: "1 second" } as const
      const sim = yield* simulator({ rateLimit: { perVehicle, perApplication }, accessTokenLifetime: "2 seconds" })
      const options = { prefix: freshPrefix("backlog"), perVehicle, perApplication, margin: "300 millis" } as const
      const transport = { timeout: 1_000, retry: { maxElapsed: "30 seconds" } } as const
      const instances = yield* Effect.all([instance(sim, options, redisUrl(), transport), instance(sim, options, redisUrl(), transport)])
      const [target] = targets(sim, 1)
      const calls = instances.flatMap((sdk) => Array.from({ length: 6 }, () => Effect.provideContext(readSignals(target!, { maxRetries: 0 }), sdk)))
      const started = yield* Clock.currentTimeMillis
      const exits = yield* Effect.all(calls.map(Effect.exit), { concurrency: "unbounded" })
      const elapsed = (yield* Clock.currentTimeMillis) - started
      // no call failed (no Timeout: with maxRetries 0, one would be the call's error)
      assert.deepStrictEqual(exits.filter(Exit.isFailure), [])
      const sent = (yield* sim.requests).filter((r) => r.path.startsWith(`/v3/vehicles/${target!.vehicleId}/`))
      // each request sent once with a live token, but for one whose token expired during the wait for
      // its slot when the renewal took longer than the read again after it (a loaded machine): that
      // one's 401 and its replay (admitted again); never a 429
      const unauthorized = sent.filter((r) => r.status === 401).length
      assert.deepStrictEqual(sent.filter((r) => r.status !== 200 && r.status !== 401).map((r) => r.status), [])
      assert.strictEqual(sent.filter((r) => r.status === 200).length, 12)
      assert.strictEqual(sent.length, 12 + unauthorized)
      assert.isAtMost(unauthorized, 4)
      const usage = yield* sim.usage
      const [vehicle] = usage.vehicles
      assert.isAtLeast(vehicle!.accepted, 12)
      assert.strictEqual(vehicle!.limited, 0)
      assert.isAtMost(vehicle!.maxInWindow, perVehicle.limit)
      // the calls outlived several tokens
      assert.isAtLeast(elapsed, 5_000)
      assert.isAtLeast(usage.tokenGrants.clientCredentials, 2)
      console.log(`backlog of 12 calls on one vehicle, 2 instances: ${elapsed} ms, ${usage.tokenGrants.clientCredentials} token grants, max in a window ${vehicle!.maxInWindow}`)
    }).pipe(Effect.scoped), { timeout: 60_000, concurrent })

  it.live("a slow token endpoint: the calls that waited for the token take their slots after it came, no burst: no 429, the limit kept", () =>
    Effect.gen(function*() {
      const sim = yield* simulator({ rateLimit: { perVehicle, perApplication } })
      // the token request is answered after 1.5 s: 10 calls of one vehicle wait for it
      yield* sim.injectFaults({ path: "/oauth/token", faults: [{ _tag: "Delay", delay: "1500 millis" }] })
      const options = { prefix: freshPrefix("slowtoken"), perVehicle, perApplication, margin: "300 millis" } as const
      const sdk = yield* instance(sim, options)
      const [target] = targets(sim, 1)
      const exits = yield* Effect.all(Array.from({ length: 10 }, () => Effect.exit(Effect.provideContext(readSignals(target!), sdk))), { concurrency: "unbounded" })
      assert.deepStrictEqual(exits.filter(Exit.isFailure), [])
      const [vehicle] = (yield* sim.usage).vehicles
      // before: the slots taken while the token was awaited, then every request sent at once when it came
      assert.strictEqual(vehicle!.limited, 0)
      assert.strictEqual(vehicle!.accepted, 10)
      assert.isAtMost(vehicle!.maxInWindow, perVehicle.limit)
    }).pipe(Effect.scoped), { timeout: 60_000, concurrent })

  it.live("a 429 makes every instance wait its retry-after for that vehicle; the call that got it succeeds after (the transport's retry)", () =>
    Effect.gen(function*() {
      const sim = yield* simulator()
      const options = { prefix: freshPrefix("hold"), perVehicle, perApplication }
      const [a, b] = yield* Effect.all([instance(sim, options), instance(sim, options)])
      const [held, free] = targets(sim, 2)
      yield* Effect.provideContext(readSignals(free!), a) // the token, fetched once
      yield* sim.injectFaults({ path: `/v3/vehicles/${held!.vehicleId}`, faults: [{ _tag: "Status", status: 429, retryAfter: "2" }] })

      const timed = <A, E>(effect: Effect.Effect<A, E>) =>
        Effect.gen(function*() {
          const start = yield* Clock.currentTimeMillis
          yield* effect
          return (yield* Clock.currentTimeMillis) - start
        })
      const first = yield* Effect.forkChild(timed(Effect.provideContext(readSignals(held!), a)))
      yield* Effect.sleep("300 millis")
      const [other, unrelated] = yield* Effect.all([
        timed(Effect.provideContext(readSignals(held!), b)),
        timed(Effect.provideContext(readSignals(free!), b))
      ], { concurrency: 2 })
      const firstTook = yield* Fiber.join(first)
      assert.isAtLeast(firstTook, 1_900) // waited the 2 s, then succeeded
      assert.isAtLeast(other, 1_500) // instance b waited for the rest of them (2 s - 300 ms), never sent meanwhile
      assert.isBelow(unrelated, 1_200) // another vehicle is not held
      const usage = yield* sim.usage
      const vehicle = usage.vehicles.find((v) => v.vehicleId === held!.vehicleId)
      assert.strictEqual(vehicle?.accepted, 2)
      // the 429 was answered once, and sent again once: by the transport, not by the limits as well
      const sent = (yield* sim.requests).filter((r) => r.path.startsWith(`/v3/vehicles/${held!.vehicleId}/`))
      assert.strictEqual(sent.length, 3)
    }).pipe(Effect.scoped), { timeout: 30_000, concurrent })

  it.live("a 429's retry-after is held for maxHold at most, in every instance; a hold found longer is cut to it", () =>
    Effect.gen(function*() {
      const prefix = freshPrefix("maxhold")
      const redis = yield* Layer.build(SharedRedis.layer({ url: redisUrl() }))
      const limits = Effect.provideContext(SharedLimits.make({ prefix, perVehicle: { limit: 100, window: "1 second" }, perApplication: false, maxHold: "1 second" }), redis)
      const [a, b] = yield* Effect.all([limits, limits])
      const read = (vehicleId: string) => HttpClientRequest.get(`http://service.test/v3/vehicles/${vehicleId}/signals`).pipe(HttpClientRequest.bearerToken("token"))
      const thirtyDays = HttpClient.make((request) =>
        Effect.succeed(HttpClientResponse.fromWeb(request, new Response("slow down", { status: 429, headers: { "retry-after": "2592000" } }))))
      assert.strictEqual((yield* a.transformClient(thirtyDays).execute(read("veh_1"))).status, 429)
      const pttl = (key: string) => Effect.provideContext(Effect.flatMap(Effect.service(Redis.Redis), (r) => r.send<number>("PTTL", `${prefix}hold:${key}`)), redis)
      const held = yield* pttl("vehicle:veh_1")
      assert.isAbove(held, 0)
      assert.isAtMost(held, 1_000)
      const waited = (admit: SharedLimits.SharedLimits["Service"]["admit"], vehicleId: string) =>
        Effect.gen(function*() {
          const start = yield* Clock.currentTimeMillis
          yield* admit(read(vehicleId))
          return (yield* Clock.currentTimeMillis) - start
        })
      const first = yield* waited(b.admit, "veh_1") // held, by instance a, for 1 s (not 30 days)
      assert.isAbove(first, 500)
      assert.isBelow(first, 1_500)

      // a hold set for 30 days (by a process without a cap) is cut to this one's when read
      yield* Effect.provideContext(Effect.flatMap(Effect.service(Redis.Redis), (r) => r.send("SET", `${prefix}hold:vehicle:veh_2`, "1", "PX", "2592000000")), redis)
      const second = yield* waited(b.admit, "veh_2")
      assert.isAbove(second, 500)
      assert.isBelow(second, 1_500)
      assert.isAtMost(yield* pttl("vehicle:veh_2"), 0)

      // in memory too; and the default cap is the transport's default rateLimit.maxWait
      const memory = yield* SharedLimits.makeMemory({ perVehicle: { limit: 100, window: "1 second" }, perApplication: false, maxHold: "1 second" })
      yield* memory.transformClient(thirtyDays).execute(read("veh_3"))
      const third = yield* waited(memory.admit, "veh_3")
      assert.isAbove(third, 500)
      assert.isBelow(third, 1_500)
      assert.strictEqual(Duration.toMillis(SharedLimits.defaultMaxHold), 20_000)
    }).pipe(Effect.scoped, Effect.timeout("20 seconds")), { timeout: 30_000, concurrent })

  it.live("without a per-vehicle limit, a vehicle's 429 holds it in every instance (and the application's hold too), capped by maxHold", () =>
    Effect.gen(function*() {
      const read = (vehicleId: string) => HttpClientRequest.get(`http://service.test/v3/vehicles/${vehicleId}/signals`).pipe(HttpClientRequest.bearerToken("token"))
      const tooMany = (retryAfter: string, code?: string) =>
        HttpClient.make((request) =>
          Effect.succeed(HttpClientResponse.fromWeb(request, new Response(
            code === undefined ? "slow down" : JSON.stringify(makeEnvelope("RATE_LIMIT", "limited", { status: 429, code, title: "Rate Limited" })),
            { status: 429, headers: { "retry-after": retryAfter } }
          ))))
      const waited = (admit: SharedLimits.SharedLimits["Service"]["admit"], vehicleId: string) =>
        Effect.gen(function*() {
          const start = yield* Clock.currentTimeMillis
          yield* admit(read(vehicleId))
          return (yield* Clock.currentTimeMillis) - start
        })
      for (const perApplication of [false, { limit: 100, window: "1 second" }] as const) {
        const prefix = freshPrefix("novehicle")
        const redis = yield* Layer.build(SharedRedis.layer({ url: redisUrl() }))
        const limits = Effect.provideContext(SharedLimits.make({ prefix, perVehicle: false, perApplication, maxHold: "1500 millis" }), redis)
        const [a, b] = yield* Effect.all([limits, limits])
        // instance a is told to back off veh_1 for 30 days: every instance holds it, for maxHold
        assert.strictEqual((yield* a.transformClient(tooMany("2592000")).execute(read("veh_1"))).status, 429)
        const [other, same, free] = yield* Effect.all([waited(b.admit, "veh_1"), waited(a.admit, "veh_1"), waited(b.admit, "veh_2")], { concurrency: 3 })
        assert.isAbove(other, 1_000, `instance b, perApplication ${JSON.stringify(perApplication)}`)
        assert.isBelow(other, 2_500)
        assert.isAbove(same, 1_000, "instance a")
        assert.isBelow(free, 500, "another vehicle is not held")
        // the application's hold, recorded by b, holds a's requests of every vehicle
        yield* b.transformClient(tooMany("1", "APPLICATION_RATE_LIMITED")).execute(read("veh_3"))
        assert.isAbove(yield* waited(a.admit, "veh_4"), 600, "application hold")
      }
      // in memory too
      const memory = yield* SharedLimits.makeMemory({ perVehicle: false, perApplication: false, maxHold: "1500 millis" })
      yield* memory.transformClient(tooMany("2592000")).execute(read("veh_1"))
      const held = yield* waited(memory.admit, "veh_1")
      assert.isAbove(held, 1_000)
      assert.isBelow(held, 2_500)
    }).pipe(Effect.scoped, Effect.timeout("30 seconds")), { timeout: 40_000, concurrent })

  it.live("without an application limit of its own, the service's APPLICATION_RATE_LIMITED holds every instance; no call lost", () =>
    Effect.gen(function*() {
      const sim = yield* simulator({ rateLimit: { perApplication: { limit: 3, window: "1 second" } } })
      const options = { prefix: freshPrefix("application"), perApplication: false } as const
      const [a, b] = yield* Effect.all([instance(sim, options), instance(sim, options)])
      // 12 calls at once, 3 per second: the last ones are refused three times before their turn
      const calls = [a, b].flatMap((sdk) => targets(sim, 6).map((target) => Effect.provideContext(readSignals(target, { maxRetries: 10 }), sdk)))
      const exits = yield* Effect.all(calls.map(Effect.exit), { concurrency: "unbounded" })
      assert.deepStrictEqual(exits.filter(Exit.isFailure), [])
      const usage = yield* sim.usage
      assert.strictEqual(usage.application.accepted, 12)
      assert.isAbove(usage.application.limited, 0) // the service refused some; they were sent again after its retry-after
    }).pipe(Effect.scoped), { timeout: 30_000, concurrent })

  it.live("a 429 is passed on once, unchanged, its hold recorded: the error envelope's code names the application, any other body the vehicle", () =>
    Effect.gen(function*() {
      const envelope = (code: string) => JSON.stringify(makeEnvelope("RATE_LIMIT", `limited (not ${code === "APPLICATION_RATE_LIMITED" ? "a vehicle" : "APPLICATION_RATE_LIMITED"})`, { status: 429, code, title: "Rate Limited" }))
      const cases = [
        { body: envelope("APPLICATION_RATE_LIMITED"), holds: "application" },
        { body: envelope("VEHICLE_RATE_LIMITED"), holds: "vehicle" }, // its detail mentions APPLICATION_RATE_LIMITED: only the code counts
        { body: "APPLICATION_RATE_LIMITED, in plain text", holds: "vehicle" } // not an envelope: the vehicle
      ] as const
      for (const { body, holds } of cases) {
        let sent = 0
        const service = HttpClient.make((request) =>
          Effect.sync(() => {
            sent++
            return HttpClientResponse.fromWeb(request, new Response(body, { status: 429, headers: { "retry-after": "2" } }))
          })
        )
        const limits = yield* SharedLimits.makeMemory({ perVehicle: false, perApplication: false })
        const client = limits.transformClient(service)
        const read = (vehicleId: string) => HttpClientRequest.get(`http://service.test/v3/vehicles/${vehicleId}/signals`).pipe(HttpClientRequest.bearerToken("token"))
        const response = yield* client.execute(read("veh_1"))
        assert.strictEqual(response.status, 429)
        assert.strictEqual(yield* response.text, body)
        assert.strictEqual(sent, 1, holds) // not sent again here: retrying is the transport's
        const start = yield* Clock.currentTimeMillis
        yield* limits.admit(read("veh_2"))
        const waited = (yield* Clock.currentTimeMillis) - start
        if (holds === "application") assert.isAtLeast(waited, 1_500, body)
        else assert.isBelow(waited, 1_000, body)
      }
    }), { timeout: 30_000, concurrent })

  it.live("Redis gone: a call fails with a typed error (a transport failure), without hanging", () =>
    Effect.gen(function*() {
      const sim = yield* simulator()
      const server = yield* Effect.promise(() => RedisServer.start())
      const sdk = yield* instance(sim, { prefix: freshPrefix("down"), timeout: "1 second" }, Redacted.make(server.url))
      const [target] = targets(sim, 1)
      yield* Effect.provideContext(readSignals(target!), sdk)
      yield* Effect.promise(() => server.stop())
      const error = yield* Effect.flip(Effect.provideContext(readSignals(target!, { maxRetries: 0 }), sdk))
      assert.strictEqual(error._tag, "ConnectedVehicleError")
      assert.include(error.message, "Redis")
    }).pipe(Effect.scoped, Effect.timeout("20 seconds")), { timeout: 30_000, concurrent })

  it.live("Redis refuses the limiter's write (a read-only replica after a failover): the error names Redis' answer, its FleetError the cause", () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(Effect.promise(() => RedisServer.start()), (server) => Effect.promise(() => server.stop()))
      const redis = yield* Layer.build(SharedRedis.layer({ url: Redacted.make(server.url) }))
      const limits = yield* Effect.provideContext(SharedLimits.make({ prefix: freshPrefix("readonly") }), redis)
      // a replica of a primary it never reaches: reads answered, writes refused with READONLY
      yield* Effect.provideContext(Effect.flatMap(Effect.service(Redis.Redis), (r) => r.send("REPLICAOF", "127.0.0.1", "1")), redis)
      const error = yield* Effect.flip(limits.admit(HttpClientRequest.get("http://service.test/v3/vehicles/veh_1/signals")))
      assert.strictEqual(error.reason._tag, "Connection")
      assert.include(error.message, "READONLY")
      // refused before it was sent: nothing of the request reached the service
      assert.isTrue(error.reason._tag === "Connection" && error.reason.sent === false)
      const cause = error.reason._tag === "Connection" ? error.reason.cause : undefined
      assert.isTrue(isFleetError(cause) && cause.reason._tag === "RedisUnavailable")
    }).pipe(Effect.scoped, Effect.timeout("20 seconds")), 30_000)

  it.live("a backlog of the application: requests of free vehicles wait for the application's slots only, none thrown away", () =>
    Effect.gen(function*() {
      // 180 requests a second for 10 s, each for a vehicle of its own, over an application limit of 200 per 1.2 s (166 a second):
      // the last waits about 0.8 s; reserving each vehicle's slot before the application's made the median wait 3.5 s
      const limits = yield* SharedLimits.makeMemory({ perVehicle: { limit: 1, window: "1 second" }, perApplication: { limit: 200, window: "1 second" } })
      const rate = 180
      const waits: Array<number> = []
      const one = (i: number) =>
        Effect.gen(function*() {
          yield* Effect.sleep(Math.floor((i * 1000) / rate))
          const start = yield* Clock.currentTimeMillis
          yield* limits.admit(HttpClientRequest.get(`http://service.test/v3/vehicles/veh_${i}/signals`))
          waits.push((yield* Clock.currentTimeMillis) - start)
        })
      yield* Effect.forEach(Array.from({ length: rate * 10 }, (_, i) => i), one, { concurrency: "unbounded", discard: true })
      waits.sort((a, b) => a - b)
      const median = waits[waits.length >> 1]!
      console.log(`application backlog: admit waits median ${median} ms, p90 ${waits[Math.floor(waits.length * 0.9)]} ms, max ${waits.at(-1)} ms`)
      // about 0.4 s expected; the defect it guards against waited 3.5 s (the margin is for a loaded machine: real time)
      assert.isAtMost(median, 2_500)
    }), 60_000)

  it.live("in memory: a legacy batch counts each entry against its vehicle", () =>
    Effect.gen(function*() {
      const shared = yield* SharedAccess.makeMemory({ perVehicle, perApplication: false, margin: "300 millis" })
      const program = Effect.gen(function*() {
        const vehicles = yield* Vehicles
        const { vehicles: [first] } = yield* vehicles.list()
        yield* Effect.all(
          Array.from({ length: 2 }, () => vehicles.batch(first!, ["/odometer", "/vin", "/location"]).pipe(Effect.andThen(vehicles.odometer(first!)))),
          { concurrency: "unbounded" }
        )
        return first!
      })
      const sdk = Simulated.layer({ loopback: true, simulator: { rateLimit: { perVehicle } }, ...shared })
      const usage = yield* Effect.gen(function*() {
        yield* program
        return yield* (yield* Simulator).usage
      }).pipe(Effect.provide(sdk))
      const [vehicle] = usage.vehicles
      assert.strictEqual(vehicle!.accepted, 8) // 2 batches of 3 entries, 2 reads
      assert.isAtMost(vehicle!.maxInWindow, perVehicle.limit)
      assert.strictEqual(vehicle!.limited, 0)
    }), 30_000)

  it.live("layerConfig: REDIS_URL chooses Redis (an unreachable one fails the layer), its absence memory", () =>
    Effect.gen(function*() {
      const env = (vars: Record<string, string>) => ConfigProvider.layer(ConfigProvider.fromEnv({ env: vars }))
      const inMemory = yield* Layer.build(SharedLimits.layerConfig()).pipe(Effect.provide(env({})), Effect.scoped, Effect.exit)
      assert.isTrue(Exit.isSuccess(inMemory))
      const unreachable = yield* Layer.build(SharedLimits.layerConfig()).pipe(
        Effect.provide(env({ REDIS_URL: "redis://127.0.0.1:1" })),
        Effect.scoped,
        Effect.flip
      )
      assert.strictEqual(unreachable.reason._tag, "RedisUnavailable")
      const onRedis = yield* Layer.build(SharedLimits.layerConfig()).pipe(Effect.provide(env({ REDIS_URL: inject("redisUrl") })), Effect.scoped, Effect.exit)
      assert.isTrue(Exit.isSuccess(onRedis))
    }).pipe(Effect.timeout("10 seconds")))

  it.effect("a limit that is not a positive integer per a positive window is a Configuration error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(SharedLimits.makeMemory({ perVehicle: { limit: 0.5, window: "1 second" } }))
      assert.strictEqual(error.reason._tag, "Configuration")
      assert.include(error.message, "perVehicle.limit")
    }))

  it.effect("a window, margin or timeout that is not a duration is a Configuration error naming the option, not a defect", () =>
    Effect.gen(function*() {
      const cases = [
        [{ perApplication: { limit: 5, window: "soon" as never } }, "perApplication.window"],
        [{ perVehicle: { limit: 5, window: "0 seconds" } }, "perVehicle.window"],
        [{ margin: "a bit" as never }, "margin"],
        [{ timeout: "-1 seconds" as never }, "timeout"],
        [{ maxHold: "banana" as never }, "maxHold"],
        [{ maxHold: Number.NaN }, "maxHold"]
      ] as const
      for (const [options, name] of cases) {
        const error = yield* Effect.flip(SharedLimits.makeMemory(options))
        assert.strictEqual(error.reason._tag, "Configuration", name)
        assert.include(error.message, name)
      }
    }))

  it.live("Redis unreachable: the layer fails with RedisUnavailable, at once", () =>
    Effect.gen(function*() {
      const error = yield* Layer.build(SharedRedis.layer({ url: Redacted.make("redis://127.0.0.1:1") })).pipe(Effect.scoped, Effect.flip)
      assert.strictEqual(error.reason._tag, "RedisUnavailable")
    }).pipe(Effect.timeout("5 seconds")))

  it.live("Redis accepts the connection and never answers: the layer fails with RedisUnavailable within connectTimeout; a timeout interrupts it", () =>
    Effect.gen(function*() {
      const url = new URL(inject("redisUrl"))
      const proxy = yield* freezableProxy(Number(url.port))
      proxy.freeze()
      url.port = String(proxy.port)
      const build = (connectTimeout: Duration.Input) => Layer.build(SharedRedis.layer({ url: Redacted.make(url.toString()), connectTimeout })).pipe(Effect.scoped)
      const started = yield* Clock.currentTimeMillis
      const error = yield* Effect.flip(build("1 second"))
      assert.strictEqual(error.reason._tag, "RedisUnavailable")
      assert.include(error.message, "no answer within 1000 ms")
      assert.isBelow((yield* Clock.currentTimeMillis) - started, 3_000)
      const interrupted = yield* Effect.timeoutOption(build("1 minute"), "300 millis")
      assert.isTrue(Option.isNone(interrupted))
      assert.isBelow((yield* Clock.currentTimeMillis) - started, 5_000)
    }).pipe(Effect.scoped, Effect.timeout("20 seconds")), 30_000)
})

/**
 * Proof under failure, on the project's real Postgres and Redis (see
 * `globalSetup.ts`): three runner processes (the vehicle entities,
 * `FleetCluster` on Postgres, short shard locks) and two receiver processes
 * (`DurableReceiver` and a `Worker` sending each event to its vehicle's
 * entity); the simulator, in this process on 127.0.0.1, delivers a burst
 * (duplicates, lost acknowledgements so retries, reordering, a few poison
 * events the receivers' handler refuses) to both receivers, one webhook
 * each, a retry going to the other one. Midway, one runner and one receiver
 * are killed with SIGKILL. An idle vehicle is polled through v3 on the
 * simulator, whose per-vehicle and application request limits are on and
 * whose tokens live a few seconds; the runners share the limits and the
 * application token on Redis (`SharedAccess`). At the end: every event
 * applied exactly once, the state table equal to the burst's ground truth
 * (polls agreeing with it), dead letters for the poison events only, every
 * shard on the two surviving runners, one token grant per expiry across the
 * runners, and no vehicle over its limit.
 *
 * Sizes: `FLEET_PROOF_EVENTS` events for `FLEET_PROOF_VEHICLES` vehicles,
 * by default 5,000 for 500: about 75 s on this project's 2-core machine
 * (shared with other work; the deliveries are paced over about a minute),
 * and little enough work for the whole suite to stay within the CI budget
 * (with 8,000 for 800, 71 s alone, the suite took 9.7 minutes).
 * `FLEET_PROOF_EVENTS=20000 FLEET_PROOF_VEHICLES=2000`, the size the fleet
 * is meant to prove, took about 8 minutes there (see the README).
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { inject } from "vitest"
import * as Database from "@connected-vehicle/fleet/Database"
import { DEFAULT_BURST_SIGNALS, type GroundTruth } from "@connected-vehicle/simulator/Burst"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { type Child, start } from "./children.ts"
import { secret } from "./fixtures.ts"
import { eventually } from "./stateFixtures.ts"
import { freePort, freshDatabase } from "./utils.ts"

const events = Number(process.env.FLEET_PROOF_EVENTS ?? "5000")
const vehicles = Number(process.env.FLEET_PROOF_VEHICLES ?? "500")
const shardsPerGroup = 60
const poisonEventIds = ["evt_poison_1", "evt_poison_2", "evt_poison_3"]
/** The simulator's limits, per second, which the runners share on Redis. */
const limits = { vehicle: 1, application: 200 }
/** Tokens live 10 s and are due 4 s before: one grant every 6 s of polling, at most. */
const token = { lifetimeMs: 10_000, refreshAheadMs: 4_000 }
/** A vehicle is polled after this long without an event: 20 s, longer for many vehicles (at most 40 polls a second). */
const pollIntervalMs = Math.max(20_000, vehicles * 25)
/** Deliveries started per second: the burst lasts about a minute (what the runners apply meanwhile, more or less). */
const deliveryRate = Math.max(100, Math.round(events / 60))

/** With `FLEET_PROOF_LOG_DIR`, runner `i` logs every line, debug included, to `runner-<i>.log` there (see `processes/runner.ts`). */
const logOf = (i: number): Record<string, string> =>
  process.env.FLEET_PROOF_LOG_DIR ? { RUNNER_LOG: `${process.env.FLEET_PROOF_LOG_DIR}/runner-${i}.log` } : {}

const shardsOf = (runner: Child) => Number(runner.last(/^shards (\d+)$/)?.[1] ?? "0")

/** Every shard held, by these runners only, each holding some. */
const shardsSpread = (runners: ReadonlyArray<Child>) =>
  Effect.sync(() => {
    const held = runners.map(shardsOf)
    return held.every((n) => n > 0) && held.reduce((a, b) => a + b, 0) === shardsPerGroup
  })

/** Three runners and two receivers on `url`, the runners polling `sim`; the receivers' ports. */
const startFleet = (url: Redacted.Redacted<string>, sim: Simulator.Simulator["Service"]) =>
  Effect.gen(function*() {
    const common = { DATABASE_URL: Redacted.value(url), SHARDS_PER_GROUP: String(shardsPerGroup) }
    const polls = {
      SIM_URL: sim.url,
      CLIENT_ID: sim.clientId,
      CLIENT_SECRET: Redacted.value(sim.clientSecret),
      POLL_INTERVAL_MS: String(pollIntervalMs),
      POLL_SIGNALS: DEFAULT_BURST_SIGNALS.join(","),
      REDIS_URL: inject("redisUrl"),
      PREFIX: `test:proof:${process.pid}:${Date.now()}:`,
      VEHICLE_LIMIT: String(limits.vehicle),
      APPLICATION_LIMIT: String(limits.application),
      REFRESH_AHEAD_MS: String(token.refreshAheadMs)
    }
    const runners = yield* Effect.forEach([0, 1, 2], (i) =>
      Effect.flatMap(freePort, (port) =>
        start(`runner ${i}`, "runner", { ...common, ...polls, FLEET_RUNNER_PORT: String(port), ...logOf(i) }, {
          quiet: /^(shards|polls) \d+$/,
          counted: /polling vehicle \S+ failed/
        })))
    yield* eventually(shardsSpread(runners), 60_000)
    const receivers = yield* Effect.forEach([0, 1], (i) =>
      start(`receiver ${i}`, "receiver", {
        ...common,
        WEBHOOK_SECRET: Redacted.value(secret),
        POISON: poisonEventIds.join(",")
      }))
    const ports = yield* Effect.forEach(receivers, (receiver) => Effect.map(receiver.waitFor(/^listening (\d+)$/), (m) => Number(m[1])))
    return { runners, receivers, ports }
  })

/** Queries on the test's database through one small pool (polling it must not load the machine). */
const connect = (url: Redacted.Redacted<string>) =>
  Effect.map(Layer.build(Database.layer({ url, maxConnections: 2 })), (context) => {
    const sql = Context.get(context, SqlClient.SqlClient)
    const rows = <A extends object>(text: string) => Effect.orDie(sql.unsafe<A>(text))
    const count = (text: string) => Effect.map(rows<{ n: string }>(text), (all) => Number(all[0]!.n))
    return { rows, count, applied: count("SELECT count(*) AS n FROM fleet_applied_events") }
  })

type Db = Effect.Success<ReturnType<typeof connect>>

/** Every half second, up to `timeoutMs`. */
const slowly = <E, R>(check: Effect.Effect<boolean, E, R>, timeoutMs: number) => eventually(check, timeoutMs, "500 millis")

describe("proof under failure", () => {
  it.live(`${events} events for ${vehicles} vehicles, 3 runners and 2 receivers, one of each killed midway: each event applied once`, () =>
    Effect.gen(function*() {
      const url = freshDatabase("proof")
      const db = yield* connect(url)
      const sim = yield* Simulator.Simulator
      const fleetAt = Date.now()
      const { ports, receivers, runners } = yield* startFleet(url, sim)
      for (const [i, port] of ports.entries()) {
        yield* sim.createWebhook({ name: `receiver ${i}`, callbackUri: `http://127.0.0.1:${port}/webhooks`, triggers: ["odometer-traveleddistance"], data: [] })
      }

      const startedAt = Date.now()
      yield* sim.startBurst({
        events, vehicles, ratePerSecond: deliveryRate, seed: 23, maxInFlight: 64,
        duplicateRatio: 0.05, lostAckRatio: 0.02, reorderWindow: 50, failover: true, poisonEventIds,
        retryDelays: ["200 millis", "500 millis", "1 second", "2 seconds", "3 seconds", "5 seconds"]
      })
      // midway: half the deliveries settled (the rest go to the surviving receiver), the runners busy applying
      yield* slowly(Effect.map(sim.burst, (progress) => progress.settled >= progress.deliveries / 2), 600_000)
      runners[0]!.kill()
      receivers[0]!.kill()
      const killedAt = Date.now()
      console.log(`proof: runner 0 and receiver 0 killed (SIGKILL) ${((killedAt - startedAt) / 1000).toFixed(1)} s after the burst started, ${yield* db.applied} events applied`)

      const done = yield* sim.awaitBurst
      const truth = yield* sim.burstTruth
      const distinct = truth.events.filter((event) => !event.poison)
      yield* slowly(Effect.map(db.applied, (n) => n >= distinct.length), 600_000)
      yield* slowly(Effect.map(db.count("SELECT count(*) AS n FROM fleet_dead_letters"), (n) => n >= poisonEventIds.length), 60_000)
      const appliedAt = Date.now()
      yield* eventually(shardsSpread(runners.slice(1)), 60_000)
      // in Postgres too: every shard's advisory lock held, by two sessions (the survivors' lock sessions), none left to the killed runner
      const locks = yield* db.rows<{ sessions: string; n: string }>(
        "SELECT count(DISTINCT pid) AS sessions, count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 " +
          "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")
      assert.deepStrictEqual([Number(locks[0]!.sessions), Number(locks[0]!.n)], [2, shardsPerGroup])
      console.log(
        `proof: ${distinct.length} events (${done.attempts} deliveries: ${done.duplicates} duplicates, ${done.retries} retries) ` +
          `applied in ${((appliedAt - startedAt) / 1000).toFixed(1)} s, the last ${((appliedAt - killedAt) / 1000).toFixed(1)} s after the kill; ` +
          `shards ${runners.slice(1).map(shardsOf).join(" + ")}`
      )

      assert.strictEqual(done.dropped, 0)
      assert.isAbove(done.duplicates, 0)
      assert.isAbove(done.retries, 0)
      yield* checkEndState(db, truth)
      yield* checkRequests(sim, Date.now() - fleetAt, runners)
    }).pipe(
      Effect.scoped,
      Effect.provide(Simulator.layer({
        port: 0, seed: 11, vehicles, connections: vehicles, users: 50, webhookSecret: secret,
        rateLimit: { perVehicle: { limit: limits.vehicle, window: "1 second" }, perApplication: { limit: limits.application, window: "1 second" } },
        accessTokenLifetime: token.lifetimeMs
      }))
    ), 900_000)
})

/** The tables against the burst's ground truth. */
const checkEndState = (db: Db, truth: GroundTruth) =>
  Effect.gen(function*() {
    const distinct = truth.events.filter((event) => !event.poison).map((event) => event.eventId).sort()
    const applied = yield* db.rows<{ event_id: string }>(
      "SELECT event_id FROM fleet_applied_events ORDER BY event_id COLLATE \"C\"")
    assert.strictEqual(applied.length, distinct.length)
    assert.deepStrictEqual(applied.map((row) => row.event_id), [...distinct].sort(compare))

    const letters = yield* db.rows<{ event_id: string }>("SELECT event_id FROM fleet_dead_letters ORDER BY event_id")
    assert.deepStrictEqual(letters.map((row) => row.event_id), [...poisonEventIds].sort())

    const rows = yield* db.rows<{ vehicle_id: string; code: string; body: string; event_id: string; at: string }>(
      "SELECT vehicle_id, code, body::text AS body, event_id, to_json(oem_updated_at)#>>'{}' AS at FROM fleet_signal_state")
    const byKey = new Map(rows.map((row) => [`${row.vehicle_id} ${row.code}`, row]))
    for (const value of truth.latest) {
      const row = byKey.get(`${value.vehicleId} ${value.code}`)
      // set by its event, or by a poll that read the same value first (the simulator serves the newest from the start)
      const setBy = row?.event_id.startsWith(`poll:${value.vehicleId}:`) ? value.eventId : row?.event_id
      assert.deepStrictEqual(
        row && [JSON.parse(row.body), Date.parse(row.at), setBy],
        [value.body, Date.parse(value.oemUpdatedAt), value.eventId],
        `${value.vehicleId} ${value.code}`
      )
      byKey.delete(`${value.vehicleId} ${value.code}`)
    }
    // the rest: signals a vehicle's events did not carry, read by its polls
    assert.deepStrictEqual([...byKey.values()].filter((row) => !row.event_id.startsWith(`poll:${row.vehicle_id}:`)), [])
  })

/** The simulator's counters: one token grant per expiry across the runners, no vehicle over its limit. */
const checkRequests = (sim: Simulator.Simulator["Service"], elapsedMs: number, runners: ReadonlyArray<Child>) =>
  Effect.gen(function*() {
    const usage = yield* sim.usage
    // as each runner last printed them (the killed one's until its kill)
    const polls = runners.reduce((n, runner) => n + Number(runner.last(/^polls (\d+)$/)?.[1] ?? "0"), 0)
    const failedPolls = runners.reduce((n, runner) => n + runner.counted(), 0)
    const grants = usage.tokenGrants.clientCredentials
    // a token is renewed every (lifetime - refresh ahead) while polls go on; + 1 for the first, + 1 for a lease its holder took to the grave
    const bound = Math.ceil(elapsedMs / (token.lifetimeMs - token.refreshAheadMs)) + 2
    const busiest = Math.max(0, ...usage.vehicles.map((vehicle) => vehicle.maxInWindow))
    console.log(
      `proof: ${polls} polls (${failedPolls} failed), ${usage.application.accepted} requests (${usage.application.limited} answered 429) over ${usage.vehicles.length} vehicles ` +
        `in ${(elapsedMs / 1000).toFixed(1)} s; ${grants} token grants (at most ${bound}); most requests of a vehicle in a window ${busiest}, ` +
        `of the application ${usage.application.maxInWindow}`
    )
    assert.isAbove(polls, 0)
    assert.isAtLeast(grants, 2)
    assert.isAtMost(grants, bound)
    assert.isAtMost(busiest, limits.vehicle)
    assert.isAtMost(usage.application.maxInWindow, limits.application)
  })

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

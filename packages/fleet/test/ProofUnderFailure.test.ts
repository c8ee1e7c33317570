/**
 * Proof under failure, on the project's real Postgres and Redis (see
 * `globalSetup.ts`): three runner processes (the vehicle entities,
 * `FleetCluster` on Postgres, short shard locks) and two receiver processes
 * (`DurableReceiver` and a `Worker` sending each event to its vehicle's
 * entity); the simulator, in this process on 127.0.0.1, delivers a burst
 * (duplicates, lost acknowledgements so retries, reordering, a few poison
 * events the receivers' handler refuses) to both receivers, one webhook
 * each, a retry going to the other one. Midway, one runner and one receiver
 * are killed with SIGKILL. At the end: every event applied exactly once, the
 * state table equal to the burst's ground truth, dead letters for the poison
 * events only, and every shard on the two surviving runners.
 *
 * Sizes: `FLEET_PROOF_EVENTS` events (default 20,000) for
 * `FLEET_PROOF_VEHICLES` vehicles (default 2,000).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import type { GroundTruth } from "@connected-vehicle/simulator/Burst"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { type Child, start } from "./children.ts"
import { secret } from "./fixtures.ts"
import { eventually } from "./stateFixtures.ts"
import { freePort, freshDatabase, query } from "./utils.ts"

const events = Number(process.env.FLEET_PROOF_EVENTS ?? "20000")
const vehicles = Number(process.env.FLEET_PROOF_VEHICLES ?? "2000")
const shardsPerGroup = 60
const poisonEventIds = ["evt_poison_1", "evt_poison_2", "evt_poison_3"]

const shardsOf = (runner: Child) => Number(runner.last(/^shards (\d+)$/)?.[1] ?? "0")

/** Every shard held, by these runners only, each holding some. */
const shardsSpread = (runners: ReadonlyArray<Child>) =>
  Effect.sync(() => {
    const held = runners.map(shardsOf)
    return held.every((n) => n > 0) && held.reduce((a, b) => a + b, 0) === shardsPerGroup
  })

/** Three runners and two receivers on `url`; the receivers' ports. */
const startFleet = (url: Redacted.Redacted<string>) =>
  Effect.gen(function*() {
    const common = { DATABASE_URL: Redacted.value(url), SHARDS_PER_GROUP: String(shardsPerGroup) }
    const runners = yield* Effect.forEach([0, 1, 2], (i) =>
      Effect.flatMap(freePort, (port) =>
        start(`runner ${i}`, "runner", { ...common, FLEET_RUNNER_PORT: String(port) }, /^shards \d+$/)))
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

const count = (url: Redacted.Redacted<string>, text: string) =>
  Effect.map(query<{ n: string }>(url, text), (rows) => Number(rows[0]!.n))

const appliedEvents = (url: Redacted.Redacted<string>) =>
  count(url, "SELECT count(*) AS n FROM fleet_applied_events WHERE event_id NOT LIKE 'poll:%'")

describe("proof under failure", () => {
  it.live(`${events} events for ${vehicles} vehicles, 3 runners and 2 receivers, one of each killed midway: each event applied once`, () =>
    Effect.gen(function*() {
      const url = freshDatabase("proof")
      const sim = yield* Simulator.Simulator
      const { ports, receivers, runners } = yield* startFleet(url)
      for (const [i, port] of ports.entries()) {
        yield* sim.createWebhook({ name: `receiver ${i}`, callbackUri: `http://127.0.0.1:${port}/webhooks`, triggers: ["odometer-traveleddistance"], data: [] })
      }

      const startedAt = Date.now()
      yield* sim.startBurst({
        events, vehicles, ratePerSecond: 1_000, seed: 23, maxInFlight: 64,
        duplicateRatio: 0.05, lostAckRatio: 0.02, reorderWindow: 50, failover: true, poisonEventIds,
        retryDelays: ["200 millis", "500 millis", "1 second", "2 seconds", "3 seconds", "5 seconds"]
      })
      yield* eventually(Effect.map(appliedEvents(url), (n) => n >= events / 2), 600_000)
      runners[0]!.kill()
      receivers[0]!.kill()
      const killedAt = Date.now()
      console.log(`proof: runner 0 and receiver 0 killed (SIGKILL) ${((killedAt - startedAt) / 1000).toFixed(1)} s after the burst started`)

      const done = yield* sim.awaitBurst
      const truth = yield* sim.burstTruth
      const distinct = truth.events.filter((event) => !event.poison)
      yield* eventually(Effect.map(appliedEvents(url), (n) => n >= distinct.length), 600_000)
      yield* eventually(Effect.map(count(url, "SELECT count(*) AS n FROM fleet_dead_letters"), (n) => n >= poisonEventIds.length), 60_000)
      const appliedAt = Date.now()
      yield* eventually(shardsSpread(runners.slice(1)), 60_000)
      console.log(
        `proof: ${distinct.length} events (${done.attempts} deliveries: ${done.duplicates} duplicates, ${done.retries} retries) ` +
          `applied in ${((appliedAt - startedAt) / 1000).toFixed(1)} s, the last ${((appliedAt - killedAt) / 1000).toFixed(1)} s after the kill; ` +
          `shards ${runners.slice(1).map(shardsOf).join(" + ")}`
      )

      assert.strictEqual(done.dropped, 0)
      assert.isAbove(done.duplicates, 0)
      assert.isAbove(done.retries, 0)
      yield* checkEndState(url, truth)
    }).pipe(
      Effect.scoped,
      Effect.provide(Simulator.layer({ port: 0, seed: 11, vehicles, connections: vehicles, users: 50, webhookSecret: secret }))
    ), 900_000)
})

/** The tables against the burst's ground truth. */
const checkEndState = (url: Redacted.Redacted<string>, truth: GroundTruth) =>
  Effect.gen(function*() {
    const distinct = truth.events.filter((event) => !event.poison).map((event) => event.eventId).sort()
    const applied = yield* query<{ event_id: string }>(url,
      "SELECT event_id FROM fleet_applied_events WHERE event_id NOT LIKE 'poll:%' ORDER BY event_id COLLATE \"C\"")
    assert.strictEqual(applied.length, distinct.length)
    assert.deepStrictEqual(applied.map((row) => row.event_id), [...distinct].sort(compare))

    const letters = yield* query<{ event_id: string }>(url, "SELECT event_id FROM fleet_dead_letters ORDER BY event_id")
    assert.deepStrictEqual(letters.map((row) => row.event_id), [...poisonEventIds].sort())

    const rows = yield* query<{ vehicle_id: string; code: string; body: string; event_id: string; at: string }>(url,
      "SELECT vehicle_id, code, body::text AS body, event_id, to_json(oem_updated_at)#>>'{}' AS at FROM fleet_signal_state")
    const byKey = new Map(rows.map((row) => [`${row.vehicle_id} ${row.code}`, row]))
    for (const value of truth.latest) {
      const row = byKey.get(`${value.vehicleId} ${value.code}`)
      assert.deepStrictEqual(
        row && [JSON.parse(row.body), Date.parse(row.at), row.event_id],
        [value.body, Date.parse(value.oemUpdatedAt), value.eventId],
        `${value.vehicleId} ${value.code}`
      )
      byKey.delete(`${value.vehicleId} ${value.code}`)
    }
    assert.deepStrictEqual([...byKey.keys()], [])
  })

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

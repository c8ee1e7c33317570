/**
 * The fleet state on the project's real Postgres (see `globalSetup.ts`):
 * the SQL tables on their own, a simulator burst delivered over loopback
 * HTTP to a durable receiver and applied by the vehicle entities of one
 * runner, and two runners sharing the shards, one of them stopping. Each
 * test has a database of its own; the three marked `concurrent` (a burst,
 * runners stopping or killed: mostly waiting for deliveries and shard locks)
 * run at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeHttpServer } from "@effect/platform-node"
import { spawn } from "node:child_process"
import { createServer } from "node:http"
import { join } from "node:path"
import { Context, DateTime, Effect, Exit, Fiber, Layer, Metric, Redacted, Schedule, Schema, Scope, Stream } from "effect"
import { Sharding, ShardId } from "effect/cluster"
import * as Database from "@connected-vehicle/fleet/Database"
import * as DurableReceiver from "@connected-vehicle/fleet/DurableReceiver"
import * as FleetCluster from "@connected-vehicle/fleet/FleetCluster"
import * as FleetMetrics from "@connected-vehicle/fleet/FleetMetrics"
import * as FleetState from "@connected-vehicle/fleet/FleetState"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import * as VehicleEntity from "@connected-vehicle/fleet/VehicleEntity"
import * as Worker from "@connected-vehicle/fleet/Worker"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as Simulated from "@connected-vehicle/testing/Simulated"
import { secret } from "./fixtures.ts"
import { eventually, fastSharding } from "./stateFixtures.ts"
import { freePort, freshDatabase, query } from "./utils.ts"

const odometer = "odometer-traveleddistance"
const charge = "tractionbattery-stateofcharge"

const fast = fastSharding

/** Runs alongside the adjacent tests marked so (see above). */
const concurrent = true

/** A runner on Postgres at `url` (its own pool and port), built into the test's scope. */
const runner = (url: Redacted.Redacted<string>, options?: FleetCluster.Options) =>
  Effect.gen(function*() {
    const port = yield* freePort
    return yield* Layer.build(Layer.fresh(
      FleetCluster.layerPostgres({ url, maxConnections: 6, runnerAddress: { host: "127.0.0.1", port }, shardingConfig: fast, ...options })
    ))
  })

const reading = (code: string, value: number, at: string): FleetState.Reading =>
  Schema.decodeUnknownSync(FleetState.Reading)({ code, name: code, group: "G", body: { unit: "u", value }, oemUpdatedAt: at })

/** The definitions of the valid indexes of `table`. */
const validIndexes = (url: Redacted.Redacted<string>, table: string) =>
  Effect.map(
    query<{ def: string }>(url, `SELECT pg_get_indexdef(i.indexrelid) AS def FROM pg_index i WHERE i.indrelid = to_regclass('${table}') AND i.indisvalid`),
    (rows) => rows.map((row) => row.def)
  )

const NoPolls = Simulated.layer({ signIn: false })

describe("FleetState on Postgres", () => {
  it.live("the SQL tables: newest by oemUpdatedAt wins, an event applied once across two instances, changedSince", () =>
    Effect.gen(function*() {
      const url = freshDatabase("state")
      // two instances starting at once (each creates the tables if missing)
      const instance = Layer.build(Layer.fresh(FleetState.layerSql().pipe(Layer.provide(Database.layer({ url, maxConnections: 4 })))))
      const [a, b] = yield* Effect.all([instance, instance], { concurrency: 2 }).pipe(
        Effect.map(([x, y]) => [Context.get(x, FleetState.FleetState), Context.get(y, FleetState.FleetState)] as const)
      )
      const since = yield* DateTime.now
      const first = yield* a.apply({ vehicleId: "veh_1", eventId: "evt_2", readings: [reading(odometer, 200, "2025-08-26T11:00:00.000Z")] })
      assert.deepStrictEqual(first.changes.map((c) => [c.code, c.body.value]), [[odometer, 200]])
      const older = yield* b.apply({
        vehicleId: "veh_1",
        eventId: "evt_1",
        readings: [reading(odometer, 100, "2025-08-26T10:00:00.000Z"), reading(charge, 50, "2025-08-26T10:00:00.000Z")]
      })
      assert.deepStrictEqual(older.changes.map((c) => [c.code, c.body.value]), [[charge, 50]])
      // the same event applied ten times at once, through two instances: once
      const again = yield* Effect.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? a : b).apply({ vehicleId: "veh_1", eventId: "evt_3", readings: [reading(odometer, 300, "2025-08-26T12:00:00.000Z")] })),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(again.filter((r) => r.applied).length, 1)
      const latest = yield* a.latest("veh_1")
      assert.deepStrictEqual(latest.map((s) => [s.code, s.body, s.eventId]), [
        [odometer, { unit: "u", value: 300 }, "evt_3"],
        [charge, { unit: "u", value: 50 }, "evt_1"]
      ].sort())
      assert.strictEqual(DateTime.formatIso(latest.find((s) => s.code === odometer)!.oemUpdatedAt), "2025-08-26T12:00:00.000Z")
      assert.isTrue(DateTime.isGreaterThanOrEqualTo(latest[0]!.updatedAt, since))
      yield* b.apply({ vehicleId: "veh_2", eventId: "evt_4", readings: [reading(charge, 70, "2025-08-26T12:00:00.000Z")] })
      assert.deepStrictEqual(yield* b.changedSince(since), ["veh_1", "veh_2"])
      assert.deepStrictEqual(yield* b.changedSince(since, { signal: odometer }), ["veh_1"])
      assert.deepStrictEqual(yield* b.changedSince(DateTime.add(yield* DateTime.now, { minutes: 1 })), [])
      const applied = yield* query<{ n: string }>(url, "SELECT count(*) AS n FROM fleet_applied_events")
      assert.strictEqual(Number(applied[0]!.n), 4)
    }).pipe(Effect.scoped), 60_000)

  it.live("equal oemUpdatedAt: the greater eventId (by bytes, whatever the collation) wins, whatever order the events are applied in", () =>
    Effect.gen(function*() {
      const url = freshDatabase("ties")
      const context = yield* Layer.build(Layer.fresh(FleetState.layerSql().pipe(Layer.provide(Database.layer({ url, maxConnections: 2 })))))
      const state = Context.get(context, FleetState.FleetState)
      const at = "2025-08-26T10:00:00.000Z"
      const apply = (vehicleId: string, eventId: string, value: number) => state.apply({ vehicleId, eventId, readings: [reading(odometer, value, at)] })
      yield* apply("veh_1", "evt_a", 100)
      yield* apply("veh_1", "evt_B", 200)
      yield* apply("veh_2", "evt_B:2", 200)
      yield* apply("veh_2", "evt_a:2", 100)
      const rows = yield* query<{ vehicle_id: string; event_id: string }>(url, "SELECT vehicle_id, event_id FROM fleet_signal_state ORDER BY vehicle_id")
      assert.deepStrictEqual(rows.map((row) => [row.vehicle_id, row.event_id]), [["veh_1", "evt_a"], ["veh_2", "evt_a:2"]])
    }).pipe(Effect.scoped), 30_000)

  it.live("applied events older than appliedRetention are deleted, recent ones kept; a table of an older release gets the index", () =>
    Effect.gen(function*() {
      const url = freshDatabase("retention")
      // the applied events' table as an older release left it: applied_at, no index on it
      yield* query(url, "CREATE TABLE fleet_applied_events (event_id TEXT PRIMARY KEY, vehicle_id TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
      yield* query(url, "INSERT INTO fleet_applied_events VALUES ('evt_before', 'veh_1')")
      const context = yield* Layer.build(Layer.fresh(
        FleetState.layerSql({ appliedRetention: "10 seconds" }).pipe(Layer.provide(Database.layer({ url, maxConnections: 2 })))
      ))
      const state = Context.get(context, FleetState.FleetState)
      // built in the background, concurrently (the start does not wait for it)
      yield* eventually(Effect.map(validIndexes(url, "fleet_applied_events"), (defs) => defs.some((def) => /\(applied_at\)/.test(def))), 8_000, "100 millis")
      const apply = (eventId: string) =>
        state.apply({ vehicleId: "veh_1", eventId, readings: [reading(odometer, 1, "2025-08-26T10:00:00.000Z")] })
      assert.isTrue((yield* apply("evt_old")).applied)
      // applied a minute ago, as far as the table knows
      yield* query(url, "UPDATE fleet_applied_events SET applied_at = now() - interval '1 minute' WHERE event_id IN ('evt_old', 'evt_before')")
      assert.isTrue((yield* apply("evt_recent")).applied)
      const ids = Effect.map(query<{ event_id: string }>(url, "SELECT event_id FROM fleet_applied_events ORDER BY event_id"), (rows) =>
        rows.map((row) => row.event_id))
      // deleted by the cleanup, which runs every 2.5 s (a quarter of the retention)
      yield* eventually(Effect.map(ids, (left) => left.length === 1), 8_000, "250 millis")
      assert.deepStrictEqual(yield* ids, ["evt_recent"])
      assert.isFalse((yield* apply("evt_recent")).applied)
      // forgotten: applied again, harmlessly (an older reading than the stored one changes nothing)
      assert.deepStrictEqual(yield* apply("evt_old"), { applied: true, changes: [] })
    }).pipe(Effect.scoped), 60_000)

  it.live("an index left invalid by an interrupted build is built again, concurrently, while applies go on", () =>
    Effect.gen(function*() {
      const url = freshDatabase("invalid_index")
      yield* query(url, "CREATE TABLE fleet_applied_events (event_id TEXT PRIMARY KEY, vehicle_id TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
      yield* query(url, "INSERT INTO fleet_applied_events (event_id, vehicle_id) VALUES ('evt_1', 'veh_1'), ('evt_2', 'veh_1')")
      // what a failed CREATE INDEX CONCURRENTLY leaves: an invalid index under the name the state uses
      const failed = yield* Effect.exit(query(url, "CREATE UNIQUE INDEX CONCURRENTLY fleet_applied_events_applied_at ON fleet_applied_events (vehicle_id)"))
      assert.isTrue(failed._tag === "Failure")
      const invalid = yield* query<{ valid: boolean }>(url, "SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass('fleet_applied_events_applied_at')")
      assert.deepStrictEqual(invalid, [{ valid: false }])
      const context = yield* Layer.build(Layer.fresh(
        FleetState.layerSql().pipe(Layer.provide(Database.layer({ url, maxConnections: 2 })))
      ))
      const state = Context.get(context, FleetState.FleetState)
      assert.isTrue((yield* state.apply({ vehicleId: "veh_1", eventId: "evt_3", readings: [reading(odometer, 1, "2025-08-26T10:00:00.000Z")] })).applied)
      yield* eventually(Effect.map(validIndexes(url, "fleet_applied_events"), (defs) => defs.some((def) => /\(applied_at\)/.test(def))), 8_000, "100 millis")
      const defs = yield* validIndexes(url, "fleet_applied_events")
      assert.isFalse(defs.some((def) => /UNIQUE INDEX fleet_applied_events_applied_at/.test(def)), JSON.stringify(defs))
    }).pipe(Effect.scoped), 60_000)

  it.live("schema-qualified tables: created in their schema with their indexes, applied and read", () =>
    Effect.gen(function*() {
      const url = freshDatabase("qualified")
      yield* query(url, "CREATE SCHEMA fleet")
      const context = yield* Layer.build(Layer.fresh(
        FleetState.layerSql({ stateTable: "fleet.signal_state", appliedTable: "fleet.applied_events" }).pipe(
          Layer.provide(Database.layer({ url, maxConnections: 2 }))
        )
      ))
      const state = Context.get(context, FleetState.FleetState)
      const applied = yield* state.apply({ vehicleId: "veh_1", eventId: "evt_1", readings: [reading(odometer, 7, "2025-08-26T10:00:00.000Z")] })
      assert.isTrue(applied.applied)
      assert.strictEqual((yield* state.latest("veh_1")).length, 1)
      const indexes = yield* query<{ indexname: string }>(url, "SELECT indexname FROM pg_indexes WHERE schemaname = 'fleet' ORDER BY indexname")
      assert.includeMembers(indexes.map((index) => index.indexname), ["applied_events_applied_at", "signal_state_updated_at"])
    }).pipe(Effect.scoped), 60_000)

  it.live("a burst over loopback (duplicates, retries, reordering) is applied once per event: the table equals the newest value per (vehicle, signal)", () =>
    Effect.gen(function*() {
      const url = freshDatabase("burst")
      const sim = yield* Simulator
      const ingestion = yield* Layer.build(Layer.fresh(Ingestion.layerPostgres({
        url, maxConnections: 6, pollInterval: "50 millis", lockRefreshInterval: "1 second", lockExpiration: "5 seconds"
      })))
      const fleet = yield* runner(url)
      const receiver = yield* Effect.provideContext(DurableReceiver.make({ secret }), ingestion)
      const server = yield* NodeHttpServer.make(() => createServer(), { port: 0, host: "127.0.0.1", gracefulShutdownTimeout: 0 })
      yield* server.serve(receiver.httpEffect)
      const port = server.address._tag === "UnixPathAddress" ? 0 : server.address.port
      yield* Effect.forkScoped(Effect.provideContext(
        Worker.run({ handler: VehicleEntity.handler, concurrency: 8 }),
        Context.merge(ingestion, fleet)
      ))

      yield* sim.createWebhook({ name: "fleet", callbackUri: `http://127.0.0.1:${port}/webhooks`, triggers: [odometer], data: [] })
      const started = Date.now()
      yield* sim.startBurst({
        events: 600, vehicles: 40, ratePerSecond: 2_000, seed: 9,
        duplicateRatio: 0.1, lostAckRatio: 0.05, reorderWindow: 40, retryDelays: ["100 millis", "300 millis", "1 second"]
      })
      const done = yield* sim.awaitBurst
      const truth = yield* sim.burstTruth
      assert.isAbove(done.duplicates, 0)
      assert.isAbove(done.retries, 0)
      const applied = Effect.map(query<{ n: string }>(url, "SELECT count(*) AS n FROM fleet_applied_events"), (rows) => Number(rows[0]!.n))
      yield* eventually(Effect.map(applied, (n) => n === truth.events.length), 30_000)
      const seconds = (Date.now() - started) / 1000
      console.log(`burst: ${truth.events.length} events (${done.attempts} deliveries) applied in ${seconds.toFixed(1)} s on one runner`)

      const rows = yield* query<{ vehicle_id: string; code: string; body: string; event_id: string; at: string }>(url,
        "SELECT vehicle_id, code, body::text AS body, event_id, to_json(oem_updated_at)#>>'{}' AS at FROM fleet_signal_state")
      const table = rows.map((row) =>
        `${row.vehicle_id} ${row.code} ${JSON.parse(row.body).value} ${row.event_id} ${Date.parse(row.at)}`).sort()
      const expected = truth.latest.map((value) =>
        `${value.vehicleId} ${value.code} ${value.body.value} ${value.eventId} ${Date.parse(value.oemUpdatedAt)}`).sort()
      assert.strictEqual(table.length, expected.length)
      assert.deepStrictEqual(table, expected)
      const byVehicle = yield* Effect.provideContext(FleetState.latest(truth.latest[0]!.vehicleId), fleet)
      assert.isAbove(byVehicle.length, 0)
    }).pipe(
      Effect.scoped,
      Effect.provide(Simulated.layer({
        loopback: true,
        signIn: false,
        simulator: { seed: 5, vehicles: 40, connections: 40, users: 8, webhookSecret: secret }
      }))
    ), { timeout: 90_000, concurrent })

  it.live("two runners share the shards; when one stops, the other takes its shards and its vehicles", () =>
    Effect.gen(function*() {
      const url = freshDatabase("runners")
      const scopeA = yield* Scope.make()
      const a = yield* runner(url).pipe(Effect.provideService(Scope.Scope, scopeA))
      const b = yield* runner(url)
      const held = (runnerContext: Context.Context<Sharding.Sharding>) =>
        Effect.sync(() => {
          const sharding = Context.get(runnerContext, Sharding.Sharding)
          return Array.from({ length: fast.shardsPerGroup }, (_, i) => ShardId.make("default", i + 1)).filter(sharding.hasShardId).length
        })
      yield* eventually(Effect.map(Effect.all([held(a), held(b)]), ([x, y]) => x > 0 && y > 0 && x + y === fast.shardsPerGroup), 20_000)

      // each runner's changes: the vehicles whose entity it ran
      const seen = { a: new Set<string>(), b: new Set<string>() }
      for (const [name, context] of [["a", a], ["b", b]] as const) {
        yield* Effect.forkScoped(Stream.runForEach(Context.get(context, FleetState.FleetState).changes, (change) =>
          Effect.sync(() => seen[name].add(`${change.vehicleId}:${change.body.value}`))))
      }
      yield* Effect.sleep("50 millis")
      const vehicles = Array.from({ length: 30 }, (_, i) => `veh_${i}`)
      const apply = (round: number, vehicleId: string) =>
        Effect.flatMap(VehicleEntity.Vehicle.client, (client) =>
          client(vehicleId).Apply({
            eventId: `evt_${round}_${vehicleId}`,
            readings: [reading(odometer, round, `2025-08-26T1${round}:00:00.000Z`)]
          }))
      const sentAt = Date.now()
      yield* Effect.forEach(vehicles, (vehicleId) => Effect.provideContext(apply(1, vehicleId), a), { concurrency: 10 })
      console.log(`two runners: 30 events sent through runner A applied in ${Date.now() - sentAt} ms`)
      assert.isAbove(seen.a.size, 0)
      assert.isAbove(seen.b.size, 0)
      assert.deepStrictEqual([...seen.a, ...seen.b].sort(), vehicles.map((vehicleId) => `${vehicleId}:1`).sort())

      const stoppedAt = Date.now()
      yield* Scope.close(scopeA, Exit.void)
      yield* Effect.forEach(vehicles, (vehicleId) => Effect.provideContext(apply(2, vehicleId), b), { concurrency: 10 })
      yield* eventually(Effect.map(held(b), (n) => n === fast.shardsPerGroup), 20_000)
      console.log(`two runners: runner A stopped; its vehicles' events applied by B, all shards on B, in ${Date.now() - stoppedAt} ms`)

      for (const vehicleId of vehicles) {
        const [signal] = yield* Effect.provideContext(FleetState.latest(vehicleId), b)
        assert.deepStrictEqual([signal!.body.value, signal!.eventId], [2, `evt_2_${vehicleId}`])
      }
      assert.isTrue(vehicles.every((vehicleId) => seen.b.has(`${vehicleId}:2`)))
    }).pipe(Effect.scoped, Effect.provide(NoPolls)), { timeout: 90_000, concurrent })

  it.live("a runner process killed with SIGKILL: its shards move to the survivor, every event is applied once", () =>
    Effect.gen(function*() {
      const url = freshDatabase("killed")
      const child = spawn(process.execPath, [join(import.meta.dirname, "processes", "runner.ts")], {
        env: { ...process.env, DATABASE_URL: Redacted.value(url), FLEET_RUNNER_PORT: String(yield* freePort) },
        stdio: ["pipe", "pipe", "pipe"] // its stdin: it exits when this process is gone
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
      let childShards = 0
      child.stderr.on("data", (chunk: Buffer) => process.stderr.write(`runner process: ${chunk}`))
      child.stdout.on("data", (chunk: Buffer) => {
        if (!/^(shards \d+\s*)+$/.test(chunk.toString())) process.stdout.write(`runner process: ${chunk}`)
        const last = /shards (\d+)\s*$/.exec(chunk.toString())
        if (last) childShards = Number(last[1])
      })
      const survivor = yield* runner(url)
      const sharding = Context.get(survivor, Sharding.Sharding)
      const held = () => Array.from({ length: fast.shardsPerGroup }, (_, i) => ShardId.make("default", i + 1)).filter(sharding.hasShardId).length
      yield* eventually(Effect.sync(() => childShards > 0 && held() > 0 && childShards + held() === fast.shardsPerGroup), 30_000)

      // 5 rounds for 40 vehicles, sent through the survivor (which forwards to the child's shards); the child killed midway
      const vehicles = Array.from({ length: 40 }, (_, i) => `veh_${i}`)
      const done = { n: 0 }
      const apply = (round: number, vehicleId: string) =>
        Effect.flatMap(VehicleEntity.Vehicle.client, (client) =>
          client(vehicleId).Apply({ eventId: `evt_${round}_${vehicleId}`, readings: [reading(odometer, round, `2025-08-26T1${round}:00:00.000Z`)] })
        ).pipe(
          Effect.retry({ schedule: Schedule.spaced("500 millis"), times: 40 }), // as a worker would: the event again
          Effect.tap(() => Effect.sync(() => done.n++)),
          Effect.provideContext(survivor)
        )
      const sending = yield* Effect.forkScoped(Effect.forEach([1, 2, 3, 4, 5], (round) =>
        Effect.forEach(vehicles, (vehicleId) => apply(round, vehicleId), { concurrency: 20 }), { discard: true }))
      yield* eventually(Effect.sync(() => done.n >= 60), 40_000)
      child.kill("SIGKILL")
      const killedAt = Date.now()
      const beforeKill = done.n
      yield* Fiber.join(sending).pipe(Effect.timeout("40 seconds"))
      console.log(`killed runner: ${200 - beforeKill} of 200 events applied after the kill; the last ${Date.now() - killedAt} ms after it`)
      yield* eventually(Effect.sync(() => held() === fast.shardsPerGroup), 20_000)

      const applied = yield* query<{ n: string }>(url, "SELECT count(*) AS n FROM fleet_applied_events")
      assert.strictEqual(Number(applied[0]!.n), 200)
      const rows = yield* query<{ vehicle_id: string; value: string; event_id: string }>(url,
        "SELECT vehicle_id, body->>'value' AS value, event_id FROM fleet_signal_state ORDER BY vehicle_id")
      assert.deepStrictEqual(
        rows.map((row) => [row.vehicle_id, Number(row.value), row.event_id]),
        vehicles.map((vehicleId) => [vehicleId, 5, `evt_5_${vehicleId}`]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))
      )
    }).pipe(Effect.scoped, Effect.provide(NoPolls)), { timeout: 150_000, concurrent })

  it.live("an idle vehicle is polled again and again (the next poll a persisted message delivered at its time)", () =>
    Effect.gen(function*() {
      const url = freshDatabase("polls")
      const sim = yield* Simulator
      const fleet = yield* runner(url, { pollInterval: "1 second", pollSignals: [odometer] })
      const vehicleId = sim.data.vehicleIds[0]!
      const odometerOf = Effect.map(Effect.provideContext(FleetState.latest(vehicleId), fleet), (signals) => signals[0])
      const pollsBefore = (yield* Metric.value(FleetMetrics.vehiclePolls)).count
      yield* sim.setSignal(vehicleId, odometer, { unit: "km", value: 10 })
      yield* Effect.provideContext(VehicleEntity.track({ vehicleId, userId: sim.data.connectionOf(vehicleId)!.userId }), fleet)
      yield* eventually(Effect.map(odometerOf, (signal) => signal?.body.value === 10))
      yield* sim.setSignal(vehicleId, odometer, { unit: "km", value: 20 })
      yield* eventually(Effect.map(odometerOf, (signal) => signal?.body.value === 20))
      assert.isAtLeast((yield* Metric.value(FleetMetrics.vehiclePolls)).count - pollsBefore, 2)
      assert.match((yield* odometerOf)!.eventId, new RegExp(`^poll:${vehicleId}:`))
      // a poll's readings need no applied-events row (newest wins is idempotent by itself)
      const rows = yield* query<{ n: string }>(url, "SELECT count(*) AS n FROM fleet_applied_events")
      assert.strictEqual(Number(rows[0]!.n), 0)
    }).pipe(Effect.scoped, Effect.provide(Simulated.layer({ loopback: true, signIn: false }))), 60_000)
})

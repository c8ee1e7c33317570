/**
 * The fleet state embedded: one in-process runner, messages and state in
 * memory; events through the durable receiver and a worker to the vehicle
 * entities; polls through v3 on the simulator (in memory).
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, DateTime, Effect, Fiber, Layer, Metric, Schedule, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as DurableReceiver from "@connected-vehicle/fleet/DurableReceiver"
import { QueuedEvent } from "@connected-vehicle/fleet/EventQueue"
import * as FleetCluster from "@connected-vehicle/fleet/FleetCluster"
import * as FleetMetrics from "@connected-vehicle/fleet/FleetMetrics"
import * as FleetState from "@connected-vehicle/fleet/FleetState"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import * as VehicleEntity from "@connected-vehicle/fleet/VehicleEntity"
import * as Worker from "@connected-vehicle/fleet/Worker"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as Simulated from "@connected-vehicle/testing/Simulated"
import { delivery, secret } from "./fixtures.ts"
import { eventually, readingEvent } from "./stateFixtures.ts"

const odometer = "odometer-traveleddistance"
const charge = "tractionbattery-stateofcharge"

/** Ingestion, the cluster and the simulator, all in memory; a worker feeding the vehicle entities. */
const embedded = (options?: FleetCluster.Options) =>
  Layer.mergeAll(
    Ingestion.layerMemory({ maxAttempts: 3, retrySchedule: Schedule.spaced("10 millis") }),
    FleetCluster.layerMemory({ shardingConfig: { entityMessagePollInterval: "50 millis" }, ...options }).pipe(
      Layer.provideMerge(Simulated.layer({ signIn: false }))
    )
  )

const values = (signals: ReadonlyArray<FleetState.SignalState>) =>
  signals.map((signal) => [signal.code, signal.body.value, signal.eventId])

describe("FleetState (in memory)", () => {
  it.live("out-of-order events: the newest by oemUpdatedAt wins; a duplicate is applied once; changes are streamed", () =>
    Effect.gen(function*() {
      const receiver = yield* DurableReceiver.make({ secret })
      const state = yield* FleetState.FleetState
      const streamed = yield* Effect.forkScoped(Stream.runCollect(Stream.take(state.changes, 3)))
      yield* Effect.sleep("20 millis") // the subscription is taken
      const appliedBefore = (yield* Metric.value(FleetMetrics.eventsApplied)).count
      const duplicatesBefore = (yield* Metric.value(FleetMetrics.eventsAlreadyApplied)).count
      const since = yield* DateTime.now
      yield* Effect.forkScoped(Worker.run({ handler: VehicleEntity.handler }))

      const deliveries = [
        readingEvent("evt_1", "veh_1", [{ code: odometer, value: 100, at: "2025-08-26T10:00:00.000Z" }]),
        readingEvent("evt_3", "veh_1", [
          { code: odometer, value: 300, at: "2025-08-26T12:00:00.000Z" },
          { code: charge, value: 80, at: "2025-08-26T12:00:00.000Z" }
        ]),
        readingEvent("evt_2", "veh_1", [{ code: odometer, value: 200, at: "2025-08-26T11:00:00.000Z" }]),
        readingEvent("evt_4", "veh_2", [{ code: charge, value: 55, at: "2025-08-26T09:00:00.000Z" }])
      ]
      for (const event of deliveries) assert.strictEqual((yield* receiver.receive(delivery(event))).status, 200)
      yield* eventually(Effect.map(Metric.value(FleetMetrics.eventsApplied), (m) => m.count - appliedBefore === 4))
      // a duplicate the queue cannot recognise (another queue id): the entity applies it once
      yield* VehicleEntity.handler(Schema.decodeUnknownSync(QueuedEvent)(deliveries[1]))
      assert.strictEqual((yield* Metric.value(FleetMetrics.eventsAlreadyApplied)).count - duplicatesBefore, 1)

      assert.deepStrictEqual(values(yield* FleetState.latest("veh_1")), [[odometer, 300, "evt_3"], [charge, 80, "evt_3"]].sort())
      assert.deepStrictEqual(values(yield* FleetState.latest("veh_2")), [[charge, 55, "evt_4"]])
      assert.deepStrictEqual(yield* FleetState.latest("veh_none"), [])
      assert.deepStrictEqual(yield* FleetState.changedSince(since), ["veh_1", "veh_2"])
      assert.deepStrictEqual(yield* FleetState.changedSince(since, { signal: odometer }), ["veh_1"])
      assert.deepStrictEqual(yield* FleetState.changedSince(DateTime.add(yield* DateTime.now, { seconds: 1 })), [])

      const changes = (yield* Fiber.join(streamed)).map((c) => [c.vehicleId, c.code, c.body.value])
      // evt_1, then evt_3 (two signals); evt_2 is older than evt_3 and changes nothing
      assert.deepStrictEqual(changes.slice(0, 1), [["veh_1", odometer, 100]])
      assert.sameDeepMembers(changes.slice(1, 3), [["veh_1", odometer, 300], ["veh_1", charge, 80]])
    }).pipe(Effect.scoped, Effect.provide(embedded())))

  it.live("an idle vehicle is polled through v3 (none while events arrive); track polls a vehicle with no event yet", () =>
    Effect.gen(function*() {
      const receiver = yield* DurableReceiver.make({ secret })
      const sim = yield* Simulator
      const [busy, quiet] = sim.data.vehicleIds
      const userOf = (vehicleId: string) => sim.data.connectionOf(vehicleId)!.userId
      yield* Effect.forkScoped(Worker.run({ handler: VehicleEntity.handler }))
      const polls = Effect.map(Metric.value(FleetMetrics.vehiclePolls), (m) => m.count)
      const before = yield* polls

      // an event every 100 ms for 1.2 s: never 1 s without one, no poll
      for (let i = 0; i < 12; i++) {
        const at = new Date(Date.UTC(2025, 7, 26, 10, i)).toISOString()
        const event = readingEvent(`evt_busy_${i}`, busy!, [{ code: odometer, value: 1000 + i, at }], userOf(busy!))
        assert.strictEqual((yield* receiver.receive(delivery(event))).status, 200)
        yield* Effect.sleep("100 millis")
      }
      assert.strictEqual(yield* polls, before)
      assert.deepStrictEqual(values(yield* FleetState.latest(busy!)), [[odometer, 1011, "evt_busy_11"]])

      // then idle: the poll reads the value the service has now (newer than the last event's)
      yield* sim.setSignal(busy!, odometer, { unit: "km", value: 4242 })
      yield* eventually(Effect.map(FleetState.latest(busy!), (signals) => signals[0]?.body.value === 4242))
      const [polled] = yield* FleetState.latest(busy!)
      assert.match(polled!.eventId, new RegExp(`^poll:${busy}:`))
      assert.strictEqual((yield* polls) - before, 1)

      yield* sim.setSignal(quiet!, odometer, { unit: "km", value: 777 })
      yield* VehicleEntity.track({ vehicleId: quiet!, userId: userOf(quiet!) })
      yield* eventually(Effect.map(FleetState.latest(quiet!), (signals) => signals[0]?.body.value === 777))
      assert.deepStrictEqual((yield* FleetState.latest(quiet!)).map((signal) => signal.code), [odometer])
    }).pipe(Effect.scoped, Effect.provide(embedded({ pollInterval: "1 second", pollSignals: [odometer] }))))

  it.effect("FleetCluster.layerConfig: a bad FLEET_POLL_INTERVAL fails the layer with a Configuration FleetError, before anything starts", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Layer.build(FleetCluster.layerConfig()).pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { FLEET_POLL_INTERVAL: "soon" } }))),
        Effect.provide(Simulated.layer({ signIn: false })),
        Effect.scoped
      ))
      assert.strictEqual(error.reason._tag, "Configuration")
      // the same from code: an option that is not a duration, named
      for (
        const [options, name] of [
          [{ pollInterval: "soon" as never }, "pollInterval"],
          [{ maxIdleTime: "-1 minutes" as never }, "maxIdleTime"],
          // under the floor FLEET_POLL_INTERVAL has too (1 second): each poll would schedule the next at once
          [{ pollInterval: "1 nanos" }, "pollInterval: expected a finite duration of at least 1s"],
          [{ pollInterval: "999 millis" }, "pollInterval: expected a finite duration of at least 1s"]
        ] as const
      ) {
        const invalid = yield* Effect.flip(Layer.build(FleetCluster.layerMemory(options)).pipe(
          Effect.provide(Simulated.layer({ signIn: false })),
          Effect.scoped
        ))
        assert.strictEqual(invalid.reason._tag, "Configuration")
        assert.include(invalid.message, name)
      }
    }))

  it.live("FleetCluster.layerConfig without DATABASE_URL: embedded", () =>
    Effect.gen(function*() {
      const vehicle = (yield* VehicleEntity.Vehicle.client)("veh_cfg")
      const reply = yield* vehicle.Apply({
        eventId: "evt_cfg",
        readings: [Schema.decodeUnknownSync(FleetState.Reading)({
          code: odometer, name: "TraveledDistance", group: "Odometer", body: { unit: "km", value: 5 }, oemUpdatedAt: "2025-08-26T10:00:00.000Z"
        })]
      })
      assert.deepStrictEqual(reply, { applied: true, changed: 1 })
      assert.deepStrictEqual(values(yield* FleetState.latest("veh_cfg")), [[odometer, 5, "evt_cfg"]])
      // the one runner holds every shard (effect/cluster's gauge, re-exported)
      assert.strictEqual((yield* Metric.value(FleetMetrics.shards)).value, 300n)
    }).pipe(Effect.provide(FleetCluster.layerConfig().pipe(
      Layer.provide(Simulated.layer({ signIn: false })),
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: {} })))
    ))))

  it.effect("equal oemUpdatedAt: the greater eventId wins, whatever order the events are applied in", () =>
    Effect.gen(function*() {
      const at = "2025-08-26T10:00:00.000Z"
      const read = (eventId: string, value: number) => ({
        vehicleId: "veh_1",
        eventId,
        readings: [Schema.decodeUnknownSync(FleetState.Reading)({
          code: odometer, name: "TraveledDistance", group: "Odometer", body: { unit: "km", value }, oemUpdatedAt: at
        })]
      })
      const final = (order: ReadonlyArray<readonly [string, number]>) =>
        Effect.gen(function*() {
          const state = yield* FleetState.makeMemory()
          for (const [eventId, value] of order) yield* state.apply(read(eventId, value))
          for (const [eventId, value] of order) yield* state.applyPoll(read(`poll:${eventId}`, value + 1))
          return values(yield* state.latest("veh_1"))
        })
      // by bytes: "evt_a" is greater than "evt_B"; "poll:..." than any "evt_..."
      const events = [["evt_a", 100], ["evt_B", 200]] as const
      assert.deepStrictEqual(yield* final(events), [[odometer, 101, "poll:evt_a"]])
      assert.deepStrictEqual(yield* final([...events].reverse()), [[odometer, 101, "poll:evt_a"]])
      const state = yield* FleetState.makeMemory()
      yield* state.apply(read("evt_B", 200))
      assert.deepStrictEqual((yield* state.apply(read("evt_a", 100))).changes.map((c) => c.eventId), ["evt_a"])
      assert.deepStrictEqual((yield* state.apply(read("evt_A", 300))).changes, [])
    }))

  it.effect("an applied event's id is kept for appliedRetention, then forgotten; a poll records none", () =>
    Effect.gen(function*() {
      const state = yield* FleetState.makeMemory({ appliedRetention: "1 hour" })
      const read = (eventId: string, value: number) => ({
        vehicleId: "veh_1",
        eventId,
        readings: [Schema.decodeUnknownSync(FleetState.Reading)({
          code: odometer, name: "TraveledDistance", group: "Odometer", body: { unit: "km", value },
          oemUpdatedAt: new Date(Date.UTC(2025, 7, 26, 10, value)).toISOString()
        })]
      })
      assert.isTrue((yield* state.apply(read("evt_old", 1))).applied)
      yield* TestClock.adjust("40 minutes")
      assert.isTrue((yield* state.apply(read("evt_recent", 2))).applied)
      assert.isFalse((yield* state.apply(read("evt_old", 1))).applied)
      yield* TestClock.adjust("30 minutes")
      // 70 minutes after evt_old, 30 after evt_recent: the old id forgotten (applied again, an older reading: no change), the recent kept
      assert.deepStrictEqual(yield* state.apply(read("evt_old", 1)), { applied: true, changes: [] })
      assert.isFalse((yield* state.apply(read("evt_recent", 2))).applied)

      // a poll: newest wins, applied again harmlessly, and its id is not recorded
      const poll = read("poll:veh_1:1", 3)
      assert.deepStrictEqual((yield* state.applyPoll(poll)).changes.map((c) => [c.body.value, c.eventId]), [[3, "poll:veh_1:1"]])
      assert.deepStrictEqual(yield* state.applyPoll(poll), { applied: true, changes: [] })
      assert.isTrue((yield* state.apply(poll)).applied)

      const invalid = yield* Effect.flip(FleetState.makeMemory({ appliedRetention: "-1 hours" as never }))
      assert.strictEqual(invalid.reason._tag, "Configuration")
      assert.include(invalid.message, "appliedRetention")
    }))
})

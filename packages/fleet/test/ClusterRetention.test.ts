/**
 * The retention of `effect/cluster`'s messages on the project's real
 * Postgres (see `globalSetup.ts`): the schema of `SqlMessageStorage` the
 * cleanup relies on (not a public contract of `effect`: this file fails
 * when it changes), and the cleanup itself on a running runner.
 */
import { assert, describe, it } from "@effect/vitest"
import { createServer } from "node:net"
import { Effect, Layer, Redacted, Schema } from "effect"
import { MachineId, Snowflake } from "effect/cluster"
import * as FleetCluster from "@connected-vehicle/fleet/FleetCluster"
import * as FleetState from "@connected-vehicle/fleet/FleetState"
import * as VehicleEntity from "@connected-vehicle/fleet/VehicleEntity"
import * as Simulated from "@connected-vehicle/testing/Simulated"
import { eventually, fastSharding } from "./stateFixtures.ts"
import { freePort, freshDatabase, query } from "./utils.ts"

const odometer = "odometer-traveleddistance"

/** A runner on Postgres at `url`, built into the test's scope. */
const runner = (url: Redacted.Redacted<string>, options?: FleetCluster.Options) =>
  Effect.gen(function*() {
    const port = yield* freePort
    return yield* Layer.build(Layer.fresh(FleetCluster.layerPostgres({
      url, maxConnections: 6, runnerAddress: { host: "127.0.0.1", port }, shardingConfig: fastSharding, ...options
    })))
  })

const reading = Schema.decodeUnknownSync(FleetState.Reading)({
  code: odometer, name: "TraveledDistance", group: "Odometer", body: { unit: "km", value: 1 }, oemUpdatedAt: "2025-08-26T10:00:00.000Z"
})

/** `Apply` of `eventId` to `vehicleId` (as user `usr_1`: the entity then schedules its next poll). */
const apply = (vehicleId: string, eventId: string) =>
  Effect.flatMap(VehicleEntity.Vehicle.client, (client) => client(vehicleId).Apply({ eventId, userId: "usr_1", readings: [reading] }))

interface Message {
  readonly id: string
  readonly tag: string
  readonly processed: boolean
  readonly payload: { readonly eventId?: string; readonly dueAt?: number }
}

const messages = (url: Redacted.Redacted<string>) =>
  Effect.map(
    query<{ id: string; tag: string; processed: boolean; payload: string }>(url,
      "SELECT id::text AS id, tag, processed, payload FROM cluster_messages WHERE kind = 0 ORDER BY id"),
    (rows): ReadonlyArray<Message> => rows.map((row) => ({ ...row, payload: JSON.parse(row.payload) }))
  )

/** The replies' request ids. */
const replies = (url: Redacted.Redacted<string>) =>
  Effect.map(query<{ request_id: string }>(url, "SELECT request_id::text AS request_id FROM cluster_replies"), (rows) =>
    rows.map((row) => row.request_id))

/** What subtracting `ms` from a `Snowflake`'s time takes off its value (through the public constructor). */
const shiftOf = (ms: number) => {
  const now = Date.now()
  const at = (timestamp: number) => Snowflake.make({ timestamp, machineId: MachineId.make(0), sequence: 0 })
  return String(at(now) - at(now - ms))
}

/**
 * Makes the request `id` look sent `ms` earlier, and, with `answered`, its
 * replies written then too: their snowflake ids made older.
 */
const age = (url: Redacted.Redacted<string>, id: string, ms: number, answered = true) => {
  const shift = shiftOf(ms)
  const replyIds = answered ? `, last_reply_id = last_reply_id - ${shift}` : ""
  return Effect.andThen(
    query(url, `UPDATE cluster_messages SET id = CASE WHEN id = ${id} THEN id - ${shift} ELSE id END, request_id = request_id - ${shift}${replyIds} WHERE request_id = ${id}`),
    query(url, `UPDATE cluster_replies SET request_id = request_id - ${shift}${answered ? `, id = id - ${shift}` : ""} WHERE request_id = ${id}`)
  )
}

describe("the cluster's message retention on Postgres", () => {
  it.live("SqlMessageStorage's schema and rows are as the cleanup expects (fails when effect changes them)", () =>
    Effect.gen(function*() {
      const url = freshDatabase("cluster_schema")
      const fleet = yield* runner(url)
      const migrations = yield* query<{ name: string }>(url, "SELECT name FROM cluster_migrations ORDER BY migration_id")
      assert.deepStrictEqual(migrations.map((row) => row.name), ["create_tables", "entity_type_size", "pg_messages_rowid_index"])
      const columns = yield* query<{ table_name: string; column_name: string; data_type: string }>(url,
        `SELECT table_name, column_name, data_type FROM information_schema.columns
         WHERE table_name IN ('cluster_messages', 'cluster_replies') ORDER BY table_name, column_name`)
      const types = new Map(columns.map((row) => [`${row.table_name}.${row.column_name}`, row.data_type]))
      for (
        const [column, type] of [
          ["cluster_messages.id", "bigint"],
          ["cluster_messages.kind", "integer"],
          ["cluster_messages.processed", "boolean"],
          ["cluster_messages.request_id", "bigint"],
          ["cluster_messages.deliver_at", "bigint"],
          ["cluster_replies.kind", "integer"],
          ["cluster_replies.request_id", "bigint"]
        ]
      ) assert.strictEqual(types.get(column!), type, column)

      // a request answered: kind 0, processed, its own id as request_id (a snowflake of now), one exit reply (kind 0)
      const before = Date.now()
      yield* Effect.provideContext(apply("veh_1", "evt_1"), fleet)
      const rows = yield* query<{ id: string; request_id: string; processed: boolean; reply_kind: number | null }>(url,
        `SELECT m.id::text AS id, m.request_id::text AS request_id, m.processed, r.kind AS reply_kind
         FROM cluster_messages m LEFT JOIN cluster_replies r ON r.request_id = m.id WHERE m.kind = 0 AND m.tag = 'Apply'`)
      assert.strictEqual(rows.length, 1)
      const [row] = rows
      assert.deepStrictEqual([row!.request_id, row!.processed, row!.reply_kind], [row!.id, true, 0])
      const sentAt = Snowflake.timestamp(Snowflake.Snowflake(row!.id))
      assert.isTrue(sentAt >= before - 1_000 && sentAt <= Date.now() + 1_000, `${sentAt} not within the send`)
    }).pipe(Effect.scoped, Effect.provide(Simulated.layer({ signIn: false }))), 60_000)

  it.live("processed messages older than clusterRetention go with their replies; pending and recent ones stay; the cluster goes on", () =>
    Effect.gen(function*() {
      const url = freshDatabase("cluster_retention")
      const fleet = yield* runner(url, { clusterRetention: "10 seconds", pollInterval: "1 hour", pollSignals: [odometer] })
      const send = (vehicleId: string, eventId: string) => Effect.provideContext(apply(vehicleId, eventId), fleet)
      yield* send("veh_1", "evt_old")
      yield* send("veh_2", "evt_due")
      yield* send("veh_2", "evt_late")
      const first = yield* messages(url)
      const idOf = (eventId: string) => first.find((message) => message.payload.eventId === eventId)!.id
      const polls = first.filter((message) => message.tag === "Poll")
      // each vehicle's next poll: stored, due in an hour, not processed
      assert.strictEqual(polls.length, 2)
      assert.isTrue(polls.every((poll) => !poll.processed))
      // everything sent a minute ago, as far as the tables know; evt_due was due (deliver_at) just now
      // evt_late: sent a minute ago, answered just now (a backlog): it stays a retention after its answer
      for (const message of first) yield* age(url, message.id, 60_000, message.payload.eventId !== "evt_late")
      yield* query(url, `UPDATE cluster_messages SET deliver_at = ${Date.now()} WHERE payload LIKE '%"evt_due"%'`)
      yield* send("veh_1", "evt_recent")

      const eventIds = Effect.map(messages(url), (rows) => rows.map((row) => row.payload.eventId ?? `poll ${row.payload.dueAt}`))
      // deleted by the cleanup, which runs every 2.5 s (a quarter of the retention)
      yield* eventually(Effect.map(eventIds, (ids) => !ids.includes("evt_old")), 8_000, "250 millis")
      assert.sameMembers(yield* eventIds, ["evt_due", "evt_late", "evt_recent", ...polls.map((poll) => `poll ${poll.payload.dueAt}`)])
      const left = yield* messages(url)
      const requestIds = new Set(left.map((message) => message.id))
      const replied = yield* replies(url)
      // a reply for each processed request left, none of the deleted one's
      assert.sameMembers(replied, left.filter((message) => message.processed).map((message) => message.id))
      assert.isTrue(replied.every((requestId) => requestIds.has(requestId)))
      assert.notInclude(replied, idOf("evt_old"))

      // the cluster goes on: a vehicle whose messages were deleted answers new ones, and the old event's id is still applied once
      assert.deepStrictEqual(yield* send("veh_1", "evt_after"), { applied: true, changed: 0 })
      assert.deepStrictEqual(yield* send("veh_1", "evt_old"), { applied: false, changed: 0 })
      assert.includeMembers((yield* eventIds), ["evt_after", "evt_old"])
    }).pipe(Effect.scoped, Effect.provide(Simulated.layer({ signIn: false }))), 60_000)

  it.live("a clusterRetention that is not a positive duration is a Configuration error naming it", () =>
    Effect.gen(function*() {
      const url = freshDatabase("cluster_retention_invalid")
      const error = yield* Effect.flip(runner(url, { clusterRetention: "-1 hours" as never }))
      assert.strictEqual(error.reason._tag, "Configuration")
      assert.include(error.message, "clusterRetention")
    }).pipe(Effect.scoped, Effect.provide(Simulated.layer({ signIn: false }))), 60_000)

  it.live("a runner whose port is taken fails with a Cluster error naming its address and the socket's error (EADDRINUSE)", () =>
    Effect.gen(function*() {
      const url = freshDatabase("cluster_port_taken")
      // a server of this test holds the port until the test ends
      const port = yield* Effect.acquireRelease(
        Effect.callback<{ port: number; close: () => void }>((resume) => {
          const server = createServer()
          server.listen(0, "127.0.0.1", () =>
            resume(Effect.succeed({ port: (server.address() as { port: number }).port, close: () => server.close() })))
        }),
        (taken) => Effect.sync(taken.close)
      )
      const error = yield* Effect.flip(Layer.build(Layer.fresh(FleetCluster.layerPostgres({
        url, maxConnections: 2, runnerAddress: { host: "127.0.0.1", port: port.port }, shardingConfig: fastSharding
      }))))
      assert.strictEqual(error.reason._tag, "Cluster")
      assert.include(error.message, `the cluster runner could not start on 127.0.0.1:${port.port}`)
      assert.include(error.message, "EADDRINUSE")
    }).pipe(Effect.scoped, Effect.provide(Simulated.layer({ signIn: false }))), 60_000)
})

/**
 * The state of the fleet: the latest value of each (vehicle, signal), the
 * newest by `oemUpdatedAt` winning (deliveries are not ordered), each event
 * applied exactly once (an applied-events record written in the same
 * transaction, kept for `appliedRetention`, 7 days by default; a poll's
 * readings need none). In memory (the embedded default) or in two SQL
 * tables on Postgres that every process of a deployment shares. Vehicle entities
 * (`VehicleEntity`) write it; applications read it (`latest`,
 * `changedSince`) and follow it (`changes`).
 *
 * @since 0.1.0
 */
import { Timestamp } from "@connected-vehicle/schema/Common"
import { EventSignalBody } from "@connected-vehicle/schema/WebhookEvent"
import { Context, type DateTime, type Duration, Effect, Layer, type Scope, Schema, Stream } from "effect"
import type { SqlClient } from "effect/sql"
import type { FleetError } from "./FleetError.ts"
import { makeMemoryState } from "./internal/memoryState.ts"
import { defaultAppliedRetention, retentionMillis } from "./internal/retention.ts"
import { makeSqlState } from "./internal/sqlState.ts"

/**
 * A value of one signal as the service reported it (a webhook event's
 * signal, or a polled one): its code, name, group, `body` and when the OEM
 * updated it (an ISO 8601 string on the wire, a `DateTime.Utc` decoded).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Reading } from "@connected-vehicle/fleet/FleetState"
 *
 * const reading = Schema.decodeUnknownSync(Reading)({
 *   code: "odometer-traveleddistance", name: "TraveledDistance", group: "Odometer",
 *   body: { unit: "km", value: 20100 }, oemUpdatedAt: "2025-08-26T10:00:00.000Z"
 * })
 * ```
 * @since 0.1.0
 * @category schemas
 */
export const Reading = Schema.Struct({
  code: Schema.String,
  name: Schema.String,
  group: Schema.String,
  body: EventSignalBody,
  oemUpdatedAt: Timestamp
}).annotate({ identifier: "Reading" })

/**
 * @example
 * ```ts
 * import type { Reading } from "@connected-vehicle/fleet/FleetState"
 *
 * const label = (reading: Reading) => `${reading.code}: ${JSON.stringify(reading.body)}`
 * ```
 * @since 0.1.0
 * @category models
 */
export type Reading = typeof Reading.Type

/**
 * The latest value of one (vehicle, signal): the reading, the event (or
 * poll, `poll:<vehicleId>:<time>`) that set it, and when the store recorded
 * it (`updatedAt`, the database's clock on Postgres).
 *
 * @example
 * ```ts
 * import type { SignalState } from "@connected-vehicle/fleet/FleetState"
 *
 * const line = (state: SignalState) => `${state.vehicleId} ${state.code} = ${JSON.stringify(state.body)}`
 * ```
 * @since 0.1.0
 * @category models
 */
export interface SignalState extends Reading {
  readonly vehicleId: string
  readonly eventId: string
  readonly updatedAt: DateTime.Utc
}

/**
 * What {@link Service} `apply` did: whether the event was new (`false`: it
 * was applied before, nothing changed) and the signals it changed (a
 * reading older than the stored one changes nothing).
 *
 * @example
 * ```ts
 * import type { Applied } from "@connected-vehicle/fleet/FleetState"
 *
 * const summary = (applied: Applied) => applied.applied ? `${applied.changes.length} changed` : "duplicate"
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Applied {
  readonly applied: boolean
  readonly changes: ReadonlyArray<SignalState>
}

/**
 * An event (or a poll's results) to apply to one vehicle.
 *
 * @example
 * ```ts
 * import type { Input } from "@connected-vehicle/fleet/FleetState"
 *
 * const empty: Input = { vehicleId: "veh_1", eventId: "evt_1", readings: [] }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly vehicleId: string
  readonly eventId: string
  readonly readings: ReadonlyArray<Reading>
}

/**
 * The state's operations.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { FleetState } from "@connected-vehicle/fleet/FleetState"
 *
 * const odometer = (vehicleId: string) =>
 *   Effect.map(Effect.flatMap(FleetState, (state) => state.latest(vehicleId)), (signals) =>
 *     signals.find((signal) => signal.code === "odometer-traveleddistance"))
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * Applies an event once: a second `apply` of the same `eventId` within
   * the `appliedRetention` changes nothing (`applied: false`). Each reading
   * replaces the stored one only when its `oemUpdatedAt` is later, or the
   * same and its `eventId` greater (by UTF-8 bytes): a total order, so
   * events applied in any order leave the same state.
   */
  readonly apply: (input: Input) => Effect.Effect<Applied, FleetError>
  /**
   * Applies a poll's readings (`eventId` names the poll,
   * `poll:<vehicleId>:<time>`, and is recorded as `SignalState.eventId` of
   * the signals it sets) by the same rule, a reading replacing the stored
   * one only when it is newer, which makes applying it again
   * harmless by itself: no applied-events record (`applied` is always true).
   */
  readonly applyPoll: (input: Input) => Effect.Effect<Applied, FleetError>
  /** The latest value of each signal of a vehicle, by code. */
  readonly latest: (vehicleId: string) => Effect.Effect<ReadonlyArray<SignalState>, FleetError>
  /**
   * The vehicles (sorted ids) with a signal (`signal`: that one) recorded at
   * or after `since` (`updatedAt`).
   */
  readonly changedSince: (
    since: DateTime.Utc,
    options?: { readonly signal?: string | undefined }
  ) => Effect.Effect<ReadonlyArray<string>, FleetError>
  /**
   * The changes applied **in this process** from the moment of subscription
   * (a vehicle's changes come from the process running its entity): a
   * subscriber more than `changesCapacity` changes behind loses the oldest.
   * Read the table for the state of the whole fleet.
   */
  readonly changes: Stream.Stream<SignalState>
}

/**
 * The fleet's state.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { FleetState } from "@connected-vehicle/fleet/FleetState"
 *
 * const signals = Effect.flatMap(FleetState, (state) => state.latest("veh_1"))
 * ```
 * @since 0.1.0
 * @category services
 */
export class FleetState extends Context.Service<FleetState, Service>()("@connected-vehicle/fleet/FleetState") {}

/**
 * Options of the constructors: the tables (SQL), how far behind a
 * `changes` subscriber may fall (default 10,000) and how long an applied
 * event's id is kept.
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/fleet/FleetState"
 *
 * const options: Options = { stateTable: "fleet_signal_state", changesCapacity: 1_000, appliedRetention: "3 days" }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The latest values (default `fleet_signal_state`). */
  readonly stateTable?: string | undefined
  /** The applied events (default `fleet_applied_events`). */
  readonly appliedTable?: string | undefined
  readonly changesCapacity?: number | undefined
  /**
   * How long an applied event's id is kept, and so how long the same
   * `eventId` applied again changes nothing (default 7 days;
   * `Duration.infinity`: forever). Keep it at least the event queue's
   * `retention`, so that a duplicate the queue stores again is still
   * recognised. Older ids are deleted every quarter of it (from 1 second to
   * 15 minutes) on SQL, at the next `apply` in memory. Not a positive
   * duration: a `FleetError` `Configuration` naming `appliedRetention`.
   */
  readonly appliedRetention?: Duration.Input | undefined
}

const appliedRetention = (options: Options | undefined) =>
  retentionMillis(options?.appliedRetention, "appliedRetention", defaultAppliedRetention)

/**
 * The default tables of {@link makeSql}.
 *
 * @example
 * ```ts
 * import { defaultTables } from "@connected-vehicle/fleet/FleetState"
 *
 * console.log(defaultTables.state, defaultTables.applied) // fleet_signal_state fleet_applied_events
 * ```
 * @since 0.1.0
 * @category constants
 */
export const defaultTables = { state: "fleet_signal_state", applied: "fleet_applied_events" } as const

/**
 * The state in this process's memory: the embedded default. An invalid
 * `appliedRetention` fails it with `FleetError` `Configuration`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as FleetState from "@connected-vehicle/fleet/FleetState"
 *
 * const program = Effect.gen(function*() {
 *   const state = yield* FleetState.makeMemory()
 *   return yield* state.latest("veh_1")
 * })
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options?: Options): Effect.Effect<Service, FleetError> =>
  Effect.flatMap(appliedRetention(options), (retention) => makeMemoryState(options?.changesCapacity ?? 10_000, retention))

/**
 * The state in two SQL tables (Postgres) on the `SqlClient` in context,
 * created if missing: `fleet_signal_state` (`vehicle_id`, `code` the
 * primary key; `name`, `signal_group`, `body` as `jsonb`, `oem_updated_at`,
 * `event_id`, `updated_at`) and `fleet_applied_events` (`event_id` the
 * primary key, `vehicle_id`, `applied_at`, indexed; on a table of an
 * earlier release the index is built in the background, concurrently, so
 * that writes go on meanwhile). A fiber of the scope deletes the
 * applied events older than `appliedRetention` now and every quarter of it
 * (from 1 second to 15 minutes), a batch of 10,000 rows at a time.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import * as Database from "@connected-vehicle/fleet/Database"
 * import * as FleetState from "@connected-vehicle/fleet/FleetState"
 *
 * const state = FleetState.makeSql().pipe(
 *   Effect.provide(Database.layer({ url: Redacted.make("postgres://fleet@db.internal/fleet") }))
 * )
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = (options?: Options): Effect.Effect<Service, FleetError, SqlClient.SqlClient | Scope.Scope> =>
  Effect.flatMap(appliedRetention(options), (retention) =>
    makeSqlState({
      state: options?.stateTable ?? defaultTables.state,
      applied: options?.appliedTable ?? defaultTables.applied,
      changesCapacity: options?.changesCapacity ?? 10_000,
      appliedRetention: retention
    }))

/**
 * {@link makeMemory} as a layer.
 *
 * @example
 * ```ts
 * import * as FleetState from "@connected-vehicle/fleet/FleetState"
 *
 * const InMemory = FleetState.layerMemory()
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (options?: Options): Layer.Layer<FleetState, FleetError> => Layer.effect(FleetState, makeMemory(options))

/**
 * {@link makeSql} as a layer.
 *
 * @example
 * ```ts
 * import { Layer, Redacted } from "effect"
 * import * as Database from "@connected-vehicle/fleet/Database"
 * import * as FleetState from "@connected-vehicle/fleet/FleetState"
 *
 * const OnPostgres = FleetState.layerSql().pipe(
 *   Layer.provide(Database.layer({ url: Redacted.make("postgres://fleet@db.internal/fleet") }))
 * )
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerSql = (options?: Options): Layer.Layer<FleetState, FleetError, SqlClient.SqlClient> =>
  Layer.effect(FleetState, makeSql(options))

/**
 * The latest signals of a vehicle, from the `FleetState` in context.
 *
 * @example
 * ```ts
 * import * as FleetState from "@connected-vehicle/fleet/FleetState"
 *
 * const signals = FleetState.latest("veh_1")
 * ```
 * @since 0.1.0
 * @category accessors
 */
export const latest = (vehicleId: string): Effect.Effect<ReadonlyArray<SignalState>, FleetError, FleetState> =>
  Effect.flatMap(FleetState, (state) => state.latest(vehicleId))

/**
 * The vehicles with a signal recorded at or after `since`, from the
 * `FleetState` in context.
 *
 * @example
 * ```ts
 * import { DateTime, Effect } from "effect"
 * import * as FleetState from "@connected-vehicle/fleet/FleetState"
 *
 * const lastHour = Effect.flatMap(DateTime.now, (now) =>
 *   FleetState.changedSince(DateTime.subtract(now, { hours: 1 }), { signal: "odometer-traveleddistance" }))
 * ```
 * @since 0.1.0
 * @category accessors
 */
export const changedSince = (
  since: DateTime.Utc,
  options?: { readonly signal?: string | undefined }
): Effect.Effect<ReadonlyArray<string>, FleetError, FleetState> =>
  Effect.flatMap(FleetState, (state) => state.changedSince(since, options))

/**
 * The changes applied in this process (see {@link Service} `changes`),
 * from the `FleetState` in context.
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import * as FleetState from "@connected-vehicle/fleet/FleetState"
 *
 * const follow = Stream.runForEach(FleetState.changes, (change) =>
 *   Effect.log(`${change.vehicleId} ${change.code} = ${JSON.stringify(change.body)}`))
 * ```
 * @since 0.1.0
 * @category accessors
 */
export const changes: Stream.Stream<SignalState, never, FleetState> = Stream.unwrap(
  Effect.map(FleetState, (state) => state.changes)
)

/**
 * Each vehicle is an `effect/cluster` entity, sharded over the runners of a
 * deployment: it applies its webhook events to the `FleetState` (persisted
 * messages, delivered at least once, applied exactly once by `eventId`) and,
 * when no event arrived for `pollInterval`, polls the signals it is
 * configured to keep through `@connected-vehicle/v3`'s `Signals`.
 *
 * @since 0.1.0
 */
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { isFailedSignal } from "@connected-vehicle/schema/WebhookEvent"
import { Signals } from "@connected-vehicle/v3/Signals"
import { Duration, Effect, Layer, Metric, Schema } from "effect"
import { type ClusterError, ClusterSchema, Entity, type Sharding } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { FleetError } from "./FleetError.ts"
import { FleetState, Reading } from "./FleetState.ts"
import { eventsAlreadyApplied, eventsApplied } from "./FleetMetrics.ts"
import { atLeast, millis, MIN_POLL_INTERVAL } from "./internal/options.ts"
import { makeHandlers, PollPayload } from "./internal/vehicle.ts"

/**
 * `Apply`: one event's readings, applied once (`applied: false` for an
 * `eventId` applied before), replied with how many signals changed. A
 * persisted message: stored before it is handled, delivered at least once.
 *
 * @example
 * ```ts
 * import { Apply } from "@connected-vehicle/fleet/VehicleEntity"
 *
 * console.log(Apply._tag) // "Apply"
 * ```
 * @since 0.1.0
 * @category rpcs
 */
export const Apply = Rpc.make("Apply", {
  payload: {
    eventId: Schema.String,
    /** The vehicle's user (`data.user.id`): the `sc-user-id` of the polls. */
    userId: Schema.optionalKey(Schema.String),
    readings: Schema.Array(Reading)
  },
  success: Schema.Struct({ applied: Schema.Boolean, changed: Schema.Int }),
  error: FleetError
}).annotate(ClusterSchema.Persisted, true)

/**
 * `Poll`: a persisted message delivered at `dueAt` (its `DeliverAt`), sent
 * by the entity to itself; the entity polls when no event arrived for
 * `pollInterval` by then, and schedules the next one.
 *
 * @example
 * ```ts
 * import { Poll } from "@connected-vehicle/fleet/VehicleEntity"
 *
 * console.log(Poll._tag) // "Poll"
 * ```
 * @since 0.1.0
 * @category rpcs
 */
export const Poll = Rpc.make("Poll", { payload: PollPayload }).annotate(ClusterSchema.Persisted, true)

/**
 * The entity type: `Vehicle`, its id the vehicle id.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Vehicle } from "@connected-vehicle/fleet/VehicleEntity"
 *
 * const apply = Effect.gen(function*() {
 *   const vehicle = (yield* Vehicle.client)("veh_1")
 *   return yield* vehicle.Apply({ eventId: "evt_1", readings: [] })
 * })
 * ```
 * @since 0.1.0
 * @category entities
 */
export const Vehicle = Entity.make("Vehicle", [Apply, Poll])

/**
 * How a vehicle entity polls: every `pollInterval` without an event
 * (default 15 minutes), the signals `pollSignals` (codes; default none: no
 * polling).
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/fleet/VehicleEntity"
 *
 * const options: Options = { pollInterval: "5 minutes", pollSignals: ["odometer-traveleddistance"] }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly pollInterval?: Duration.Input | undefined
  readonly pollSignals?: ReadonlyArray<string> | undefined
  /** An idle entity is stopped after this long (default 1 minute); a message wakes it. */
  readonly maxIdleTime?: Duration.Input | undefined
}

/**
 * Registers the entity with the cluster (`Sharding`) of this runner: its
 * handlers write to the `FleetState` and poll through `Signals`. A
 * `pollInterval` that is not a finite duration of at least 1 second (the
 * floor `FLEET_POLL_INTERVAL` has too), or a `maxIdleTime` that is not a
 * positive duration, fails it with `FleetError` `Configuration` naming the
 * option.
 *
 * @example
 * ```ts
 * import * as VehicleEntity from "@connected-vehicle/fleet/VehicleEntity"
 *
 * const Vehicles = VehicleEntity.layer({ pollInterval: "10 minutes", pollSignals: ["odometer-traveleddistance"] })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<never, FleetError, Sharding.Sharding | FleetState | Signals> =>
  Layer.unwrap(Effect.gen(function*() {
    const pollInterval = yield* atLeast("pollInterval", options?.pollInterval, Duration.minutes(15), MIN_POLL_INTERVAL)
    // unset: the cluster's own (`ShardingConfig`'s `entityMaxIdleTime`)
    const maxIdleTime = options?.maxIdleTime === undefined ? undefined : Duration.millis(yield* millis("maxIdleTime", options.maxIdleTime, options.maxIdleTime))
    return Vehicle.toLayer(
      Effect.gen(function*() {
        const self = (yield* Vehicle.client)((yield* Entity.CurrentAddress).entityId)
        const handlers = yield* makeHandlers({
          pollInterval: Duration.millis(pollInterval),
          pollSignals: options?.pollSignals ?? [],
          schedule: (payload) => self.Poll(payload, { discard: true })
        })
        return Vehicle.of({
          Apply: ({ payload }) => handlers.apply(payload),
          Poll: ({ payload }) => handlers.poll(payload)
        })
      }),
      { maxIdleTime }
    )
  }))

/**
 * The readings of a delivered event: the signals of a `VEHICLE_STATE` that
 * were read (failed ones carry no value); none for other kinds.
 *
 * @example
 * ```ts
 * import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
 * import { readingsOf } from "@connected-vehicle/fleet/VehicleEntity"
 *
 * const codes = (event: DeliveredEvent) => readingsOf(event).map((reading) => reading.code)
 * ```
 * @since 0.1.0
 * @category events
 */
export const readingsOf = (event: DeliveredEvent): ReadonlyArray<Reading> =>
  event.eventType !== "VEHICLE_STATE" ? [] : event.data.signals.flatMap((signal) =>
    isFailedSignal(signal) ? [] : [{
      code: signal.code,
      name: signal.name,
      group: signal.group,
      body: signal.body,
      oemUpdatedAt: signal.meta.oemUpdatedAt
    }]
  )

/**
 * Why a message could not be sent to a vehicle entity (or, for `Apply`,
 * applied: a `FleetError` of the state). A `Worker` retries the event.
 *
 * @example
 * ```ts
 * import type { SendError } from "@connected-vehicle/fleet/VehicleEntity"
 *
 * const describe = (error: SendError) => error._tag === "FleetError" ? error.reason._tag : error._tag
 * ```
 * @since 0.1.0
 * @category errors
 */
export type SendError =
  | FleetError
  | ClusterError.MailboxFull
  | ClusterError.AlreadyProcessingMessage
  | ClusterError.PersistenceError
  | ClusterError.EntityNotAssignedToRunner

/**
 * A `Worker` handler: sends a `VEHICLE_STATE` event to its vehicle's entity
 * and waits for it to be applied (other kinds are left alone). Run again for
 * the same event, it changes nothing.
 *
 * @example
 * ```ts
 * import { Worker } from "@connected-vehicle/fleet"
 * import * as VehicleEntity from "@connected-vehicle/fleet/VehicleEntity"
 *
 * const Workers = Worker.layer({ handler: VehicleEntity.handler, concurrency: 16 })
 * ```
 * @since 0.1.0
 * @category handlers
 */
export const handler = (event: DeliveredEvent): Effect.Effect<void, SendError, Sharding.Sharding> =>
  Effect.gen(function*() {
    if (event.eventType !== "VEHICLE_STATE") return
    const vehicle = (yield* Vehicle.client)(event.vehicleId)
    const reply = yield* vehicle.Apply({ eventId: event.eventId, userId: event.data.user.id, readings: readingsOf(event) })
    yield* Metric.update(reply.applied ? eventsApplied : eventsAlreadyApplied, 1)
  })

/**
 * Starts keeping a vehicle that has sent no event yet: its entity polls now
 * (as `userId`), then every `pollInterval` without an event.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as VehicleEntity from "@connected-vehicle/fleet/VehicleEntity"
 *
 * const trackAll = Effect.forEach([{ vehicleId: "veh_1", userId: "usr_1" }], VehicleEntity.track)
 * ```
 * @since 0.1.0
 * @category polling
 */
export const track = (
  target: { readonly vehicleId: string; readonly userId: string }
): Effect.Effect<void, SendError, Sharding.Sharding> =>
  Effect.gen(function*() {
    const vehicle = (yield* Vehicle.client)(target.vehicleId)
    const dueAt = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    yield* vehicle.Poll(new PollPayload({ userId: target.userId, dueAt }), { discard: true })
  })

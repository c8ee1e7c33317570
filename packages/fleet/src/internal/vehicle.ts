/**
 * What a vehicle entity does: apply events, and poll when idle.
 *
 * @internal
 */
import { Signals } from "@connected-vehicle/v3/Signals"
import { Clock, DateTime, Duration, Effect, Metric, PrimaryKey, Schema, Stream } from "effect"
import { DeliverAt, Entity } from "effect/cluster"
import { FleetState, type Reading } from "../FleetState.ts"
import { vehiclePolls } from "../FleetMetrics.ts"

/**
 * The payload of `Poll`: the user the poll acts for, and when it is due
 * (epoch milliseconds; its `DeliverAt`, and its primary key, so one due time
 * is stored once).
 *
 * @internal
 */
export class PollPayload extends Schema.Class<PollPayload>("@connected-vehicle/fleet/VehicleEntity/PollPayload")({
  userId: Schema.String,
  dueAt: Schema.Number
}) {
  [PrimaryKey.symbol]() {
    return String(this.dueAt)
  }
  [DeliverAt.symbol]() {
    return DateTime.makeUnsafe(this.dueAt)
  }
}

interface Settings {
  readonly pollInterval: Duration.Duration
  readonly pollSignals: ReadonlyArray<string>
  /** Sends `Poll` to this entity (not waiting for it). */
  readonly schedule: (payload: PollPayload) => Effect.Effect<void, unknown>
}

/** The signals to keep, read through v3 (one request per page of 100), as readings. */
const readSignals = (signals: Signals["Service"], vehicleId: string, userId: string, codes: ReadonlySet<string>) =>
  signals.stream({ vehicleId, userId, pageSize: 100 }).pipe(
    Stream.filter((signal) => codes.has(signal.attributes.code) && signal.attributes.status.value === "SUCCESS"),
    Stream.map((signal): Reading => ({
      code: signal.attributes.code,
      name: signal.attributes.name,
      group: signal.attributes.group,
      body: signal.attributes.body,
      oemUpdatedAt: signal.meta.oemUpdatedAt
    })),
    Stream.runCollect
  )

/** @internal the handlers of one entity (one vehicle), with its memory: when it last heard of the vehicle, its next poll */
export const makeHandlers = (settings: Settings) =>
  Effect.gen(function*() {
    const vehicleId = (yield* Entity.CurrentAddress).entityId
    const state = yield* FleetState
    const signals = yield* Signals
    const interval = Duration.toMillis(settings.pollInterval)
    const codes = new Set(settings.pollSignals)
    let lastActivity: number | undefined
    let userId: string | undefined
    let pendingPoll: number | undefined

    const scheduleAt = (dueAt: number) => {
      if (codes.size === 0 || userId === undefined || (pendingPoll !== undefined && pendingPoll <= dueAt)) {
        return Effect.void
      }
      pendingPoll = dueAt
      return settings.schedule(new PollPayload({ userId, dueAt })).pipe(
        Effect.catchCause((cause) => {
          pendingPoll = undefined // the next event tries again
          return Effect.logWarning(`scheduling the next poll of vehicle ${vehicleId} failed`, cause)
        })
      )
    }

    const pollNow = (user: string, dueAt: number) =>
      readSignals(signals, vehicleId, user, codes).pipe(
        Effect.flatMap((readings) => state.applyPoll({ vehicleId, eventId: `poll:${vehicleId}:${dueAt}`, readings })),
        Effect.tap(() => Metric.update(vehiclePolls, 1)),
        Effect.catchCause((cause) => Effect.logWarning(`polling vehicle ${vehicleId} failed; next poll in ${Duration.format(settings.pollInterval)}`, cause))
      )

    return {
      apply: (payload: { readonly eventId: string; readonly userId?: string; readonly readings: ReadonlyArray<Reading> }) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          lastActivity = now
          userId = payload.userId ?? userId
          const applied = yield* state.apply({ vehicleId, eventId: payload.eventId, readings: payload.readings })
          yield* scheduleAt(now + interval)
          return { applied: applied.applied, changed: applied.changes.length }
        }),
      poll: (payload: PollPayload) =>
        Effect.gen(function*() {
          if (pendingPoll === payload.dueAt) pendingPoll = undefined
          userId = payload.userId
          const now = yield* Clock.currentTimeMillis
          if (lastActivity !== undefined && now - lastActivity < interval) {
            // an event came meanwhile: not idle yet (a later due time than this one, which is stored already)
            return yield* scheduleAt(Math.max(lastActivity + interval, payload.dueAt + 1))
          }
          if (codes.size > 0) yield* pollNow(payload.userId, payload.dueAt)
          lastActivity = now
          yield* scheduleAt(now + interval)
        })
    }
  })

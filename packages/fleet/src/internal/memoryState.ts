/**
 * The fleet state in this process's memory.
 *
 * @internal
 */
import { DateTime, Effect, PubSub, Stream } from "effect"
import type { Input, Reading, Service, SignalState } from "../FleetState.ts"

/** @internal the newest reading of each code of one event (an event naming a code twice keeps its latest) */
export const newestByCode = (readings: ReadonlyArray<Reading>): ReadonlyArray<Reading> => {
  const byCode = new Map<string, Reading>()
  for (const reading of readings) {
    const current = byCode.get(reading.code)
    if (current === undefined || DateTime.isGreaterThan(reading.oemUpdatedAt, current.oemUpdatedAt)) {
      byCode.set(reading.code, reading)
    }
  }
  return [...byCode.values()]
}

/**
 * @internal whether a reading of `eventId` replaces `current`: a later
 * `oemUpdatedAt`, or the same one and a greater `eventId` (by its UTF-8
 * bytes, as the SQL store compares them), so that events applied in any
 * order leave the same state
 */
export const replaces = (reading: Reading, eventId: string, current: SignalState | undefined): boolean =>
  current === undefined || DateTime.isGreaterThan(reading.oemUpdatedAt, current.oemUpdatedAt) ||
  (DateTime.Equivalence(reading.oemUpdatedAt, current.oemUpdatedAt) && Buffer.compare(Buffer.from(eventId), Buffer.from(current.eventId)) > 0)

/**
 * @internal the applied event ids with when they were applied, in that
 * order: those older than `retention` milliseconds are forgotten at the
 * next `record`
 */
const appliedIds = (retention: number) => {
  const applied = new Map<string, number>()
  return {
    /** Records `eventId` applied at `now`: false when it is recorded already. */
    record: (eventId: string, now: number): boolean => {
      for (const [id, at] of applied) {
        if (now - at < retention) break
        applied.delete(id)
      }
      if (applied.has(eventId)) return false
      applied.set(eventId, now)
      return true
    }
  }
}

/** @internal */
export const makeMemoryState = (changesCapacity: number, retention: number): Effect.Effect<Service> =>
  Effect.gen(function*() {
    const vehicles = new Map<string, Map<string, SignalState>>()
    const applied = appliedIds(retention)
    const changes = yield* PubSub.sliding<SignalState>(Math.max(1, changesCapacity))
    /** The readings of `input`, newest by `oemUpdatedAt` winning, when `fresh` (its id recorded, in the same synchronous step) */
    const write = (input: Input, fresh: (updatedAt: DateTime.Utc) => boolean) =>
      Effect.gen(function*() {
        const updatedAt = yield* DateTime.now
        // synchronous from here on: the check, the record and the writes are one atomic step
        if (!fresh(updatedAt)) return { applied: false, changes: [] }
        let signals = vehicles.get(input.vehicleId)
        if (signals === undefined) vehicles.set(input.vehicleId, signals = new Map())
        const changed: Array<SignalState> = []
        for (const reading of newestByCode(input.readings)) {
          const current = signals.get(reading.code)
          if (!replaces(reading, input.eventId, current)) continue
          const state: SignalState = { ...reading, vehicleId: input.vehicleId, eventId: input.eventId, updatedAt }
          signals.set(reading.code, state)
          changed.push(state)
        }
        yield* PubSub.publishAll(changes, changed)
        return { applied: true, changes: changed }
      })
    return {
      apply: (input) => write(input, (now) => applied.record(input.eventId, now.epochMilliseconds)),
      applyPoll: (input) => write(input, () => true),
      latest: (vehicleId) =>
        Effect.sync(() => [...(vehicles.get(vehicleId)?.values() ?? [])].sort((a, b) => a.code.localeCompare(b.code))),
      changedSince: (since, options) =>
        Effect.sync(() => {
          const ids: Array<string> = []
          for (const [vehicleId, signals] of vehicles) {
            for (const state of signals.values()) {
              if (options?.signal !== undefined && state.code !== options.signal) continue
              if (!DateTime.isLessThan(state.updatedAt, since)) {
                ids.push(vehicleId)
                break
              }
            }
          }
          return ids.sort()
        }),
      changes: Stream.fromPubSub(changes)
    }
  })

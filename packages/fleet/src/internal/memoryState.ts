/**
 * The fleet state in this process's memory.
 *
 * @internal
 */
import { DateTime, Effect, PubSub, Stream } from "effect"
import type { Reading, Service, SignalState } from "../FleetState.ts"

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

/** @internal */
export const makeMemoryState = (changesCapacity: number): Effect.Effect<Service> =>
  Effect.gen(function*() {
    const vehicles = new Map<string, Map<string, SignalState>>()
    const appliedEvents = new Set<string>()
    const changes = yield* PubSub.sliding<SignalState>(Math.max(1, changesCapacity))
    return {
      apply: ({ eventId, readings, vehicleId }) =>
        Effect.gen(function*() {
          const updatedAt = yield* DateTime.now
          // synchronous from here on: the check, the record and the writes are one atomic step
          if (appliedEvents.has(eventId)) return { applied: false, changes: [] }
          appliedEvents.add(eventId)
          let signals = vehicles.get(vehicleId)
          if (signals === undefined) vehicles.set(vehicleId, signals = new Map())
          const changed: Array<SignalState> = []
          for (const reading of newestByCode(readings)) {
            const current = signals.get(reading.code)
            if (current !== undefined && !DateTime.isGreaterThan(reading.oemUpdatedAt, current.oemUpdatedAt)) continue
            const state: SignalState = { ...reading, vehicleId, eventId, updatedAt }
            signals.set(reading.code, state)
            changed.push(state)
          }
          yield* PubSub.publishAll(changes, changed)
          return { applied: true, changes: changed }
        }),
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

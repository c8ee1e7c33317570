/**
 * `VEHICLE_STATE` events with chosen readings, and the wait the state tests
 * share.
 */
import { type Duration, Effect, Schedule } from "effect"

export interface Value {
  readonly code: string
  readonly value: number
  /** `oemUpdatedAt`, ISO 8601. */
  readonly at: string
}

const names: Record<string, readonly [string, string, string]> = {
  "odometer-traveleddistance": ["TraveledDistance", "Odometer", "km"],
  "tractionbattery-stateofcharge": ["StateOfCharge", "TractionBattery", "percent"]
}

/** A `VEHICLE_STATE` event of `vehicleId` (user `userId`) carrying `values`. */
export const readingEvent = (eventId: string, vehicleId: string, values: ReadonlyArray<Value>, userId = "usr_1") => ({
  eventId,
  eventType: "VEHICLE_STATE",
  vehicleId,
  data: {
    user: { id: userId },
    vehicle: { id: vehicleId, make: "RENAULT", model: "Zoé", year: 2022 },
    triggers: values.map(({ code }) => ({ code, name: names[code]![0], group: names[code]![1] })),
    signals: values.map(({ at, code, value }) => ({
      code,
      name: names[code]![0],
      group: names[code]![1],
      body: { unit: names[code]![2], value },
      meta: { oemUpdatedAt: at, fetchedAt: at }
    }))
  },
  meta: {
    version: "4.0",
    webhookId: "wh_1",
    webhookName: "Fleet",
    deliveryId: `dlv_${eventId}`,
    deliveredAt: 1756202400000,
    signalCount: values.length,
    mode: "LIVE"
  }
})

/** Waits (live clock) until `check` holds, checking every `every`; fails after `timeoutMs`. */
export const eventually = <E, R>(check: Effect.Effect<boolean, E, R>, timeoutMs = 15_000, every: Duration.Input = "25 millis") =>
  check.pipe(
    Effect.repeat({ until: (ok) => ok, schedule: Schedule.spaced(every) }),
    Effect.timeoutOrElse({ duration: timeoutMs, orElse: () => Effect.die(new Error(`not within ${timeoutMs} ms`)) }),
    Effect.asVoid
  )

/** Shard locks and polls short enough for a test: shards of a stopped runner move in a few seconds. */
export const fastSharding = {
  shardsPerGroup: 60,
  shardLockRefreshInterval: "1 second",
  shardLockExpiration: "6 seconds",
  refreshAssignmentsInterval: "500 millis",
  entityMessagePollInterval: "200 millis",
  entityReplyPollInterval: "50 millis",
  runnerHealthCheckInterval: "1 second"
} as const

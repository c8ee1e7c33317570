/**
 * Webhook deliveries at scale: a burst of `VEHICLE_STATE` events for many
 * vehicles, sent through the delivery engine (the same signing, log and
 * retry loop as every delivery) at a set rate, with duplicates (an event id
 * delivered again), lost acknowledgements (a 2xx treated as a failure, so the
 * event is retried), reordering within a window, and "poison" events whose
 * ids the test names. Everything but the HTTP is seeded, and the ground truth
 * (the distinct events, the newest value per vehicle and signal) can be read
 * to check a consumer independently.
 *
 * Each event carries a non-empty seeded subset of the burst's signals (the
 * ones the vehicle's model has), each with a seeded value and an
 * `oemUpdatedAt` unique in the burst: event `i` of `n` is `i` ms after
 * `startedAt - n` ms, so events are generated oldest first and deliveries
 * are what reorders them. The newest value of each (vehicle, signal) also
 * becomes the reading the v3 and v2.0 endpoints serve (as if set with
 * `setSignal`, without events), so polling agrees with the events; poison
 * events (`oemUpdatedAt` after every other) are left out of both. A signal
 * the vehicle's connection may not read (when permissions are enforced) is
 * carried as the REST reads show it, `ERROR` / `FORBIDDEN` without a body,
 * and its values are left out of the ground truth and of the readings.
 *
 * A vehicle's events go to one of the burst's webhooks (vehicle `k` of the
 * burst to webhook `k mod W`), as if subscribed: a burst creates no
 * subscription and sends no `FIRST_DELIVERY`. With `failover`, retry `n` goes
 * to the next webhook of the list, like a load balancer taking a dead
 * receiver out.
 *
 * @since 0.2.0
 */
import type { Duration } from "effect"

/**
 * Most distinct events in one burst (poison events included).
 *
 * @example
 * ```ts
 * import { MAX_BURST_EVENTS } from "@connected-vehicle/simulator/Burst"
 *
 * MAX_BURST_EVENTS // 100000
 * ```
 * @since 0.2.0
 * @category constants
 */
export const MAX_BURST_EVENTS = 100_000

/**
 * Most poison event ids in one burst.
 *
 * @example
 * ```ts
 * import { MAX_POISON_EVENTS } from "@connected-vehicle/simulator/Burst"
 *
 * MAX_POISON_EVENTS // 1000
 * ```
 * @since 0.2.0
 * @category constants
 */
export const MAX_POISON_EVENTS = 1_000

/**
 * The signals of a burst when none are named (every model has both).
 *
 * @example
 * ```ts
 * import { DEFAULT_BURST_SIGNALS } from "@connected-vehicle/simulator/Burst"
 *
 * DEFAULT_BURST_SIGNALS // ["odometer-traveleddistance", "climate-exteriortemperature"]
 * ```
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_BURST_SIGNALS: ReadonlyArray<string> = ["odometer-traveleddistance", "climate-exteriortemperature"]

/**
 * The signals a burst can carry: those whose body is `{unit, value}` with a
 * number.
 *
 * @example
 * ```ts
 * import { BURST_SIGNALS } from "@connected-vehicle/simulator/Burst"
 *
 * BURST_SIGNALS.includes("tractionbattery-stateofcharge") // true
 * ```
 * @since 0.2.0
 * @category constants
 */
export const BURST_SIGNALS: ReadonlyArray<string> = [
  "odometer-traveleddistance",
  "climate-exteriortemperature",
  "tractionbattery-stateofcharge",
  "tractionbattery-range",
  "charge-voltage",
  "charge-chargingcurrent",
  "internalcombustionengine-fuellevel",
  "internalcombustionengine-oillife"
]

/**
 * A burst to start (`Simulator.startBurst`, `POST /_simulator/bursts`).
 *
 * @example
 * ```ts
 * import type { BurstInput } from "@connected-vehicle/simulator/Burst"
 *
 * const input: BurstInput = {
 *   events: 20_000,
 *   vehicles: 2_000,
 *   ratePerSecond: 2_000,
 *   duplicateRatio: 0.05,
 *   lostAckRatio: 0.02,
 *   reorderWindow: 50,
 *   seed: 7,
 *   retryDelays: ["200 millis", "1 second", "5 seconds"],
 *   failover: true,
 *   poisonEventIds: ["evt_poison_1", "evt_poison_2"]
 * }
 * ```
 * @since 0.2.0
 * @category models
 */
export interface BurstInput {
  /** Distinct events, poison ones not included (1..{@link MAX_BURST_EVENTS}). */
  readonly events: number
  /** The first `vehicles` connected vehicles of the dataset (1..connections). */
  readonly vehicles: number
  /** Deliveries started per second (duplicates included; retries follow their own schedule). */
  readonly ratePerSecond: number
  /** Share of events delivered a second time, with the same event id (0..1, default 0). */
  readonly duplicateRatio?: number | undefined
  /** Share of deliveries whose first 2xx is treated as lost, so the event is retried (0..1, default 0). */
  readonly lostAckRatio?: number | undefined
  /** Deliveries are shuffled within consecutive blocks of this many (default 1: in order; at most 10,000). */
  readonly reorderWindow?: number | undefined
  /** Seed of the events, values and shuffles (default the simulator's seed). */
  readonly seed?: number | undefined
  /** Created, verified and enabled webhooks to deliver to (default every such webhook). */
  readonly webhookIds?: ReadonlyArray<string> | undefined
  /** Signal codes (of {@link BURST_SIGNALS}; default {@link DEFAULT_BURST_SIGNALS}). */
  readonly signals?: ReadonlyArray<string> | undefined
  /** Ids of extra events a consumer's handler is meant to refuse (at most {@link MAX_POISON_EVENTS}). */
  readonly poisonEventIds?: ReadonlyArray<string> | undefined
  /** The waits before the retries (default the service's 25, 50, 100 s; at most 10). */
  readonly retryDelays?: ReadonlyArray<Duration.Input> | undefined
  /** Retry `n` goes to the next webhook of the burst (default false: the same one). */
  readonly failover?: boolean | undefined
  /** Most attempts in flight at once (default 64, at most 1,024). */
  readonly maxInFlight?: number | undefined
}

/**
 * The progress of a burst. `deliveries` counts the planned deliveries
 * (events, duplicates and poison events); `settled` those that ended
 * (`delivered` or `dropped`, or stopped by a cancel or reset); `done` once
 * every delivery settled.
 *
 * @example
 * ```ts
 * import type { BurstView } from "@connected-vehicle/simulator/Burst"
 *
 * const allDelivered = (b: BurstView) => b.done && b.delivered === b.deliveries
 * ```
 * @since 0.2.0
 * @category models
 */
export interface BurstView {
  readonly burstId: string
  readonly seed: number
  readonly events: number
  readonly poisonEvents: number
  readonly duplicates: number
  readonly deliveries: number
  readonly started: number
  readonly attempts: number
  readonly retries: number
  readonly lostAcks: number
  readonly delivered: number
  readonly dropped: number
  readonly settled: number
  readonly cancelled: boolean
  readonly done: boolean
  readonly startedAt: string
  readonly webhookIds: ReadonlyArray<string>
}

/**
 * One signal value of a burst event.
 *
 * @example
 * ```ts
 * import type { BurstValue } from "@connected-vehicle/simulator/Burst"
 *
 * const value: BurstValue = { code: "odometer-traveleddistance", body: { unit: "km", value: 1234.5 }, oemUpdatedAt: "2026-01-01T00:00:00.000Z" }
 * ```
 * @since 0.2.0
 * @category models
 */
export interface BurstValue {
  readonly code: string
  readonly body: { readonly unit: string; readonly value: number }
  readonly oemUpdatedAt: string
}

/**
 * A distinct event of a burst, as generated: `signals` are the values it
 * carries (a signal its vehicle's connection may not read is delivered
 * `FORBIDDEN`, without a value, and is not listed).
 *
 * @example
 * ```ts
 * import type { BurstEvent } from "@connected-vehicle/simulator/Burst"
 *
 * const codes = (e: BurstEvent) => e.signals.map((s) => s.code)
 * ```
 * @since 0.2.0
 * @category models
 */
export interface BurstEvent {
  readonly eventId: string
  readonly vehicleId: string
  readonly poison: boolean
  readonly signals: ReadonlyArray<BurstValue>
}

/**
 * The ground truth of a burst: its distinct events, and the newest value of
 * each (vehicle, signal) by `oemUpdatedAt` over the events that are not
 * poison.
 *
 * @example
 * ```ts
 * import type { GroundTruth } from "@connected-vehicle/simulator/Burst"
 *
 * const expected = (t: GroundTruth) => new Map(t.latest.map((l) => [`${l.vehicleId} ${l.code}`, l.body.value]))
 * ```
 * @since 0.2.0
 * @category models
 */
export interface GroundTruth {
  readonly burstId: string
  readonly events: ReadonlyArray<BurstEvent>
  readonly latest: ReadonlyArray<BurstValue & { readonly vehicleId: string; readonly eventId: string }>
  readonly poisonEventIds: ReadonlyArray<string>
}

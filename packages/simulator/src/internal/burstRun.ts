/**
 * Running a burst (see `Burst`): the deliveries started at the planned rate
 * in fibers of the engine, each through `deliverWith` (the engine's signing,
 * log and retry loop) under a permit of the burst's `maxInFlight`; its
 * counters; its readings (the newest value per vehicle and signal, served by
 * the REST endpoints); start, cancel, await and the ground truth.
 *
 * @internal
 */
import { SignalBody } from "@connected-vehicle/schema/Signal"
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { Deferred, Duration, Effect, Schema, Semaphore } from "effect"
import type { BurstInput, BurstView, GroundTruth } from "../Burst.ts"
import type { AttemptMeta, Engine } from "./deliveryEngine.ts"
import { deliverWith, fork, iso, ref, utc } from "./deliveryEngine.ts"
import { vehicleEventBase, vehicleEventMeta } from "./deliveryEvents.ts"
import { fail } from "./deliveryPolicy.ts"
import type { WebhookControlError } from "./deliveryPolicy.ts"
import type { Plan, PlannedEvent } from "./burstPlan.ts"
import { groundTruth, newest, plan } from "./burstPlan.ts"
import { unit } from "./seeded.ts"

/** A burst started on an engine: its plan, counters and completion. */
export interface Running {
  readonly plan: Plan
  readonly done: Deferred.Deferred<BurstView>
  readonly counters: {
    started: number
    attempts: number
    retries: number
    lostAcks: number
    delivered: number
    dropped: number
    settled: number
  }
  cancelled: boolean
}

/** The progress of a burst. */
export const viewOf = (running: Running): BurstView => {
  const { counters, plan: p } = running
  return {
    burstId: p.burstId,
    seed: p.seed,
    events: p.events.length - p.poisonEvents,
    poisonEvents: p.poisonEvents,
    duplicates: p.duplicates,
    deliveries: p.order.length,
    ...counters,
    cancelled: running.cancelled,
    done: counters.settled >= p.order.length,
    startedAt: iso(p.startedAt),
    webhookIds: p.webhooks.map((w) => w.id)
  }
}

/** Counts settled deliveries; the last one completes the burst. */
const settle = (running: Running, count: number) => {
  running.counters.settled += count
  if (running.counters.settled >= running.plan.order.length) Deferred.doneUnsafe(running.done, Effect.succeed(viewOf(running)))
}

/** The `VEHICLE_STATE` of a burst event, as attempt `meta` sends it. */
const eventOf = (engine: Engine, event: PlannedEvent, meta: AttemptMeta): DeliveredEvent => {
  const v = event.vehicle
  const { user, vehicle, vehicleId } = vehicleEventBase(engine, v, engine.data.connectionUser[v.index]!)
  const signals = event.values.map((value) =>
    value.forbidden !== undefined
      ? { ...ref(value.definition), status: value.forbidden }
      : { ...ref(value.definition), body: value.body, meta: { oemUpdatedAt: utc(value.at), fetchedAt: meta.deliveredAt } }
  )
  // only what the connection may read triggers (the plan gives every event at least one such value)
  const triggers = event.values.filter((value) => value.forbidden === undefined).map((value) => ref(value.definition))
  return {
    eventId: event.eventId,
    eventType: "VEHICLE_STATE",
    vehicleId,
    data: { user, vehicle, triggers, signals },
    meta: vehicleEventMeta(meta.w, v, meta.deliveryId, meta.deliveredAt, signals.length)
  }
}

/** Delivery `k` of the burst (an event, its duplicate or a poison event). */
const deliverOne = (engine: Engine, running: Running, k: number, permits: Semaphore.Semaphore) => {
  const { counters, plan: p } = running
  const event = p.events[p.order[k]!]!
  const lost = unit(p.seed, k, 0x1057) < p.lostAckRatio
  return deliverWith(engine, {
    target: (n) => p.webhooks[(event.slot + (p.failover ? n - 1 : 0)) % p.webhooks.length]!,
    retryOffsets: p.retryOffsets,
    lostAck: (n) => n === 1 && lost,
    around: Semaphore.withPermit(permits),
    live: () => !running.cancelled,
    onAttempt: (entry) => {
      counters.attempts++
      if (entry.attempt > 1) counters.retries++
      if (entry.outcome === "retrying" && entry.status !== null && entry.status < 300) counters.lostAcks++
      if (entry.outcome === "delivered") counters.delivered++
      if (entry.outcome === "dropped") counters.dropped++
    }
  }, event.eventId, "VEHICLE_STATE", (meta) => eventOf(engine, event, meta)).pipe(
    Effect.ensuring(Effect.sync(() => settle(running, 1)))
  )
}

/** Starts the deliveries at the planned rate; those never started settle when the burst stops. */
const run = (engine: Engine, running: Running) =>
  Effect.gen(function*() {
    const { plan: p } = running
    const generation = engine.generation
    const permits = yield* Semaphore.make(p.maxInFlight)
    const begin = engine.now()
    let k = 0
    for (; k < p.order.length; k++) {
      if (running.cancelled || engine.generation !== generation) break
      const wait = begin + (k * 1000) / p.ratePerSecond - engine.now()
      if (wait >= 1) yield* Effect.sleep(Duration.millis(wait))
      yield* fork(engine, deliverOne(engine, running, k, permits))
      running.counters.started++
    }
    if (k < p.order.length) settle(running, p.order.length - k)
  })

const encodeWire = (body: unknown) => Schema.encodeSync(SignalBody)(Schema.decodeUnknownSync(SignalBody)(body))

/** The newest value of each (vehicle, signal) becomes the reading the REST endpoints serve. */
const setReadings = (engine: Engine, p: Plan) => {
  for (const { event, value } of newest(p)) {
    engine.overrides.set(`${event.vehicle.index} ${value.definition.code}`, {
      body: value.body,
      wire: encodeWire(value.body),
      at: value.at
    })
  }
  engine.readingsVersion++
}

/** Plans and starts a burst (one at a time); its progress. */
export const startBurst = (engine: Engine, input: BurstInput) =>
  Effect.gen(function*() {
    const current = engine.burst
    if (current !== undefined && !Deferred.isDoneUnsafe(current.done)) {
      return yield* fail(409, `Burst ${current.plan.burstId} is still running: await it or cancel it first`)
    }
    const p = yield* plan(engine, input, engine.bursts + 1)
    engine.bursts++
    const running: Running = {
      plan: p,
      done: Deferred.makeUnsafe<BurstView>(),
      counters: { started: 0, attempts: 0, retries: 0, lostAcks: 0, delivered: 0, dropped: 0, settled: 0 },
      cancelled: false
    }
    engine.burst = running
    setReadings(engine, p)
    yield* fork(engine, run(engine, running))
    return viewOf(running)
  })

const currentOf = (engine: Engine) =>
  Effect.suspend(() =>
    engine.burst === undefined ? fail(404, "No burst was started (POST /_simulator/bursts)") : Effect.succeed(engine.burst)
  )

/** The progress of the last burst. */
export const currentBurst = (engine: Engine) => Effect.map(currentOf(engine), viewOf)

/** Waits until every delivery of the last burst settled. */
export const awaitBurst = (engine: Engine) => Effect.flatMap(currentOf(engine), (running) => Deferred.await(running.done))

/** Stops the last burst: no new delivery or attempt starts (attempts in flight finish); whoever awaits it is answered. */
export const cancelBurst = (engine: Engine) => Effect.map(currentOf(engine), stop)

const stop = (running: Running) => {
  running.cancelled = true
  const view = viewOf(running)
  Deferred.doneUnsafe(running.done, Effect.succeed(view))
  return view
}

/** The ground truth of the last burst. */
export const burstTruth = (engine: Engine): Effect.Effect<GroundTruth, WebhookControlError> =>
  Effect.map(currentOf(engine), (running) => groundTruth(running.plan))

/** On reset: the burst stops, and whoever awaits it is answered. */
export const resetBurst = (engine: Engine) => {
  const running = engine.burst
  engine.burst = undefined
  if (running !== undefined) stop(running)
}

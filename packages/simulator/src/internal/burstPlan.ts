/**
 * The plan of a burst (see `Burst`): the input checked, the seeded events,
 * the order of the deliveries (duplicates and poison events placed, blocks
 * shuffled), and the ground truth.
 *
 * @internal
 */
import { Duration, Effect } from "effect"
import type { SignalDefinition, VehicleInfo } from "../Data.ts"
import { prng, signalCatalog } from "../Data.ts"
import type { BurstEvent, BurstInput, BurstValue, GroundTruth } from "../Burst.ts"
import { BURST_SIGNALS, DEFAULT_BURST_SIGNALS, MAX_BURST_EVENTS, MAX_POISON_EVENTS } from "../Burst.ts"
import type { Engine, WebhookRecord } from "./deliveryEngine.ts"
import { deliverable, iso } from "./deliveryEngine.ts"
import { forbiddenIn } from "./deliveryEvents.ts"
import { fail, RETRY_OFFSETS_MILLIS } from "./deliveryPolicy.ts"
import { quoted } from "./oauthText.ts"

/** Unit and range of the value of each burst signal. */
const ranges: Record<string, readonly [unit: string, low: number, high: number]> = {
  "odometer-traveleddistance": ["km", 0, 300_000],
  "climate-exteriortemperature": ["celsius", -30, 45],
  "tractionbattery-stateofcharge": ["percent", 0, 100],
  "tractionbattery-range": ["km", 0, 600],
  "charge-voltage": ["volts", 0, 400],
  "charge-chargingcurrent": ["amperes", 0, 48],
  "internalcombustionengine-fuellevel": ["percent", 0, 100],
  "internalcombustionengine-oillife": ["percent", 0, 100]
}

/**
 * A signal value of a planned event: `at` is its `oemUpdatedAt`; `forbidden`
 * the status the event carries instead when the vehicle's connection may not
 * read the signal (as the REST reads show it).
 */
export interface PlannedValue {
  readonly definition: SignalDefinition
  readonly body: { readonly unit: string; readonly value: number }
  readonly at: number
  readonly forbidden: ReturnType<typeof forbiddenIn>
}

/** A distinct event of a burst; `slot` is its vehicle's position among the burst's vehicles. */
export interface PlannedEvent {
  readonly eventId: string
  readonly vehicle: VehicleInfo
  readonly slot: number
  readonly poison: boolean
  readonly values: ReadonlyArray<PlannedValue>
}

/** A burst planned: its events, the order of its deliveries (event indexes) and how they are made. */
export interface Plan {
  readonly burstId: string
  readonly seed: number
  readonly startedAt: number
  readonly events: ReadonlyArray<PlannedEvent>
  readonly order: Int32Array
  readonly duplicates: number
  readonly poisonEvents: number
  readonly webhooks: ReadonlyArray<WebhookRecord>
  readonly retryOffsets: ReadonlyArray<number>
  readonly lostAckRatio: number
  readonly failover: boolean
  readonly maxInFlight: number
  readonly ratePerSecond: number
}

const ratio = (name: string, value: number | undefined) =>
  value === undefined ? Effect.succeed(0) : Number.isFinite(value) && value >= 0 && value <= 1
    ? Effect.succeed(value)
    : fail(400, `${name} must be a number from 0 to 1, got ${String(value)}`)

const integer = (name: string, value: number | undefined, fallback: number, low: number, high: number) =>
  value === undefined ? Effect.succeed(fallback) : Number.isSafeInteger(value) && value >= low && value <= high
    ? Effect.succeed(value)
    : fail(400, `${name} must be an integer from ${low} to ${high}, got ${String(value)}`)

const retryOffsetsOf = (delays: BurstInput["retryDelays"]) => {
  if (delays === undefined) return Effect.succeed(RETRY_OFFSETS_MILLIS)
  if (delays.length > 10) return fail(400, `retryDelays takes at most 10 delays, got ${delays.length}`)
  const offsets: Array<number> = []
  let total = 0
  for (const delay of delays) {
    let millis: number
    try {
      millis = Duration.toMillis(Duration.fromInputUnsafe(delay))
    } catch {
      millis = Number.NaN
    }
    if (!Number.isFinite(millis) || millis < 0 || millis > 3_600_000) {
      return fail(400, `retryDelays: each is a duration from 0 to 1 hour (e.g. "200 millis" or 200), got ${quoted(String(delay))}`)
    }
    total += millis
    offsets.push(total)
  }
  return Effect.succeed(offsets)
}

const webhooksOf = (engine: Engine, ids: ReadonlyArray<string> | undefined) => {
  if (ids === undefined) {
    const all = engine.webhooks.filter(deliverable).reverse()
    return all.length > 0 ? Effect.succeed(all) : fail(409, "No verified and enabled webhook to deliver to: create one first")
  }
  if (ids.length === 0 || ids.length > 100) return fail(400, "webhookIds names 1 to 100 webhooks")
  const out: Array<WebhookRecord> = []
  for (const id of ids) {
    const w = engine.webhooks.find((w) => w.id === id.toLowerCase())
    if (w === undefined) return fail(404, `No created webhook with id ${quoted(id)}`)
    if (!deliverable(w)) return fail(409, `Webhook ${quoted(id)} is not verified and enabled`)
    if (!out.includes(w)) out.push(w)
  }
  return Effect.succeed(out)
}

const signalsOf = (codes: ReadonlyArray<string> | undefined) => {
  const list = codes ?? DEFAULT_BURST_SIGNALS
  if (list.length === 0) return fail(400, "signals names at least one signal code")
  const out: Array<SignalDefinition> = []
  for (const code of list) {
    const definition = signalCatalog.find((s) => s.code === code.toLowerCase())
    if (definition === undefined || !BURST_SIGNALS.includes(definition.code)) {
      return fail(400, `signals: ${quoted(code)} is not a burst signal; known: ${BURST_SIGNALS.join(", ")}`)
    }
    if (!out.includes(definition)) out.push(definition)
  }
  return Effect.succeed(out)
}

const poisonOf = (ids: ReadonlyArray<string> | undefined) => {
  const list = ids ?? []
  if (list.length > MAX_POISON_EVENTS) return fail(400, `poisonEventIds holds ${list.length} ids; at most ${MAX_POISON_EVENTS}`)
  if (new Set(list).size !== list.length) return fail(400, "poisonEventIds holds the same id twice")
  if (list.some((id) => id === "" || id.length > 200)) return fail(400, "a poison event id is 1 to 200 characters")
  return Effect.succeed(list)
}

/**
 * The signal values of one event: a non-empty seeded subset of the signals
 * the vehicle has, at least one of them one its connection may read (`readable`,
 * not empty: what triggers the event).
 */
const valuesOf = (
  random: () => number,
  supported: ReadonlyArray<SignalDefinition>,
  readable: ReadonlyArray<SignalDefinition>,
  at: number,
  forbidden: (definition: SignalDefinition) => PlannedValue["forbidden"]
): Array<PlannedValue> => {
  let chosen = supported.filter(() => random() < 0.5)
  if (chosen.length === 0) chosen = [supported[Math.floor(random() * supported.length)]!]
  if (!chosen.some((definition) => readable.includes(definition))) {
    const added = readable[Math.floor(random() * readable.length)]!
    chosen = supported.filter((definition) => definition === added || chosen.includes(definition))
  }
  return chosen.map((definition) => {
    const [unit, low, high] = ranges[definition.code]!
    // + 0: a negative value rounded to zero is 0, not -0 (which JSON cannot carry)
    const body = { unit, value: Math.round((low + random() * (high - low)) * 10) / 10 + 0 }
    return { definition, body, at, forbidden: forbidden(definition) }
  })
}

/** Swaps entries of each consecutive block of `window` (Fisher-Yates within the block). */
const shuffleBlocks = (order: Int32Array, window: number, random: () => number) => {
  if (window <= 1) return
  for (let start = 0; start < order.length; start += window) {
    const end = Math.min(order.length, start + window)
    for (let i = end - 1; i > start; i--) {
      const j = start + Math.floor(random() * (i - start + 1))
      const t = order[i]!
      order[i] = order[j]!
      order[j] = t
    }
  }
}

/** Checks a burst's input and plans it (the events and the order of the deliveries). */
export const plan = (engine: Engine, input: BurstInput, burstNumber: number) =>
  Effect.gen(function*() {
    const { data } = engine
    const events = yield* integer("events", input.events, 0, 1, MAX_BURST_EVENTS)
    const vehicleCount = yield* integer("vehicles", input.vehicles, 0, 1, data.connectionCount)
    const rate = input.ratePerSecond
    if (!Number.isFinite(rate) || rate <= 0 || rate > 100_000) {
      return yield* fail(400, `ratePerSecond must be a number above 0 and at most 100000, got ${String(rate)}`)
    }
    const duplicateRatio = yield* ratio("duplicateRatio", input.duplicateRatio)
    const lostAckRatio = yield* ratio("lostAckRatio", input.lostAckRatio)
    const window = yield* integer("reorderWindow", input.reorderWindow, 1, 1, 10_000)
    const seed = yield* integer("seed", input.seed, engine.seed, -(2 ** 31), 2 ** 32)
    const maxInFlight = yield* integer("maxInFlight", input.maxInFlight, 64, 1, 1_024)
    const webhooks = yield* webhooksOf(engine, input.webhookIds)
    const signals = yield* signalsOf(input.signals)
    const poison = yield* poisonOf(input.poisonEventIds)
    if (events + poison.length > MAX_BURST_EVENTS) return yield* fail(400, `events and poisonEventIds are over ${MAX_BURST_EVENTS} together`)
    const retryOffsets = yield* retryOffsetsOf(input.retryDelays)
    const vehicles = Array.from({ length: vehicleCount }, (_, k) => data.vehicle(k))
    const supported = vehicles.map((v) => signals.filter((s) => v.model.signals.some((m) => m.code === s.code)))
    const missing = supported.findIndex((list) => list.length === 0)
    if (missing !== -1) return yield* fail(400, `Vehicle ${vehicles[missing]!.id} (${vehicles[missing]!.model.model}) has none of the burst's signals`)
    // an event is triggered by a value its connection may read: vehicles that may read none get no event
    const readable = vehicles.map((v, k) => supported[k]!.filter((s) => forbiddenIn(engine, v, s) === undefined))
    const slots = vehicles.flatMap((_, k) => readable[k]!.length > 0 ? [k] : [])
    if (slots.length === 0) {
      return yield* fail(400, "The connections of the burst's vehicles may read none of its signals (their permissions): no event could be triggered")
    }
    const poisonIds = new Set(poison)
    const random = prng(seed ^ (0x6b75 + burstNumber))
    const startedAt = engine.now()
    const origin = startedAt - events - poison.length
    const planned: Array<PlannedEvent> = []
    const make = (eventId: string, at: number, isPoison: boolean) => {
      // every vehicle eligible (the usual case): the same draw as the vehicle's position
      const slot = slots[Math.floor(random() * slots.length)]!
      const vehicle = vehicles[slot]!
      const values = valuesOf(random, supported[slot]!, readable[slot]!, at, (definition) => forbiddenIn(engine, vehicle, definition))
      planned.push({ eventId, vehicle, slot, poison: isPoison, values })
    }
    for (let i = 0; i < events; i++) {
      const eventId = `evt_burst${burstNumber}_${seed >>> 0}_${i}`
      if (poisonIds.has(eventId)) return yield* fail(400, `poisonEventIds names ${eventId}, an id the burst generates`)
      make(eventId, origin + i, false)
    }
    poison.forEach((id, k) => make(id, origin + events + k, true))
    const order: Array<number> = []
    for (let i = 0; i < events; i++) {
      order.push(i)
      if (random() < duplicateRatio) order.push(i)
    }
    const duplicates = order.length - events
    for (let k = 0; k < poison.length; k++) order.splice(Math.floor(random() * (order.length + 1)), 0, events + k)
    const shuffled = Int32Array.from(order)
    shuffleBlocks(shuffled, window, random)
    return {
      burstId: `burst_${burstNumber}`,
      seed,
      startedAt,
      events: planned,
      order: shuffled,
      duplicates,
      poisonEvents: poison.length,
      webhooks,
      retryOffsets,
      lostAckRatio,
      failover: input.failover ?? false,
      maxInFlight,
      ratePerSecond: rate
    } satisfies Plan
  })

const valueView = (value: PlannedValue): BurstValue => ({ code: value.definition.code, body: value.body, oemUpdatedAt: iso(value.at) })

/** The values of an event its vehicle's connection may read (the others are delivered `FORBIDDEN`, without them). */
const readable = (event: PlannedEvent) => event.values.filter((value) => value.forbidden === undefined)

/** The newest readable value of each (vehicle, signal) over the events that are not poison, by dataset order then code. */
export const newest = (plan: Plan) => {
  const latest = new Map<string, { readonly event: PlannedEvent; readonly value: PlannedValue }>()
  for (const event of plan.events) {
    if (event.poison) continue
    for (const value of readable(event)) {
      const key = `${event.vehicle.index} ${value.definition.code}`
      const known = latest.get(key)
      if (known === undefined || known.value.at < value.at) latest.set(key, { event, value })
    }
  }
  return [...latest.values()].sort((a, b) =>
    a.event.vehicle.index - b.event.vehicle.index || a.value.definition.code.localeCompare(b.value.definition.code)
  )
}

/** The ground truth of a planned burst. */
export const groundTruth = (plan: Plan): GroundTruth => ({
  burstId: plan.burstId,
  events: plan.events.map((event): BurstEvent => ({
    eventId: event.eventId,
    vehicleId: event.vehicle.id,
    poison: event.poison,
    signals: readable(event).map(valueView)
  })),
  latest: newest(plan).map(({ event, value }) => ({ vehicleId: event.vehicle.id, eventId: event.eventId, ...valueView(value) })),
  poisonEventIds: plan.events.filter((e) => e.poison).map((e) => e.eventId)
})

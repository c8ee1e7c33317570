/**
 * The events of a delivery engine: the signed `VERIFY` handshake of a
 * webhook, `VEHICLE_STATE` events (`FIRST_DELIVERY` included) and
 * `VEHICLE_ERROR` events, built from the seeded readings and the readings set
 * through the control surface.
 *
 * @internal
 */
import type { Trigger, VehicleErrorEntry } from "@connected-vehicle/schema/WebhookEvent"
import { Effect, Fiber } from "effect"
import type { DateTime, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import type { SignalDefinition, VehicleInfo } from "../Data.ts"
import { readings, signalBody, signalStatus } from "../Data.ts"
import type { Engine, SubscriptionRecord, WebhookRecord } from "./deliveryEngine.ts"
import { attempt, deliver, deliverable, encodeEvent, encoder, fork, iso, newId, record, ref, utc } from "./deliveryEngine.ts"
import { EVENT_VERSION } from "./deliveryPolicy.ts"
import { forbiddenStatus, heldPermissions } from "./render.ts"
import { hmacHex, sameHex } from "./signing.ts"

/**
 * The `VERIFY` handshake (one attempt), in a fiber of the simulator's
 * scope (a caller that goes away, such as a closed control request, does
 * not leave the webhook `pending`); awaited.
 */
export const verify = (engine: Engine, w: WebhookRecord) =>
  Effect.flatMap(Effect.forkIn(handshake(engine, w), engine.scope), Fiber.join)

/** What is wrong with the receiver's answer to a `VERIFY`, or null. */
const verifyError = (
  result: Effect.Success<ReturnType<typeof attempt>>["result"],
  challenge: string,
  key: Redacted.Redacted<string>
): string | null => {
  if (result._tag === "Failure") return result.reason
  if (result.answer.status !== 200) return `HTTP ${result.answer.status}`
  let answer: unknown
  try {
    answer = (JSON.parse(result.answer.body) as { readonly challenge?: unknown } | null)?.challenge
  } catch {
    answer = undefined
  }
  if (sameHex(hmacHex(challenge, key), answer)) return null
  return answer === undefined
    ? "the answer is not {\"challenge\": \"<hex>\"}"
    : "the challenge answer is not HMAC-SHA256(webhook secret, challenge)"
}

const handshake = (engine: Engine, w: WebhookRecord): Effect.Effect<void> =>
  Effect.gen(function*() {
    w.verification = "pending"
    // a reset meanwhile forgets the webhook: its handshake ends unlogged
    const generation = engine.generation
    // a later handshake (a new callback, or the same one verified again) decides instead of this one
    const round = ++w.handshakes
    // the key that signs the challenge checks its answer: a rotation meanwhile signs the next attempts only
    const key = w.secret
    const challenge = randomBytes(16).toString("hex")
    const eventId = newId("evt")
    const deliveryId = newId("dlv")
    const at = engine.now()
    const url = w.callbackUri
    const body = encoder.encode(encodeEvent({
      eventId,
      eventType: "VERIFY",
      data: { challenge },
      meta: { version: EVENT_VERSION, webhookId: w.id, webhookName: w.name, deliveryId, deliveredAt: utc(at) }
    }))
    // only a 200 can verify: its body is read (at most 64 KiB), any other status decides alone
    const { latencyMillis, result } = yield* attempt(url, body, key, (status) => status === 200)
    const error = verifyError(result, challenge, key)
    // another handshake started meanwhile: that one decides; a reset: nothing more
    if (w.handshakes !== round || engine.generation !== generation) return
    w.verification = error === null ? "succeeded" : "failed"
    record(engine, {
      eventId,
      eventType: "VERIFY",
      webhookId: w.id,
      deliveryId,
      attempt: 1,
      url,
      at: iso(at),
      status: result._tag === "Answer" ? result.answer.status : null,
      error,
      latencyMillis,
      outcome: error === null ? "verified" : "unverified"
    })
    if (error === null) yield* sendFirstDeliveries(engine, w)
  }).pipe(Effect.provideContext(engine.context))

export const vehicleEventBase = (engine: Engine, v: VehicleInfo, userIndex: number) => ({
  vehicleId: v.id,
  user: { id: engine.data.user(userIndex).id },
  vehicle: { id: v.id, make: v.model.make, model: v.model.model, year: v.year }
})

/** The `meta` of a `VEHICLE_STATE` or `VEHICLE_ERROR` event (a burst's too). */
export const vehicleEventMeta = (
  w: WebhookRecord,
  v: VehicleInfo,
  deliveryId: string,
  deliveredAt: DateTime.Utc,
  signalCount: number
) => ({
  version: EVENT_VERSION,
  deliveryId,
  deliveredAt,
  webhookId: w.id,
  webhookName: w.name,
  signalCount,
  mode: v.mode === "simulated" ? "SIMULATED" as const : "LIVE" as const
})

/**
 * The status of a signal the vehicle's connection may not read (the REST
 * reads' rule: `ERROR` / `FORBIDDEN`, no body), or `undefined` when it may.
 */
export const forbiddenIn = (engine: Engine, v: VehicleInfo, definition: SignalDefinition) => {
  const status = forbiddenStatus(heldPermissions(engine.data, engine.enforcePermissions, v), v, definition)
  return status === undefined ? undefined : { value: status.value, error: { code: status.error.code, type: status.error.type } }
}

/** Every data signal of the webhook for the vehicle, read now. */
const signalsFor = (engine: Engine, w: WebhookRecord, v: VehicleInfo, at: number) => {
  const { seed } = engine
  const r = readings(seed, v, at)
  return w.data.map((definition) => {
    const k = v.model.signals.findIndex((s) => s.code === definition.code)
    if (k === -1) {
      return { ...ref(definition), status: { value: "ERROR" as const, error: { code: "SIGNAL_NOT_SUPPORTED", type: "COMPATIBILITY" } } }
    }
    // whatever was set: the REST reads answer it 403 (a list: FORBIDDEN), so does the event
    const forbidden = forbiddenIn(engine, v, definition)
    if (forbidden !== undefined) return { ...ref(definition), status: forbidden }
    const override = engine.overrides.get(`${v.index} ${definition.code}`)
    if (override !== undefined) {
      return { ...ref(definition), body: override.body, meta: { oemUpdatedAt: utc(override.at), fetchedAt: utc(at) } }
    }
    const status = signalStatus(seed, v.index, k)
    if (status.value !== "SUCCESS") {
      const error = status.error === undefined
        ? { code: "SIGNAL_UNAVAILABLE", type: "VEHICLE_STATE" }
        : { code: status.error.code, type: status.error.type }
      return { ...ref(definition), status: { value: "ERROR" as const, error } }
    }
    return {
      ...ref(definition),
      body: signalBody(definition.code, r, v),
      meta: { oemUpdatedAt: utc(Math.min(at, r.updatedAt)), fetchedAt: utc(at) }
    }
  })
}

/** Sends a `VEHICLE_STATE` of the subscription's vehicle to the webhook; the event's id. */
export const sendState = (engine: Engine, w: WebhookRecord, s: SubscriptionRecord, triggers: ReadonlyArray<Trigger>) =>
  Effect.suspend(() => {
    const v = engine.data.vehicle(s.vehicleIndex)
    const at = engine.now()
    const signals = signalsFor(engine, w, v, at)
    const { user, vehicle, vehicleId } = vehicleEventBase(engine, v, s.userIndex)
    const eventId = newId("evt")
    return Effect.as(
      fork(
        engine,
        deliver(engine, w, eventId, "VEHICLE_STATE", ({ deliveredAt, deliveryId }) => ({
          eventId,
          eventType: "VEHICLE_STATE",
          vehicleId,
          data: { user, vehicle, triggers, signals },
          meta: vehicleEventMeta(w, v, deliveryId, deliveredAt, signals.length)
        }))
      ),
      eventId
    )
  })

/** The `FIRST_DELIVERY` of every subscription of the webhook that has not had it, once the webhook is deliverable. */
export const sendFirstDeliveries = (engine: Engine, w: WebhookRecord) =>
  Effect.forEach(
    engine.subscriptions.filter((s) => s.webhookId === w.id && s.firstDeliveryEventId === undefined),
    (s) =>
      Effect.map(sendState(engine, w, s, [{ code: "FIRST_DELIVERY" }]), (eventId) => {
        s.firstDeliveryEventId = eventId
      }),
    { discard: true }
  ).pipe(Effect.when(Effect.sync(() => deliverable(w))), Effect.asVoid)

/** Sends a `VEHICLE_ERROR` to every deliverable webhook subscribed to the vehicle; the events' ids. */
export const sendError = (engine: Engine, vehicleIndex: number, entry: VehicleErrorEntry) =>
  Effect.suspend(() => {
    const v = engine.data.vehicle(vehicleIndex)
    const targets = engine.subscriptions.flatMap((s) => {
      const w = engine.webhooks.find((w) => w.id === s.webhookId)
      return s.vehicleIndex === vehicleIndex && w !== undefined && deliverable(w) ? [{ w, s }] : []
    })
    return Effect.forEach(targets, ({ s, w }) => {
      const { user, vehicle, vehicleId } = vehicleEventBase(engine, v, s.userIndex)
      const eventId = newId("evt")
      return Effect.as(
        fork(
          engine,
          deliver(engine, w, eventId, "VEHICLE_ERROR", ({ deliveredAt, deliveryId }) => ({
            eventId,
            eventType: "VEHICLE_ERROR",
            vehicleId,
            data: { user, vehicle, errors: [entry] },
            meta: vehicleEventMeta(w, v, deliveryId, deliveredAt, entry.signals?.length ?? 0)
          }))
        ),
        eventId
      )
    })
  })

/**
 * Webhook deliveries: webhooks and subscriptions created through the
 * simulator's control surface (the spec's management API is read-only), a
 * signed `VERIFY` handshake when a webhook is created or its callback
 * changes, `VEHICLE_STATE` events when a trigger signal of a subscribed
 * vehicle changes, `VEHICLE_ERROR` events for injected vehicle errors (and
 * their resolution), the retry schedule of the real service on Effect's
 * `Clock`, and a delivery log.
 *
 * Events are built with the schema (`WebhookEventFromJson`), so the bytes sent
 * are what a receiver decodes; the `SC-Signature` is the lowercase hex
 * HMAC-SHA256 of those bytes, keyed with the webhook secret.
 *
 * @since 0.2.0
 */
import type { DeliveredEvent, Trigger, VehicleErrorEntry, WebhookEvent } from "@connected-vehicle/schema/WebhookEvent"
import { EventSignalBody, WebhookEventFromJson } from "@connected-vehicle/schema/WebhookEvent"
import { SignalBody } from "@connected-vehicle/schema/Signal"
import { Clock, DateTime, Duration, Effect, Fiber, Option, Redacted, Schema, Scope } from "effect"
import type { Context } from "effect"
import { HttpServerResponse } from "effect/http"
import type { HttpServerRequest } from "effect/http"
import { randomBytes, randomUUID } from "node:crypto"
import type { Dataset, SignalDefinition, VehicleInfo, WebhookInfo } from "./Data.ts"
import { readings, signalBody, signalCatalog, signalStatus } from "./Data.ts"
import { envelope } from "./Env.ts"
import { post } from "./internal/post.ts"
import { hmacHex, sameHex } from "./internal/signing.ts"
import { simulatorVersion } from "./internal/version.ts"

/**
 * The webhook secret of a simulator when none is configured: the key of every
 * `SC-Signature` (the real service uses the application's management token).
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { DEFAULT_WEBHOOK_SECRET } from "@connected-vehicle/simulator/Delivery"
 *
 * const secret = Redacted.make(DEFAULT_WEBHOOK_SECRET)
 * ```
 * @since 0.2.0
 */
export const DEFAULT_WEBHOOK_SECRET = "demo-management-token"

/**
 * The `User-Agent` of every delivery (`<service>/<version>`).
 *
 * @example
 * ```ts
 * import { USER_AGENT } from "@connected-vehicle/simulator/Delivery"
 *
 * USER_AGENT // "connected-vehicle-simulator/0.1.0"
 * ```
 * @since 0.2.0
 */
export const USER_AGENT = `connected-vehicle-simulator/${simulatorVersion}`

/**
 * The `meta.version` of every event.
 *
 * @example
 * ```ts
 * import { EVENT_VERSION } from "@connected-vehicle/simulator/Delivery"
 *
 * EVENT_VERSION // "4.0"
 * ```
 * @since 0.2.0
 */
export const EVENT_VERSION = "4.0"

/**
 * The waits before the retries of a failed delivery (25 s, 50 s, 100 s): the
 * attempts happen at +0, +25, +75 and +175 s from the first one (fixed
 * offsets: an attempt that takes its 15 s does not push the next one back),
 * then the event is dropped.
 *
 * @example
 * ```ts
 * import { RETRY_DELAYS } from "@connected-vehicle/simulator/Delivery"
 *
 * RETRY_DELAYS.length + 1 // 4 attempts
 * ```
 * @since 0.2.0
 */
export const RETRY_DELAYS: ReadonlyArray<Duration.Duration> = [Duration.seconds(25), Duration.seconds(50), Duration.seconds(100)]

const RETRY_OFFSETS_MILLIS = RETRY_DELAYS.map((_, i) =>
  RETRY_DELAYS.slice(0, i + 1).reduce((total, delay) => total + Duration.toMillis(delay), 0)
)

/**
 * How long a receiver has to answer an attempt (a `VERIFY` included).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { ATTEMPT_TIMEOUT } from "@connected-vehicle/simulator/Delivery"
 *
 * Duration.toSeconds(ATTEMPT_TIMEOUT) // 15
 * ```
 * @since 0.2.0
 */
export const ATTEMPT_TIMEOUT: Duration.Duration = Duration.seconds(15)

/**
 * The largest event body sent, in bytes (50 KB); a larger event is dropped
 * and logged, never truncated.
 *
 * @example
 * ```ts
 * import { MAX_EVENT_BYTES } from "@connected-vehicle/simulator/Delivery"
 *
 * MAX_EVENT_BYTES // 50000
 * ```
 * @since 0.2.0
 */
export const MAX_EVENT_BYTES = 50_000

/**
 * The delivery log keeps the last 10,000 attempts.
 *
 * @since 0.2.0
 */
export const DELIVERY_LOG_LIMIT = 10_000

/**
 * A control request the simulator refuses: the HTTP status of the control
 * route and what is wrong. Never carries a secret.
 *
 * @example
 * ```ts
 * import { WebhookControlError } from "@connected-vehicle/simulator/Delivery"
 *
 * new WebhookControlError({ status: 404, detail: "No vehicle with id v-1" }).message
 * ```
 * @since 0.2.0
 */
export class WebhookControlError extends Schema.TaggedError<WebhookControlError>()("WebhookControlError", {
  status: Schema.Int,
  detail: Schema.String
}) {
  override get message() {
    return this.detail
  }
}

/**
 * A webhook to create. `triggers` and `data` are signal codes of the catalog;
 * `secret` overrides the simulator's webhook secret for this webhook.
 *
 * @example
 * ```ts
 * import type { WebhookInput } from "@connected-vehicle/simulator/Delivery"
 *
 * const input: WebhookInput = {
 *   name: "Fleet",
 *   callbackUri: "http://127.0.0.1:3000/webhooks",
 *   triggers: ["odometer-traveleddistance"],
 *   data: ["odometer-traveleddistance", "location-preciselocation"]
 * }
 * ```
 * @since 0.2.0
 */
export interface WebhookInput {
  readonly name: string
  readonly callbackUri: string
  readonly errorCallbackUri?: string | undefined
  readonly triggers: ReadonlyArray<string>
  readonly data: ReadonlyArray<string>
  /** Default true. */
  readonly isEnabled?: boolean | undefined
  /** Default false (no connection is created later in the simulator, so it changes nothing). */
  readonly autoSubscribe?: boolean | undefined
  readonly secret?: Redacted.Redacted<string> | string | undefined
}

/**
 * Changes to a created webhook; a new `callbackUri` is verified again.
 *
 * @since 0.2.0
 */
export interface WebhookPatch {
  readonly name?: string | undefined
  readonly callbackUri?: string | undefined
  /** `null` removes it (errors then go to `callbackUri`). */
  readonly errorCallbackUri?: string | null | undefined
  readonly isEnabled?: boolean | undefined
}

/**
 * A created webhook as the control surface shows it (never its secret).
 *
 * @since 0.2.0
 */
export interface WebhookView {
  readonly id: string
  readonly name: string
  readonly callbackUri: string
  readonly errorCallbackUri: string | null
  readonly triggers: ReadonlyArray<string>
  readonly data: ReadonlyArray<string>
  readonly isEnabled: boolean
  readonly autoSubscribe: boolean
  readonly createdAt: string
  /** The outcome of the last `VERIFY` handshake; events go to verified webhooks only. */
  readonly verification: "pending" | "succeeded" | "failed"
}

/**
 * A subscription to create: a created webhook, a user and one of their
 * connected vehicles.
 *
 * @since 0.2.0
 */
export interface SubscriptionInput {
  readonly webhookId: string
  readonly userId: string
  readonly vehicleId: string
}

/**
 * A created subscription; `firstDeliveryEventId` is the `FIRST_DELIVERY`
 * event (undefined while the webhook is disabled or not verified: it is sent
 * once it is).
 *
 * @since 0.2.0
 */
export interface SubscriptionView {
  readonly id: string
  readonly webhookId: string
  readonly userId: string
  readonly vehicleId: string
  readonly createdAt: string
  readonly firstDeliveryEventId: string | undefined
}

/**
 * An error to inject on a vehicle (every field has a default:
 * `VEHICLE_STATE` / `ASLEEP` / `RETRY_LATER`).
 *
 * @since 0.2.0
 */
export interface VehicleErrorInput {
  readonly type?: string | undefined
  readonly code?: string | undefined
  readonly description?: string | undefined
  readonly suggestedUserMessage?: string | undefined
  readonly resolution?: string | undefined
  /** Signal codes the error affects. */
  readonly signals?: ReadonlyArray<string> | undefined
}

/**
 * What a control action queued: the ids of the events it sent (one per
 * webhook concerned).
 *
 * @since 0.2.0
 */
export interface Queued {
  readonly eventIds: ReadonlyArray<string>
}

/**
 * One delivery attempt. `status` is the receiver's HTTP status (null when
 * there was none: `error` says why); `latencyMillis` is measured on the wall
 * clock; `outcome` is `delivered`, `retrying` (a failure, another attempt
 * follows), `dropped` (the last attempt failed, or the body was over 50 KB),
 * `verified` or `unverified` (a `VERIFY`).
 *
 * @since 0.2.0
 */
export interface DeliveryLogEntry {
  readonly eventId: string
  readonly eventType: "VERIFY" | "VEHICLE_STATE" | "VEHICLE_ERROR"
  readonly webhookId: string
  readonly deliveryId: string
  readonly attempt: number
  readonly url: string
  /** When the attempt started (the simulator's clock). */
  readonly at: string
  readonly status: number | null
  readonly error: string | null
  readonly latencyMillis: number
  readonly outcome: "delivered" | "retrying" | "dropped" | "verified" | "unverified"
}

/**
 * The delivery engine of one simulator (see the `Simulator` service for the
 * same operations, and the control routes).
 *
 * @since 0.2.0
 */
export interface Deliveries {
  /** The simulator's webhook secret (used by webhooks created without their own). */
  readonly secret: Redacted.Redacted<string>
  /** Creates a webhook and waits for its `VERIFY` handshake (at most 15 s). */
  readonly createWebhook: (input: WebhookInput) => Effect.Effect<WebhookView, WebhookControlError>
  /** Changes a created webhook; a new `callbackUri` is verified again (awaited). */
  readonly updateWebhook: (webhookId: string, patch: WebhookPatch) => Effect.Effect<WebhookView, WebhookControlError>
  /** Subscribes a connected vehicle to a created webhook; sends its `FIRST_DELIVERY`. */
  readonly subscribe: (input: SubscriptionInput) => Effect.Effect<SubscriptionView, WebhookControlError>
  /**
   * Sets the body of a signal of a vehicle (its reading in the following
   * events); when it differs from the previous one, every subscribed webhook
   * that has the signal among its triggers gets a `VEHICLE_STATE`.
   */
  readonly setSignal: (
    vehicleId: string,
    code: string,
    body: unknown
  ) => Effect.Effect<Queued & { readonly changed: boolean }, WebhookControlError>
  /** Injects an error on a vehicle: a `VEHICLE_ERROR` (state `ERROR`) to each subscribed webhook. */
  readonly injectVehicleError: (
    vehicleId: string,
    input: VehicleErrorInput
  ) => Effect.Effect<Queued & { readonly errorId: string }, WebhookControlError>
  /** Resolves an injected error: a `VEHICLE_ERROR` with state `RESOLVED`. */
  readonly resolveVehicleError: (vehicleId: string, errorId: string) => Effect.Effect<Queued, WebhookControlError>
  /** The delivery log, oldest first. */
  readonly deliveries: Effect.Effect<ReadonlyArray<DeliveryLogEntry>>
  readonly clearDeliveries: Effect.Effect<void>
  /** Created webhooks, newest first (for the `/v3/webhooks` lists). */
  readonly webhooks: () => ReadonlyArray<CreatedWebhook>
  /** Created subscriptions, newest first (for the `/v3/subscriptions` lists). */
  readonly subscriptions: () => ReadonlyArray<CreatedSubscription>
  /**
   * The reading set on a signal of a vehicle (by index) through
   * {@link Deliveries.setSignal}, else undefined: `body` as events carry it,
   * `wire` as the v3 REST endpoints encode it, `at` when it was set.
   */
  readonly reading: (vehicleIndex: number, code: string) => Reading | undefined
  /** Counts the changes of readings (and resets): a cache of rendered readings is valid while it stays the same. */
  readonly readingsVersion: () => number
  /** Forgets every created webhook, subscription, reading, error and the log. */
  readonly reset: () => void
}

/**
 * A reading set through the control surface (see {@link Deliveries.reading}).
 *
 * @since 0.2.0
 */
export interface Reading {
  readonly body: Record<string, unknown>
  readonly wire: typeof SignalBody.Encoded
  readonly at: number
}

/**
 * A created webhook as the `/v3` handlers list it (the seeded webhooks' shape).
 *
 * @since 0.2.0
 */
export type CreatedWebhook = Omit<WebhookInfo, "index">

/**
 * A created subscription as the `/v3` handlers list it.
 *
 * @since 0.2.0
 */
export interface CreatedSubscription {
  readonly id: string
  readonly webhookId: string
  readonly userIndex: number
  readonly vehicleIndex: number
  readonly createdAt: number
}

interface WebhookRecord {
  id: string
  name: string
  callbackUri: string
  errorCallbackUri: string
  isEnabled: boolean
  autoSubscribe: boolean
  triggers: ReadonlyArray<SignalDefinition>
  data: ReadonlyArray<SignalDefinition>
  createdAt: number
  readonly secret: Redacted.Redacted<string>
  verification: WebhookView["verification"]
}

interface SubscriptionRecord {
  readonly id: string
  readonly webhookId: string
  readonly userIndex: number
  readonly vehicleIndex: number
  readonly createdAt: number
  firstDeliveryEventId: string | undefined
}

interface InjectedError {
  readonly vehicleIndex: number
  readonly entry: Omit<VehicleErrorEntry, "state">
}

const iso = (millis: number) => new Date(millis).toISOString()
const utc = (millis: number) => DateTime.makeUnsafe(millis) as DateTime.Utc

const encodeEvent = Schema.encodeSync(WebhookEventFromJson)
const encoder = new TextEncoder()

const fail = (status: number, detail: string) => Effect.fail(new WebhookControlError({ status, detail }))

const catalog = new Map(signalCatalog.map((s) => [s.code, s]))

const signalsOf = (field: string, codes: ReadonlyArray<string>, atLeastOne: boolean) => {
  if (atLeastOne && codes.length === 0) return fail(400, `${field} must name at least one signal code`)
  const out: Array<SignalDefinition> = []
  for (const code of codes) {
    const definition = catalog.get(code.toLowerCase())
    if (definition === undefined) {
      return fail(400, `${field}: unknown signal code ${JSON.stringify(code)}; known: ${[...catalog.keys()].join(", ")}`)
    }
    if (!out.includes(definition)) out.push(definition)
  }
  return Effect.succeed(out)
}

const callbackOf = (field: string, uri: string) => {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return fail(400, `${field} must be an absolute http or https URL, got ${JSON.stringify(uri)}`)
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username !== "" || url.password !== "") {
    return fail(400, `${field} must be an absolute http or https URL without credentials`)
  }
  return Effect.succeed(url.href)
}

const nameOf = (name: string) =>
  name.trim() === "" || name.length > 200 ? fail(400, "name must be 1 to 200 characters") : Effect.succeed(name)

const ref = (s: SignalDefinition) => ({ code: s.code, name: s.name, group: s.group })

const viewOf = (w: WebhookRecord): WebhookView => ({
  id: w.id,
  name: w.name,
  callbackUri: w.callbackUri,
  errorCallbackUri: w.errorCallbackUri === "" ? null : w.errorCallbackUri,
  triggers: w.triggers.map((s) => s.code),
  data: w.data.map((s) => s.code),
  isEnabled: w.isEnabled,
  autoSubscribe: w.autoSubscribe,
  createdAt: iso(w.createdAt),
  verification: w.verification
})

/** Milliseconds on the wall clock (latency is a measurement, not simulated time). */
const wallMillis = () => performance.now()

/**
 * Builds the delivery engine of a simulator. Deliveries run in fibers forked
 * in the current scope (the simulator's), with the current context: under
 * `TestClock` the retry schedule follows `TestClock.adjust`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Delivery from "@connected-vehicle/simulator/Delivery"
 * import { makeDataset } from "@connected-vehicle/simulator/Data"
 *
 * const engine = Effect.scoped(Delivery.make({
 *   data: makeDataset({ seed: 42, vehicles: 5, users: 2, webhooks: 0, connections: 5 })
 * }))
 * ```
 * @since 0.2.0
 */
export const make = (options: {
  readonly data: Dataset
  readonly secret?: Redacted.Redacted<string> | string | undefined
}): Effect.Effect<Deliveries, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { data } = options
    const seed = data.options.seed
    const secret = Redacted.isRedacted(options.secret)
      ? options.secret
      : Redacted.make(options.secret ?? DEFAULT_WEBHOOK_SECRET, { label: "webhook secret" })
    const scope = yield* Effect.scope
    const context = yield* Effect.context<never>() as Effect.Effect<Context.Context<never>>
    const clock = yield* Clock.Clock
    const now = () => clock.currentTimeMillisUnsafe()

    let webhooks: Array<WebhookRecord> = []
    let subscriptions: Array<SubscriptionRecord> = []
    let overrides = new Map<string, Reading>()
    let readingsVersion = 0
    let errors = new Map<string, InjectedError>()
    let log: Array<DeliveryLogEntry> = []
    let logged = 0
    /** Bumped by reset: deliveries of an older generation stop before their next attempt. */
    let generation = 0

    const record = (entry: DeliveryLogEntry) => {
      if (log.length < DELIVERY_LOG_LIMIT) log.push(entry)
      else log[logged % DELIVERY_LOG_LIMIT] = entry
      logged++
    }
    const logged_ = (): ReadonlyArray<DeliveryLogEntry> => {
      const n = log.length
      const oldest = n < DELIVERY_LOG_LIMIT ? 0 : logged % DELIVERY_LOG_LIMIT
      return Array.from({ length: n }, (_, i) => log[(oldest + i) % n]!)
    }

    const newId = (prefix: string) => `${prefix}_${randomUUID().replaceAll("-", "")}`

    const findWebhook = (id: string) => {
      const w = webhooks.find((w) => w.id === id.toLowerCase())
      if (w !== undefined) return Effect.succeed(w)
      return data.webhookIndex(id.toLowerCase()) !== -1
        ? fail(400, `Webhook ${id} is a seeded one: its callbacks are fictional, so it gets no deliveries; create one with POST /_simulator/webhooks`)
        : fail(404, `No webhook with id ${id}`)
    }

    const vehicleOf = (vehicleId: string) => {
      const index = data.vehicleIndex(vehicleId.toLowerCase())
      return index === -1 ? fail(404, `No vehicle with id ${vehicleId}`) : Effect.succeed(data.vehicle(index))
    }

    /** One attempt: POST, measured and logged. */
    const attempt = (
      url: string,
      body: Uint8Array,
      key: Redacted.Redacted<string>
    ) =>
      Effect.gen(function*() {
        const started = wallMillis()
        const answer = yield* post(new URL(url), body, {
          "content-type": "application/json",
          "sc-signature": hmacHex(body, key),
          "user-agent": USER_AGENT
        }).pipe(
          Effect.timeoutOption(ATTEMPT_TIMEOUT),
          Effect.map(Option.match({
            onNone: () => ({ _tag: "Failure" as const, reason: `no answer within ${Duration.toSeconds(ATTEMPT_TIMEOUT)} s` }),
            onSome: (answer) => ({ _tag: "Answer" as const, answer })
          })),
          Effect.catch((failure) => Effect.succeed({ _tag: "Failure" as const, reason: failure.reason }))
        )
        return { result: answer, latencyMillis: Math.round((wallMillis() - started) * 10) / 10 }
      })

    /** Delivers an event with the retry schedule; `build` makes the event of one attempt. */
    const deliver = (
      w: WebhookRecord,
      url: string,
      eventId: string,
      eventType: "VEHICLE_STATE" | "VEHICLE_ERROR",
      build: (meta: { readonly deliveryId: string; readonly deliveredAt: DateTime.Utc }) => DeliveredEvent
    ) => {
      const started = generation
      return Effect.gen(function*() {
        const firstAt = now()
        for (let n = 1; n <= RETRY_DELAYS.length + 1; n++) {
          if (generation !== started) return
          const deliveryId = newId("dlv")
          const at = now()
          const body = encoder.encode(encodeEvent(build({ deliveryId, deliveredAt: utc(at) }) as WebhookEvent))
          const base = { eventId, eventType, webhookId: w.id, deliveryId, attempt: n, url, at: iso(at) }
          if (body.byteLength > MAX_EVENT_BYTES) {
            record({ ...base, status: null, error: `the event is ${body.byteLength} bytes, over ${MAX_EVENT_BYTES}`, latencyMillis: 0, outcome: "dropped" })
            return
          }
          const { latencyMillis, result } = yield* attempt(url, body, w.secret)
          if (generation !== started) return
          const ok = result._tag === "Answer" && result.answer.status >= 200 && result.answer.status < 300
          const last = n > RETRY_DELAYS.length
          record({
            ...base,
            status: result._tag === "Answer" ? result.answer.status : null,
            error: result._tag === "Failure" ? result.reason : ok ? null : `HTTP ${result.answer.status}`,
            latencyMillis,
            outcome: ok ? "delivered" : last ? "dropped" : "retrying"
          })
          if (ok || last) return
          // fixed offsets from the first attempt (+25, +75, +175 s): a slow failure does not push them back
          yield* Effect.sleep(Duration.millis(Math.max(0, firstAt + RETRY_OFFSETS_MILLIS[n - 1]! - now())))
        }
      })
    }

    const fork = (effect: Effect.Effect<void>) =>
      Effect.asVoid(Effect.forkIn(Effect.provideContext(effect, context), scope))

    /**
     * The `VERIFY` handshake (one attempt), in a fiber of the simulator's
     * scope (a caller that goes away, such as a closed control request, does
     * not leave the webhook `pending`); awaited.
     */
    const verify = (w: WebhookRecord) => Effect.flatMap(Effect.forkIn(handshake(w), scope), Fiber.join)

    const handshake = (w: WebhookRecord): Effect.Effect<void> =>
      Effect.gen(function*() {
        w.verification = "pending"
        const challenge = randomBytes(16).toString("hex")
        const eventId = newId("evt")
        const deliveryId = newId("dlv")
        const at = now()
        const url = w.callbackUri
        const body = encoder.encode(encodeEvent({
          eventId,
          eventType: "VERIFY",
          data: { challenge },
          meta: { version: EVENT_VERSION, webhookId: w.id, webhookName: w.name, deliveryId, deliveredAt: utc(at) }
        }))
        const { latencyMillis, result } = yield* attempt(url, body, w.secret)
        let error: string | null = null
        if (result._tag === "Failure") error = result.reason
        else if (result.answer.status !== 200) error = `HTTP ${result.answer.status}`
        else {
          let answer: unknown
          try {
            answer = (JSON.parse(result.answer.body) as { readonly challenge?: unknown } | null)?.challenge
          } catch {
            answer = undefined
          }
          if (!sameHex(hmacHex(challenge, w.secret), answer)) {
            error = answer === undefined
              ? "the answer is not {\"challenge\": \"<hex>\"}"
              : "the challenge answer is not HMAC-SHA256(webhook secret, challenge)"
          }
        }
        // a callback changed meanwhile: that handshake decides
        if (w.callbackUri !== url) return
        w.verification = error === null ? "succeeded" : "failed"
        record({
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
        if (error === null) yield* sendFirstDeliveries(w)
      }).pipe(Effect.provideContext(context))

    const deliverable = (w: WebhookRecord) => w.isEnabled && w.verification === "succeeded"

    const vehicleEventBase = (v: VehicleInfo, userIndex: number) => ({
      vehicleId: v.id,
      user: { id: data.user(userIndex).id },
      vehicle: { id: v.id, make: v.model.make, model: v.model.model, year: v.year }
    })

    /** The `meta` of a `VEHICLE_STATE` or `VEHICLE_ERROR` event. */
    const vehicleEventMeta = (
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

    /** Every data signal of the webhook for the vehicle, read now. */
    const signalsFor = (w: WebhookRecord, v: VehicleInfo, at: number) => {
      const r = readings(seed, v, at)
      return w.data.map((definition) => {
        const k = v.model.signals.findIndex((s) => s.code === definition.code)
        if (k === -1) {
          return { ...ref(definition), status: { value: "ERROR" as const, error: { code: "SIGNAL_NOT_SUPPORTED", type: "COMPATIBILITY" } } }
        }
        const override = overrides.get(`${v.index} ${definition.code}`)
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

    const sendState = (w: WebhookRecord, s: SubscriptionRecord, triggers: ReadonlyArray<Trigger>) =>
      Effect.suspend(() => {
        const v = data.vehicle(s.vehicleIndex)
        const at = now()
        const signals = signalsFor(w, v, at)
        const { user, vehicle, vehicleId } = vehicleEventBase(v, s.userIndex)
        const eventId = newId("evt")
        return Effect.as(
          fork(deliver(w, w.callbackUri, eventId, "VEHICLE_STATE", ({ deliveredAt, deliveryId }) => ({
            eventId,
            eventType: "VEHICLE_STATE",
            vehicleId,
            data: { user, vehicle, triggers, signals },
            meta: vehicleEventMeta(w, v, deliveryId, deliveredAt, signals.length)
          }))),
          eventId
        )
      })

    const sendFirstDeliveries = (w: WebhookRecord) =>
      Effect.forEach(
        subscriptions.filter((s) => s.webhookId === w.id && s.firstDeliveryEventId === undefined),
        (s) =>
          Effect.map(sendState(w, s, [{ code: "FIRST_DELIVERY" }]), (eventId) => {
            s.firstDeliveryEventId = eventId
          }),
        { discard: true }
      ).pipe(Effect.when(Effect.sync(() => deliverable(w))), Effect.asVoid)

    const sendError = (vehicleIndex: number, entry: VehicleErrorEntry) =>
      Effect.suspend(() => {
        const v = data.vehicle(vehicleIndex)
        const targets = subscriptions.flatMap((s) => {
          const w = webhooks.find((w) => w.id === s.webhookId)
          return s.vehicleIndex === vehicleIndex && w !== undefined && deliverable(w) ? [{ w, s }] : []
        })
        return Effect.forEach(targets, ({ s, w }) => {
          const { user, vehicle, vehicleId } = vehicleEventBase(v, s.userIndex)
          const eventId = newId("evt")
          return Effect.as(
            fork(deliver(w, w.errorCallbackUri === "" ? w.callbackUri : w.errorCallbackUri, eventId, "VEHICLE_ERROR", ({ deliveredAt, deliveryId }) => ({
              eventId,
              eventType: "VEHICLE_ERROR",
              vehicleId,
              data: { user, vehicle, errors: [entry] },
              meta: vehicleEventMeta(w, v, deliveryId, deliveredAt, entry.signals?.length ?? 0)
            }))),
            eventId
          )
        })
      })

    const createWebhook = (input: WebhookInput) =>
      Effect.gen(function*() {
        const name = yield* nameOf(input.name)
        const callbackUri = yield* callbackOf("callbackUri", input.callbackUri)
        const errorCallbackUri = input.errorCallbackUri === undefined || input.errorCallbackUri === ""
          ? ""
          : yield* callbackOf("errorCallbackUri", input.errorCallbackUri)
        const triggers = yield* signalsOf("triggers", input.triggers, true)
        const dataSignals = yield* signalsOf("data", input.data, false)
        const key = input.secret === undefined
          ? secret
          : Redacted.isRedacted(input.secret)
          ? input.secret
          : Redacted.make(input.secret, { label: "webhook secret" })
        if (Redacted.value(key) === "") return yield* fail(400, "secret must not be empty")
        const w: WebhookRecord = {
          id: randomUUID(),
          name,
          callbackUri,
          errorCallbackUri,
          isEnabled: input.isEnabled ?? true,
          autoSubscribe: input.autoSubscribe ?? false,
          triggers,
          data: dataSignals,
          createdAt: now(),
          secret: key,
          verification: "pending"
        }
        webhooks.unshift(w)
        yield* verify(w)
        return viewOf(w)
      })

    const updateWebhook = (webhookId: string, patch: WebhookPatch) =>
      Effect.gen(function*() {
        const w = yield* findWebhook(webhookId)
        const name = patch.name === undefined ? w.name : yield* nameOf(patch.name)
        const callbackUri = patch.callbackUri === undefined ? w.callbackUri : yield* callbackOf("callbackUri", patch.callbackUri)
        const errorCallbackUri = patch.errorCallbackUri === undefined
          ? w.errorCallbackUri
          : patch.errorCallbackUri === null || patch.errorCallbackUri === ""
          ? ""
          : yield* callbackOf("errorCallbackUri", patch.errorCallbackUri)
        const changed = callbackUri !== w.callbackUri
        const enabled = patch.isEnabled === true && !w.isEnabled
        w.name = name
        w.callbackUri = callbackUri
        w.errorCallbackUri = errorCallbackUri
        w.isEnabled = patch.isEnabled ?? w.isEnabled
        if (changed) yield* verify(w)
        else if (enabled) yield* sendFirstDeliveries(w)
        return viewOf(w)
      })

    const subscribe = (input: SubscriptionInput) =>
      Effect.gen(function*() {
        const w = yield* findWebhook(input.webhookId)
        const v = yield* vehicleOf(input.vehicleId)
        const userIndex = data.userIndex(input.userId.toLowerCase())
        if (userIndex === -1) return yield* fail(404, `No user with id ${input.userId}`)
        if (v.index >= data.connectionCount || data.connectionUser[v.index] !== userIndex) {
          return yield* fail(400, `User ${input.userId} has no connection to vehicle ${input.vehicleId}`)
        }
        if (subscriptions.some((s) => s.webhookId === w.id && s.vehicleIndex === v.index)) {
          return yield* fail(409, `Vehicle ${input.vehicleId} is already subscribed to webhook ${w.id}`)
        }
        const s: SubscriptionRecord = {
          id: randomUUID(),
          webhookId: w.id,
          userIndex,
          vehicleIndex: v.index,
          createdAt: now(),
          firstDeliveryEventId: undefined
        }
        subscriptions.unshift(s)
        yield* sendFirstDeliveries(w)
        return {
          id: s.id,
          webhookId: w.id,
          userId: data.user(userIndex).id,
          vehicleId: v.id,
          createdAt: iso(s.createdAt),
          firstDeliveryEventId: s.firstDeliveryEventId
        }
      })

    const decodeBody = Schema.decodeUnknownEffect(EventSignalBody)
    const encodeWire = (body: unknown) =>
      Effect.flatMap(Schema.decodeUnknownEffect(SignalBody)(body), Schema.encodeEffect(SignalBody))

    const setSignal = (vehicleId: string, code: string, body: unknown) =>
      Effect.gen(function*() {
        const v = yield* vehicleOf(vehicleId)
        const definition = v.model.signals.find((s) => s.code === code.toLowerCase())
        if (definition === undefined) return yield* fail(404, `Vehicle ${v.id} has no signal ${code}`)
        if (typeof body !== "object" || body === null || Array.isArray(body)) {
          return yield* fail(400, "The body of a signal is a JSON object, e.g. {\"unit\": \"km\", \"value\": 12345}")
        }
        const invalid = (error: { readonly message: string }) =>
          new WebhookControlError({ status: 400, detail: `Invalid signal body: ${error.message}` })
        const decoded = yield* Effect.mapError(decodeBody(body), invalid)
        // the REST endpoints serve it too: it must be a v3 signal body (`value`, when present, a finite number)
        const wire = yield* Effect.mapError(encodeWire(body), invalid)
        const key = `${v.index} ${definition.code}`
        const at = now()
        const previous = overrides.get(key)?.body ?? signalBody(definition.code, readings(seed, v, at), v)
        const changed = JSON.stringify(previous) !== JSON.stringify(decoded)
        overrides.set(key, { body: decoded, wire, at })
        readingsVersion++
        if (!changed) return { changed, eventIds: [] }
        const eventIds: Array<string> = []
        for (const s of subscriptions) {
          if (s.vehicleIndex !== v.index) continue
          const w = webhooks.find((w) => w.id === s.webhookId)
          if (w === undefined || !deliverable(w) || !w.triggers.includes(definition)) continue
          eventIds.push(yield* sendState(w, s, [ref(definition)]))
        }
        return { changed, eventIds }
      })

    const injectVehicleError = (vehicleId: string, input: VehicleErrorInput) =>
      Effect.gen(function*() {
        const v = yield* vehicleOf(vehicleId)
        const signals = input.signals === undefined ? undefined : yield* signalsOf("signals", input.signals, false)
        const errorId = newId("err")
        const entry: Omit<VehicleErrorEntry, "state"> = {
          type: input.type ?? "VEHICLE_STATE",
          code: input.code ?? "ASLEEP",
          description: input.description ?? "The vehicle did not answer: it is asleep or out of network coverage.",
          suggestedUserMessage: input.suggestedUserMessage ?? "Your vehicle is not reachable right now; we will try again later.",
          resolution: { type: (input.resolution ?? "RETRY_LATER") as NonNullable<VehicleErrorEntry["resolution"]>["type"] },
          ...(signals === undefined ? {} : { signals: signals.map(ref) })
        }
        errors.set(errorId, { vehicleIndex: v.index, entry })
        const eventIds = yield* sendError(v.index, { ...entry, state: "ERROR" })
        return { errorId, eventIds }
      })

    const resolveVehicleError = (vehicleId: string, errorId: string) =>
      Effect.gen(function*() {
        const v = yield* vehicleOf(vehicleId)
        const injected = errors.get(errorId)
        if (injected === undefined || injected.vehicleIndex !== v.index) {
          return yield* fail(404, `No open error ${errorId} on vehicle ${vehicleId}`)
        }
        errors.delete(errorId)
        return { eventIds: yield* sendError(v.index, { ...injected.entry, state: "RESOLVED" }) }
      })

    return {
      secret,
      createWebhook,
      updateWebhook,
      subscribe,
      setSignal,
      injectVehicleError,
      resolveVehicleError,
      deliveries: Effect.sync(logged_),
      clearDeliveries: Effect.sync(() => {
        log = []
        logged = 0
      }),
      webhooks: () => webhooks,
      subscriptions: () => subscriptions,
      reading: (vehicleIndex, code) => overrides.size === 0 ? undefined : overrides.get(`${vehicleIndex} ${code}`),
      readingsVersion: () => readingsVersion,
      reset: () => {
        generation++
        readingsVersion++
        webhooks = []
        subscriptions = []
        overrides = new Map()
        errors = new Map()
        log = []
        logged = 0
      }
    }
  })

// ---------------------------------------------------------------------------
// Control routes
// ---------------------------------------------------------------------------

const WebhookBody = Schema.Struct({
  name: Schema.String,
  callbackUri: Schema.String,
  errorCallbackUri: Schema.optionalKey(Schema.NullOr(Schema.String)),
  triggers: Schema.Array(Schema.String),
  data: Schema.Array(Schema.String),
  isEnabled: Schema.optionalKey(Schema.Boolean),
  autoSubscribe: Schema.optionalKey(Schema.Boolean),
  secret: Schema.optionalKey(Schema.String)
})

const PatchBody = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  callbackUri: Schema.optionalKey(Schema.String),
  errorCallbackUri: Schema.optionalKey(Schema.NullOr(Schema.String)),
  isEnabled: Schema.optionalKey(Schema.Boolean)
})

const SubscriptionBody = Schema.Struct({ webhookId: Schema.String, userId: Schema.String, vehicleId: Schema.String })

const ErrorBody = Schema.Struct({
  type: Schema.optionalKey(Schema.String),
  code: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  suggestedUserMessage: Schema.optionalKey(Schema.String),
  resolution: Schema.optionalKey(Schema.String),
  signals: Schema.optionalKey(Schema.Array(Schema.String))
})

const json = (body: unknown, status = 200) => HttpServerResponse.jsonUnsafe(body, { status })
const problem = (status: number, detail: string) => HttpServerResponse.jsonUnsafe(envelope(status, detail), { status })

/** The request body decoded with `schema`; the 400 detail never quotes a `secret` member. */
const bodyOf = <S extends Schema.Top>(
  request: HttpServerRequest.HttpServerRequest,
  schema: S,
  expected: string
) =>
  request.json.pipe(
    Effect.mapError(() => new WebhookControlError({ status: 400, detail: `The body must be JSON: ${expected}` })),
    Effect.flatMap((body) =>
      Schema.decodeUnknownEffect(schema)(body).pipe(
        Effect.mapError((error) => {
          const secret = (body as { readonly secret?: unknown } | null)?.secret
          let message = error.message
          if (typeof secret === "string" && secret !== "") message = message.replaceAll(secret, "<redacted>")
          if (typeof secret === "string" && secret !== "" && message.includes(JSON.stringify(secret))) message = "invalid"
          return new WebhookControlError({ status: 400, detail: `Expected ${expected}: ${message}` })
        })
      )
    )
  ) as Effect.Effect<S["Type"], WebhookControlError>

const withoutUndefined = <A extends object>(value: A): A =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as A

const answer = <A>(effect: Effect.Effect<A, WebhookControlError>, status = 200) =>
  effect.pipe(
    Effect.match({
      onFailure: (error) => problem(error.status, error.detail),
      onSuccess: (body) => body === undefined ? HttpServerResponse.empty({ status: 204 }) : json(withoutUndefined(body as object), status)
    })
  )

const vehicleSignal = /^\/_simulator\/vehicles\/([^/]+)\/signals\/([^/]+)$/
const vehicleErrors = /^\/_simulator\/vehicles\/([^/]+)\/errors$/
const vehicleError = /^\/_simulator\/vehicles\/([^/]+)\/errors\/([^/]+)$/
const webhookPath = /^\/_simulator\/webhooks\/([^/]+)$/

/**
 * The control routes of deliveries (under `/_simulator`, loopback only, like
 * the others), or undefined for another path:
 *
 * - `POST /_simulator/webhooks` `{name, callbackUri, errorCallbackUri?, triggers, data, isEnabled?, autoSubscribe?, secret?}` → 201, after the `VERIFY`;
 * - `POST /_simulator/webhooks/:id` `{name?, callbackUri?, errorCallbackUri?, isEnabled?}` → 200;
 * - `POST /_simulator/subscriptions` `{webhookId, userId, vehicleId}` → 201;
 * - `POST /_simulator/vehicles/:id/signals/:code` with the signal's new body → 200 `{changed, eventIds}`;
 * - `POST /_simulator/vehicles/:id/errors` `{type?, code?, description?, suggestedUserMessage?, resolution?, signals?}` → 201 `{errorId, eventIds}`;
 * - `DELETE /_simulator/vehicles/:id/errors/:errorId` → 200 `{eventIds}`;
 * - `GET /_simulator/deliveries` → `{deliveries}`; `DELETE` clears the log (204).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { HttpServerRequest } from "effect/http"
 * import * as Delivery from "@connected-vehicle/simulator/Delivery"
 *
 * const route = (engine: Delivery.Deliveries, request: HttpServerRequest.HttpServerRequest, path: string) =>
 *   Delivery.control(engine, request, path) ?? Effect.die("not a delivery route")
 * ```
 * @since 0.2.0
 */
export const control = (
  engine: Deliveries,
  request: HttpServerRequest.HttpServerRequest,
  path: string
): Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined => {
  const method = request.method
  if (path === "/_simulator/webhooks" && method === "POST") {
    return answer(
      Effect.flatMap(
        bodyOf(request, WebhookBody, "{name, callbackUri, errorCallbackUri?, triggers: [codes], data: [codes], isEnabled?, autoSubscribe?, secret?}"),
        (body) =>
          engine.createWebhook({
            ...body,
            errorCallbackUri: body.errorCallbackUri ?? undefined,
            secret: body.secret === undefined ? undefined : Redacted.make(body.secret, { label: "webhook secret" })
          })
      ),
      201
    )
  }
  let match = webhookPath.exec(path)
  if (match !== null && method === "POST") {
    const id = match[1]!
    return answer(Effect.flatMap(
      bodyOf(request, PatchBody, "{name?, callbackUri?, errorCallbackUri?, isEnabled?}"),
      (patch) => engine.updateWebhook(id, patch)
    ))
  }
  if (path === "/_simulator/subscriptions" && method === "POST") {
    return answer(Effect.flatMap(bodyOf(request, SubscriptionBody, "{webhookId, userId, vehicleId}"), engine.subscribe), 201)
  }
  match = vehicleSignal.exec(path)
  if (match !== null && method === "POST") {
    const [, vehicleId, code] = match as unknown as [string, string, string]
    return answer(Effect.flatMap(
      Effect.mapError(request.json, () => new WebhookControlError({ status: 400, detail: "The body must be the signal's new body as JSON" })),
      (body) => engine.setSignal(vehicleId, code, body)
    ))
  }
  match = vehicleErrors.exec(path)
  if (match !== null && method === "POST") {
    const vehicleId = match[1]!
    return answer(
      Effect.flatMap(
        bodyOf(request, ErrorBody, "{type?, code?, description?, suggestedUserMessage?, resolution?, signals?}"),
        (body) => engine.injectVehicleError(vehicleId, body)
      ),
      201
    )
  }
  match = vehicleError.exec(path)
  if (match !== null && method === "DELETE") {
    return answer(engine.resolveVehicleError(match[1]!, match[2]!))
  }
  if (path === "/_simulator/deliveries") {
    if (method === "GET") return Effect.map(engine.deliveries, (deliveries) => json({ deliveries }))
    if (method === "DELETE") return Effect.as(engine.clearDeliveries, HttpServerResponse.empty({ status: 204 }))
  }
  return undefined
}

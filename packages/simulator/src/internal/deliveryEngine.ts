/**
 * The state of one delivery engine (created webhooks and subscriptions, set
 * readings, injected errors, the delivery log) and the sending of events:
 * one signed attempt, the retry schedule on Effect's `Clock`, and the fibers
 * deliveries run in.
 *
 * @internal
 */
import type { DeliveredEvent, VehicleErrorEntry, WebhookEvent } from "@connected-vehicle/schema/WebhookEvent"
import { WebhookEventFromJson } from "@connected-vehicle/schema/WebhookEvent"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { Clock, DateTime, Deferred, Duration, Effect, Exit, Option, Redacted, Schema } from "effect"
import type { Context, Scope } from "effect"
import { randomUUID } from "node:crypto"
import type { Dataset, SignalDefinition } from "../Data.ts"
import type { DeliveryLogEntry, Reading } from "../Delivery.ts"
import type { ControlLimits, WebhookView } from "../DeliveryModels.ts"
import {
  ATTEMPT_TIMEOUT,
  DEFAULT_WEBHOOK_SECRET,
  DELIVERY_LOG_LIMIT,
  MAX_EVENT_BYTES,
  RETRY_OFFSETS_MILLIS,
  secretIssue,
  USER_AGENT,
  VEHICLE_ERROR_LIMIT,
  WEBHOOK_LIMIT
} from "./deliveryPolicy.ts"
import type { Running } from "./burstRun.ts"
import { post } from "./post.ts"
import { DELIVERY_HEADER } from "./headers.ts"
import { hmacHex } from "./signing.ts"

/** A webhook created through the control surface. */
export interface WebhookRecord {
  id: string
  name: string
  callbackUri: string
  errorCallbackUri: string
  isEnabled: boolean
  autoSubscribe: boolean
  triggers: ReadonlyArray<SignalDefinition>
  data: ReadonlyArray<SignalDefinition>
  createdAt: number
  /** Read at each attempt: a new one (`updateWebhook`) signs the retries of earlier events too. */
  secret: Redacted.Redacted<string>
  verification: WebhookView["verification"]
  /** `VERIFY` handshakes started: only the last one started decides `verification`. */
  handshakes: number
  /** Set when it is deleted (`deleteWebhook`): an attempt still due is dropped, never sent. */
  deleted: boolean
  /** The deliveries waiting for their next attempt to it: each logs that attempt dropped and ends (`deleteWebhook`). */
  readonly waiting: Set<() => void>
}

/** A subscription created through the control surface. */
export interface SubscriptionRecord {
  readonly id: string
  readonly webhookId: string
  readonly userIndex: number
  readonly vehicleIndex: number
  readonly createdAt: number
  firstDeliveryEventId: string | undefined
}

/** An error injected on a vehicle, until it is resolved. */
export interface InjectedError {
  readonly vehicleIndex: number
  readonly entry: Omit<VehicleErrorEntry, "state">
}

/** The state of one delivery engine; `reset` empties the mutable part. */
export interface Engine {
  readonly data: Dataset
  readonly seed: number
  readonly secret: Redacted.Redacted<string>
  readonly scope: Scope.Scope
  readonly context: Context.Context<never>
  readonly now: () => number
  /** At most this many created webhooks, and open vehicle errors (`Delivery.make`'s `limits`). */
  readonly webhookLimit: number
  readonly errorLimit: number
  /** Whether the connections' permissions are enforced: a signal one may not read is `FORBIDDEN` in events, as in the REST reads. */
  readonly enforcePermissions: boolean
  webhooks: Array<WebhookRecord>
  subscriptions: Array<SubscriptionRecord>
  overrides: Map<string, Reading>
  /** The JSON length of each signal body set through the control routes, and their sum (bounded by `SIGNAL_BODIES_LIMIT`). */
  signalSizes: Map<string, number>
  signalChars: number
  readingsVersion: number
  errors: Map<string, InjectedError>
  log: Array<AttemptRecord>
  logged: number
  /** Bumped by reset: deliveries of an older generation stop before their next attempt. */
  generation: number
  /** The last burst (see `internal/burstRun`), and how many were started. */
  burst: Running | undefined
  bursts: number
}

/** A new engine's state, in the current scope and context. */
export const makeEngine = (options: {
  readonly data: Dataset
  readonly secret?: Redacted.Redacted<string> | string | undefined
  readonly limits?: ControlLimits | undefined
  readonly enforcePermissions?: boolean | undefined
}): Effect.Effect<Engine, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { data } = options
    const secret = Redacted.isRedacted(options.secret)
      ? options.secret
      : Redacted.make(options.secret ?? DEFAULT_WEBHOOK_SECRET, { label: "webhook secret" })
    // every webhook created without its own secret would be refused
    const issue = secretIssue(Redacted.value(secret))
    if (issue !== undefined) return yield* Effect.die(new InvalidArgument({ field: "secret", message: `secret ${issue}` }))
    const scope = yield* Effect.scope
    const context = yield* Effect.context<never>() as Effect.Effect<Context.Context<never>>
    const clock = yield* Clock.Clock
    return {
      data,
      seed: data.options.seed,
      secret,
      scope,
      context,
      now: () => clock.currentTimeMillisUnsafe(),
      webhookLimit: options.limits?.webhooks ?? WEBHOOK_LIMIT,
      errorLimit: options.limits?.vehicleErrors ?? VEHICLE_ERROR_LIMIT,
      enforcePermissions: options.enforcePermissions ?? true,
      webhooks: [],
      subscriptions: [],
      overrides: new Map(),
      signalSizes: new Map(),
      signalChars: 0,
      readingsVersion: 0,
      errors: new Map(),
      log: [],
      logged: 0,
      generation: 0,
      burst: undefined,
      bursts: 0
    }
  })

/** Forgets every created webhook, subscription, reading, error and the log. */
export const resetEngine = (engine: Engine): void => {
  engine.generation++
  engine.readingsVersion++
  engine.webhooks = []
  engine.subscriptions = []
  engine.overrides = new Map()
  engine.signalSizes = new Map()
  engine.signalChars = 0
  engine.errors = new Map()
  engine.log = []
  engine.logged = 0
}

export const iso = (millis: number) => new Date(millis).toISOString()
export const utc = (millis: number) => DateTime.makeUnsafe(millis) as DateTime.Utc

export const encodeEvent = Schema.encodeSync(WebhookEventFromJson)
export const encoder = new TextEncoder()

export const newId = (prefix: string) => `${prefix}_${randomUUID().replaceAll("-", "")}`

/**
 * An attempt as the engine logs it: a `DeliveryLogEntry` with its latency in
 * milliseconds (measured on `performance.now()`), made a `Duration` when
 * the log is read.
 */
export type AttemptRecord = Omit<DeliveryLogEntry, "latency"> & { readonly latencyMillis: number }

/** Adds an attempt to the log (a ring of the last {@link DELIVERY_LOG_LIMIT}). */
export const record = (engine: Engine, entry: AttemptRecord) => {
  if (engine.log.length < DELIVERY_LOG_LIMIT) engine.log.push(entry)
  else engine.log[engine.logged % DELIVERY_LOG_LIMIT] = entry
  engine.logged++
}

/** The delivery log, oldest first. */
export const loggedEntries = (engine: Engine): ReadonlyArray<DeliveryLogEntry> => {
  const { log } = engine
  const n = log.length
  const oldest = n < DELIVERY_LOG_LIMIT ? 0 : engine.logged % DELIVERY_LOG_LIMIT
  return Array.from({ length: n }, (_, i) => {
    const { latencyMillis, outcome, ...rest } = log[(oldest + i) % n]!
    return { ...rest, latency: Duration.millis(latencyMillis), outcome }
  })
}

export const clearLog = (engine: Engine): void => {
  engine.log = []
  engine.logged = 0
}

/** Milliseconds on the wall clock (latency is a measurement, not simulated time). */
const wallMillis = () => performance.now()

/**
 * One attempt: POST, measured (until the answer is decided). `readBody` says
 * from the status whether the answer's body is wanted (a `VERIFY`'s 200); a
 * delivery is decided by its status line alone.
 */
export const attempt = (
  url: string,
  body: Uint8Array,
  key: Redacted.Redacted<string>,
  readBody: (status: number) => boolean = () => false
) =>
  Effect.gen(function*() {
    const started = wallMillis()
    const answer = yield* post(new URL(url), body, {
      "content-type": "application/json",
      "sc-signature": hmacHex(body, key),
      "user-agent": USER_AGENT,
      [DELIVERY_HEADER]: "1"
    }, readBody).pipe(
      Effect.timeoutOption(ATTEMPT_TIMEOUT),
      Effect.map(Option.match({
        onNone: () => ({ _tag: "Failure" as const, reason: `no answer within ${Duration.toSeconds(ATTEMPT_TIMEOUT)} s` }),
        onSome: (answer) => ({ _tag: "Answer" as const, answer })
      })),
      Effect.catch((failure) => Effect.succeed({ _tag: "Failure" as const, reason: failure.reason }))
    )
    return { result: answer, latencyMillis: Math.round((wallMillis() - started) * 10) / 10 }
  })

/** The meta of one attempt, for `build` to make its event. */
export interface AttemptMeta {
  readonly deliveryId: string
  readonly deliveredAt: DateTime.Utc
  readonly w: WebhookRecord
}

/**
 * How an event is delivered: the webhook of each attempt (1-based), the
 * offsets of the retries from the first attempt, and for a burst
 * (`internal/burstRun`) a lost acknowledgement (a 2xx logged as `retrying`,
 * so the event is sent again), a wrapper of each attempt (a concurrency
 * permit) and the outcome of each attempt. The URL is the webhook's callback
 * (`errorCallbackUri` for a `VEHICLE_ERROR`, when set) as it is at the attempt.
 */
export interface DeliveryPlan {
  readonly target: (attempt: number) => WebhookRecord
  readonly retryOffsets: ReadonlyArray<number>
  readonly lostAck?: ((attempt: number) => boolean) | undefined
  readonly around?: (<A>(effect: Effect.Effect<A>) => Effect.Effect<A>) | undefined
  readonly onAttempt?: ((entry: AttemptRecord) => void) | undefined
  /** Checked before each attempt: false stops the delivery (a cancelled burst). */
  readonly live?: (() => boolean) | undefined
}

/** Delivers an event to a webhook with the retry schedule; `build` makes the event of one attempt. */
export const deliver = (
  engine: Engine,
  w: WebhookRecord,
  eventId: string,
  eventType: "VEHICLE_STATE" | "VEHICLE_ERROR",
  build: (meta: AttemptMeta) => DeliveredEvent
) => deliverWith(engine, { target: () => w, retryOffsets: RETRY_OFFSETS_MILLIS }, eventId, eventType, build)

/** Where an event of this type goes now: the error callback of a `VEHICLE_ERROR` when the webhook has one, else its callback. */
export const callbackOf = (w: WebhookRecord, eventType: "VEHICLE_STATE" | "VEHICLE_ERROR") =>
  eventType === "VEHICLE_ERROR" && w.errorCallbackUri !== "" ? w.errorCallbackUri : w.callbackUri

/**
 * Why the webhook can get no event now (disabled, or its callback not
 * verified: a new one is verified again), or undefined. Looked at before
 * every attempt, retries included.
 */
export const notDeliverable = (w: WebhookRecord): string | undefined =>
  w.deleted
    ? "the webhook was deleted"
    : !w.isEnabled
    ? "the webhook is disabled"
    : w.verification !== "succeeded"
    ? `the webhook's callback is not verified (verification ${w.verification})`
    : undefined

/** Delivers an event as `plan` says; `build` makes the event of one attempt. */
export const deliverWith = (
  engine: Engine,
  plan: DeliveryPlan,
  eventId: string,
  eventType: "VEHICLE_STATE" | "VEHICLE_ERROR",
  build: (meta: AttemptMeta) => DeliveredEvent
) => {
  const started = engine.generation
  const { now } = engine
  const live = () => engine.generation === started && (plan.live === undefined || plan.live())
  const log = (entry: AttemptRecord) => {
    record(engine, entry)
    plan.onAttempt?.(entry)
  }
  const around = plan.around ?? ((effect) => effect)
  return Effect.gen(function*() {
    const firstAt = now()
    const attempts = plan.retryOffsets.length + 1
    for (let n = 1; n <= attempts; n++) {
      // the decision and the send under `around` (a burst's permit): an attempt
      // queued behind others looks at the run and the webhook when its turn comes
      const sent = yield* around(Effect.suspend(() => {
        if (!live()) return Effect.succeed(undefined)
        // the webhook as it is now: it may have been disabled or re-pointed since the last attempt
        const w = plan.target(n)
        const url = callbackOf(w, eventType)
        const deliveryId = newId("dlv")
        const at = now()
        const base = { eventId, eventType, webhookId: w.id, deliveryId, attempt: n, url, at: iso(at) }
        const refused = notDeliverable(w)
        if (refused !== undefined) {
          log({ ...base, status: null, error: `not sent: ${refused}`, latencyMillis: 0, outcome: "dropped" })
          return Effect.succeed(undefined)
        }
        const body = encoder.encode(encodeEvent(build({ deliveryId, deliveredAt: utc(at), w }) as WebhookEvent))
        if (body.byteLength > MAX_EVENT_BYTES) {
          log({ ...base, status: null, error: `the event is ${body.byteLength} bytes, over ${MAX_EVENT_BYTES}`, latencyMillis: 0, outcome: "dropped" })
          return Effect.succeed(undefined)
        }
        return Effect.map(attempt(url, body, w.secret), (answer) => ({ ...answer, base }))
      }))
      if (sent === undefined) return
      const { base, latencyMillis, result } = sent
      if (engine.generation !== started) return
      const last = n === attempts
      const answered = result._tag === "Answer" && result.answer.status >= 200 && result.answer.status < 300
      const lost = answered && !last && plan.lostAck !== undefined && plan.lostAck(n)
      const ok = answered && !lost
      log({
        ...base,
        status: result._tag === "Answer" ? result.answer.status : null,
        error: result._tag === "Failure" ? result.reason : lost ? "acknowledgement lost (simulated)" : ok ? null : `HTTP ${result.answer.status}`,
        latencyMillis,
        outcome: ok ? "delivered" : last ? "dropped" : "retrying"
      })
      if (ok || last) return
      // a webhook deleted meanwhile: the next attempt is logged dropped at once (at the loop's top)
      const next = plan.target(n + 1)
      if (next.deleted) continue
      // fixed offsets from the first attempt (+25, +75, +175 s): a slow failure does not push them back
      const wait = Effect.sleep(Duration.millis(Math.max(0, firstAt + plan.retryOffsets[n - 1]! - now())))
      if (yield* untilDeleted(next, wait, () => live() && log(droppedAttempt(engine, next, eventId, eventType, n + 1)))) return
    }
  })
}

/** The log entry of an attempt not sent because its webhook was deleted. */
const droppedAttempt = (
  engine: Engine,
  w: WebhookRecord,
  eventId: string,
  eventType: "VEHICLE_STATE" | "VEHICLE_ERROR",
  attempt: number
): AttemptRecord => ({
  eventId,
  eventType,
  webhookId: w.id,
  deliveryId: newId("dlv"),
  attempt,
  url: callbackOf(w, eventType),
  at: iso(engine.now()),
  status: null,
  error: "not sent: the webhook was deleted",
  latencyMillis: 0,
  outcome: "dropped"
})

/**
 * Runs `wait` (the pause before the next attempt to `w`) unless `w` is
 * deleted meanwhile: then `drop` runs at once (in the deletion, so its log
 * entry is there when the deletion returns) and the answer is true.
 */
const untilDeleted = (w: WebhookRecord, wait: Effect.Effect<void>, drop: () => unknown) =>
  Effect.suspend(() => {
    let dropped = false
    const woken = Deferred.makeUnsafe<void>()
    const wake = () => {
      dropped = true
      drop()
      Deferred.doneUnsafe(woken, Exit.void)
    }
    w.waiting.add(wake)
    return Effect.raceFirst(wait, Deferred.await(woken)).pipe(
      Effect.ensuring(Effect.sync(() => w.waiting.delete(wake))),
      Effect.map(() => dropped)
    )
  })

/** Runs an effect in a fiber of the engine's scope, with the engine's context. */
export const fork = (engine: Engine, effect: Effect.Effect<void>) =>
  Effect.asVoid(Effect.forkIn(Effect.provideContext(effect, engine.context), engine.scope))

export const deliverable = (w: WebhookRecord) => notDeliverable(w) === undefined

export const ref = (s: SignalDefinition) => ({ code: s.code, name: s.name, group: s.group })

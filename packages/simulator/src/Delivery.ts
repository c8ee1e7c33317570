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
import type { SignalBody } from "@connected-vehicle/schema/Signal"
import { Effect } from "effect"
import type { Duration, Redacted, Scope } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { BurstInput, BurstView, GroundTruth } from "./Burst.ts"
import type { Dataset, WebhookInfo } from "./Data.ts"
import type {
  ControlLimits,
  SubscriptionInput,
  SubscriptionView,
  VehicleErrorInput,
  WebhookInput,
  WebhookPatch,
  WebhookView
} from "./DeliveryModels.ts"
import * as bursts from "./internal/burstRun.ts"
import * as actions from "./internal/deliveryActions.ts"
import { clearLog, loggedEntries, makeEngine, resetEngine } from "./internal/deliveryEngine.ts"
import * as policy from "./internal/deliveryPolicy.ts"
import * as routes from "./internal/deliveryRoutes.ts"

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
 * @category constants
 */
export const DEFAULT_WEBHOOK_SECRET = policy.DEFAULT_WEBHOOK_SECRET

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
 * @category constants
 */
export const USER_AGENT: string = policy.USER_AGENT

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
 * @category constants
 */
export const EVENT_VERSION = policy.EVENT_VERSION

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
 * @category constants
 */
export const RETRY_DELAYS: ReadonlyArray<Duration.Duration> = policy.RETRY_DELAYS

/**
 * How long a receiver has to answer an attempt (a `VERIFY` included): a
 * delivery's status line (a 2xx is a success however slow the rest of the
 * answer), a `VERIFY`'s 200 and its body.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { ATTEMPT_TIMEOUT } from "@connected-vehicle/simulator/Delivery"
 *
 * Duration.toSeconds(ATTEMPT_TIMEOUT) // 15
 * ```
 * @since 0.2.0
 * @category constants
 */
export const ATTEMPT_TIMEOUT: Duration.Duration = policy.ATTEMPT_TIMEOUT

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
 * @category constants
 */
export const MAX_EVENT_BYTES = policy.MAX_EVENT_BYTES

/**
 * The delivery log keeps the last 10,000 attempts.
 *
 * @example
 * ```ts
 * import { DELIVERY_LOG_LIMIT } from "@connected-vehicle/simulator/Delivery"
 *
 * const kept = (attempts: number) => Math.min(attempts, DELIVERY_LOG_LIMIT) // the oldest entries go first
 * ```
 * @since 0.2.0
 * @category constants
 */
export const DELIVERY_LOG_LIMIT = policy.DELIVERY_LOG_LIMIT

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
 * @category errors
 */
export const WebhookControlError: typeof policy.WebhookControlError = policy.WebhookControlError

/**
 * The type of {@link WebhookControlError}.
 *
 * @example
 * ```ts
 * import type { WebhookControlError } from "@connected-vehicle/simulator/Delivery"
 *
 * const isMissing = (error: WebhookControlError) => error.status === 404
 * ```
 * @since 0.2.0
 * @category errors
 */
export type WebhookControlError = policy.WebhookControlError

/**
 * The webhooks, subscriptions and vehicle errors of the control surface (see
 * `DeliveryModels`).
 *
 * @example
 * ```ts
 * import type { SubscriptionInput } from "@connected-vehicle/simulator/Delivery"
 *
 * const input: SubscriptionInput = { webhookId: "wh_1", userId: "usr_1", vehicleId: "veh_1" }
 * ```
 * @since 0.2.0
 * @category models
 */
export type {
  ControlLimits,
  SubscriptionInput,
  SubscriptionView,
  VehicleErrorInput,
  WebhookInput,
  WebhookPatch,
  WebhookView
} from "./DeliveryModels.ts"

/**
 * What a control action queued: the ids of the events it sent (one per
 * webhook concerned).
 *
 * @example
 * ```ts
 * import type { Queued } from "@connected-vehicle/simulator/Delivery"
 *
 * const eventCount = (queued: Queued) => queued.eventIds.length
 * ```
 * @since 0.2.0
 * @category models
 */
export interface Queued {
  readonly eventIds: ReadonlyArray<string>
}

/**
 * One delivery attempt. `status` is the receiver's HTTP status (null when
 * no status line came: `error` says why); `latency` is measured on the
 * wall clock, until the answer is decided (its status line; for a `VERIFY`'s
 * 200, its body); `outcome` is `delivered`, `retrying` (a failure, another
 * attempt follows), `dropped` (the last attempt failed, the body was over 50 KB, or
 * the webhook was disabled, deleted or its new callback not verified when the
 * attempt was due: nothing sent, `error` `not sent: ...`), `verified` or `unverified`
 * (a `VERIFY`). `url` is where the attempt went: the webhook's callback as it
 * was then.
 *
 * @example
 * ```ts
 * import type { DeliveryLogEntry } from "@connected-vehicle/simulator/Delivery"
 *
 * const retried = (log: ReadonlyArray<DeliveryLogEntry>) => log.filter((entry) => entry.attempt > 1)
 * ```
 * @since 0.2.0
 * @category models
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
  readonly latency: Duration.Duration
  readonly outcome: "delivered" | "retrying" | "dropped" | "verified" | "unverified"
}

/**
 * The delivery engine of one simulator (see the `Simulator` service for the
 * same operations, and the control routes).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Deliveries } from "@connected-vehicle/simulator/Delivery"
 *
 * const odometerChanged = (deliveries: Deliveries, vehicleId: string) =>
 *   Effect.map(deliveries.setSignal(vehicleId, "odometer-traveleddistance", { unit: "km", value: 20100 }), (q) => q.changed)
 * ```
 * @since 0.2.0
 * @category models
 */
export interface Deliveries {
  /** The simulator's webhook secret (used by webhooks created without their own). */
  readonly secret: Redacted.Redacted<string>
  /** Creates a webhook and waits for its `VERIFY` handshake (at most 15 s). */
  readonly createWebhook: (input: WebhookInput) => Effect.Effect<WebhookView, WebhookControlError>
  /** Changes a created webhook; a new `callbackUri` (or the same one, while not verified) is verified again (awaited), a new `secret` signs its next attempts (retries included). */
  readonly updateWebhook: (webhookId: string, patch: WebhookPatch) => Effect.Effect<WebhookView, WebhookControlError>
  /** Deletes a created webhook and its subscriptions; its attempts still due are logged `dropped`, never sent (404: no such webhook). */
  readonly deleteWebhook: (webhookId: string) => Effect.Effect<void, WebhookControlError>
  /** Subscribes a connected vehicle to a created webhook; sends its `FIRST_DELIVERY`. */
  readonly subscribe: (input: SubscriptionInput) => Effect.Effect<SubscriptionView, WebhookControlError>
  /**
   * Sets the body of a signal of a vehicle (its reading in the following
   * events); when it differs from the previous one, every subscribed webhook
   * that has the signal among its triggers gets a `VEHICLE_STATE`, unless the
   * vehicle's connection may not read the signal (then none: `eventIds` is
   * empty).
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
  /** Plans and starts a burst of deliveries (one at a time); its progress (see `Burst`). */
  readonly startBurst: (input: BurstInput) => Effect.Effect<BurstView, WebhookControlError>
  /** The progress of the last burst (404 when none was started). */
  readonly burst: Effect.Effect<BurstView, WebhookControlError>
  /** Waits until every delivery of the last burst settled (or it was cancelled). */
  readonly awaitBurst: Effect.Effect<BurstView, WebhookControlError>
  /** Stops the last burst: no new delivery or attempt starts. */
  readonly cancelBurst: Effect.Effect<BurstView, WebhookControlError>
  /** The distinct events of the last burst and the newest value per vehicle and signal. */
  readonly burstTruth: Effect.Effect<GroundTruth, WebhookControlError>
  /** Forgets every created webhook, subscription, reading, error, burst and the log. */
  readonly reset: () => void
}

/**
 * A reading set through the control surface (see {@link Deliveries.reading}).
 *
 * @example
 * ```ts
 * import type { Reading } from "@connected-vehicle/simulator/Delivery"
 *
 * const setAt = (reading: Reading | undefined) => reading === undefined ? undefined : new Date(reading.at)
 * ```
 * @since 0.2.0
 * @category models
 */
export interface Reading {
  readonly body: Record<string, unknown>
  readonly wire: typeof SignalBody.Encoded
  readonly at: number
}

/**
 * A created webhook as the `/v3` handlers list it (the seeded webhooks' shape).
 *
 * @example
 * ```ts
 * import type { CreatedWebhook } from "@connected-vehicle/simulator/Delivery"
 *
 * const callbacks = (webhooks: ReadonlyArray<CreatedWebhook>) => webhooks.map((w) => w.callbackUri)
 * ```
 * @since 0.2.0
 * @category models
 */
export type CreatedWebhook = Omit<WebhookInfo, "index">

/**
 * A created subscription as the `/v3` handlers list it.
 *
 * @example
 * ```ts
 * import type { CreatedSubscription } from "@connected-vehicle/simulator/Delivery"
 *
 * const ofWebhook = (subs: ReadonlyArray<CreatedSubscription>, webhookId: string) => subs.filter((s) => s.webhookId === webhookId)
 * ```
 * @since 0.2.0
 * @category models
 */
export interface CreatedSubscription {
  readonly id: string
  readonly webhookId: string
  readonly userIndex: number
  readonly vehicleIndex: number
  readonly createdAt: number
}
/**
 * At most this many webhooks are created through the control surface
 * (default; `SimulatorOptions.controlLimits.webhooks`): one more is refused
 * with a `409` (section 7 envelope) until `POST /_simulator/reset`.
 *
 * @example
 * ```ts
 * import { WEBHOOK_LIMIT } from "@connected-vehicle/simulator/Delivery"
 *
 * const canCreate = (created: number) => created < WEBHOOK_LIMIT
 * ```
 * @since 0.2.0
 * @category constants
 */
export const WEBHOOK_LIMIT = policy.WEBHOOK_LIMIT

/**
 * At most this many injected vehicle errors are open at once (default;
 * `SimulatorOptions.controlLimits.vehicleErrors`): one more is refused with
 * a `409` (section 7 envelope) until one is resolved or the simulator reset.
 *
 * @example
 * ```ts
 * import { VEHICLE_ERROR_LIMIT } from "@connected-vehicle/simulator/Delivery"
 *
 * const canInject = (open: number) => open < VEHICLE_ERROR_LIMIT
 * ```
 * @since 0.2.0
 * @category constants
 */
export const VEHICLE_ERROR_LIMIT = policy.VEHICLE_ERROR_LIMIT

/**
 * Builds the delivery engine of a simulator. Deliveries run in fibers forked
 * in the current scope (the simulator's), with the current context: under
 * `TestClock` the retry schedule follows `TestClock.adjust`. `limits` bounds
 * the created webhooks and the open vehicle errors (default
 * {@link WEBHOOK_LIMIT} and {@link VEHICLE_ERROR_LIMIT}). With
 * `enforcePermissions` (default true, as `SimulatorOptions.enforcePermissions`)
 * a signal the vehicle's connection may not read is carried in events as the
 * REST reads show it: `ERROR` / `FORBIDDEN`, no body. A `secret` that is
 * not 1 to 1,024 characters is a defect (an `InvalidArgument` naming
 * `secret`): every webhook created without its own would be refused.
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
 * @category constructors
 */
export const make = (options: {
  readonly data: Dataset
  readonly secret?: Redacted.Redacted<string> | string | undefined
  readonly limits?: ControlLimits | undefined
  readonly enforcePermissions?: boolean | undefined
}): Effect.Effect<Deliveries, never, Scope.Scope> =>
  Effect.map(makeEngine(options), (engine): Deliveries => ({
    secret: engine.secret,
    createWebhook: (input) => actions.createWebhook(engine, input),
    updateWebhook: (webhookId, patch) => actions.updateWebhook(engine, webhookId, patch),
    deleteWebhook: (webhookId) => actions.deleteWebhook(engine, webhookId),
    subscribe: (input) => actions.subscribe(engine, input),
    setSignal: (vehicleId, code, body) => actions.setSignal(engine, vehicleId, code, body),
    injectVehicleError: (vehicleId, input) => actions.injectVehicleError(engine, vehicleId, input),
    resolveVehicleError: (vehicleId, errorId) => actions.resolveVehicleError(engine, vehicleId, errorId),
    deliveries: Effect.sync(() => loggedEntries(engine)),
    clearDeliveries: Effect.sync(() => clearLog(engine)),
    webhooks: () => engine.webhooks,
    subscriptions: () => engine.subscriptions,
    reading: (vehicleIndex, code) =>
      engine.overrides.size === 0 ? undefined : engine.overrides.get(`${vehicleIndex} ${code}`),
    readingsVersion: () => engine.readingsVersion,
    startBurst: (input) => bursts.startBurst(engine, input),
    burst: bursts.currentBurst(engine),
    awaitBurst: bursts.awaitBurst(engine),
    cancelBurst: bursts.cancelBurst(engine),
    burstTruth: bursts.burstTruth(engine),
    reset: () => {
      bursts.resetBurst(engine)
      resetEngine(engine)
    }
  }))

/**
 * The control routes of deliveries (under `/_simulator`, loopback only, like
 * the others), or undefined for another path:
 *
 * - `POST /_simulator/webhooks` `{name, callbackUri, errorCallbackUri?, triggers, data, isEnabled?, autoSubscribe?, secret?}` → 201, after the `VERIFY`;
 * - `POST /_simulator/webhooks/:id` `{name?, callbackUri?, errorCallbackUri?, isEnabled?, secret?}` → 200 (a new
 *   `secret` signs the webhook's next attempts, retries of earlier events included);
 * - `DELETE /_simulator/webhooks/:id` → 204 (see {@link Deliveries.deleteWebhook});
 * - `POST /_simulator/subscriptions` `{webhookId, userId, vehicleId}` → 201;
 * - `POST /_simulator/vehicles/:id/signals/:code` with the signal's new body → 200 `{changed, eventIds}`;
 * - `POST /_simulator/vehicles/:id/errors` `{type?, code?, description?, suggestedUserMessage?, resolution?, signals?}` → 201 `{errorId, eventIds}`;
 * - `DELETE /_simulator/vehicles/:id/errors/:errorId` → 200 `{eventIds}`;
 * - `GET /_simulator/deliveries` → `{deliveries}`; `DELETE` clears the log (204).
 *
 * A member a JSON body's route does not take (all but the signal's body) is a
 * 400 naming it, nothing created or changed; another method on one of these
 * paths is a 405 whose `Allow` lists the path's methods.
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
 * @category handlers
 */
export const control: (
  engine: Deliveries,
  request: HttpServerRequest.HttpServerRequest,
  path: string
) => Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined = routes.control

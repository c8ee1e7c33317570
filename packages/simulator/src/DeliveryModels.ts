/**
 * The webhooks, subscriptions and vehicle errors of the simulator's delivery
 * control surface (`Delivery`, `Simulator.createWebhook`, `subscribe`, ...).
 *
 * @since 0.2.0
 */
import type { Redacted } from "effect"

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
 * @category models
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
 * Changes to a created webhook; a new `callbackUri` is verified again, and so
 * is the same one named again while the webhook's verification is not
 * `succeeded` (a receiver fixed after a failed `VERIFY`). A new `secret` (1 to
 * 1,024 characters) signs the webhook's next attempts, the retries of earlier
 * events included; its verification is not repeated (a `VERIFY` waiting for
 * its answer is checked with the secret that signed it).
 *
 * @example
 * ```ts
 * import type { WebhookPatch } from "@connected-vehicle/simulator/Delivery"
 *
 * const disable: WebhookPatch = { isEnabled: false, errorCallbackUri: null }
 * ```
 * @since 0.2.0
 * @category models
 */
export interface WebhookPatch {
  readonly name?: string | undefined
  readonly callbackUri?: string | undefined
  /** `null` removes it (errors then go to `callbackUri`). */
  readonly errorCallbackUri?: string | null | undefined
  readonly isEnabled?: boolean | undefined
  /** The webhook's new secret: what rotating it at the service does. */
  readonly secret?: Redacted.Redacted<string> | string | undefined
}

/**
 * A created webhook as the control surface shows it (never its secret).
 *
 * @example
 * ```ts
 * import type { WebhookView } from "@connected-vehicle/simulator/Delivery"
 *
 * const receivesEvents = (webhook: WebhookView) => webhook.isEnabled && webhook.verification === "succeeded"
 * ```
 * @since 0.2.0
 * @category models
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
 * @example
 * ```ts
 * import type { SubscriptionInput } from "@connected-vehicle/simulator/Delivery"
 *
 * const input: SubscriptionInput = { webhookId: "wh-1", userId: "user-1", vehicleId: "vehicle-1" }
 * ```
 * @since 0.2.0
 * @category models
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
 * @example
 * ```ts
 * import type { SubscriptionView } from "@connected-vehicle/simulator/Delivery"
 *
 * const firstEvent = (subscription: SubscriptionView) => subscription.firstDeliveryEventId ?? "none yet"
 * ```
 * @since 0.2.0
 * @category models
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
 * @example
 * ```ts
 * import type { VehicleErrorInput } from "@connected-vehicle/simulator/Delivery"
 *
 * const lowVoltage: VehicleErrorInput = { type: "VEHICLE_STATE", code: "LOW_VOLTAGE", signals: ["tractionbattery-stateofcharge"] }
 * ```
 * @since 0.2.0
 * @category models
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
 * Bounds of what the control surface keeps: `webhooks`, created webhooks
 * (default `Delivery.WEBHOOK_LIMIT`, 1,000); `vehicleErrors`, injected
 * vehicle errors open at once (default `Delivery.VEHICLE_ERROR_LIMIT`,
 * 10,000). Whole numbers of at least 1. One more is refused with a `409`.
 *
 * @example
 * ```ts
 * import type { ControlLimits } from "@connected-vehicle/simulator/Delivery"
 *
 * const small: ControlLimits = { webhooks: 10, vehicleErrors: 100 }
 * ```
 * @since 0.2.0
 * @category models
 */
export interface ControlLimits {
  readonly webhooks?: number | undefined
  readonly vehicleErrors?: number | undefined
}

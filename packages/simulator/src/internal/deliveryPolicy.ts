/**
 * The fixed rules of webhook deliveries (secret, user agent, event version,
 * retry schedule, timeouts, sizes) and the error of a refused control
 * request: what the public `Delivery` module exports, without the engine.
 *
 * @internal
 */
import { Duration, Effect, Schema } from "effect"
import { simulatorVersion } from "./version.ts"

/** @internal */
export const DEFAULT_WEBHOOK_SECRET = "demo-management-token"

/** @internal */
export const USER_AGENT = `connected-vehicle-simulator/${simulatorVersion}`

/** @internal */
export const EVENT_VERSION = "4.0"

/** @internal */
export const RETRY_DELAYS: ReadonlyArray<Duration.Duration> = [Duration.seconds(25), Duration.seconds(50), Duration.seconds(100)]

/** The offsets of the retries from the first attempt (+25, +75, +175 s). */
export const RETRY_OFFSETS_MILLIS = RETRY_DELAYS.map((_, i) =>
  RETRY_DELAYS.slice(0, i + 1).reduce((total, delay) => total + Duration.toMillis(delay), 0)
)

/** @internal */
export const ATTEMPT_TIMEOUT: Duration.Duration = Duration.seconds(15)

/** @internal */
export const MAX_EVENT_BYTES = 50_000

/** @internal */
export const DELIVERY_LOG_LIMIT = 10_000

/** @internal */
export const WEBHOOK_LIMIT = 1_000

/** @internal */
export const VEHICLE_ERROR_LIMIT = 10_000

/** @internal */
export class WebhookControlError extends Schema.TaggedError<WebhookControlError>()("WebhookControlError", {
  status: Schema.Int,
  detail: Schema.String
}) {
  override get message() {
    return this.detail
  }
}

/** Fails with a {@link WebhookControlError}. */
export const fail = (status: number, detail: string) => Effect.fail(new WebhookControlError({ status, detail }))

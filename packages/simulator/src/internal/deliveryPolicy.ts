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

/** The longest text of each field of an injected vehicle error, in characters (a longer one is a 400). */
export const ERROR_FIELD_LIMITS = {
  type: 100,
  code: 100,
  resolution: 100,
  description: 1_000,
  suggestedUserMessage: 1_000
} as const

/** The longest `callbackUri` or `errorCallbackUri` of a created webhook, and its `secret`, in characters. */
export const CALLBACK_URI_LIMIT = 2_048
export const SECRET_LIMIT = 1_024

/**
 * What is wrong with a webhook secret (the simulator's or a webhook's own),
 * to follow its name, or undefined: it is 1 to {@link SECRET_LIMIT}
 * characters. Never quotes the secret.
 */
export const secretIssue = (secret: string): string | undefined =>
  secret === ""
    ? "must not be empty"
    : secret.length > SECRET_LIMIT
    ? `is at most ${SECRET_LIMIT} characters, got ${secret.length}`
    : !secret.isWellFormed()
    ? "must be well-formed Unicode text (it holds a lone surrogate)"
    : undefined

/** The largest signal body set through the control routes, in characters of its JSON (a larger one is a 400). */
export const SIGNAL_BODY_LIMIT = 16_384

/** The characters of JSON of all the signal bodies set through the control routes (one more past it is a 409). */
export const SIGNAL_BODIES_LIMIT = 4_194_304

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

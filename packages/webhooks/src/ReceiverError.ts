/**
 * Why a receiver did not answer a delivery with a 2xx, one tagged error per
 * reason, each with the status it is answered with. None of them carries the
 * webhook secret, a signature or the request body.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { SignatureError } from "./Signature.ts"
import type { SeenEventsError } from "./SeenEvents.ts"

/**
 * The request is not a `POST` (answered 405).
 *
 * @example
 * ```ts
 * import type { MethodNotAllowed } from "@connected-vehicle/webhooks/ReceiverError"
 *
 * const explain = (e: MethodNotAllowed) => e.message
 * ```
 * @category errors
 * @since 0.1.0
 */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  method: Schema.String
}) {
  override get message() {
    return `Webhook deliveries are POST requests, not ${this.method}`
  }
}

/**
 * The body is larger than the receiver's limit (answered 413 without
 * reading the rest).
 *
 * @example
 * ```ts
 * import type { BodyTooLarge } from "@connected-vehicle/webhooks/ReceiverError"
 *
 * const explain = (e: BodyTooLarge) => `limit ${e.limit} bytes`
 * ```
 * @category errors
 * @since 0.1.0
 */
export class BodyTooLarge extends Schema.TaggedError<BodyTooLarge>()("BodyTooLarge", {
  limit: Schema.Int
}) {
  override get message() {
    return `The request body exceeds ${this.limit} bytes`
  }
}

/**
 * The body could not be read (the connection closed mid-body, or a framework
 * parsed or read it before the receiver could see the raw bytes). Answered
 * 400, or 500 (`alreadyParsed`) for a body parsed or read to its end before
 * the receiver (a configuration error of the application).
 *
 * @example
 * ```ts
 * import type { UnreadableBody } from "@connected-vehicle/webhooks/ReceiverError"
 *
 * const explain = (e: UnreadableBody) => e.reason
 * ```
 * @category errors
 * @since 0.1.0
 */
export class UnreadableBody extends Schema.TaggedError<UnreadableBody>()("UnreadableBody", {
  reason: Schema.String,
  alreadyParsed: Schema.Boolean
}) {
  override get message() {
    return `The request body could not be read: ${this.reason}`
  }
}

/**
 * The signed body is not an event: not UTF-8, not JSON, or a known
 * `eventType` whose payload does not match its schema (answered 400).
 *
 * @example
 * ```ts
 * import type { MalformedEvent } from "@connected-vehicle/webhooks/ReceiverError"
 *
 * const explain = (e: MalformedEvent) => e.description
 * ```
 * @category errors
 * @since 0.1.0
 */
export class MalformedEvent extends Schema.TaggedError<MalformedEvent>()("MalformedEvent", {
  description: Schema.String
}) {
  override get message() {
    return `The request body is not a webhook event: ${this.description}`
  }
}

/**
 * Another delivery of the same `eventId` is being handled (answered 409: the
 * service retries later, and the retry is a duplicate if that handling
 * succeeded).
 *
 * @example
 * ```ts
 * import type { EventInFlight } from "@connected-vehicle/webhooks/ReceiverError"
 *
 * const explain = (e: EventInFlight) => e.eventId
 * ```
 * @category errors
 * @since 0.1.0
 */
export class EventInFlight extends Schema.TaggedError<EventInFlight>()("EventInFlight", {
  eventId: Schema.String
}) {
  override get message() {
    return `Event ${this.eventId} is being handled by another delivery`
  }
}

/**
 * The application's handler failed, died or was interrupted (answered 500,
 * so the service retries). The handler's error is logged, not answered.
 *
 * @example
 * ```ts
 * import type { HandlerFailed } from "@connected-vehicle/webhooks/ReceiverError"
 *
 * const explain = (e: HandlerFailed) => `${e.eventType} ${e.eventId}`
 * ```
 * @category errors
 * @since 0.1.0
 */
export class HandlerFailed extends Schema.TaggedError<HandlerFailed>()("HandlerFailed", {
  eventId: Schema.String,
  eventType: Schema.String
}) {
  override get message() {
    return `The handler of event ${this.eventId} (${this.eventType}) failed`
  }
}

/**
 * Every reason a delivery is not acknowledged.
 *
 * @example
 * ```ts
 * import { type ReceiverError, statusOf } from "@connected-vehicle/webhooks/ReceiverError"
 *
 * const status = (error: ReceiverError): number => statusOf(error)
 * ```
 * @category models
 * @since 0.1.0
 */
export type ReceiverError =
  | MethodNotAllowed
  | BodyTooLarge
  | UnreadableBody
  | SignatureError
  | MalformedEvent
  | EventInFlight
  | HandlerFailed
  | SeenEventsError

/**
 * The HTTP status a receiver answers an error with: 405, 413, 400, 401, 400,
 * 409, 500 and 503 (the seen-events store failed) respectively; 500 for
 * `InvalidArgument` (the secret) and `UnsupportedBody` (which a receiver built by `make`
 * never meets: it refuses an empty secret at construction and reads bytes).
 *
 * @example
 * ```ts
 * import { BodyTooLarge, statusOf } from "@connected-vehicle/webhooks/ReceiverError"
 *
 * statusOf(new BodyTooLarge({ limit: 65536 })) // 413
 * ```
 * @category utils
 * @since 0.1.0
 */
export const statusOf = (error: ReceiverError): number => {
  switch (error._tag) {
    case "MethodNotAllowed":
      return 405
    case "BodyTooLarge":
      return 413
    case "UnreadableBody":
      return error.alreadyParsed ? 500 : 400
    case "MissingSignature":
    case "MalformedSignature":
    case "InvalidSignature":
      return 401
    case "InvalidArgument":
    case "UnsupportedBody":
      // the receiver's own configuration or input, not the sender's (make refuses an empty secret)
      return 500
    case "MalformedEvent":
      return 400
    case "EventInFlight":
      return 409
    case "HandlerFailed":
      return 500
    case "SeenEventsError":
      return 503
  }
}

/**
 * Receive the service's webhook deliveries: signature verification over the
 * raw body, the `VERIFY` handshake, typed events, idempotency by `eventId`,
 * and adapters for `effect/http`, Node and the Fetch API.
 *
 * @example
 * ```ts
 * import { NodeAdapter } from "@connected-vehicle/webhooks"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as NodeAdapter from "./NodeAdapter.ts"
/**
 * @example
 * ```ts
 * import { Receiver } from "@connected-vehicle/webhooks"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Receiver from "./Receiver.ts"
/**
 * @example
 * ```ts
 * import { ReceiverError } from "@connected-vehicle/webhooks"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as ReceiverError from "./ReceiverError.ts"
/**
 * @example
 * ```ts
 * import { SeenEvents } from "@connected-vehicle/webhooks"
 * ```
 * @category services
 * @since 0.1.0
 */
export * as SeenEvents from "./SeenEvents.ts"
/**
 * @example
 * ```ts
 * import { Signature } from "@connected-vehicle/webhooks"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Signature from "./Signature.ts"
/**
 * @example
 * ```ts
 * import { WebAdapter } from "@connected-vehicle/webhooks"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as WebAdapter from "./WebAdapter.ts"

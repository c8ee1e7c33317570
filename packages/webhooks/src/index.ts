/**
 * Receive the service's webhook deliveries: signature verification over the
 * raw body, the `VERIFY` handshake, typed events, idempotency by `eventId`,
 * and adapters for `effect/http`, Node and the Fetch API.
 *
 * @since 0.1.0
 */
export * as NodeAdapter from "./NodeAdapter.ts"
export * as Receiver from "./Receiver.ts"
export * as ReceiverError from "./ReceiverError.ts"
export * as SeenEvents from "./SeenEvents.ts"
export * as Signature from "./Signature.ts"
export * as WebAdapter from "./WebAdapter.ts"

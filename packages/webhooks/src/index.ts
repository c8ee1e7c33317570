/**
 * Receive the service's webhook deliveries: signature verification over the
 * raw body, the `VERIFY` handshake, typed events, idempotency by `eventId`,
 * and adapters for `effect/http`, Node and the Fetch API.
 *
 * @since 0.1.0
 */
/**
 * The receiver as a plain Node `(req, res)` request handler, for
 * `http.createServer`, express, fastify (through `request.raw` and
 * `reply.raw`) or any framework that exposes Node's request and response.
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
 * The webhook receiver: reads a delivery's raw body once (within a size
 * limit), verifies its `SC-Signature` before parsing anything, answers
 * `VERIFY` by itself, and hands every other event to the application's
 * handler once per `eventId`; a 2xx only after the handler succeeded, so a
 * failed handler means the service delivers again.
 *
 * @example
 * ```ts
 * import { Receiver } from "@connected-vehicle/webhooks"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Receiver from "./Receiver.ts"
/**
 * Why a receiver did not answer a delivery with a 2xx, one tagged error per
 * reason, each with the status it is answered with. None of them carries the
 * webhook secret, a signature or the request body.
 *
 * @example
 * ```ts
 * import { ReceiverError } from "@connected-vehicle/webhooks"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as ReceiverError from "./ReceiverError.ts"
/**
 * The idempotency store of a receiver: which `eventId`s were handled (the
 * service delivers at least once and keeps `eventId` across retries), and
 * which are being handled right now (so two concurrent deliveries of one
 * event never both run the handler).
 *
 * @example
 * ```ts
 * import { SeenEvents } from "@connected-vehicle/webhooks"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as SeenEvents from "./SeenEvents.ts"
/**
 * Signing of deliveries: the `SC-Signature` header is the lowercase hex
 * HMAC-SHA256 of the raw request body bytes, keyed with the webhook secret
 * (the application's management token). Verification hashes the exact bytes
 * received (never a re-serialised object) and compares in constant time.
 *
 * @example
 * ```ts
 * import { Signature } from "@connected-vehicle/webhooks"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Signature from "./Signature.ts"
/**
 * The receiver as a Web `Request` → `Promise<Response>` handler, for
 * runtimes and frameworks built on the Fetch API (Deno, Bun, Cloudflare
 * Workers, Hono, Next.js route handlers, ...). The body is read from the
 * request once, as bytes, and never past the size limit.
 *
 * @example
 * ```ts
 * import { WebAdapter } from "@connected-vehicle/webhooks"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as WebAdapter from "./WebAdapter.ts"

/**
 * The receiver as a Web `Request` → `Promise<Response>` handler, for
 * runtimes and frameworks built on the Fetch API (Deno, Bun, Cloudflare
 * Workers, Hono, Next.js route handlers, ...). The body is read from the
 * request once, as bytes, and never past the size limit.
 *
 * @since 0.1.0
 */
import { Duration } from "effect"
import type * as Receiver from "./Receiver.ts"
import { rejection } from "./Receiver.ts"
import { MethodNotAllowed } from "./ReceiverError.ts"
import { maxTimerMillis, millis } from "./internal/options.ts"
import { type AdapterOptions, start, tooLarge, unreadable } from "./internal/runtime.ts"

/**
 * How long {@link make} waits for a request's whole body by default: 30
 * seconds, for a body of at most `maxBodySize` (64 KiB by default). A body
 * that has not arrived by then (a sender that stalled, a stream that never
 * ends) is answered 400 `UnreadableBody`, its stream cancelled, rather than
 * held open without end.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { defaultBodyTimeout } from "@connected-vehicle/webhooks/WebAdapter"
 *
 * Duration.toSeconds(defaultBodyTimeout) // 30
 * ```
 * @category constants
 * @since 0.3.0
 */
export const defaultBodyTimeout: Duration.Duration = Duration.seconds(30)

/**
 * Options of {@link make}: the receiver's options, plus `layer` for the
 * handler's services, `seenEvents` for the idempotency store (in memory by
 * default) and `bodyTimeout`, how long the whole body may take to arrive (a
 * positive duration of at most 2^31 - 1 milliseconds, about 24.8 days, the
 * longest timer delay Node keeps; default {@link defaultBodyTimeout}, 30
 * seconds).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Options } from "@connected-vehicle/webhooks/WebAdapter"
 *
 * const options: Options<never, never, never> = { secret: "management-token", handler: () => Effect.void, bodyTimeout: "10 seconds" }
 * ```
 * @category models
 * @since 0.1.0
 */
export type Options<E, R, LE> = AdapterOptions<E, R, LE> & {
  /** How long the whole body may take to arrive (default 30 seconds, at most 2^31 - 1 ms, about 24.8 days): then 400 `UnreadableBody`. */
  readonly bodyTimeout?: Duration.Input | undefined
}

/**
 * A Fetch API handler; `dispose` releases the layers.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { make } from "@connected-vehicle/webhooks/WebAdapter"
 *
 * const handler = make({ secret: "management-token", handler: () => Effect.void })
 * export default { fetch: (request: Request) => handler(request) }
 * ```
 * @category models
 * @since 0.1.0
 */
export interface WebHandler<R = never> {
  (request: Request): Promise<Response>
  readonly receiver: Receiver.Receiver<R>
  readonly dispose: () => Promise<void>
}

const readBody = async (request: Request, limit: number, timeout: number): Promise<Uint8Array | Receiver.Reply> => {
  if (request.method !== "POST") return rejection(new MethodNotAllowed({ method: request.method }))
  if (Number(request.headers.get("content-length")) > limit) return rejection(tooLarge(limit))
  if (request.body === null) return new Uint8Array(0)
  // a configuration error of the application (500), as a parsed body is for the Node adapter
  if (request.bodyUsed) return rejection(unreadable("the request body was already consumed", true))
  const reader = request.body.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  // the whole body within `timeout`: a stream that stalls is given up on (the Node adapter has its server's timeouts)
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<"expired">((resolve) => {
    timer = setTimeout(() => resolve("expired"), timeout)
  })
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), expired])
      if (next === "expired") {
        reader.cancel().catch(() => undefined)
        return rejection(unreadable(`the body did not arrive within ${Duration.format(Duration.millis(timeout))}`))
      }
      const { done, value } = next
      if (done) break
      size += value.byteLength
      if (size > limit) {
        reader.cancel().catch(() => undefined)
        return rejection(tooLarge(limit))
      }
      chunks.push(value)
    }
  } catch (error) {
    return rejection(unreadable(error instanceof Error ? error.message : String(error)))
  } finally {
    clearTimeout(timer)
  }
  if (chunks.length === 1) return chunks[0]!
  const body = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    body.set(chunk, offset)
    offset += chunk.byteLength
  }
  return body
}

const toResponse = (reply: Receiver.Reply): Response =>
  new Response(reply.body, { status: reply.status, headers: reply.headers })

/**
 * Builds a Fetch API handler running the receiver's Effect through a runtime
 * built from the given layers. `secret` is a string or a `Redacted<string>`,
 * or a non-empty array of them while it is rotated (the current one first);
 * an empty (or unset) one throws an `InvalidArgument` (`field: "secret"`) here, before any delivery,
 * as does a `bodyTimeout` that is not a positive duration of at most 2^31 - 1 milliseconds
 * (about 24.8 days, the longest timer delay Node keeps; `field: "bodyTimeout"`). A body
 * that has not arrived within `bodyTimeout` (default 30 seconds) is answered 400 `UnreadableBody`.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import * as WebAdapter from "@connected-vehicle/webhooks/WebAdapter"
 *
 * const handle = WebAdapter.make({
 *   secret: Redacted.make(process.env.WEBHOOK_SECRET ?? ""), // or the string itself; empty → throws InvalidArgument
 *   handler: (event) => Effect.log(`${event.eventType} ${event.eventId}`)
 * })
 * export default { fetch: handle }
 * ```
 * @category constructors
 * @since 0.1.0
 */
export const make = <E, R = never, LE = never>(options: Options<E, R, LE>): WebHandler<R> => {
  const bodyTimeout = millis("bodyTimeout", options.bodyTimeout, defaultBodyTimeout, maxTimerMillis)
  const running = start(options)
  const limit = running.receiver.maxBodySize
  const handler = async (request: Request): Promise<Response> => {
    try {
      const body = await readBody(request, limit, bodyTimeout)
      return toResponse(
        body instanceof Uint8Array ? await running.run({ body, signature: request.headers.get("sc-signature") }) : body
      )
    } catch (error) {
      // the last resort: a defect is logged and answered 500, never a rejected promise
      return toResponse(running.defect(error))
    }
  }
  return Object.assign(handler, { receiver: running.receiver, dispose: running.dispose })
}

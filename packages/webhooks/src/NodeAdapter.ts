/**
 * The receiver as a plain Node `(req, res)` request handler, for
 * `http.createServer`, express, fastify (through `request.raw` and
 * `reply.raw`) or any framework that exposes Node's request and response.
 *
 * The signature covers the exact bytes of the body, so the handler reads the
 * raw request stream itself: mount it **before** any JSON body parser (for
 * example `app.post("/webhooks", handler)` ahead of `app.use(express.json())`).
 * When a framework has already consumed the stream, it uses `req.rawBody`, or
 * `req.body` when that is a `Buffer` or a string (`express.raw()`,
 * `express.text()`); a body already parsed to an object, or read to its
 * end by something else, is answered 500 (`UnreadableBody`), since its bytes
 * can no longer be verified. A request paused before the handler gets it
 * (`req.pause()`, by a middleware say) is resumed and read.
 *
 * @since 0.1.0
 */
import type * as Receiver from "./Receiver.ts"
import { rejection } from "./Receiver.ts"
import { MethodNotAllowed } from "./ReceiverError.ts"
import { type AdapterOptions, start, tooLarge, unreadable } from "./internal/runtime.ts"

/**
 * Options of {@link make}: the receiver's options, plus the layers its effects
 * need: `layer` for the handler's services (required when the handler needs
 * any) and `seenEvents` for the idempotency store (in memory by default).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Options } from "@connected-vehicle/webhooks/NodeAdapter"
 *
 * const options: Options<never, never, never> = { secret: "management-token", handler: () => Effect.void }
 * ```
 * @category models
 * @since 0.1.0
 */
export type Options<E, R, LE> = AdapterOptions<E, R, LE>

/**
 * What the handler reads of a request: Node's `IncomingMessage` (and
 * express's or fastify's `raw` request built on it) fits. Written out here,
 * not imported from `node:http`, so that the package's type declarations
 * need no `@types/node` (a consumer of the Web adapter may have none).
 *
 * @example
 * ```ts
 * import type { IncomingMessage } from "node:http"
 * import type { NodeRequest } from "@connected-vehicle/webhooks/NodeAdapter"
 *
 * const fits = (req: IncomingMessage): NodeRequest => req
 * ```
 * @category models
 * @since 0.2.0
 */
export interface NodeRequest {
  readonly method?: string | undefined
  readonly headers: { readonly [name: string]: string | ReadonlyArray<string> | undefined }
  readonly readableEnded: boolean
  /** The encoding `req.setEncoding` set, if any (its chunks are strings then). */
  readonly readableEncoding?: string | null | undefined
  /** Whether the request was destroyed (its connection closed): no `close` will come any more. */
  readonly destroyed?: boolean | undefined
  on(event: string, listener: (...args: Array<any>) => void): unknown
  off(event: string, listener: (...args: Array<any>) => void): unknown
  pause(): unknown
  /** Called once the handler listens, so that a request paused before it (`req.pause()`) is read too. */
  resume(): unknown
  /** Whether the stream flows (`false` while a `readable` listener holds it): the handler reads it with `read()` then. */
  readonly readableFlowing?: boolean | null | undefined
  /** Reads a chunk (and emits it as `data`), for a stream that does not flow. */
  read?(): unknown
}

/**
 * What the handler writes to: Node's `ServerResponse` fits.
 *
 * @example
 * ```ts
 * import type { ServerResponse } from "node:http"
 * import type { NodeResponse } from "@connected-vehicle/webhooks/NodeAdapter"
 *
 * const fits = (res: ServerResponse): NodeResponse => res
 * ```
 * @category models
 * @since 0.2.0
 */
export interface NodeResponse {
  readonly headersSent: boolean
  readonly writableEnded: boolean
  writeHead(status: number, headers: Record<string, string | number>): unknown
  end(body: string): unknown
}

/**
 * A Node request handler; `dispose` releases the layers (stop the server
 * first).
 *
 * @example
 * ```ts
 * import { createServer } from "node:http"
 * import { Effect } from "effect"
 * import { make } from "@connected-vehicle/webhooks/NodeAdapter"
 *
 * const handler = make({ secret: "management-token", handler: () => Effect.void })
 * createServer(handler).listen(8080)
 * ```
 * @category models
 * @since 0.1.0
 */
export interface NodeHandler<R = never> {
  (req: NodeRequest, res: NodeResponse, next?: (error?: unknown) => void): void
  readonly receiver: Receiver.Receiver<R>
  readonly dispose: () => Promise<void>
}

type Body = Uint8Array | string

interface WithBody {
  readonly rawBody?: unknown
  readonly body?: unknown
}

const alreadyRead = (req: NodeRequest): Body | undefined => {
  const { body, rawBody } = req as NodeRequest & WithBody
  if (rawBody instanceof Uint8Array || typeof rawBody === "string") return rawBody
  if (body instanceof Uint8Array || typeof body === "string") return body
  return undefined
}

type Guard = <A extends ReadonlyArray<unknown>>(f: (...args: A) => void) => (...args: A) => void

/** The encoding of a request's string chunks (`req.setEncoding`), as `Buffer.from` takes it. */
const encodingOf = (req: NodeRequest): BufferEncoding =>
  typeof req.readableEncoding === "string" && Buffer.isEncoding(req.readableEncoding) ? req.readableEncoding : "utf8"

/** Encodings whose strings do not give the bytes back (`ascii` drops the high bit): the signature cannot be checked. */
const lossy = new Set(["ascii"])

/** The length the request declares, if any. */
const declaredLength = (req: NodeRequest): number | undefined => {
  const header = req.headers["content-length"]
  const length = typeof header === "string" && /^\d+$/.test(header) ? Number(header) : Number.NaN
  return Number.isSafeInteger(length) ? length : undefined
}

const readStream = (req: NodeRequest, limit: number, guarded: Guard): Promise<Body | Receiver.Reply> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    let settled = false
    const onData = guarded((data: Buffer | string) => {
      // a string when something called req.setEncoding: its bytes in that encoding
      const chunk = typeof data === "string" ? Buffer.from(data, encodingOf(req)) : data
      size += chunk.byteLength
      if (size > limit) {
        req.pause()
        settle(rejection(tooLarge(limit)))
      } else {
        chunks.push(chunk)
      }
    })
    const onEnd = guarded(() => {
      const declared = declaredLength(req)
      // fewer bytes than declared: something read part of the body before the handler
      if (declared !== undefined && size < declared) {
        return settle(rejection(unreadable("part of the request body was read before the webhook handler: mount the handler before what reads it", true)))
      }
      settle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    })
    const onError = guarded((error: Error) => settle(rejection(unreadable(error.message))))
    const onClose = guarded(() => settle(rejection(unreadable("the connection closed before the body ended"))))
    // a stream held by a `readable` listener of someone else does not flow: read here
    const onReadable = guarded(() => {
      while (!settled && req.read!() !== null) {
        // each chunk read is emitted as `data`
      }
    })
    const settle = (result: Body | Receiver.Reply) => {
      if (settled) return
      settled = true
      req.off("data", onData)
      req.off("end", onEnd)
      req.off("error", onError)
      req.off("close", onClose)
      req.off("readable", onReadable)
      resolve(result)
    }
    req.on("data", onData)
    req.on("end", onEnd)
    req.on("error", onError)
    req.on("close", onClose)
    // a "data" listener alone leaves a request paused (req.pause(), by a middleware say) paused
    req.resume()
    if (req.readableFlowing === false && typeof req.read === "function") {
      req.on("readable", onReadable)
      onReadable()
    }
  })

const readBody = (req: NodeRequest, limit: number, guarded: Guard): Promise<Body | Receiver.Reply> | Body | Receiver.Reply => {
  if (req.method !== "POST") return rejection(new MethodNotAllowed({ method: req.method ?? "" }))
  const read = alreadyRead(req)
  if (read !== undefined) return read
  if (req.readableEnded) {
    const { body } = req as NodeRequest & WithBody
    return rejection(
      typeof body === "object" && body !== null
        ? unreadable(
          "a body parser consumed the request before the webhook handler: mount the handler before it, or keep the raw bytes in req.rawBody",
          true
        )
        // read to its end by someone else: the application's wiring, as for a parsed body
        : unreadable("the request body was already consumed before the webhook handler: mount the handler before what reads it", true)
    )
  }
  if (Number(req.headers["content-length"]) > limit) return rejection(tooLarge(limit))
  if (lossy.has(encodingOf(req))) {
    return rejection(unreadable(`the request was set to the ${encodingOf(req)} encoding before the webhook handler, which loses bytes of the body: do not call req.setEncoding before it`, true))
  }
  if (req.destroyed === true) return rejection(unreadable("the connection closed before the body ended"))
  return readStream(req, limit, guarded)
}

const isReply = (value: Body | Receiver.Reply): value is Receiver.Reply =>
  typeof value === "object" && !(value instanceof Uint8Array)

const write = (res: NodeResponse, reply: Receiver.Reply): void => {
  if (res.headersSent || res.writableEnded) return
  const close = reply.error?._tag === "BodyTooLarge" || reply.error?._tag === "UnreadableBody"
  res.writeHead(reply.status, {
    ...reply.headers,
    "content-length": Buffer.byteLength(reply.body),
    ...(close ? { connection: "close" } : {})
  })
  res.end(reply.body)
}

/**
 * Builds a Node request handler running the receiver's Effect through a
 * runtime built from the given layers. `secret` is a string or a
 * `Redacted<string>`, or a non-empty array of them while it is rotated (the
 * current one first); an empty (or unset) one throws an `InvalidArgument` (`field: "secret"`) here,
 * before any delivery.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http"
 * import { Effect, Redacted } from "effect"
 * import * as NodeAdapter from "@connected-vehicle/webhooks/NodeAdapter"
 *
 * const handler = NodeAdapter.make({
 *   secret: Redacted.make(process.env.WEBHOOK_SECRET ?? ""), // or the string itself; empty → throws InvalidArgument
 *   handler: (event) => Effect.log(`${event.eventType} ${event.eventId}`)
 * })
 * createServer(handler).listen(3000)
 * ```
 * @category constructors
 * @since 0.1.0
 */
export const make = <E, R = never, LE = never>(options: Options<E, R, LE>): NodeHandler<R> => {
  const running = start(options)
  const limit = running.receiver.maxBodySize
  const handler = (req: NodeRequest, res: NodeResponse): void => {
    let failed = false
    const fail = (error: unknown): void => {
      if (failed) return
      failed = true
      try {
        write(res, running.defect(error))
      } catch {
        // the response cannot be written either: the connection is left to the server
      }
    }
    // the last resort: nothing thrown here may escape into a Node listener (an uncaught exception)
    const guarded: Guard = (f) => (...args) => {
      if (failed) return
      try {
        f(...args)
      } catch (error) {
        fail(error)
      }
    }
    const answer = guarded((body: Body | Receiver.Reply) => {
      if (isReply(body)) return write(res, body)
      const header = req.headers["sc-signature"]
      running.run({ body, signature: Array.isArray(header) ? header[0] : header }).then(guarded((reply) => write(res, reply)))
    })
    guarded(() => {
      const body = readBody(req, limit, guarded)
      if (body instanceof Promise) body.then(answer, fail)
      else answer(body)
    })()
  }
  return Object.assign(handler, { receiver: running.receiver, dispose: running.dispose })
}

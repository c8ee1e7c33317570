/**
 * The webhook receiver: reads a delivery's raw body once (within a size
 * limit), verifies its `SC-Signature` before parsing anything, answers
 * `VERIFY` by itself, and hands every other event to the application's
 * handler once per `eventId`; a 2xx only after the handler succeeded, so a
 * failed handler means the service delivers again.
 *
 * | outcome                                   | status |
 * | ----------------------------------------- | ------ |
 * | `VERIFY` answered                         | 200 `{"challenge": "<hex>"}` |
 * | event handled / duplicate of a handled one| 200 `{"status": "handled" \| "duplicate"}` |
 * | not a POST                                | 405 |
 * | body over the limit                       | 413 |
 * | missing, malformed or wrong signature     | 401 |
 * | body not an event (after a valid signature)| 400 |
 * | same `eventId` being handled right now    | 409 |
 * | handler failed, died or was interrupted   | 500 |
 * | seen-events store failed                  | 503 |
 *
 * Every error answer is `{"error": {"_tag", "message"}}`.
 *
 * @since 0.1.0
 */
import type { DeliveredEvent, VerifyEvent, WebhookEvent as WebhookEventType } from "@connected-vehicle/schema/WebhookEvent"
import type { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { parse } from "@connected-vehicle/schema/Json"
import { WebhookEvent } from "@connected-vehicle/schema/WebhookEvent"
import { Context, Effect, Layer, type Redacted, Result, Schema, type Scope, Stream } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import {
  BodyTooLarge,
  MalformedEvent,
  MethodNotAllowed,
  type ReceiverError,
  statusOf,
  UnreadableBody
} from "./ReceiverError.ts"
import type { SeenEvents } from "./SeenEvents.ts"
import { challengeResponse, isValid, makeSecrets, type Secrets, SignatureHeader, verifyResult } from "./Signature.ts"
import { handle } from "./internal/handle.ts"
import { byteCount, invalidByteCount, isByteCount } from "./internal/options.ts"

/**
 * The longest `eventId` a receiver accepts: 256 characters (the service's
 * ids are UUIDs). A longer one is a `MalformedEvent` (400), so that the
 * idempotency store (100,000 ids in memory by default, or a shared store's
 * keys) is never filled with ids as long as a whole delivery.
 *
 * @example
 * ```ts
 * import { maxEventIdLength } from "@connected-vehicle/webhooks/Receiver"
 *
 * const acceptable = (eventId: string): boolean => eventId !== "" && eventId.length <= maxEventIdLength
 * ```
 * @category constants
 * @since 0.2.0
 */
export const maxEventIdLength = 256

/** Whether `id` holds a NUL, or a surrogate that is not half of a pair. */
const unstorable = (id: string): boolean => id.includes("\u0000") || !id.isWellFormed()

/**
 * The default body limit: 64 KiB (the service sends at most 50 KB).
 *
 * @example
 * ```ts
 * import { defaultMaxBodySize } from "@connected-vehicle/webhooks/Receiver"
 *
 * const tooLarge = (bytes: number): boolean => bytes > defaultMaxBodySize
 * ```
 * @category constants
 * @since 0.1.0
 */
export const defaultMaxBodySize = 64 * 1024

/**
 * What a receiver needs.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Options } from "@connected-vehicle/webhooks/Receiver"
 *
 * const options: Options<never, never> = {
 *   secret: "management-token",
 *   handler: (event) => Effect.log(event.eventType)
 * }
 * ```
 * @category models
 * @since 0.1.0
 */
export interface Options<E, R> {
  /**
   * The webhook secret: the application's management token, which keys the
   * signatures. A string (wrapped in `Redacted` at once) or a
   * `Redacted<string>`, or, while it is rotated, a non-empty array of them,
   * the current one first (`[next, previous]`): a delivery signed with any
   * of them is verified, a `VERIFY` is answered with the one that signed it. An empty
   * one (or array) makes `make` throw an `InvalidArgument` (`field: "secret"`).
   */
  readonly secret: Secrets
  /**
   * Runs for each verified event but `VERIFY` (`VEHICLE_STATE`, `VEHICLE_ERROR`
   * and kinds this SDK does not know, as `UnknownEvent`), once per `eventId`
   * unless it fails. Its failure, defect or interruption answers 500 so the service retries.
   */
  readonly handler: (event: DeliveredEvent) => Effect.Effect<unknown, E, R>
  /**
   * Largest body accepted, in bytes (default {@link defaultMaxBodySize}): a
   * positive whole number. Anything else (`NaN`, `Infinity`, a fraction, a
   * string from the environment) makes `make` throw an `InvalidArgument`
   * (`field: "maxBodySize"`).
   */
  readonly maxBodySize?: number | undefined
}

/**
 * A delivery whose body was read: the raw bytes (or their text) and the
 * `SC-Signature` header.
 *
 * @example
 * ```ts
 * import type { Delivery } from "@connected-vehicle/webhooks/Receiver"
 *
 * const delivery: Delivery = { body: "{\"eventId\":\"evt_1\"}", signature: "<hex>" }
 * ```
 * @category models
 * @since 0.1.0
 */
export interface Delivery {
  readonly body: Uint8Array | string
  readonly signature: string | null | undefined
}

/**
 * The answer to a delivery: status, headers and JSON body text, plus what
 * happened (`error` for a non-2xx answer).
 *
 * @example
 * ```ts
 * import type { Reply } from "@connected-vehicle/webhooks/Receiver"
 *
 * const handled = (reply: Reply): boolean => reply.outcome === "handled" || reply.outcome === "duplicate"
 * ```
 * @category models
 * @since 0.1.0
 */
export interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly outcome: "challenge" | "handled" | "duplicate" | "rejected"
  readonly event?: WebhookEventType | undefined
  readonly error?: ReceiverError | undefined
}

/**
 * A receiver: {@link Receiver.receive} for a delivery whose body was read,
 * {@link Receiver.httpEffect} for `effect/http` servers and routers.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { make } from "@connected-vehicle/webhooks/Receiver"
 *
 * const receiver = make({ secret: "management-token", handler: () => Effect.void })
 * const reply = receiver.receive({ body: "{}", signature: undefined }) // 401: no signature
 * ```
 * @category models
 * @since 0.1.0
 */
export interface Receiver<R> {
  readonly maxBodySize: number
  /**
   * Verifies, decodes and handles one delivery; never fails. The handler runs
   * in a fiber of the {@link HandlerScope}, which outlives a delivery whose
   * sender went away (`effect/http`'s client abort).
   */
  readonly receive: (delivery: Delivery) => Effect.Effect<Reply, never, R | SeenEvents | HandlerScope>
  /** The HTTP application: reads the request's body and answers it. */
  readonly httpEffect: Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    never,
    HttpServerRequest.HttpServerRequest | R | SeenEvents | HandlerScope
  >
}

/**
 * The scope a receiver runs its handlers in. Each event's claim, handler and
 * completion (or release) run in a fiber forked into this scope and joined
 * by the delivery. A sender that disconnects (stops waiting for the answer,
 * as the simulator does after 15 seconds) does not interrupt the handler,
 * whose event the retry then finds handled (`duplicate`) or in flight (409),
 * as with the Node and Web adapters; any other interruption of the delivery
 * (the server shutting down, a timeout around `receive`) interrupts it.
 * Closing the scope interrupts the handlers still running; an interrupted
 * handler's mark is released (within 10 seconds), so that the retry runs it
 * again. A fiber leaves the scope as it ends. {@link layerHandlerScope}
 * provides one that closes with its layer; the adapters have their own,
 * closed by `dispose`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Receiver from "@connected-vehicle/webhooks/Receiver"
 * import { SeenEvents } from "@connected-vehicle/webhooks"
 *
 * const receiver = Receiver.make({ secret: "management-token", handler: () => Effect.void })
 * // the handlers run in the scope of this program: closed (interrupting them) as it ends
 * const program = Effect.gen(function*() {
 *   const scope = yield* Effect.scope
 *   return yield* receiver.receive({ body: "{}", signature: undefined }).pipe(
 *     Effect.provideService(Receiver.HandlerScope, scope),
 *     Effect.provide(SeenEvents.layerMemory())
 *   )
 * }).pipe(Effect.scoped)
 * ```
 * @category services
 * @since 0.2.0
 */
export class HandlerScope extends Context.Service<HandlerScope, Scope.Scope>()(
  "@connected-vehicle/webhooks/Receiver/HandlerScope"
) {}

/**
 * The {@link HandlerScope} of a layer: the layer's own scope, so releasing
 * the layer (the application shutting down) interrupts the handlers still
 * running and releases their events' marks.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as Receiver from "@connected-vehicle/webhooks/Receiver"
 * import { SeenEvents } from "@connected-vehicle/webhooks"
 *
 * const ReceiverLive = Layer.merge(Receiver.layerHandlerScope, SeenEvents.layerMemory())
 * ```
 * @category layers
 * @since 0.2.0
 */
export const layerHandlerScope: Layer.Layer<HandlerScope> = Layer.effect(HandlerScope, Effect.scope)

const jsonHeaders = { "content-type": "application/json" } as const

const reject = (error: ReceiverError): Reply => ({
  status: statusOf(error),
  headers: error._tag === "MethodNotAllowed" ? { ...jsonHeaders, allow: "POST" } : jsonHeaders,
  body: JSON.stringify({ error: { _tag: error._tag, message: error.message } }),
  outcome: "rejected",
  error
})

/**
 * The answer to a rejected delivery (what {@link Receiver.receive} answers
 * for that error); adapters use it for errors met while reading the body.
 *
 * @example
 * ```ts
 * import { BodyTooLarge } from "@connected-vehicle/webhooks/ReceiverError"
 * import { rejection } from "@connected-vehicle/webhooks/Receiver"
 *
 * const reply = rejection(new BodyTooLarge({ limit: 65536 })) // status 413
 * ```
 * @category constructors
 * @since 0.1.0
 */
export const rejection: (error: ReceiverError) => Reply = reject

const utf8 = new TextDecoder("utf-8", { fatal: true })
const decodeEvent = Schema.decodeUnknownResult(WebhookEvent)

/**
 * Decodes a (verified) body to a webhook event: UTF-8, JSON, then the schema.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { decodeBody } from "@connected-vehicle/webhooks/Receiver"
 *
 * const result = decodeBody("{\"eventId\":\"evt_1\",\"eventType\":\"NEW_KIND\"}")
 * if (Result.isSuccess(result)) console.log(result.success.eventType) // "UNKNOWN"
 * ```
 * @category decoding
 * @since 0.1.0
 */
export const decodeBody = (body: Uint8Array | string): Result.Result<WebhookEventType, MalformedEvent> => {
  let text: string
  try {
    text = typeof body === "string" ? body : utf8.decode(body)
  } catch {
    return Result.fail(new MalformedEvent({ description: "the body is not UTF-8 text" }))
  }
  let json: unknown
  try {
    json = parse(text)
  } catch (error) {
    return Result.fail(new MalformedEvent({ description: `the body is not JSON (${(error as Error).message})` }))
  }
  const result = decodeEvent(json)
  return Result.isSuccess(result)
    ? Result.succeed(result.success)
    : Result.fail(new MalformedEvent({ description: result.failure.message }))
}

const byteLength = (body: Uint8Array | string): number =>
  typeof body === "string" ? Buffer.byteLength(body, "utf8") : body.byteLength

/**
 * Reads a body stream into one buffer, failing with `BodyTooLarge` as soon as
 * it passes `limit` bytes (the rest is not read). A `limit` that is not a
 * positive whole number is an `InvalidArgument` (`field: "limit"`), nothing read.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { readLimited } from "@connected-vehicle/webhooks/Receiver"
 *
 * const body = readLimited(Stream.make(new Uint8Array([123, 125])), 65536)
 * ```
 * @category utils
 * @since 0.1.0
 */
export const readLimited = <E>(
  stream: Stream.Stream<Uint8Array, E>,
  limit: number
): Effect.Effect<Uint8Array, BodyTooLarge | UnreadableBody | InvalidArgument> =>
  Effect.suspend((): Effect.Effect<Uint8Array, BodyTooLarge | UnreadableBody | InvalidArgument> => {
    if (!isByteCount(limit)) return Effect.fail(invalidByteCount("limit", limit))
    const chunks: Array<Uint8Array> = []
    let size = 0
    return stream.pipe(
      Stream.runForEach((chunk) => {
        size += chunk.byteLength
        if (size > limit) return Effect.fail(new BodyTooLarge({ limit }))
        chunks.push(chunk)
        return Effect.void
      }),
      Effect.mapError((error) =>
        error instanceof BodyTooLarge
          ? error
          : new UnreadableBody({ reason: error instanceof Error ? error.message : String(error), alreadyParsed: false })
      ),
      Effect.map(() => chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size))
    )
  })

/**
 * The secret a verified delivery was signed with: the first of the secrets
 * whose signature it carries (every one checked: only a sender that holds a
 * valid signature learns which), so that a `VERIFY` signed with the previous
 * secret during a rotation is answered with it (the service still holds it).
 */
const signedWith = (delivery: Delivery, secrets: ReturnType<typeof makeSecrets>) => {
  const valid = secrets.map((secret) => isValid(delivery.body, delivery.signature, secret))
  return secrets[Math.max(0, valid.indexOf(true))]!
}

/**
 * Builds a receiver. Its effects need the `SeenEvents` store (for example
 * `SeenEvents.layerMemory()`), a {@link HandlerScope} (for example
 * {@link layerHandlerScope}) and whatever the handler needs. Throws
 * `InvalidArgument` (`field: "secret"`) when the secret is empty or not a
 * string (or an array of secrets is empty or holds such a one), and (`field: "maxBodySize"`) when `maxBodySize` is given but is not
 * a positive whole number, so a misconfigured receiver fails at start-up
 * rather than answering every delivery with an error.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import * as Receiver from "@connected-vehicle/webhooks/Receiver"
 *
 * const receiver = Receiver.make({
 *   secret: Redacted.make(process.env.WEBHOOK_SECRET ?? ""),
 *   handler: (event) => Effect.log(`${event.eventType} ${event.eventId}`)
 * })
 * // while the secret is rotated: the new one first, the old one still accepted
 * const rotating = Receiver.make({ secret: ["new-management-token", "management-token"], handler: () => Effect.void })
 * ```
 * @category constructors
 * @since 0.1.0
 */
export const make = <E, R>(options: Options<E, R>): Receiver<R> => {
  const secrets = makeSecrets(options.secret)
  const maxBodySize = byteCount("maxBodySize", options.maxBodySize, defaultMaxBodySize)
  const { handler } = options

  const receive = (delivery: Delivery): Effect.Effect<Reply, never, R | SeenEvents | HandlerScope> =>
    Effect.suspend((): Effect.Effect<Reply, ReceiverError, R | SeenEvents | HandlerScope> => {
      if (byteLength(delivery.body) > maxBodySize) {
        return Effect.fail(new BodyTooLarge({ limit: maxBodySize }))
      }
      const verified = verifyResult(delivery.body, delivery.signature, secrets)
      if (Result.isFailure(verified)) return Effect.fail(verified.failure)
      const decoded = decodeBody(delivery.body)
      if (Result.isFailure(decoded)) return Effect.fail(decoded.failure)
      const event = decoded.success
      if (event.eventType === "VERIFY") return Effect.succeed(challenge(event, signedWith(delivery, secrets)))
      // the idempotency key: with an empty one, every later event would be taken for a duplicate and dropped
      if (event.eventId === "") return Effect.fail(new MalformedEvent({ description: "the eventId is empty" }))
      // the idempotency key is kept (in memory, or in a shared store) for a day: bounded
      if (event.eventId.length > maxEventIdLength) {
        return Effect.fail(new MalformedEvent({ description: `the eventId is longer than ${maxEventIdLength} characters` }))
      }
      // kept as text: Postgres refuses a NUL, and UTF-8 has no lone surrogate (two such ids would be kept as one)
      if (unstorable(event.eventId)) {
        return Effect.fail(new MalformedEvent({ description: "the eventId holds a NUL character or a lone surrogate, which no text store keeps" }))
      }
      return HandlerScope.use((scope) => handle(handler, event, scope))
    }).pipe(
      Effect.catch((error) =>
        Effect.as(
          Effect.logWarning(`webhook delivery rejected: ${error.message}`),
          reject(error)
        )
      )
    )

  const httpEffect = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const reply = yield* readRequest(request, maxBodySize).pipe(
      Effect.flatMap((body) => receive({ body, signature: request.headers[SignatureHeader] })),
      Effect.catch((error) =>
        Effect.as(Effect.logWarning(`webhook delivery rejected: ${error.message}`), reject(error))
      )
    )
    return toHttpResponse(reply)
  })

  return { maxBodySize, receive, httpEffect }
}

/** The answer to a `VERIFY`: the challenge signed with the secret that signed the VERIFY. */
const challenge = (event: VerifyEvent, secret: Redacted.Redacted<string>): Reply => ({
  status: 200,
  headers: jsonHeaders,
  body: JSON.stringify({ challenge: challengeResponse(event.data.challenge, secret) }),
  outcome: "challenge",
  event
})

const readRequest = (
  request: HttpServerRequest.HttpServerRequest,
  maxBodySize: number
): Effect.Effect<Uint8Array, MethodNotAllowed | BodyTooLarge | UnreadableBody | InvalidArgument> => {
  if (request.method !== "POST") return Effect.fail(new MethodNotAllowed({ method: request.method }))
  const declared = Number(request.headers["content-length"])
  if (declared > maxBodySize) return Effect.fail(new BodyTooLarge({ limit: maxBodySize }))
  return readLimited(request.stream, maxBodySize)
}

/**
 * A reply as an `effect/http` response.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Receiver from "@connected-vehicle/webhooks/Receiver"
 *
 * const answer = (receiver: Receiver.Receiver<never>, body: string, signature: string) =>
 *   Effect.map(receiver.receive({ body, signature }), Receiver.toHttpResponse)
 * ```
 * @category conversions
 * @since 0.1.0
 */
export const toHttpResponse = (reply: Reply): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(reply.body, {
    status: reply.status,
    contentType: reply.headers["content-type"] ?? "application/json",
    headers: Object.fromEntries(Object.entries(reply.headers).filter(([name]) => name !== "content-type"))
  })

/**
 * The receiver as an `effect/http` application, to serve
 * (`HttpServer.serve`) or mount on a route of an `HttpRouter` (every method:
 * it answers anything but a `POST` 405 itself). It needs the `SeenEvents`
 * store and a {@link HandlerScope}.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { HttpRouter } from "effect/http"
 * import * as Receiver from "@connected-vehicle/webhooks/Receiver"
 *
 * const Webhooks = HttpRouter.add("*", "/webhooks", Receiver.toHttpEffect({
 *   secret: Redacted.make("management-token"), // or a plain string
 *   handler: (event) => Effect.log(event.eventType)
 * }))
 * ```
 * @category conversions
 * @since 0.1.0
 */
export const toHttpEffect = <E, R>(
  options: Options<E, R>
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  HttpServerRequest.HttpServerRequest | R | SeenEvents | HandlerScope
> => make(options).httpEffect

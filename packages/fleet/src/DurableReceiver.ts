/**
 * The webhook receiver of a fleet: `@connected-vehicle/webhooks`'
 * `Receiver` (the same signature verification, `VERIFY` handshake, body
 * limit and answers) whose handler offers each verified event to the
 * `EventQueue`. It answers 200 once the queue has stored the event (on
 * Postgres: committed), and 500 when it could not, or not within
 * `offerTimeout` (the service retries), so
 * nothing is acknowledged before it is durable. Duplicates are answered 200
 * and stored once, whichever receiver they reach.
 *
 * @since 0.1.0
 */
import { Receiver, SeenEvents } from "@connected-vehicle/webhooks"
import type { Secrets } from "@connected-vehicle/webhooks/Signature"
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { type Duration, Effect, Exit, Fiber, Layer, type Scope } from "effect"
import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import { EventQueue } from "./EventQueue.ts"
import { Configuration, FleetError, QueueUnavailable } from "./FleetError.ts"
import { millis } from "./internal/options.ts"

/**
 * What a receiver needs.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Options } from "@connected-vehicle/fleet/DurableReceiver"
 *
 * const options: Options = { secret: Redacted.make(process.env.WEBHOOK_SECRET ?? ""), maxBodySize: 64 * 1024 }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * The webhook secret (the application's management token): a string or a
   * `Redacted<string>`, or, while it is rotated, a non-empty array of them,
   * the current one first (a delivery signed with any of them is verified,
   * a `VERIFY` is answered with the one that signed it).
   */
  readonly secret: Secrets
  /** Largest body accepted, in bytes (default 64 KiB). */
  readonly maxBodySize?: number | undefined
  /**
   * How long storing an event may take (default 10 seconds): a store that
   * does not answer by then (a stalled Postgres, a partition) is answered
   * 500, and the service delivers again.
   */
  readonly offerTimeout?: Duration.Input | undefined
}

/**
 * A receiver: `receive` for a delivery whose body was read, `httpEffect` for
 * `effect/http` servers and routers.
 *
 * @example
 * ```ts
 * import type { DurableReceiver } from "@connected-vehicle/fleet/DurableReceiver"
 *
 * const limit = (receiver: DurableReceiver) => receiver.maxBodySize
 * ```
 * @since 0.1.0
 * @category models
 */
export interface DurableReceiver {
  readonly maxBodySize: number
  readonly receive: (delivery: Receiver.Delivery) => Effect.Effect<Receiver.Reply>
  readonly httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest>
}

/**
 * Every delivery reaches the handler: the queue, keyed by `eventId`, is what
 * makes a duplicate harmless (and it is shared by every receiver, unlike a
 * store of seen events in one process).
 */
const everyDelivery = SeenEvents.SeenEvents.of({
  claim: () => Effect.succeed("claimed"),
  complete: () => Effect.void,
  release: () => Effect.void
})

/**
 * Offers the event, answering within `timeout` whatever the store does: a
 * store that stalls (Postgres with its connection open and no answer) is
 * not waited for, nor is the interruption of its offer (its client may take
 * seconds to give up), which goes on in the background.
 */
const offerWithin = (queue: EventQueue["Service"], event: DeliveredEvent, timeout: number): Effect.Effect<void, FleetError> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkDetach(queue.offer(event)), (offer) =>
      restore(Fiber.join(offer)).pipe(
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () =>
            Effect.fail(
              new FleetError({
                reason: new QueueUnavailable({ description: `the event queue did not store event ${event.eventId} within ${timeout} ms` })
              })
            )
        }),
        Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : Effect.asVoid(Effect.forkDetach(Fiber.interrupt(offer))))
      ))
  )

/**
 * Builds a receiver on the `EventQueue` in context. An empty or invalid
 * secret (or an empty array of them), or an `offerTimeout` that is not a positive duration, fails with
 * `FleetError` `Configuration`. Each event's offer runs in the scope of
 * `make` (the webhooks `Receiver.HandlerScope`): a sender that disconnects
 * does not interrupt it, and closing that scope interrupts the offers still
 * running.
 *
 * @example
 * ```ts
 * import { Effect, Layer, Redacted } from "effect"
 * import { HttpRouter } from "effect/http"
 * import * as DurableReceiver from "@connected-vehicle/fleet/DurableReceiver"
 *
 * const Webhooks = Layer.unwrap(Effect.map(
 *   DurableReceiver.make({ secret: Redacted.make(process.env.WEBHOOK_SECRET ?? "") }),
 *   (receiver) => HttpRouter.add("*", "/webhooks", receiver.httpEffect)
 * ))
 * // while the secret is rotated: the new one first, the old one still accepted
 * const rotating = DurableReceiver.make({ secret: [Redacted.make("new-token"), Redacted.make("old-token")] })
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<DurableReceiver, FleetError, EventQueue | Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* EventQueue
    const handlers = yield* Effect.scope
    const timeout = yield* millis("offerTimeout", options.offerTimeout, "10 seconds")
    const receiver = yield* Effect.try({
      try: () =>
        Receiver.make({
          secret: options.secret,
          maxBodySize: options.maxBodySize,
          handler: (event) => offerWithin(queue, event, timeout)
        }),
      catch: (cause) =>
        new FleetError({ reason: new Configuration({ description: `the webhook secret: ${(cause as Error).message}`, cause }) })
    })
    const provide = <A, R>(effect: Effect.Effect<A, never, R>) =>
      effect.pipe(
        Effect.provideService(SeenEvents.SeenEvents, everyDelivery),
        Effect.provideService(Receiver.HandlerScope, handlers)
      )
    return {
      maxBodySize: receiver.maxBodySize,
      receive: (delivery) => provide(receiver.receive(delivery)),
      httpEffect: provide(receiver.httpEffect)
    }
  })

/**
 * The receiver as a route of an `effect/http` `HttpRouter` (default path
 * `/webhooks`) for every method: a delivery is a `POST`, anything else is
 * answered 405 with `Allow: POST` by the receiver itself.
 *
 * @example
 * ```ts
 * import { NodeHttpServer } from "@effect/platform-node"
 * import { Layer, Redacted } from "effect"
 * import { HttpRouter } from "effect/http"
 * import { createServer } from "node:http"
 * import * as DurableReceiver from "@connected-vehicle/fleet/DurableReceiver"
 * import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
 *
 * const Server = HttpRouter.serve(DurableReceiver.layerRoute({ secret: Redacted.make(process.env.WEBHOOK_SECRET ?? "") })).pipe(
 *   Layer.provide(Ingestion.layerMemory()),
 *   Layer.provide(NodeHttpServer.layer(createServer, { port: 3000 }))
 * )
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerRoute = (
  options: Options & { readonly path?: `/${string}` | undefined }
): Layer.Layer<never, FleetError, HttpRouter.HttpRouter | EventQueue> =>
  Layer.unwrap(Effect.map(make(options), (receiver) => HttpRouter.add("*", options.path ?? "/webhooks", receiver.httpEffect)))

/**
 * A verified event's way through the `SeenEvents` store and the handler, in
 * a fiber of the receiver's handler scope: it outlives a delivery whose
 * sender disconnects, and is interrupted when that scope closes.
 *
 * @internal
 */
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { Cause, Context, Duration, Effect, Exit, Fiber, type Scope } from "effect"
import { HttpServerError } from "effect/http"
import { randomUUID } from "node:crypto"
import type { Options, Reply } from "../Receiver.ts"
import { EventInFlight, HandlerFailed } from "../ReceiverError.ts"
import { type Claim, SeenEvents, type SeenEventsError } from "../SeenEvents.ts"

const jsonHeaders = { "content-type": "application/json" } as const

const handled = (event: DeliveredEvent, outcome: "handled" | "duplicate"): Reply => ({
  status: 200,
  headers: jsonHeaders,
  body: outcome === "handled" ? "{\"status\":\"handled\"}" : "{\"status\":\"duplicate\"}",
  outcome,
  event
})

/** How long the completion or release of a claim may take. */
const settleTimeout = Duration.seconds(10)

/**
 * The event claimed in the `SeenEvents` store (a duplicate is answered as
 * handled, one in flight elsewhere refused), then given to the handler; the
 * claim is completed on success and released on failure.
 */
const run = <E, R>(handler: Options<E, R>["handler"], event: DeliveredEvent) =>
  Effect.gen(function*() {
    const store = yield* SeenEvents
    // this delivery's claim: a release by a delivery whose mark expired leaves it
    const owner = randomUUID()
    // once the claim is made, only the handler can be interrupted until the
    // claim is completed or released (each within `settleTimeout`: a store
    // that hangs does not hold an interruption forever); the claim itself
    // stays interruptible (a store that hangs)
    const settle = (effect: Effect.Effect<void, SeenEventsError>) =>
      effect.pipe(
        Effect.timeoutOrElse({ duration: settleTimeout, orElse: () => Effect.logWarning("the seen-events store did not answer in time") }),
        Effect.catch((error) => Effect.logWarning(error.message))
      )
    const settled = (claim: Claim, restore: <A, E2, R2>(effect: Effect.Effect<A, E2, R2>) => Effect.Effect<A, E2, R2>) => {
      if (claim === "duplicate") return Effect.as(Effect.logDebug("webhook event already handled"), handled(event, "duplicate"))
      if (claim === "in-flight") return Effect.fail(new EventInFlight({ eventId: event.eventId }))
      return restore(Effect.suspend(() => handler(event))).pipe(
        Effect.onExit((exit) => settle(Exit.isSuccess(exit) ? store.complete(event.eventId, owner) : store.release(event.eventId, owner))),
        // a failure, a defect or an interruption of the handler
        Effect.matchCauseEffect({
          onSuccess: () => Effect.succeed(handled(event, "handled")),
          onFailure: (cause) =>
            Effect.logWarning("webhook handler failed", cause).pipe(
              Effect.andThen(Effect.fail(new HandlerFailed({ eventId: event.eventId, eventType: event.eventType })))
            )
        })
      )
    }
    return yield* Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(
        restore(store.claim(event.eventId, owner)),
        (claim): Effect.Effect<Reply, EventInFlight | HandlerFailed, R> => settled(claim, restore)
      )
    )
  }).pipe(Effect.annotateLogs({ eventId: event.eventId, eventType: event.eventType }))

/** Whether a delivery ended because its sender went away (`effect/http` marks that interruption `ClientAbort`). */
const senderLeft = (exit: Exit.Exit<unknown, unknown>): boolean =>
  Exit.isFailure(exit) && Context.getOrUndefined(Cause.annotations(exit.cause), HttpServerError.ClientAbort) === true

/**
 * Runs {@link run} in a fiber forked into `scope` and joins it. When the
 * delivery is interrupted because its sender went away, that fiber goes on
 * to its end (or to the scope's closing); any other interruption of the
 * delivery (the server shutting down, a timeout of the caller) interrupts it
 * and waits for its mark to be released. The fiber leaves the scope as it
 * ends. Interrupted by the scope closing, it is answered as a handler
 * interrupted (500).
 */
export const handle = <E, R>(
  handler: Options<E, R>["handler"],
  event: DeliveredEvent,
  scope: Scope.Scope
): Effect.Effect<Reply, EventInFlight | HandlerFailed | SeenEventsError, R | SeenEvents> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkIn(run(handler, event), scope), (fiber) =>
      restore(Fiber.join(fiber)).pipe(
        Effect.onExit((exit) => senderLeft(exit) ? Effect.void : Effect.asVoid(Fiber.interrupt(fiber)))
      ))
  ).pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.fail(new HandlerFailed({ eventId: event.eventId, eventType: event.eventType }))
        : Effect.failCause(cause)
    )
  )

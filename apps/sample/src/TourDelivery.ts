/**
 * The tour's last step: the embedded simulator delivers one event to a
 * receiver in the same process (`webhooks listen`'s, from `Listen`), after
 * its `VERIFY` handshake and `FIRST_DELIVERY`, and the delivery as text.
 *
 * @since 0.1.0
 */
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { isFailedSignal } from "@connected-vehicle/schema/WebhookEvent"
import type { Simulator } from "@connected-vehicle/simulator/Simulator"
import { DateTime, Effect } from "effect"
import { line, rowOf, serve } from "./Listen.ts"
import * as Render from "./Render.ts"
import { SampleError } from "./SampleError.ts"
import { render } from "./Table.ts"

/**
 * What the tour shows of a delivery: the webhook, its handshake, and the
 * event received after a trigger signal changed.
 *
 * @example
 * ```ts
 * import type { TourDelivery } from "@connected-vehicle/sample/TourDelivery"
 *
 * const summary = (delivery: TourDelivery) => `${delivery.webhookId}: ${delivery.verification}, ${delivery.attempts} attempt(s)`
 * ```
 * @since 0.1.0
 * @category models
 */
export interface TourDelivery {
  readonly receiverUrl: string
  readonly webhookId: string
  readonly verification: string
  readonly firstDeliveryEventId: string
  readonly change: { readonly code: string; readonly body: Record<string, unknown> }
  readonly event: DeliveredEvent
  readonly attempts: number
}

const TRIGGER = "odometer-traveleddistance"

/** Polls `find` every 20 ms until it gives a value, for at most `seconds`. */
const awaitSome = <A>(what: string, find: Effect.Effect<A | undefined>, seconds = 30) =>
  Effect.gen(function*() {
    for (let i = 0; i < seconds * 50; i++) {
      const found = yield* find
      if (found !== undefined) return found
      yield* Effect.sleep("20 millis")
    }
    return yield* new SampleError({ reason: `No ${what} arrived from the simulator within ${seconds} s` })
  })

const awaitEvent = (what: string, find: () => DeliveredEvent | undefined) => awaitSome(what, Effect.sync(find))

/**
 * The tour's delivery: a receiver on 127.0.0.1:0 in this process, a webhook
 * of the embedded simulator pointing at it (the `VERIFY` handshake), a
 * subscription of the vehicle (`FIRST_DELIVERY`), then a change of its
 * odometer, delivered as a verified `VEHICLE_STATE`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Simulator } from "@connected-vehicle/simulator/Simulator"
 * import * as TourDelivery from "@connected-vehicle/sample/TourDelivery"
 *
 * const program = Effect.flatMap(Effect.service(Simulator), (simulator) => {
 *   const vehicleId = simulator.data.vehicleIds[0]!
 *   return TourDelivery.tourDelivery(simulator, { vehicleId, userId: simulator.data.connectionOf(vehicleId)!.userId, data: [] })
 * })
 * ```
 * @since 0.1.0
 * @category tour
 */
export const tourDelivery = (
  simulator: Simulator["Service"],
  options: { readonly vehicleId: string; readonly userId: string; readonly data: ReadonlyArray<string> }
): Effect.Effect<TourDelivery, SampleError> =>
  Effect.scoped(Effect.gen(function*() {
    const received: Array<DeliveredEvent> = []
    const { url } = yield* serve({
      port: 0,
      secret: simulator.webhookSecret,
      onEvent: (event) => Effect.sync(() => void received.push(event))
    })
    const control = Effect.mapError((error: { readonly message: string }) =>
      new SampleError({ reason: `The simulator refused: ${error.message}` })
    )
    const webhook = yield* control(simulator.createWebhook({
      name: "Sample tour",
      callbackUri: `${url}/webhooks`,
      triggers: [TRIGGER],
      data: [...new Set([TRIGGER, ...options.data])]
    }))
    if (webhook.verification !== "succeeded") {
      return yield* new SampleError({ reason: "The receiver did not pass the simulator's VERIFY handshake" })
    }
    const subscription = yield* control(simulator.subscribe({ webhookId: webhook.id, userId: options.userId, vehicleId: options.vehicleId }))
    const first = yield* awaitEvent("FIRST_DELIVERY", () => received.find((e) => e.eventId === subscription.firstDeliveryEventId))
    const odometer = first.eventType === "VEHICLE_STATE" ? first.data.signals.find((s) => s.code === TRIGGER) : undefined
    const previous = odometer !== undefined && !isFailedSignal(odometer) && typeof odometer.body["value"] === "number"
      ? odometer.body["value"]
      : 0
    const body = { unit: "km", value: Math.round((previous + 12.4) * 10) / 10 }
    const change = yield* control(simulator.setSignal(options.vehicleId, TRIGGER, body))
    const eventId = change.eventIds[0]
    if (eventId === undefined) return yield* new SampleError({ reason: "The signal change sent no event" })
    const event = yield* awaitEvent("VEHICLE_STATE", () => received.find((e) => e.eventId === eventId))
    // the simulator logs an attempt once the receiver's answer is back: a moment after the receiver has the event
    const attempts = yield* awaitSome(
      "delivery log entry",
      Effect.map(simulator.deliveries, (log) => log.filter((d) => d.eventId === eventId).length || undefined)
    )
    return {
      receiverUrl: url,
      webhookId: webhook.id,
      verification: webhook.verification,
      firstDeliveryEventId: first.eventId,
      change: { code: TRIGGER, body },
      event,
      attempts
    }
  }))

/**
 * The tour's delivery as text: the event's row, and its signals.
 *
 * @example
 * ```ts
 * import * as TourDelivery from "@connected-vehicle/sample/TourDelivery"
 *
 * const show = (delivery: TourDelivery.TourDelivery) => console.log(TourDelivery.renderTourDelivery(delivery))
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const renderTourDelivery = (delivery: TourDelivery): string => {
  const { event } = delivery
  const signals = event.eventType === "VEHICLE_STATE" ? event.data.signals : []
  const deliveredAt = event.eventType === "UNKNOWN" ? "-" : DateTime.formatIso(event.meta.deliveredAt)
  return [
    Render.keyValues([
      ["Receiver", `${delivery.receiverUrl}/webhooks (in this process, @connected-vehicle/webhooks)`],
      ["Webhook", `${delivery.webhookId} (VERIFY handshake: ${delivery.verification})`],
      ["First delivery", `${delivery.firstDeliveryEventId} (triggers FIRST_DELIVERY, on subscribing)`],
      ["Signal changed", `${delivery.change.code} -> ${Render.summary(delivery.change.body)}`],
      ["Event received", `${event.eventType} ${event.eventId}, signature verified, ${delivery.attempts} attempt(s)`],
      ["Delivered at", deliveredAt]
    ]),
    "",
    line({ ...rowOf(event, new Date()), receivedAt: "" }).trimStart(),
    "",
    render(signals, [
      { header: "SIGNAL", cell: (s) => s.code },
      { header: "GROUP", cell: (s) => s.group },
      { header: "VALUE", cell: (s) => isFailedSignal(s) ? `ERROR ${s.status.error.type}/${s.status.error.code}` : Render.summary(s.body) }
    ])
  ].join("\n")
}

/**
 * Webhook subscriptions (section 4.3): list with every filter and paging,
 * every subscription as a Stream, one subscription by id.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { Stream } from "effect"
import { ManagementApi } from "@connected-vehicle/schema/Api"
import type { Mode } from "@connected-vehicle/schema/Common"
import type { ServiceError } from "@connected-vehicle/schema/ServiceError"
import type { Subscription, SubscriptionResponse, SubscriptionsPage } from "@connected-vehicle/schema/Subscription"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { TransportError } from "@connected-vehicle/transport/TransportError"
import type { InvalidArgument } from "./InvalidArgument.ts"
import type { PageArgs } from "./internal/paged.ts"
import { paged } from "./internal/paged.ts"
import { compact } from "./internal/validate.ts"

/**
 * Filters of the subscription list (sent as `filter[userId]`,
 * `filter[webhookId]`, `filter[vehicleId]`, `filter[mode]`).
 *
 * @since 0.1.0
 */
export interface Filters {
  readonly userId?: string | undefined
  readonly webhookId?: string | undefined
  readonly vehicleId?: string | undefined
  readonly mode?: Mode | undefined
}

/**
 * The subscriptions service.
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Subscriptions } from "@connected-vehicle/v3/Subscriptions"
 *
 * const program = Effect.gen(function*() {
 *   const subscriptions = yield* Subscriptions
 *   const page = yield* subscriptions.list({ webhookId: "wh_1", page: 2, pageSize: 50 })
 *   const all = yield* Stream.runCollect(subscriptions.stream({ mode: "simulated" }))
 *   return [page.data.length, all.length]
 * })
 * ```
 * @since 0.1.0
 */
export class Subscriptions extends Context.Service<Subscriptions, {
  readonly list: (
    args?: Filters & PageArgs
  ) => Effect.Effect<SubscriptionsPage, InvalidArgument | ServiceError | TransportError>
  readonly stream: (
    args?: Filters & { readonly pageSize?: number | undefined }
  ) => Stream.Stream<Subscription, InvalidArgument | ServiceError | TransportError>
  readonly get: (subscriptionId: string) => Effect.Effect<SubscriptionResponse, ServiceError | TransportError>
}>()("@connected-vehicle/v3/Subscriptions") {}

/**
 * Builds the service from the transport and the credential.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Subscriptions, make } from "@connected-vehicle/v3/Subscriptions"
 *
 * const SubscriptionsLive = Layer.effect(Subscriptions, make)
 * ```
 * @since 0.1.0
 */
export const make: Effect.Effect<Subscriptions["Service"], never, Transport.Transport | Credentials> = Effect.gen(
  function*() {
    const client = yield* Transport.client(ManagementApi, "subscriptions")
    const { list, stream } = paged((args: Filters & PageArgs) =>
      client.list({
        query: compact({
          "filter[userId]": args.userId,
          "filter[webhookId]": args.webhookId,
          "filter[vehicleId]": args.vehicleId,
          "filter[mode]": args.mode,
          page: args.page,
          pageSize: args.pageSize
        })
      })
    )
    return Subscriptions.of({
      list: (args = {}) => list(args),
      stream: (args = {}) => stream(args),
      get: (subscriptionId) => Effect.map(client.get({ params: { subscriptionId } }), (r) => r.value)
    })
  }
)

/**
 * The service on the transport and the credential.
 *
 * @example
 * ```ts
 * import * as Subscriptions from "@connected-vehicle/v3/Subscriptions"
 *
 * const SubscriptionsLive = Subscriptions.layer
 * ```
 * @since 0.1.0
 */
export const layer: Layer.Layer<Subscriptions, never, Transport.Transport | Credentials> = Layer.effect(
  Subscriptions,
  make
)

/**
 * Webhook subscriptions (section 4.3): list with every filter and paging,
 * every subscription as a Stream, one subscription by id.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { Stream } from "effect"
import { SubscriptionsQuery, ManagementApi } from "@connected-vehicle/schema/Api"
import type { Subscription, SubscriptionResponse, SubscriptionsPage } from "@connected-vehicle/schema/Subscription"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import type * as Pagination from "@connected-vehicle/transport/Pagination"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { paged } from "./internal/paged.ts"
import type { ArgsOf } from "./internal/args.ts"
import { identifier, toQuery } from "./internal/args.ts"

/**
 * Arguments of `list`, `pages` and `stream`, derived from the contract's
 * `SubscriptionsQuery`: each `filter[x]` is the argument `x`; `page` (>= 1) and `pageSize`
 * (1..100). Every field is optional.
 *
 * @example
 * ```ts
 * import type { ListArgs } from "@connected-vehicle/v3/Subscriptions"
 *
 * const args: ListArgs = { pageSize: 50 }
 * ```
 * @since 0.1.0
 * @category models
 */
export type ListArgs = ArgsOf<typeof SubscriptionsQuery.Type>

/**
 * Filters of the subscription list (sent as `filter[userId]`,
 * `filter[webhookId]`, `filter[vehicleId]`, `filter[mode]`).
 *
 * @example
 * ```ts
 * import type { Filters } from "@connected-vehicle/v3/Subscriptions"
 *
 * const filters: Filters = { userId: "x" }
 * ```
 * @since 0.1.0
 * @category models
 */
export type Filters = Omit<ListArgs, "page" | "pageSize">

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
 * @category services
 */
export class Subscriptions extends Context.Service<Subscriptions, {
  readonly list: (
    args?: ListArgs,
    options?: Transport.CallOptions
  ) => Effect.Effect<SubscriptionsPage, InvalidArgument | ConnectedVehicleError>
  /** Every page from `page` (default 1), `pageSize` (default 100) items each, fetched on demand. */
  readonly pages: (
    args?: ListArgs,
    options?: Transport.CallOptions
  ) => Stream.Stream<SubscriptionsPage, InvalidArgument | ConnectedVehicleError>
  /** Every item, one chunk per page; each page requested when the consumer needs it (`readAhead: 1`: the next page is requested as the current one is handed on). */
  readonly stream: (
    args?: ListArgs,
    options?: Pagination.StreamOptions
  ) => Stream.Stream<Subscription, InvalidArgument | ConnectedVehicleError>
  readonly get: (
    subscriptionId: string,
    options?: Transport.CallOptions
  ) => Effect.Effect<SubscriptionResponse, InvalidArgument | ConnectedVehicleError>
}>()("@connected-vehicle/v3/Subscriptions") {}

const checkArgs = toQuery(SubscriptionsQuery)

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
 * @category constructors
 */
export const make: Effect.Effect<Subscriptions["Service"], never, Transport.Transport | Credentials> = Effect.gen(
  function*() {
    const client = yield* Transport.client(ManagementApi, "subscriptions")
    const { list, pages, stream } = paged(
      (args: ListArgs | undefined) => Effect.map(checkArgs(args), (query) => ({ query })),
      client.list
    )
    return Subscriptions.of({
      list,
      pages,
      stream,
      get: (subscriptionId, options) =>
        identifier("subscriptionId", subscriptionId).pipe(
          Effect.flatMap(() => client.get({ params: { subscriptionId } }, options)),
          Effect.map((r) => r.value)
        )
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
 * @category layers
 */
export const layer: Layer.Layer<Subscriptions, never, Transport.Transport | Credentials> = Layer.effect(
  Subscriptions,
  make
)

/**
 * Webhook subscriptions (section 4.3): list with every filter and paging,
 * every subscription as a Stream, one subscription by id.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { SubscriptionsQuery, ManagementApi } from "@connected-vehicle/schema/Api"
import type { SubscriptionsGroup } from "@connected-vehicle/schema/Api"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { ArgsOf } from "./internal/args.ts"
import type { ResourceOf } from "./internal/resource.ts"
import { resource } from "./internal/resource.ts"

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

// The table of the service over the contract's subscriptions group: the list's
// query, and the path parameter of `get`.
const endpoints = { list: { query: SubscriptionsQuery }, get: { id: "subscriptionId" } } as const

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
export class Subscriptions extends Context.Service<
  Subscriptions,
  ResourceOf<Transport.GroupClient<typeof SubscriptionsGroup, "subscriptions">, typeof endpoints>
>()("@connected-vehicle/v3/Subscriptions") {
  /**
   * The table the service is derived from: each endpoint of the contract's
   * subscriptions group it calls, and where each argument goes in the request.
   *
   * @example
   * ```ts
   * import { Subscriptions } from "@connected-vehicle/v3/Subscriptions"
   *
   * const calls = Object.keys(Subscriptions.endpoints) // the endpoints of the group the service calls
   * ```
   * @since 0.2.0
   * @category tables
   */
  static readonly endpoints = endpoints
}

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
export const make: Effect.Effect<Subscriptions["Service"], never, Transport.Transport | Credentials> = Effect.map(
  Transport.client(ManagementApi, "subscriptions"),
  (client) => Subscriptions.of(resource(client, endpoints))
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

/**
 * Webhooks of the application (section 4.4): list with every filter and
 * paging, every webhook as a Stream, one webhook by id.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { ManagementApi, WebhooksFilters } from "@connected-vehicle/schema/Api"
import type { WebhooksGroup } from "@connected-vehicle/schema/Api"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { ArgsOf } from "./internal/args.ts"
import type { ResourceOf } from "./internal/resource.ts"
import { resource } from "./internal/resource.ts"

/**
 * Arguments of `list`, `pages` and `stream`, derived from the contract's
 * `WebhooksFilters`: each `filter[x]` is the argument `x`; `page` (>= 1) and `pageSize`
 * (1..100). Every field is optional. A value outside these is an
 * `InvalidArgument` before any request (the service itself answers 200:
 * a page size over 100 gets pages of 100).
 *
 * @example
 * ```ts
 * import type { ListArgs } from "@connected-vehicle/v3/Webhooks"
 *
 * const args: ListArgs = { pageSize: 50 }
 * ```
 * @since 0.1.0
 * @category models
 */
export type ListArgs = ArgsOf<typeof WebhooksFilters.Type>

/**
 * Filters of the webhook list (sent as `filter[name]`, `filter[callbackUri]`,
 * `filter[isEnabled]`, `filter[autoSubscribe]`). `name` and `callbackUri`
 * match partially and case-insensitively.
 *
 * @example
 * ```ts
 * import type { Filters } from "@connected-vehicle/v3/Webhooks"
 *
 * const filters: Filters = { name: "x" }
 * ```
 * @since 0.1.0
 * @category models
 */
export type Filters = Omit<ListArgs, "page" | "pageSize">

// The table of the service over the contract's webhooks group: the list's
// arguments (checked with the allowed values; the wire query `WebhooksQuery`
// takes them as they are), and the path parameter of `get`.
const endpoints = { list: { query: WebhooksFilters }, get: { id: "webhookId" } } as const

/**
 * The webhooks service.
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Webhooks } from "@connected-vehicle/v3/Webhooks"
 *
 * const program = Effect.gen(function*() {
 *   const webhooks = yield* Webhooks
 *   const enabled = yield* Stream.runCollect(webhooks.stream({ isEnabled: true }))
 *   return enabled.map((webhook) => webhook.attributes.callbackUri)
 * })
 * ```
 * @since 0.1.0
 * @category services
 */
export class Webhooks extends Context.Service<
  Webhooks,
  ResourceOf<Transport.GroupClient<typeof WebhooksGroup, "webhooks">, typeof endpoints>
>()("@connected-vehicle/v3/Webhooks") {
  /**
   * The table the service is derived from: each endpoint of the contract's
   * webhooks group it calls, and where each argument goes in the request.
   *
   * @example
   * ```ts
   * import { Webhooks } from "@connected-vehicle/v3/Webhooks"
   *
   * const calls = Object.keys(Webhooks.endpoints) // the endpoints of the group the service calls
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
 * import { Webhooks, make } from "@connected-vehicle/v3/Webhooks"
 *
 * const WebhooksLive = Layer.effect(Webhooks, make)
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Webhooks["Service"], never, Transport.Transport | Credentials> = Effect.map(
  Transport.client(ManagementApi, "webhooks"),
  (client) => Webhooks.of(resource(client, endpoints))
)

/**
 * The service on the transport and the credential.
 *
 * @example
 * ```ts
 * import * as Webhooks from "@connected-vehicle/v3/Webhooks"
 *
 * const WebhooksLive = Webhooks.layer
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Webhooks, never, Transport.Transport | Credentials> = Layer.effect(Webhooks, make)

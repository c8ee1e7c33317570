/**
 * Webhooks of the application (section 4.4): list with every filter and
 * paging, every webhook as a Stream, one webhook by id.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { Stream } from "effect"
import { WebhooksQuery, ManagementApi } from "@connected-vehicle/schema/Api"
import type { Webhook, WebhookResponse, WebhooksPage } from "@connected-vehicle/schema/Webhook"
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
 * `WebhooksQuery`: each `filter[x]` is the argument `x`; `page` (>= 1) and `pageSize`
 * (1..100). Every field is optional.
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
export type ListArgs = ArgsOf<typeof WebhooksQuery.Type>

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
export class Webhooks extends Context.Service<Webhooks, {
  readonly list: (
    args?: ListArgs,
    options?: Transport.CallOptions
  ) => Effect.Effect<WebhooksPage, InvalidArgument | ConnectedVehicleError>
  /** Every page from `page` (default 1), `pageSize` (default 100) items each, fetched on demand. */
  readonly pages: (
    args?: ListArgs,
    options?: Transport.CallOptions
  ) => Stream.Stream<WebhooksPage, InvalidArgument | ConnectedVehicleError>
  /** Every item, one chunk per page; each page requested when the consumer needs it (`readAhead: 1`: the next page is requested as the current one is handed on). */
  readonly stream: (
    args?: ListArgs,
    options?: Pagination.StreamOptions
  ) => Stream.Stream<Webhook, InvalidArgument | ConnectedVehicleError>
  readonly get: (
    webhookId: string,
    options?: Transport.CallOptions
  ) => Effect.Effect<WebhookResponse, InvalidArgument | ConnectedVehicleError>
}>()("@connected-vehicle/v3/Webhooks") {}

const checkArgs = toQuery(WebhooksQuery)

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
export const make: Effect.Effect<Webhooks["Service"], never, Transport.Transport | Credentials> = Effect.gen(function*() {
  const client = yield* Transport.client(ManagementApi, "webhooks")
  const { list, pages, stream } = paged(
    (args: ListArgs | undefined) => Effect.map(checkArgs(args), (query) => ({ query })),
    client.list
  )
  return Webhooks.of({
    list,
    pages,
    stream,
    get: (webhookId, options) =>
      identifier("webhookId", webhookId).pipe(
        Effect.flatMap(() => client.get({ params: { webhookId } }, options)),
        Effect.map((r) => r.value)
      )
  })
})

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

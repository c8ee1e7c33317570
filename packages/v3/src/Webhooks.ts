/**
 * Webhooks of the application (section 4.4): list with every filter and
 * paging, every webhook as a Stream, one webhook by id.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { Stream } from "effect"
import { ManagementApi } from "@connected-vehicle/schema/Api"
import type { ServiceError } from "@connected-vehicle/schema/ServiceError"
import type { Webhook, WebhookResponse, WebhooksPage } from "@connected-vehicle/schema/Webhook"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { TransportError } from "@connected-vehicle/transport/TransportError"
import type { InvalidArgument } from "./InvalidArgument.ts"
import type { PageArgs } from "./internal/paged.ts"
import { paged } from "./internal/paged.ts"
import { compact } from "./internal/validate.ts"

/**
 * Filters of the webhook list (sent as `filter[name]`, `filter[callbackUri]`,
 * `filter[isEnabled]`, `filter[autoSubscribe]`). `name` and `callbackUri`
 * match partially and case-insensitively.
 *
 * @since 0.1.0
 */
export interface Filters {
  readonly name?: string | undefined
  readonly callbackUri?: string | undefined
  readonly isEnabled?: boolean | undefined
  readonly autoSubscribe?: boolean | undefined
}

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
 */
export class Webhooks extends Context.Service<Webhooks, {
  readonly list: (args?: Filters & PageArgs) => Effect.Effect<WebhooksPage, InvalidArgument | ServiceError | TransportError>
  readonly stream: (
    args?: Filters & { readonly pageSize?: number | undefined }
  ) => Stream.Stream<Webhook, InvalidArgument | ServiceError | TransportError>
  readonly get: (webhookId: string) => Effect.Effect<WebhookResponse, ServiceError | TransportError>
}>()("@connected-vehicle/v3/Webhooks") {}

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
 */
export const make: Effect.Effect<Webhooks["Service"], never, Transport.Transport | Credentials> = Effect.gen(function*() {
  const client = yield* Transport.client(ManagementApi, "webhooks")
  const { list, stream } = paged((args: Filters & PageArgs) =>
    client.list({
      query: compact({
        "filter[name]": args.name,
        "filter[callbackUri]": args.callbackUri,
        "filter[isEnabled]": args.isEnabled,
        "filter[autoSubscribe]": args.autoSubscribe,
        page: args.page,
        pageSize: args.pageSize
      })
    })
  )
  return Webhooks.of({
    list: (args = {}) => list(args),
    stream: (args = {}) => stream(args),
    get: (webhookId) => Effect.map(client.get({ params: { webhookId } }), (r) => r.value)
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
 */
export const layer: Layer.Layer<Webhooks, never, Transport.Transport | Credentials> = Layer.effect(Webhooks, make)

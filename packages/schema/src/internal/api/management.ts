/**
 * The groups of the v3 management API (`{management_url}`): subscriptions and
 * webhooks.
 *
 * @internal
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Mode } from "../../Common.ts"
import { SubscriptionResponse, SubscriptionsPage } from "../../Subscription.ts"
import { WebhookResponse, WebhooksPage } from "../../Webhook.ts"
import { bearer, commonErrors, paging } from "./responses.ts"

/**
 * Subscription list filters (section 4.3).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SubscriptionsQuery } from "@connected-vehicle/schema/Api"
 *
 * const isSubscriptionsQuery = Schema.is(SubscriptionsQuery)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const SubscriptionsQuery = Schema.Struct({
  "filter[userId]": Schema.optionalKey(Schema.String),
  "filter[webhookId]": Schema.optionalKey(Schema.String),
  "filter[vehicleId]": Schema.optionalKey(Schema.String),
  "filter[mode]": Schema.optionalKey(Mode),
  ...paging
})

/**
 * Subscriptions (section 4.3).
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { SubscriptionsGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(SubscriptionsGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export class SubscriptionsGroup extends HttpApiGroup.make("subscriptions").add(
  HttpApiEndpoint.get("list", "/subscriptions", {
    query: SubscriptionsQuery,
    headers: bearer,
    success: SubscriptionsPage,
    error: commonErrors
  }),
  HttpApiEndpoint.get("get", "/subscriptions/:subscriptionId", {
    params: { subscriptionId: Schema.String },
    headers: bearer,
    success: SubscriptionResponse,
    error: commonErrors
  })
) {}

/**
 * Webhook list filters (section 4.4): name and callback URI match partially and
 * case-insensitively.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WebhooksQuery } from "@connected-vehicle/schema/Api"
 *
 * const isWebhooksQuery = Schema.is(WebhooksQuery)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const WebhooksQuery = Schema.Struct({
  "filter[name]": Schema.optionalKey(Schema.String),
  "filter[callbackUri]": Schema.optionalKey(Schema.String),
  "filter[isEnabled]": Schema.optionalKey(Schema.Boolean),
  "filter[autoSubscribe]": Schema.optionalKey(Schema.Boolean),
  ...paging
})

/**
 * Webhooks (section 4.4).
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { WebhooksGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(WebhooksGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export class WebhooksGroup extends HttpApiGroup.make("webhooks").add(
  HttpApiEndpoint.get("list", "/webhooks", {
    query: WebhooksQuery,
    headers: bearer,
    success: WebhooksPage,
    error: commonErrors
  }),
  HttpApiEndpoint.get("get", "/webhooks/:webhookId", {
    params: { webhookId: Schema.String },
    headers: bearer,
    success: WebhookResponse,
    error: commonErrors
  })
) {}

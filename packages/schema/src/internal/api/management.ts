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
import { PageNumber, PageSize } from "../../Pagination.ts"
import {
  BadRequestResponse,
  bearer,
  commonErrors,
  ForbiddenResponse,
  lenientQueryValue,
  paging,
  queryPaging,
  RateLimitedResponse,
  ServerErrorResponse,
  UnauthorizedResponse
} from "./responses.ts"

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
    query: SubscriptionsQuery.mapFields((fields) => ({ ...fields, ...queryPaging })),
    headers: bearer,
    success: SubscriptionsPage,
    // section 4.3: 200, 400, 401, 403, 500 (429: the simulator's request limits)
    error: [BadRequestResponse, UnauthorizedResponse, ForbiddenResponse, RateLimitedResponse, ServerErrorResponse]
  }),
  HttpApiEndpoint.get("get", "/subscriptions/:subscriptionId", {
    params: { subscriptionId: Schema.String },
    headers: bearer,
    success: SubscriptionResponse,
    error: commonErrors
  })
) {}

/**
 * The query of the webhook list as the service reads it (section 4.4, whose
 * statuses are 200, 401, 403 and 500: no 400). A value of the allowed kind
 * is decoded as such (`true`, `2`), any other is kept as given (a repeated
 * parameter as several): a boolean filter that is not `true` or `false`
 * matches nothing, a page or page size that is not one integer is the
 * default, one outside its range the nearest bound; other parameters are
 * ignored. {@link WebhooksFilters} holds the allowed values.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WebhooksQuery } from "@connected-vehicle/schema/Api"
 *
 * const isWebhooksQuery = Schema.is(WebhooksQuery)
 * isWebhooksQuery({ pageSize: "500" }) // true: answered with pages of 100
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const WebhooksQuery = Schema.Struct({
  "filter[name]": lenientQueryValue("Display name, partial and case-insensitive match"),
  "filter[callbackUri]": lenientQueryValue("Callback URI, partial and case-insensitive match"),
  "filter[isEnabled]": lenientQueryValue("true or false; any other value matches nothing", Schema.Boolean),
  "filter[autoSubscribe]": lenientQueryValue("true or false; any other value matches nothing", Schema.Boolean),
  page: lenientQueryValue("Page number >= 1 (default 1; a smaller one is 1)", PageNumber),
  pageSize: lenientQueryValue("Page size 1..100 (default 10; outside the range, the nearest bound)", PageSize)
})

/**
 * The filters and paging of the webhook list with their allowed values
 * (section 4.4): name and callback URI match partially and
 * case-insensitively, the booleans are booleans, `page` >= 1 and `pageSize`
 * 1..100. A client checks its arguments with it before sending them.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WebhooksFilters } from "@connected-vehicle/schema/Api"
 *
 * const isWebhooksFilters = Schema.is(WebhooksFilters)
 * isWebhooksFilters({ pageSize: 500 }) // false
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const WebhooksFilters = Schema.Struct({
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
    // section 4.4: 200, 401, 403, 500 (429: the simulator's request limits)
    error: [UnauthorizedResponse, ForbiddenResponse, RateLimitedResponse, ServerErrorResponse]
  }),
  HttpApiEndpoint.get("get", "/webhooks/:webhookId", {
    params: { webhookId: Schema.String },
    headers: bearer,
    success: WebhookResponse,
    error: commonErrors
  })
) {}

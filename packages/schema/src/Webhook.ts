/**
 * The webhook resource (section 2.5).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Timestamp } from "./Common.ts"
import { OrderedPageMeta, Page } from "./Pagination.ts"

/**
 * `{ group, name, code }` entry of `triggers` and `data`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SignalRef } from "@connected-vehicle/schema/Webhook"
 *
 * const isSignalRef = Schema.is(SignalRef)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const SignalRef = Schema.Struct({ group: Schema.String, name: Schema.String, code: Schema.String })

/**
 * A webhook of the application. `attributes.errorCallbackUri` may be absent
 * or `null` (a webhook created without an error callback); a string is kept
 * as sent (an empty one too).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Webhook } from "@connected-vehicle/schema/Webhook"
 *
 * const decode = Schema.decodeUnknownEffect(Webhook)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Webhook = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("webhook"),
  attributes: Schema.Struct({
    name: Schema.String,
    triggers: Schema.Array(SignalRef),
    data: Schema.Array(SignalRef),
    callbackUri: Schema.String,
    errorCallbackUri: Schema.optionalKey(Schema.NullOr(Schema.String)),
    isEnabled: Schema.Boolean,
    autoSubscribe: Schema.Boolean
  }),
  meta: Schema.Struct({ createdAt: Timestamp }),
  links: Schema.Struct({ self: Schema.String })
}).annotate({ identifier: "Webhook" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Webhook } from "@connected-vehicle/schema/Webhook"
 *
 * const isWebhook: (u: unknown) => u is Webhook = Schema.is(Webhook)
 * ```
 * @category models
 * @since 0.1.0
 */
export type Webhook = typeof Webhook.Type

/**
 * `GET /webhooks` response.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WebhooksPage } from "@connected-vehicle/schema/Webhook"
 *
 * const isWebhooksPage = Schema.is(WebhooksPage)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const WebhooksPage = Page(Webhook, OrderedPageMeta).annotate({ identifier: "WebhooksPage" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WebhooksPage } from "@connected-vehicle/schema/Webhook"
 *
 * const isWebhooksPage: (u: unknown) => u is WebhooksPage = Schema.is(WebhooksPage)
 * ```
 * @category models
 * @since 0.1.0
 */
export type WebhooksPage = typeof WebhooksPage.Type

/**
 * `GET /webhooks/{id}` response.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WebhookResponse } from "@connected-vehicle/schema/Webhook"
 *
 * const isWebhookResponse = Schema.is(WebhookResponse)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const WebhookResponse = Schema.Struct({ data: Webhook }).annotate({ identifier: "WebhookResponse" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WebhookResponse } from "@connected-vehicle/schema/Webhook"
 *
 * const isWebhookResponse: (u: unknown) => u is WebhookResponse = Schema.is(WebhookResponse)
 * ```
 * @category models
 * @since 0.1.0
 */
export type WebhookResponse = typeof WebhookResponse.Type

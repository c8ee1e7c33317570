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
 * @since 0.1.0
 */
export const SignalRef = Schema.Struct({ group: Schema.String, name: Schema.String, code: Schema.String })

/**
 * A webhook of the application.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Webhook } from "@connected-vehicle/schema/Webhook"
 *
 * const decode = Schema.decodeUnknownEffect(Webhook)
 * ```
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
    errorCallbackUri: Schema.String,
    isEnabled: Schema.Boolean,
    autoSubscribe: Schema.Boolean
  }),
  meta: Schema.Struct({ createdAt: Timestamp }),
  links: Schema.Struct({ self: Schema.String })
}).annotate({ identifier: "Webhook" })

/**
 * @since 0.1.0
 */
export type Webhook = typeof Webhook.Type

/**
 * `GET /webhooks` response.
 *
 * @since 0.1.0
 */
export const WebhooksPage = Page(Webhook, OrderedPageMeta).annotate({ identifier: "WebhooksPage" })

/**
 * @since 0.1.0
 */
export type WebhooksPage = typeof WebhooksPage.Type

/**
 * `GET /webhooks/{id}` response.
 *
 * @since 0.1.0
 */
export const WebhookResponse = Schema.Struct({ data: Webhook }).annotate({ identifier: "WebhookResponse" })

/**
 * @since 0.1.0
 */
export type WebhookResponse = typeof WebhookResponse.Type

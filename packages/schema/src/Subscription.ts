/**
 * The subscription resource (section 2.4).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Relationship, SelfLinks, Timestamps, VehicleSummary } from "./Common.ts"
import { OrderedPageMeta, Page } from "./Pagination.ts"

// The spec's samples carry `webhook` as data.type in all three relationships:
// the type is kept as a plain string.
const SubscriptionRelationship = Relationship(Schema.String)

/**
 * A subscription: ties a webhook to a user and a vehicle.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Subscription } from "@connected-vehicle/schema/Subscription"
 *
 * const decode = Schema.decodeUnknownEffect(Subscription)
 * ```
 * @since 0.1.0
 */
export const Subscription = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("subscription"),
  attributes: Schema.Struct({ vehicle: VehicleSummary }),
  meta: Timestamps,
  links: SelfLinks,
  relationships: Schema.Struct({
    webhook: SubscriptionRelationship,
    user: SubscriptionRelationship,
    vehicle: SubscriptionRelationship
  })
}).annotate({ identifier: "Subscription" })

/**
 * @since 0.1.0
 */
export type Subscription = typeof Subscription.Type

/**
 * `GET /subscriptions` response.
 *
 * @since 0.1.0
 */
export const SubscriptionsPage = Page(Subscription, OrderedPageMeta).annotate({ identifier: "SubscriptionsPage" })

/**
 * @since 0.1.0
 */
export type SubscriptionsPage = typeof SubscriptionsPage.Type

/**
 * `GET /subscriptions/{id}` response.
 *
 * @since 0.1.0
 */
export const SubscriptionResponse = Schema.Struct({ data: Subscription }).annotate({
  identifier: "SubscriptionResponse"
})

/**
 * @since 0.1.0
 */
export type SubscriptionResponse = typeof SubscriptionResponse.Type

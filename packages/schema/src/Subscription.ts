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
 * @category schemas
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
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Subscription } from "@connected-vehicle/schema/Subscription"
 *
 * const isSubscription: (u: unknown) => u is Subscription = Schema.is(Subscription)
 * ```
 * @category models
 * @since 0.1.0
 */
export type Subscription = typeof Subscription.Type

/**
 * `GET /subscriptions` response.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SubscriptionsPage } from "@connected-vehicle/schema/Subscription"
 *
 * const isSubscriptionsPage = Schema.is(SubscriptionsPage)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const SubscriptionsPage = Page(Subscription, OrderedPageMeta).annotate({ identifier: "SubscriptionsPage" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SubscriptionsPage } from "@connected-vehicle/schema/Subscription"
 *
 * const isSubscriptionsPage: (u: unknown) => u is SubscriptionsPage = Schema.is(SubscriptionsPage)
 * ```
 * @category models
 * @since 0.1.0
 */
export type SubscriptionsPage = typeof SubscriptionsPage.Type

/**
 * `GET /subscriptions/{id}` response.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SubscriptionResponse } from "@connected-vehicle/schema/Subscription"
 *
 * const isSubscriptionResponse = Schema.is(SubscriptionResponse)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const SubscriptionResponse = Schema.Struct({ data: Subscription }).annotate({
  identifier: "SubscriptionResponse"
})

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SubscriptionResponse } from "@connected-vehicle/schema/Subscription"
 *
 * const isSubscriptionResponse: (u: unknown) => u is SubscriptionResponse = Schema.is(SubscriptionResponse)
 * ```
 * @category models
 * @since 0.1.0
 */
export type SubscriptionResponse = typeof SubscriptionResponse.Type

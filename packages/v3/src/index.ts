/**
 * @since 0.1.0
 */

/**
 * The public compatibility listing, cached.
 *
 * @example
 * ```ts
 * import { Compatibility } from "@connected-vehicle/v3"
 *
 * const CompatibilityLive = Compatibility.layer({ timeToLive: Compatibility.defaultTimeToLive })
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Compatibility from "./Compatibility.ts"
/**
 * Connections: list, every connection as a Stream, one by id.
 *
 * @example
 * ```ts
 * import { Connections } from "@connected-vehicle/v3"
 *
 * const ConnectionsLive = Connections.layer
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Connections from "./Connections.ts"
/**
 * The v3 equivalent of each legacy v2.0 read, in the legacy shape.
 *
 * @example
 * ```ts
 * import { Migration } from "@connected-vehicle/v3"
 *
 * const odometer = Migration.odometer({ vehicleId: "veh_1", userId: "usr_1" })
 * ```
 * @since 0.2.0
 * @category modules
 */
export * as Migration from "./Migration.ts"
/**
 * Signals of a vehicle: one page, every signal, one signal by code.
 *
 * @example
 * ```ts
 * import { Signals } from "@connected-vehicle/v3"
 *
 * const sorted = Signals.partition([])
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Signals from "./Signals.ts"
/**
 * The shape of a paged v3 service (`list`, `pages`, `stream`, `get`), shared
 * by connections, subscriptions, webhooks and signals.
 *
 * @example
 * ```ts
 * import type { Resource } from "@connected-vehicle/v3"
 *
 * type AnyResource = Resource.Resource<never, unknown, unknown, never, unknown, unknown>
 * ```
 * @since 0.2.0
 * @category modules
 */
export * as Resource from "./Resource.ts"
/**
 * Webhook subscriptions: list, every subscription as a Stream, one by id.
 *
 * @example
 * ```ts
 * import { Subscriptions } from "@connected-vehicle/v3"
 *
 * const SubscriptionsLive = Subscriptions.layer
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Subscriptions from "./Subscriptions.ts"
/**
 * Every v3 service in one layer.
 *
 * @example
 * ```ts
 * import { V3 } from "@connected-vehicle/v3"
 *
 * const V3Live = V3.layerConfig()
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as V3 from "./V3.ts"
/**
 * Webhooks of the application: list, every webhook as a Stream, one by id.
 *
 * @example
 * ```ts
 * import { Webhooks } from "@connected-vehicle/v3"
 *
 * const WebhooksLive = Webhooks.layer
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Webhooks from "./Webhooks.ts"

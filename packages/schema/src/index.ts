/**
 * @example
 * ```ts
 * import { Api } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Api from "./Api.ts"
/**
 * @example
 * ```ts
 * import { Common } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Common from "./Common.ts"
/**
 * @example
 * ```ts
 * import { Compatibility } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Compatibility from "./Compatibility.ts"
/**
 * @example
 * ```ts
 * import { Connection } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Connection from "./Connection.ts"
/**
 * @example
 * ```ts
 * import { InvalidArgument } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as InvalidArgument from "./InvalidArgument.ts"
/**
 * @example
 * ```ts
 * import { Json } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.2.0
 */
export * as Json from "./Json.ts"
/**
 * @example
 * ```ts
 * import { Legacy } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Legacy from "./Legacy.ts"
/**
 * @example
 * ```ts
 * import { OAuth } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as OAuth from "./OAuth.ts"
/**
 * @example
 * ```ts
 * import { Pagination } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Pagination from "./Pagination.ts"
/**
 * @example
 * ```ts
 * import { ServiceError } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as ServiceError from "./ServiceError.ts"
/**
 * @example
 * ```ts
 * import { Signal } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Signal from "./Signal.ts"
/**
 * @example
 * ```ts
 * import { Subscription } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Subscription from "./Subscription.ts"
/**
 * @example
 * ```ts
 * import { Vehicle } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Vehicle from "./Vehicle.ts"
/**
 * @example
 * ```ts
 * import { Webhook } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Webhook from "./Webhook.ts"
/**
 * @example
 * ```ts
 * import { WebhookEvent } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as WebhookEvent from "./WebhookEvent.ts"

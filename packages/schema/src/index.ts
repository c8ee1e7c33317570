/**
 * @since 0.1.0
 */
export * as Api from "./Api.ts"
export * as Common from "./Common.ts"
export * as Compatibility from "./Compatibility.ts"
export * as Connection from "./Connection.ts"
export * as InvalidArgument from "./InvalidArgument.ts"
export * as Legacy from "./Legacy.ts"
export * as OAuth from "./OAuth.ts"
export * as Pagination from "./Pagination.ts"
export * as ServiceError from "./ServiceError.ts"
export * as ServiceReason from "./ServiceReason.ts"
export * as Signal from "./Signal.ts"
export * as Subscription from "./Subscription.ts"
export * as Vehicle from "./Vehicle.ts"
export * as Webhook from "./Webhook.ts"
export * as WebhookEvent from "./WebhookEvent.ts"

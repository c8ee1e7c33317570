/**
 * @since 0.1.0
 */
export * as Compatibility from "./Compatibility.ts"
export * as Connections from "./Connections.ts"
export * as Migration from "./Migration.ts"
export * as Signals from "./Signals.ts"
export * as Subscriptions from "./Subscriptions.ts"
export * as V3 from "./V3.ts"
export * as Webhooks from "./Webhooks.ts"

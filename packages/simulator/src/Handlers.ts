/**
 * The handlers of every group of `ServiceApi`.
 *
 * @since 0.1.0
 */
import { Layer } from "effect"
import { LegacyLive } from "./internal/legacyHandlers.ts"
import { SubscriptionsLive, WebhooksLive } from "./internal/managementHandlers.ts"
import { OAuthLive } from "./internal/oauthHandlers.ts"
import { CompatibilityLive, ConnectionsLive, SignalsLive } from "./internal/vehicleHandlers.ts"

/**
 * Every group of `ServiceApi`, implemented.
 *
 * @since 0.1.0
 * @category layers
 */
export const HandlersLive = Layer.mergeAll(
  SignalsLive,
  ConnectionsLive,
  SubscriptionsLive,
  WebhooksLive,
  CompatibilityLive,
  OAuthLive,
  LegacyLive
)

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
 * @example
 * ```ts
 * import { HttpApiBuilder } from "effect/http-api"
 * import { Layer } from "effect"
 * import { ServiceApi } from "@connected-vehicle/schema/Api"
 * import { HandlersLive } from "@connected-vehicle/simulator/Handlers"
 *
 * const Api = HttpApiBuilder.layer(ServiceApi).pipe(Layer.provide(HandlersLive))
 * ```
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

/**
 * @since 0.1.0
 */

/**
 * The consent URL the user is sent to (authorization-code flow).
 *
 * @example
 * ```ts
 * import { Consent } from "@connected-vehicle/auth"
 *
 * const url = Consent.consentUrl("https://auth.example", "client_1", {
 *   redirectUri: "https://app.example/callback",
 *   permissions: ["read_odometer"]
 * })
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Consent from "./Consent.ts"
/**
 * The application's OAuth client configuration.
 *
 * @example
 * ```ts
 * import { OAuthConfig } from "@connected-vehicle/auth"
 *
 * const OAuthConfigLive = OAuthConfig.layerConfig
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as OAuthConfig from "./OAuthConfig.ts"
/**
 * The transport's `Credentials` backed by the token store, refreshed once
 * however many requests find a token stale.
 *
 * @example
 * ```ts
 * import { Session } from "@connected-vehicle/auth"
 *
 * const ApplicationSession = Session.layerApplication()
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Session from "./Session.ts"
/**
 * The token endpoint: authorization-code, refresh-token and
 * client-credentials grants.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { TokenExchange } from "@connected-vehicle/auth"
 *
 * const basic = TokenExchange.basicCredential("client_1", Redacted.make("secret"))
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as TokenExchange from "./TokenExchange.ts"
/**
 * Where tokens live between requests.
 *
 * @example
 * ```ts
 * import { TokenStore } from "@connected-vehicle/auth"
 *
 * const TokenStoreLive = TokenStore.layerMemory
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as TokenStore from "./TokenStore.ts"

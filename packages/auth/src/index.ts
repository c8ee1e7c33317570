/**
 * @since 0.1.0
 */
export * as Consent from "./Consent.ts"
export * as OAuthConfig from "./OAuthConfig.ts"
export * as Session from "./Session.ts"
export * as TokenExchange from "./TokenExchange.ts"
export * as TokenStore from "./TokenStore.ts"

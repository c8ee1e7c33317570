/**
 * @since 0.1.0
 */
export * as Credentials from "./Credentials.ts"
export * as Pagination from "./Pagination.ts"
export * as RetryAfter from "./RetryAfter.ts"
export * as Transport from "./Transport.ts"
export * as TransportConfig from "./TransportConfig.ts"
export * as ConnectedVehicleError from "./ConnectedVehicleError.ts"

/**
 * @since 0.1.0
 */
export * as ConnectedVehicle from "./ConnectedVehicle.ts"
export * as Client from "./Client.ts"
export * as ClientError from "./ClientError.ts"

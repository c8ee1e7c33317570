/**
 * @since 0.1.0
 */
export * as ConnectedVehicle from "./ConnectedVehicle.ts"

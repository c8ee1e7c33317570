/**
 * @since 0.1.0
 */
export * as Batch from "./Batch.ts"
export * as Reading from "./Reading.ts"
export * as Vehicles from "./Vehicles.ts"

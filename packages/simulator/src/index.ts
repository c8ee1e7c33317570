/**
 * @since 0.1.0
 * @category modules
 */
export * as Simulator from "./Simulator.ts"

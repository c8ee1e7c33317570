/**
 * @since 0.1.0
 */
export * as Simulator from "./Simulator.ts"

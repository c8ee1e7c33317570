/**
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Simulator } from "@connected-vehicle/simulator"
 *
 * const url = Simulator.Simulator.useSync((sim) => sim.url).pipe(Effect.provide(Simulator.layer()))
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Simulator from "./Simulator.ts"

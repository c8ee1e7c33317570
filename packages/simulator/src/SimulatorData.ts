/**
 * Read access to the simulator's seeded dataset (`Simulator.data`).
 *
 * @since 0.1.0
 */

/**
 * A seeded vehicle as tests see it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Simulator } from "@connected-vehicle/simulator/Simulator"
 *
 * const firstVehicle = Simulator.useSync((sim) => sim.data.vehicle(sim.data.vehicleIds[0]!))
 * ```
 * @since 0.1.0
 * @category models
 */
export interface VehicleView {
  readonly id: string
  readonly make: string
  readonly model: string
  readonly year: number
  readonly powertrainType: "ICE" | "BEV" | "PHEV"
  readonly region: "US" | "CA" | "EUROPE"
  readonly mode: "live" | "simulated"
  readonly vin: string
  readonly signalCodes: ReadonlyArray<string>
  readonly supportsServiceHistory: boolean
}

/**
 * Read access to the seeded dataset.
 *
 * @example
 * ```ts
 * import type { SimulatorData } from "@connected-vehicle/simulator/Simulator"
 *
 * const connectedVehicles = (data: SimulatorData) => data.vehicleIds.slice(0, data.connectionCount)
 * ```
 * @since 0.1.0
 * @category models
 */
export interface SimulatorData {
  readonly seed: number
  readonly users: ReadonlyArray<{ readonly id: string; readonly externalId: string }>
  /** Every vehicle id; the first `connectionCount` have a connection. */
  readonly vehicleIds: ReadonlyArray<string>
  /**
   * The connection of a vehicle: its user, id and `permissions` (each
   * user's first connection holds every permission; see
   * `SimulatorOptions.enforcePermissions`).
   */
  readonly connectionOf: (
    vehicleId: string
  ) => { readonly userId: string; readonly connectionId: string; readonly permissions: ReadonlyArray<string> } | undefined
  readonly vehicle: (vehicleId: string) => VehicleView | undefined
  /** Vehicle ids connected to a user. */
  readonly vehiclesOf: (userId: string) => ReadonlyArray<string>
  readonly connectionCount: number
  readonly connectionIds: (page: { readonly offset: number; readonly limit: number }) => ReadonlyArray<string>
  readonly subscriptionCount: number
  readonly webhooks: ReadonlyArray<{
    readonly id: string
    readonly name: string
    readonly callbackUri: string
    readonly isEnabled: boolean
    readonly autoSubscribe: boolean
  }>
  /**
   * Status of a signal of a connected vehicle (fixed by the seed; `ERROR`
   * for a signal its connection may not read, when permissions are enforced).
   */
  readonly signalStatus: (vehicleId: string, signalCode: string) => "SUCCESS" | "ERROR" | "UNAVAILABLE" | undefined
}

import type * as Simulator from "@connected-vehicle/simulator/Simulator"

/** The simulator's user with the most connected vehicles. */
export const busiestUser = (data: Simulator.SimulatorData) =>
  data.users.reduce((best, u) => data.vehiclesOf(u.id).length > data.vehiclesOf(best.id).length ? u : best).id

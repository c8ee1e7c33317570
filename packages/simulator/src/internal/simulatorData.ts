/**
 * Read access to the seeded dataset, as the `Simulator` service gives it.
 *
 * @internal
 */
import type { Dataset, VehicleInfo } from "../Data.ts"
import { signalStatus, supportsServiceHistory } from "../Data.ts"
import type { SimulatorData, VehicleView } from "../Simulator.ts"
import { heldPermissions, missingPermission } from "./render.ts"

const view = (v: VehicleInfo): VehicleView => ({
  id: v.id,
  make: v.model.make,
  model: v.model.model,
  year: v.year,
  powertrainType: v.model.powertrainType,
  region: v.model.region,
  mode: v.mode,
  vin: v.vin,
  signalCodes: v.model.signals.map((s) => s.code),
  supportsServiceHistory: supportsServiceHistory(v)
})

/** The read access to a dataset. */
export const makeData = (data: Dataset, enforcePermissions: boolean): SimulatorData => {
  let ids: ReadonlyArray<string> | undefined
  const indexOf = (id: string) => data.vehicleIndex(id.toLowerCase())
  return {
    seed: data.options.seed,
    users: data.users.map((u) => ({ id: u.id, externalId: u.externalId })),
    get vehicleIds() {
      ids ??= Array.from({ length: data.vehicleCount }, (_, i) => data.vehicle(i).id)
      return ids
    },
    connectionOf: (vehicleId) => {
      const i = indexOf(vehicleId)
      return i === -1 || i >= data.connectionCount
        ? undefined
        : {
          userId: data.user(data.connectionUser[i]!).id,
          connectionId: data.connectionId(i),
          permissions: data.connectionPermissions(i)
        }
    },
    vehicle: (vehicleId) => {
      const i = indexOf(vehicleId)
      return i === -1 ? undefined : view(data.vehicle(i))
    },
    vehiclesOf: (userId) => {
      const u = data.userIndex(userId.toLowerCase())
      return u === -1 ? [] : Array.from(data.vehiclesOfUser(u), (i) => data.vehicle(i).id)
    },
    connectionCount: data.connectionCount,
    connectionIds: ({ limit, offset }) => {
      const out: Array<string> = []
      for (let i = Math.max(0, offset); i < Math.min(data.connectionCount, offset + limit); i++) out.push(data.connectionId(i))
      return out
    },
    subscriptionCount: data.subscriptionCount,
    webhooks: data.webhooks.map((w) => ({
      id: w.id,
      name: w.name,
      callbackUri: w.callbackUri,
      isEnabled: w.isEnabled,
      autoSubscribe: w.autoSubscribe
    })),
    signalStatus: (vehicleId, signalCode) => {
      const i = indexOf(vehicleId)
      if (i === -1) return undefined
      const v = data.vehicle(i)
      const k = v.model.signals.findIndex((s) => s.code === signalCode)
      if (k === -1) return undefined
      const held = heldPermissions(data, enforcePermissions, v)
      return missingPermission(held, v, v.model.signals[k]!.permission) !== undefined
        ? "ERROR"
        : signalStatus(data.options.seed, i, k).value
    }
  }
}

/**
 * The values of the legacy v2.0 reads: bodies in either unit system, from the
 * readings or from a reading set on the matching v3 signal, and the service
 * history.
 *
 * @internal
 */
import type { Legacy } from "@connected-vehicle/schema"
import type { Readings, VehicleInfo } from "../Data.ts"
import { serviceHistoryMakes } from "./catalog.ts"
import { DAY, EPOCH, hash, hex, KM_PER_MILE, KPA_PER_PSI, round } from "./seeded.ts"

/** @internal */
export const legacyBody = (
  path: Exclude<Legacy.LegacyPath, "/service/history">,
  r: Readings,
  v: VehicleInfo,
  imperial: boolean
): Legacy.Odometer | Legacy.Location | Legacy.Vin | Legacy.EngineOil | Legacy.TirePressure => {
  switch (path) {
    case "/odometer":
      return { distance: imperial ? round(r.odometerKm / KM_PER_MILE, 2) : r.odometerKm }
    case "/location":
      return { latitude: r.latitude, longitude: r.longitude }
    case "/vin":
      return { vin: v.vin }
    case "/engine/oil":
      return { lifeRemaining: v.model.powertrainType === "BEV" ? 1 : r.oilLife }
    case "/tires/pressure": {
      const p = (k: number) => imperial ? round(r.tiresKpa[k]! / KPA_PER_PSI, 1) : r.tiresKpa[k]!
      return { frontLeft: p(0), frontRight: p(1), backLeft: p(2), backRight: p(3) }
    }
  }
}

/** @internal */
export const legacySignalCode: Readonly<Record<Exclude<Legacy.LegacyPath, "/service/history">, string>> = {
  "/odometer": "odometer-traveleddistance",
  "/location": "location-preciselocation",
  "/vin": "vehicleidentification-vin",
  "/engine/oil": "internalcombustionengine-oillife",
  "/tires/pressure": "wheel-tirepressures"
}

const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value)

/** Kilometres (or undefined) from a distance in `unit` (km by default; `mi`/`miles`). */
const kilometres = (value: unknown, unit: unknown): number | undefined => {
  if (!finite(value)) return undefined
  if (unit === undefined || unit === "km" || unit === "kilometers" || unit === "kilometres") return value
  if (unit === "mi" || unit === "miles") return value * KM_PER_MILE
  return undefined
}

/** Kilopascals (or undefined) from a pressure in `unit` (kPa by default; `psi`). */
const kilopascals = (value: unknown, unit: unknown): number | undefined => {
  if (!finite(value)) return undefined
  if (unit === undefined || unit === "kPa" || unit === "kpa") return value
  if (unit === "psi") return value * KPA_PER_PSI
  return undefined
}

/** @internal */
export const legacyBodyOfReading = (
  path: Exclude<Legacy.LegacyPath, "/service/history">,
  body: Readonly<Record<string, unknown>>,
  imperial: boolean
): Legacy.Odometer | Legacy.Location | Legacy.Vin | Legacy.EngineOil | Legacy.TirePressure | undefined => {
  switch (path) {
    case "/odometer": {
      const km = kilometres(body["value"], body["unit"])
      if (km === undefined) return undefined
      return { distance: imperial ? round(km / KM_PER_MILE, 2) : round(km, 2) }
    }
    case "/location": {
      const { latitude, longitude } = body
      if (!finite(latitude) || !finite(longitude) || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return undefined
      return { latitude, longitude }
    }
    case "/vin": {
      // `vin`, else a string `value` (what the migrated read takes too)
      const vin = body["vin"] ?? body["value"]
      return typeof vin === "string" ? { vin } : undefined
    }
    case "/engine/oil": {
      const percent = body["value"]
      if (!finite(percent) || (body["unit"] !== undefined && body["unit"] !== "percent") || percent < 0 || percent > 100) {
        return undefined
      }
      return { lifeRemaining: round(percent / 100, 3) }
    }
    case "/tires/pressure": {
      const out: Array<number> = []
      for (const key of ["frontLeft", "frontRight", "backLeft", "backRight"]) {
        const kpa = kilopascals(body[key], body["unit"])
        if (kpa === undefined) return undefined
        out.push(imperial ? round(kpa / KPA_PER_PSI, 1) : round(kpa, 1))
      }
      return { frontLeft: out[0]!, frontRight: out[1]!, backLeft: out[2]!, backRight: out[3]! }
    }
  }
}

const serviceTasks = [
  ["Oil and filter change", "OIL_CHANGE"],
  ["Tire rotation", "TIRE_ROTATION"],
  ["Brake inspection", "BRAKE_INSPECTION"],
  ["Cabin air filter replacement", "CABIN_FILTER"],
  ["Multi-point inspection", "INSPECTION"],
  ["Battery health check", "BATTERY_CHECK"]
] as const

/** @internal */
export const serviceHistory = (seed: number, v: VehicleInfo): ReadonlyArray<{
  readonly serviceId: string | null
  readonly serviceDate: string | null
  readonly odometerDistance: number | null
  readonly serviceTasks: ReadonlyArray<{ readonly taskId: string | null; readonly taskDescription: string | null }>
  readonly serviceDetails: ReadonlyArray<{ readonly type: string | null; readonly value: string | null }>
  readonly serviceCost: { readonly totalCost: number | null; readonly currency: string | null }
  readonly serviceType: string | null
}> => {
  const count = 1 + (hash(seed, 81, v.index) % 5)
  const records = []
  for (let k = 0; k < count; k++) {
    const dealer = hash(seed, 82, v.index, k) % 3 !== 0
    const date = Date.UTC(v.year, 0, 1) + (k + 1) * 180 * DAY + (hash(seed, 83, v.index, k) % (30 * DAY))
    const km = (k + 1) * 9000 + (hash(seed, 84, v.index, k) % 2000)
    const tasks = Array.from({ length: 1 + (hash(seed, 85, v.index, k) % 3) }, (_, t) => {
      const task = serviceTasks[(hash(seed, 86, v.index, k) + t) % serviceTasks.length]!
      return { taskId: dealer ? `${task[1]}-${t + 1}` : null, taskDescription: task[0] }
    })
    records.push({
      serviceId: dealer ? `SVC-${hex(hash(seed, 87, v.index, k), 8).toUpperCase()}` : null,
      serviceDate: Math.min(date, EPOCH) === date ? new Date(date).toISOString() : null,
      // section 2.8: kilometers, whatever sc-unit-system asks for
      odometerDistance: km,
      serviceTasks: tasks,
      serviceDetails: dealer
        ? [{ type: "dealer", value: `${v.model.make} Service Center #${1 + (hash(seed, 88, v.index, k) % 90)}` }]
        : [{ type: "note", value: "Entered by owner" }],
      serviceCost: dealer
        ? { totalCost: round(60 + (hash(seed, 89, v.index, k) % 400) + 0.99, 2), currency: v.model.region === "CA" ? "CAD" : "USD" }
        : { totalCost: null, currency: null },
      serviceType: dealer ? "DEALERSHIP" : "OWNER"
    })
  }
  return records.reverse()
}

/** @internal */
export const supportsServiceHistory = (v: VehicleInfo): boolean =>
  v.model.region === "US" && serviceHistoryMakes.includes(v.model.make)

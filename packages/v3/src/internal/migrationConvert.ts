/**
 * The conversions of `Migration`: a v3 signal body to the legacy shape of
 * the read it replaces, one per migrated read.
 *
 * @internal
 */
import type { UnitSystem } from "@connected-vehicle/schema/Legacy"
import { numericValue, type SignalBody } from "@connected-vehicle/schema/Signal"
import type { MigratedPath } from "../Migration.ts"

/** The legacy candidate of a signal body (validated by the read's schema after), or why there is none (a string). */
export type Convert = (body: SignalBody, unitSystem: UnitSystem) => unknown

/**
 * One conversion per migrated read: a read added to `LegacyReads` (and so
 * to `MigratedPath`) is a type error here until it has one.
 */
export type Converters = { readonly [P in MigratedPath]: Convert }

const KM_PER_MILE = 1.609344
const KPA_PER_PSI = 6.894757
const KPA_PER_BAR = 100

const distanceUnits: Readonly<Record<string, number>> = { km: 1, kilometers: 1, kilometer: 1, mi: KM_PER_MILE, miles: KM_PER_MILE, mile: KM_PER_MILE }
const pressureUnits: Readonly<Record<string, number>> = { kpa: 1, psi: KPA_PER_PSI, bar: KPA_PER_BAR }

const positions = {
  frontLeft: ["frontLeft", "front_left"],
  frontRight: ["frontRight", "front_right"],
  backLeft: ["backLeft", "rearLeft", "back_left", "rear_left"],
  backRight: ["backRight", "rearRight", "back_right", "rear_right"]
} as const

/**
 * Rounds as the legacy API does (`Math.round(x * 10^digits) / 10^digits`):
 * the same double as its answer for the same datum.
 */
const round = (value: number, digits: number): number => {
  const f = 10 ** digits
  return Math.round(value * f) / f
}

const finite = (u: unknown): number | undefined => typeof u === "number" && Number.isFinite(u) ? u : undefined

const unitOf = (body: SignalBody): string | undefined => typeof body["unit"] === "string" ? body["unit"].toLowerCase() : undefined

const odometer: Convert = (body, unitSystem) => {
  const value = numericValue(body)
  const unit = unitOf(body)
  const factor = unit === undefined ? undefined : distanceUnits[unit]
  if (value === undefined) return "odometer-traveleddistance has no numeric value"
  if (factor === undefined) return `odometer-traveleddistance has an unknown unit ${JSON.stringify(body["unit"])}`
  const km = value * factor
  return { distance: round(unitSystem === "imperial" ? km / KM_PER_MILE : km, 2) }
}

const engineOil: Convert = (body) => {
  const value = numericValue(body)
  const unit = unitOf(body)
  if (value === undefined) return "internalcombustionengine-oillife has no numeric value"
  if (unit !== undefined && unit !== "percent" && unit !== "%") {
    return `internalcombustionengine-oillife has an unknown unit ${JSON.stringify(body["unit"])}`
  }
  return { lifeRemaining: round(value / 100, 3) }
}

const tirePressure: Convert = (body, unitSystem) => {
  const unit = unitOf(body)
  const factor = pressureUnits[unit ?? "kpa"]
  if (factor === undefined) return `wheel-tirepressures has an unknown unit ${JSON.stringify(body["unit"])}`
  const out: Record<string, unknown> = {}
  for (const [legacy, names] of Object.entries(positions)) {
    const value = names.map((name) => finite(body[name])).find((v) => v !== undefined)
    if (value === undefined) return `wheel-tirepressures has no numeric ${legacy}`
    const kpa = value * factor
    out[legacy] = round(unitSystem === "imperial" ? kpa / KPA_PER_PSI : kpa, 1)
  }
  return out
}

/** The conversion of each migrated read. */
export const converters: Converters = {
  "/odometer": odometer,
  "/location": (body) => ({ latitude: body["latitude"], longitude: body["longitude"] }),
  "/vin": (body) => ({ vin: body["vin"] ?? body["value"] }),
  "/engine/oil": engineOil,
  "/tires/pressure": tirePressure
}

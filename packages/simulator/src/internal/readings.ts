/**
 * The time-dependent values of a vehicle: its readings as of its last report,
 * the status of each signal, and the v3 body of a signal.
 *
 * @internal
 */
import type { Signal } from "@connected-vehicle/schema"
import type { Region } from "@connected-vehicle/schema/Common"
import type { Readings, VehicleInfo } from "../Data.ts"
import { DAY, EPOCH, hash, round, unit } from "./seeded.ts"

const cities: ReadonlyArray<Readonly<Record<Region, readonly [number, number]>>> = [
  { US: [37.7749, -122.4194], CA: [43.6532, -79.3832], EUROPE: [52.52, 13.405] },
  { US: [40.7128, -74.006], CA: [49.2827, -123.1207], EUROPE: [48.8566, 2.3522] },
  { US: [41.8781, -87.6298], CA: [45.5017, -73.5673], EUROPE: [45.4642, 9.19] },
  { US: [30.2672, -97.7431], CA: [51.0447, -114.0719], EUROPE: [59.3293, 18.0686] }
]

/** How often a vehicle reports (ms): every five minutes, at its own offset. */
const REPORT_PERIOD = 300_000

/** @internal */
export const readings = (seed: number, v: VehicleInfo, now: number): Readings => {
  const i = v.index
  const since = (now - (hash(seed, 70, i) % (REPORT_PERIOD / 1000)) * 1000) % REPORT_PERIOD
  const reported = now - (since < 0 ? since + REPORT_PERIOD : since)
  const phase = unit(seed, 61, i) * 2 * Math.PI
  const days = reported / DAY
  const age = Math.max(0, 2025 - v.year) + 0.5
  const kmPerDay = 25 + (hash(seed, 62, i) % 40)
  const odometerKm = round(age * 365 * kmPerDay * 0.8 + Math.max(0, days - EPOCH / DAY) * kmPerDay + (hash(seed, 63, i) % 5000), 2)
  const city = cities[hash(seed, 64, i) % cities.length]![v.model.region]
  const wander = (days * 3 + phase) % (2 * Math.PI)
  const latitude = round(city[0] + 0.05 * Math.sin(wander) + (unit(seed, 65, i) - 0.5) * 0.2, 6)
  const longitude = round(city[1] + 0.05 * Math.cos(wander) + (unit(seed, 66, i) - 0.5) * 0.2, 6)
  const cycle = (Math.sin(days * 2 * Math.PI / 3 + phase) + 1) / 2
  const stateOfCharge = round(20 + 75 * cycle, 1)
  const capacityKm = v.model.powertrainType === "PHEV" ? 60 : 380 + (hash(seed, 67, i) % 180)
  const charging = Math.cos(days * 2 * Math.PI / 3 + phase) > 0.6
  const fuelLevel = round(15 + 80 * ((Math.sin(days * 2 * Math.PI / 7 + phase) + 1) / 2), 1)
  const oilLife = round(1 - ((odometerKm % 12000) / 12000), 3)
  const baseKpa = 230 + (hash(seed, 68, i) % 25)
  const tire = (k: number) => round(baseKpa + 4 * Math.sin(days * 2 * Math.PI + phase + k) - (hash(seed, 69, i, k) % 9), 1)
  const region = v.model.region
  const climate = region === "CA" ? 6 : region === "EUROPE" ? 11 : 17
  const exteriorCelsius = round(climate + 8 * Math.sin((days % 1) * 2 * Math.PI - Math.PI / 2 + phase / 4), 1)
  return {
    odometerKm,
    latitude,
    longitude,
    heading: Math.round(((wander * 180) / Math.PI) % 360),
    stateOfCharge,
    rangeKm: round(capacityKm * stateOfCharge / 100, 1),
    chargeVoltage: charging ? round(238 + 4 * Math.sin(reported / 60_000 + phase), 1) : 0,
    chargingCurrent: charging ? round(28 + 3 * Math.sin(reported / 90_000 + phase), 1) : 0,
    fuelLevel,
    oilLife: Math.min(1, Math.max(0, oilLife)),
    tiresKpa: [tire(0), tire(1), tire(2), tire(3)],
    exteriorCelsius,
    isLocked: Math.sin(days * 2 * Math.PI * 2 + phase) > -0.3,
    isOnline: v.mode === "simulated" || Math.sin(days * 2 * Math.PI * 5 + phase) > -0.8,
    updatedAt: reported
  }
}

/** @internal */
export const signalStatus = (
  seed: number,
  vehicleIndex: number,
  signalIndex: number
): { readonly value: "SUCCESS" | "ERROR" | "UNAVAILABLE"; readonly error?: Signal.SignalError } => {
  const roll = vehicleIndex === 0 && signalIndex <= 2
    ? [99, 3, 10][signalIndex]!
    : hash(seed, 71, vehicleIndex, signalIndex) % 100
  if (roll < 4) {
    return {
      value: "ERROR",
      error: {
        type: "AUTHENTICATION",
        code: "VEHICLE_AUTHENTICATION_EXPIRED",
        title: "Reauthentication Required",
        detail: "The owner's connected-services credentials expired; ask the user to reconnect the vehicle.",
        resolution: { type: "REAUTHENTICATE" },
        description: "The vehicle maker rejected the stored credentials."
      }
    }
  }
  if (roll < 8) {
    return {
      value: "ERROR",
      error: {
        type: "VEHICLE_STATE",
        code: "ASLEEP",
        title: "Vehicle Asleep",
        detail: "The vehicle did not wake up to answer; try again later.",
        resolution: { type: "RETRY_LATER" },
        message: "Vehicle is asleep"
      }
    }
  }
  if (roll < 14) return { value: "UNAVAILABLE" }
  return { value: "SUCCESS" }
}

/** @internal */
export const signalBody = (code: string, r: Readings, v: VehicleInfo): Record<string, unknown> => {
  switch (code) {
    case "odometer-traveleddistance":
      return { unit: "km", value: r.odometerKm }
    case "location-preciselocation":
      return { latitude: r.latitude, longitude: r.longitude, heading: r.heading }
    case "vehicleidentification-vin":
      return { vin: v.vin }
    case "tractionbattery-stateofcharge":
      return { unit: "percent", value: r.stateOfCharge }
    case "tractionbattery-range":
      return { unit: "km", value: r.rangeKm }
    case "charge-voltage":
      return { unit: "volts", value: r.chargeVoltage }
    case "charge-chargingcurrent":
      return { unit: "amperes", value: r.chargingCurrent }
    case "internalcombustionengine-fuellevel":
      return { unit: "percent", value: r.fuelLevel }
    case "internalcombustionengine-oillife":
      return { unit: "percent", value: round(r.oilLife * 100, 1) }
    case "wheel-tirepressures":
      return { unit: "kPa", frontLeft: r.tiresKpa[0], frontRight: r.tiresKpa[1], backLeft: r.tiresKpa[2], backRight: r.tiresKpa[3] }
    case "climate-exteriortemperature":
      return { unit: "celsius", value: r.exteriorCelsius }
    case "closure-islocked":
      return { isLocked: r.isLocked }
    case "connectivitystatus-isonline":
      return { isOnline: r.isOnline }
    default:
      return {}
  }
}

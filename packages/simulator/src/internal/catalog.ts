/**
 * The catalogs: the signals the simulator knows, the commands, and the
 * make/model/powertrain/region entries (the compatibility listing, and what
 * seeded vehicles are drawn from).
 *
 * @internal
 */
import type { Compatibility } from "@connected-vehicle/schema"
import { PowertrainFilter, powertrainsOf } from "@connected-vehicle/schema/Common"
import type { PowertrainType, Region } from "@connected-vehicle/schema/Common"
import { compatibilityId } from "@connected-vehicle/schema/Compatibility"
import type { Permission } from "@connected-vehicle/schema/OAuth"
import { Permission as PermissionSchema } from "@connected-vehicle/schema/OAuth"
import { Schema } from "effect"
import type { ModelEntry, SignalDefinition } from "../Data.ts"

const ALL: ReadonlyArray<PowertrainType> = ["ICE", "BEV", "PHEV"]
const EV: ReadonlyArray<PowertrainType> = ["BEV", "PHEV"]
const FUEL: ReadonlyArray<PowertrainType> = ["ICE", "PHEV"]

/** @internal */
export const signalCatalog: ReadonlyArray<SignalDefinition> = [
  { code: "odometer-traveleddistance", name: "Traveled Distance", group: "Odometer", permission: "read_odometer", capability: "read_odometer", powertrains: ALL },
  { code: "location-preciselocation", name: "Precise Location", group: "Location", permission: "read_location", capability: "read_location", powertrains: ALL },
  { code: "vehicleidentification-vin", name: "VIN", group: "VehicleIdentification", permission: "read_vin", capability: "read_vin", powertrains: ALL },
  { code: "tractionbattery-stateofcharge", name: "State Of Charge", group: "TractionBattery", permission: "read_battery", capability: "read_battery", powertrains: EV },
  { code: "tractionbattery-range", name: "Range", group: "TractionBattery", permission: "read_battery", capability: "read_battery", powertrains: EV },
  { code: "charge-voltage", name: "Charge Voltage", group: "Charge", permission: "read_battery", capability: "read_charge", powertrains: EV },
  { code: "charge-chargingcurrent", name: "Charging Current", group: "Charge", permission: "read_battery", capability: "read_charge", powertrains: EV },
  { code: "internalcombustionengine-fuellevel", name: "Fuel Level", group: "InternalCombustionEngine", permission: "read_vehicle_info", capability: "read_fuel", powertrains: FUEL },
  { code: "internalcombustionengine-oillife", name: "Oil Life", group: "InternalCombustionEngine", permission: "read_engine_oil", capability: "read_engine_oil", powertrains: FUEL },
  { code: "wheel-tirepressures", name: "Tire Pressures", group: "Wheel", permission: "read_tires", capability: "read_tires", powertrains: ALL },
  { code: "climate-exteriortemperature", name: "Exterior Temperature", group: "Climate", permission: "read_vehicle_info", capability: "read_climate", powertrains: ALL },
  { code: "closure-islocked", name: "Is Locked", group: "Closure", permission: "read_vehicle_info", capability: "read_security", powertrains: ALL },
  { code: "connectivitystatus-isonline", name: "Is Online", group: "ConnectivityStatus", permission: "read_vehicle_info", capability: "read_connectivity", powertrains: ALL }
]

const commandCatalog = [
  { code: "charge-start", name: "Start Charging", capability: "control_charge", powertrains: EV },
  { code: "charge-stop", name: "Stop Charging", capability: "control_charge", powertrains: EV },
  { code: "closure-lock", name: "Lock Doors", capability: "control_security", powertrains: ALL },
  { code: "closure-unlock", name: "Unlock Doors", capability: "control_security", powertrains: ALL },
  { code: "navigation-setdestination", name: "Set Navigation Destination", capability: "control_navigation", powertrains: ALL }
] as const

const models: ReadonlyArray<
  readonly [make: string, model: string, powertrain: PowertrainType, start: number, end: number, regions: ReadonlyArray<Region>]
> = [
  ["Tesla", "Model 3", "BEV", 2017, 2025, ["US", "CA", "EUROPE"]],
  ["Tesla", "Model Y", "BEV", 2020, 2025, ["US", "CA", "EUROPE"]],
  ["Ford", "F-150", "ICE", 2015, 2025, ["US", "CA"]],
  ["Ford", "F-150 Lightning", "BEV", 2022, 2025, ["US", "CA"]],
  ["Ford", "Mustang Mach-E", "BEV", 2021, 2025, ["US", "CA", "EUROPE"]],
  ["Ford", "Escape", "PHEV", 2020, 2024, ["US"]],
  ["Lincoln", "Aviator", "PHEV", 2020, 2025, ["US"]],
  ["Toyota", "RAV4", "ICE", 2019, 2025, ["US", "CA", "EUROPE"]],
  ["Toyota", "RAV4 Prime", "PHEV", 2021, 2025, ["US"]],
  ["Toyota", "Prius", "ICE", 2016, 2024, ["US", "CA"]],
  ["Lexus", "RX", "ICE", 2016, 2025, ["US"]],
  ["Mazda", "CX-5", "ICE", 2017, 2025, ["US", "CA"]],
  ["Mazda", "MX-30", "BEV", 2021, 2023, ["US"]],
  ["Volkswagen", "ID.4", "BEV", 2021, 2025, ["US", "EUROPE"]],
  ["Volkswagen", "Golf", "ICE", 2015, 2024, ["EUROPE"]],
  ["BMW", "i4", "BEV", 2022, 2025, ["US", "EUROPE"]],
  ["BMW", "X5", "PHEV", 2019, 2025, ["US", "EUROPE"]],
  ["Hyundai", "Ioniq 5", "BEV", 2022, 2025, ["US", "CA", "EUROPE"]],
  ["Kia", "EV6", "BEV", 2022, 2025, ["US", "CA"]],
  ["Chevrolet", "Bolt EV", "BEV", 2017, 2023, ["US", "CA"]],
  ["Nissan", "Leaf", "BEV", 2018, 2024, ["US", "CA", "EUROPE"]],
  ["Volvo", "XC60", "PHEV", 2018, 2025, ["US", "EUROPE"]],
  ["Rivian", "R1T", "BEV", 2022, 2025, ["US"]]
]

/** @internal */
export const modelCatalog: ReadonlyArray<ModelEntry> = models.flatMap(([make, model, powertrainType, start, end, regions]) =>
  regions.map((region): ModelEntry => {
    const signals = signalCatalog.filter((s) => s.powertrains.includes(powertrainType))
    const id = compatibilityId({ make, model, start, end, powertrainType, region })
    const capabilities: Array<Compatibility.Capability> = [
      ...signals.map((s) => ({
        type: "signal" as const,
        name: s.name,
        group: s.group,
        code: s.code,
        capability: s.capability,
        permission: s.permission
      })),
      ...commandCatalog.filter((c) => c.powertrains.includes(powertrainType)).map((c) => ({
        type: "command" as const,
        name: c.name,
        group: "",
        code: c.code,
        capability: c.capability,
        permission: ""
      }))
    ]
    return {
      make,
      model,
      powertrainType,
      region,
      start,
      end,
      signals,
      id,
      entry: {
        id,
        type: "vehicle-model-capability",
        attributes: { make, model, region, powertrainType, years: { start, end }, capabilities }
      }
    }
  })
)

type FilterInput = string | ReadonlyArray<string> | undefined

/** Whether every value of a filter holds (no value: it holds). */
const holds = (input: FilterInput, test: (value: string) => boolean) =>
  input === undefined || (typeof input === "string" ? test(input) : input.every(test))

const isPowertrainFilter = Schema.is(PowertrainFilter)

/** @internal */
export const compatibleModels = (filter: {
  readonly region?: FilterInput
  readonly make?: FilterInput
  readonly powertrainType?: FilterInput
}): ReadonlyArray<Compatibility.CompatibilityEntry> =>
  modelCatalog
    .filter((m) =>
      holds(filter.region, (region) => region === m.region) &&
      holds(filter.make, (make) => make.trim().toLowerCase() === m.make.toLowerCase()) &&
      holds(filter.powertrainType, (p) => isPowertrainFilter(p) && powertrainsOf(p).includes(m.powertrainType))
    )
    .map((m) => m.entry)

/** @internal */
export const serviceHistoryMakes: ReadonlyArray<string> = ["Ford", "Lincoln", "Toyota", "Lexus", "Mazda", "Volkswagen"]

/** @internal */
export const allPermissions: ReadonlyArray<Permission> = PermissionSchema.literals

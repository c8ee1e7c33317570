/**
 * The seeded dataset: catalog of vehicle models (which is also the
 * compatibility listing), vehicles, users, connections, subscriptions and
 * webhooks, plus the time-dependent signal and legacy values.
 *
 * Nothing here is built as a big object graph: vehicles and their attributes
 * are pure functions of `(seed, index)`, connections and subscriptions are a
 * few typed arrays, and identifiers embed their index so that a lookup by id
 * needs no map. 100,000 connections cost a few megabytes and milliseconds.
 *
 * @since 0.1.0
 */
import type { Compatibility, Legacy, Signal } from "@connected-vehicle/schema"
import { powertrainsOf } from "@connected-vehicle/schema/Common"
import type { Mode, PowertrainFilter, PowertrainType, Region } from "@connected-vehicle/schema/Common"
import { compatibilityId } from "@connected-vehicle/schema/Compatibility"
import type { Permission } from "@connected-vehicle/schema/OAuth"
import { Permission as PermissionSchema } from "@connected-vehicle/schema/OAuth"

// ---------------------------------------------------------------------------
// Hashing and ids
// ---------------------------------------------------------------------------

/**
 * A 32-bit mixing hash of a few integers (murmur3 finaliser per step).
 *
 * @since 0.1.0
 */
export const hash = (...parts: ReadonlyArray<number>): number => {
  let h = 0x9e3779b9
  for (const part of parts) {
    h = Math.imul(h ^ (part | 0), 0x85ebca6b)
    h ^= h >>> 13
    h = Math.imul(h, 0xc2b2ae35)
    h ^= h >>> 16
    h = (h + 0x6b43a9b5) | 0
  }
  h ^= h >>> 15
  h = Math.imul(h, 0x2c1b3c6d)
  h ^= h >>> 12
  return h >>> 0
}

/** A number in [0, 1) from a hash. */
const unit = (...parts: ReadonlyArray<number>): number => hash(...parts) / 4294967296

/**
 * A small seeded PRNG (mulberry32), used for run-wide fault decisions.
 *
 * @since 0.1.0
 */
export const prng = (seed: number): () => number => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const hex = (n: number, width: number) => (n >>> 0).toString(16).padStart(8, "0").slice(8 - width)

const Kind = { vehicle: 1, user: 2, connection: 3, subscription: 4, webhook: 5 } as const
type Kind = keyof typeof Kind

/** A UUID-shaped id whose last 8 hex digits carry the index (masked by the seed). */
const makeId = (seed: number, kind: Kind, index: number): string => {
  const k = Kind[kind]
  const a = hash(seed, k, index, 1)
  const b = hash(seed, k, index, 2)
  const mask = hash(seed, k, 0x5eed)
  return `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b, 3)}-${(8 + (a & 3)).toString(16)}${hex(a >>> 8, 3)}-${
    hex(b >>> 4, 4)
  }${hex((index ^ mask) >>> 0, 8)}`
}

const idPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** The index an id stands for, or -1. */
const parseId = (seed: number, kind: Kind, count: number, id: string): number => {
  if (id.length !== 36 || !idPattern.test(id)) return -1
  const mask = hash(seed, Kind[kind], 0x5eed)
  const index = (parseInt(id.slice(28), 16) ^ mask) >>> 0
  return index < count && makeId(seed, kind, index) === id ? index : -1
}

// ---------------------------------------------------------------------------
// Catalogs
// ---------------------------------------------------------------------------

/**
 * A signal the simulator knows, with how its value behaves.
 *
 * @since 0.1.0
 */
export interface SignalDefinition {
  readonly code: string
  readonly name: string
  readonly group: string
  readonly permission: Permission
  readonly capability: string
  readonly powertrains: ReadonlyArray<PowertrainType>
}

const ALL: ReadonlyArray<PowertrainType> = ["ICE", "BEV", "PHEV"]
const EV: ReadonlyArray<PowertrainType> = ["BEV", "PHEV"]
const FUEL: ReadonlyArray<PowertrainType> = ["ICE", "PHEV"]

/**
 * The signal catalog.
 *
 * @since 0.1.0
 */
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

/**
 * One make/model/powertrain/region combination: a compatibility entry, and
 * what seeded vehicles are drawn from.
 *
 * @since 0.1.0
 */
export interface ModelEntry {
  readonly make: string
  readonly model: string
  readonly powertrainType: PowertrainType
  readonly region: Region
  readonly start: number
  readonly end: number
  readonly signals: ReadonlyArray<SignalDefinition>
  readonly id: string
  readonly entry: Compatibility.CompatibilityEntry
}

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

/**
 * Every model entry, in listing order (make, model, region).
 *
 * @since 0.1.0
 */
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

/**
 * Filters the compatibility listing (make is case-insensitive, `EV` is BEV + PHEV).
 *
 * @since 0.1.0
 */
export const compatibleModels = (filter: {
  readonly region?: Region | undefined
  readonly make?: string | undefined
  readonly powertrainType?: PowertrainFilter | undefined
}): ReadonlyArray<Compatibility.CompatibilityEntry> => {
  const make = filter.make?.trim().toLowerCase()
  const powertrains = filter.powertrainType === undefined ? undefined : powertrainsOf(filter.powertrainType)
  return modelCatalog
    .filter((m) =>
      (filter.region === undefined || m.region === filter.region) &&
      (make === undefined || m.make.toLowerCase() === make) &&
      (powertrains === undefined || powertrains.includes(m.powertrainType))
    )
    .map((m) => m.entry)
}

/**
 * Makes (in the US) whose service history the legacy interface answers.
 *
 * @since 0.1.0
 */
export const serviceHistoryMakes: ReadonlyArray<string> = ["Ford", "Lincoln", "Toyota", "Lexus", "Mazda", "Volkswagen"]

/**
 * Every permission of section 5.
 *
 * @since 0.1.0
 */
export const allPermissions: ReadonlyArray<Permission> = PermissionSchema.literals

// ---------------------------------------------------------------------------
// The dataset
// ---------------------------------------------------------------------------

/**
 * Sizes of the dataset.
 *
 * @since 0.1.0
 */
export interface DatasetOptions {
  readonly seed: number
  readonly vehicles: number
  readonly users: number
  readonly webhooks: number
  readonly connections: number
}

/**
 * A seeded vehicle (computed on demand).
 *
 * @since 0.1.0
 */
export interface VehicleInfo {
  readonly index: number
  readonly id: string
  readonly model: ModelEntry
  readonly year: number
  readonly mode: Mode
  readonly vin: string
}

/**
 * A seeded user.
 *
 * @since 0.1.0
 */
export interface UserInfo {
  readonly index: number
  readonly id: string
  readonly externalId: string
}

/**
 * A seeded webhook.
 *
 * @since 0.1.0
 */
export interface WebhookInfo {
  readonly index: number
  readonly id: string
  readonly name: string
  readonly callbackUri: string
  readonly errorCallbackUri: string
  readonly isEnabled: boolean
  readonly autoSubscribe: boolean
  readonly triggers: ReadonlyArray<SignalDefinition>
  readonly data: ReadonlyArray<SignalDefinition>
  readonly createdAt: number
}

/** The v3 launch date: seeded records are dated before it. */
const EPOCH = Date.UTC(2025, 7, 26)
const DAY = 86_400_000

const vinChars = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
const wmi: Readonly<Record<string, string>> = {
  Tesla: "5YJ",
  Ford: "1FT",
  Lincoln: "5LM",
  Toyota: "JTM",
  Lexus: "2T2",
  Mazda: "JM3",
  Volkswagen: "WVW",
  BMW: "WBA",
  Hyundai: "KM8",
  Kia: "KNA",
  Chevrolet: "1G1",
  Nissan: "1N4",
  Volvo: "YV4",
  Rivian: "7FC"
}

const webhookNames = [
  "Fleet Telemetry",
  "Battery Alerts",
  "Trip Logger",
  "Maintenance Reminders",
  "Charging Sessions",
  "Geofence Events",
  "Fuel Monitor",
  "Security Watch",
  "Usage Billing",
  "Insurance Score",
  "Dealer Sync",
  "Analytics Export"
]

/**
 * The seeded dataset.
 *
 * @since 0.1.0
 */
export interface Dataset {
  readonly options: DatasetOptions
  readonly vehicleCount: number
  readonly vehicle: (index: number) => VehicleInfo
  readonly vehicleIndex: (id: string) => number
  readonly user: (index: number) => UserInfo
  readonly userIndex: (id: string) => number
  readonly users: ReadonlyArray<UserInfo>
  readonly webhooks: ReadonlyArray<WebhookInfo>
  readonly webhookIndex: (id: string) => number
  /** Connection `i` connects vehicle `i` to user `connectionUser[i]`; index order is createdAt DESC. */
  readonly connectionCount: number
  readonly connectionUser: Int32Array
  readonly connectionId: (index: number) => string
  readonly connectionIndex: (id: string) => number
  readonly connectionCreatedAt: (index: number) => number
  readonly connectionUpdatedAt: (index: number) => number
  readonly connectionPermissions: (index: number) => ReadonlyArray<Permission>
  /** Vehicle indexes of a user's connections. */
  readonly vehiclesOfUser: (userIndex: number) => Int32Array
  /** Subscription `i` belongs to connection `i` and webhook `subscriptionWebhook[i]` (-1: none). */
  readonly subscriptionCount: number
  readonly subscriptionWebhook: Int32Array
  readonly subscriptionId: (index: number) => string
  readonly subscriptionIndex: (id: string) => number
  readonly subscriptionCreatedAt: (index: number) => number
  readonly vehicleMode: Uint8Array
}

/**
 * Builds the dataset of a seed.
 *
 * @since 0.1.0
 */
export const makeDataset = (options: DatasetOptions): Dataset => {
  const { seed } = options
  const connectionCount = Math.max(0, Math.floor(options.connections))
  const userCount = Math.max(1, Math.floor(options.users))
  const vehicleCount = Math.max(connectionCount, Math.floor(options.vehicles), 1)
  const webhookCount = Math.max(0, Math.floor(options.webhooks))

  const vehicleMode = new Uint8Array(vehicleCount)
  for (let i = 0; i < vehicleCount; i++) vehicleMode[i] = unit(seed, 11, i) < 0.2 ? 1 : 0

  const vehicle = (index: number): VehicleInfo => {
    const model = modelCatalog[hash(seed, 12, index) % modelCatalog.length]!
    const year = model.start + (hash(seed, 13, index) % (model.end - model.start + 1))
    let vin = (wmi[model.make] ?? "1XX").padEnd(3, "X")
    for (let k = 0; vin.length < 17; k++) {
      vin += k === 6 ? "ABCDEFGHJKLMNPRSTVWXY123456789"[(year - 2001 + 30) % 30] : vinChars[hash(seed, 14, index, k) % vinChars.length]
    }
    return { index, id: makeId(seed, "vehicle", index), model, year, mode: vehicleMode[index] === 1 ? "simulated" : "live", vin }
  }

  const users: Array<UserInfo> = []
  for (let i = 0; i < userCount; i++) {
    users.push({
      index: i,
      id: makeId(seed, "user", i),
      externalId: `customer-${String(1000 + (hash(seed, 21, i) % 9000)).padStart(4, "0")}-${i}`
    })
  }

  // Connection i: vehicle i. Every user gets one before any gets two.
  const connectionUser = new Int32Array(connectionCount)
  for (let i = 0; i < connectionCount; i++) connectionUser[i] = i < userCount ? i : hash(seed, 31, i) % userCount
  const perUserCount = new Int32Array(userCount)
  for (let i = 0; i < connectionCount; i++) perUserCount[connectionUser[i]!]!++
  const perUserOffsets = new Int32Array(userCount + 1)
  for (let u = 0; u < userCount; u++) perUserOffsets[u + 1] = perUserOffsets[u]! + perUserCount[u]!
  const perUserVehicles = new Int32Array(connectionCount)
  const fill = perUserOffsets.slice(0, userCount)
  for (let i = 0; i < connectionCount; i++) perUserVehicles[fill[connectionUser[i]!]!++] = i

  // Newest first: spread over at most a year before the epoch.
  const step = Math.min(37 * 60_000, Math.floor((365 * DAY) / Math.max(1, connectionCount)))
  const connectionCreatedAt = (index: number) => EPOCH - (index + 1) * step - (hash(seed, 32, index) % Math.max(1, step))
  const connectionUpdatedAt = (index: number) =>
    Math.min(EPOCH, connectionCreatedAt(index) + (hash(seed, 33, index) % (30 * DAY)))
  const connectionPermissions = (index: number): ReadonlyArray<Permission> => {
    const bits = hash(seed, 34, index)
    return allPermissions.filter((p, k) => p === "read_vehicle_info" || p === "read_odometer" || ((bits >>> k) & 1) === 1)
  }

  const webhooks: Array<WebhookInfo> = []
  for (let i = 0; i < webhookCount; i++) {
    const name = webhookNames[i % webhookNames.length]! + (i >= webhookNames.length ? ` ${Math.floor(i / webhookNames.length) + 1}` : "")
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-")
    const host = ["hooks.example.com", "api.fleetops.example", "events.acme-mobility.example"][hash(seed, 41, i) % 3]
    const pick = (salt: number, n: number) => {
      const start = hash(seed, salt, i) % signalCatalog.length
      return Array.from({ length: n }, (_, k) => signalCatalog[(start + k * 3) % signalCatalog.length]!)
    }
    webhooks.push({
      index: i,
      id: makeId(seed, "webhook", i),
      name,
      callbackUri: `https://${host}/webhooks/${slug}`,
      errorCallbackUri: `https://${host}/webhooks/${slug}/errors`,
      isEnabled: i % 4 !== 3,
      autoSubscribe: i % 3 === 0,
      triggers: pick(42, 1 + (hash(seed, 43, i) % 2)),
      data: pick(44, 2 + (hash(seed, 45, i) % 3)),
      createdAt: EPOCH - (i + 1) * 3 * DAY - (hash(seed, 46, i) % DAY)
    })
  }

  // Subscription i belongs to connection i (same order, createdAt DESC).
  const subscriptionWebhook = new Int32Array(webhookCount === 0 ? 0 : connectionCount)
  for (let i = 0; i < subscriptionWebhook.length; i++) subscriptionWebhook[i] = hash(seed, 51, i) % webhookCount

  return {
    options,
    vehicleCount,
    vehicle,
    vehicleIndex: (id) => parseId(seed, "vehicle", vehicleCount, id),
    user: (index) => users[index]!,
    userIndex: (id) => parseId(seed, "user", userCount, id),
    users,
    webhooks,
    webhookIndex: (id) => parseId(seed, "webhook", webhookCount, id),
    connectionCount,
    connectionUser,
    connectionId: (index) => makeId(seed, "connection", index),
    connectionIndex: (id) => parseId(seed, "connection", connectionCount, id),
    connectionCreatedAt,
    connectionUpdatedAt,
    connectionPermissions,
    vehiclesOfUser: (userIndex) => perUserVehicles.subarray(perUserOffsets[userIndex]!, perUserOffsets[userIndex + 1]!),
    subscriptionCount: subscriptionWebhook.length,
    subscriptionWebhook,
    subscriptionId: (index) => makeId(seed, "subscription", index),
    subscriptionIndex: (id) => parseId(seed, "subscription", subscriptionWebhook.length, id),
    subscriptionCreatedAt: (index) => connectionCreatedAt(index) + 60_000 + (hash(seed, 52, index) % 600_000),
    vehicleMode
  }
}

// ---------------------------------------------------------------------------
// Time-dependent values
// ---------------------------------------------------------------------------

/**
 * The readings of a vehicle as of its last report (simulated time, ms since
 * epoch; a vehicle reports every five minutes). Values drift smoothly: the
 * odometer only grows, charge and fuel cycle over days, temperature follows
 * the day, the location wanders around a home spot.
 *
 * @since 0.1.0
 */
export interface Readings {
  readonly odometerKm: number
  readonly latitude: number
  readonly longitude: number
  readonly heading: number
  readonly stateOfCharge: number
  readonly rangeKm: number
  readonly chargeVoltage: number
  readonly chargingCurrent: number
  readonly fuelLevel: number
  readonly oilLife: number
  readonly tiresKpa: readonly [number, number, number, number]
  readonly exteriorCelsius: number
  readonly isLocked: boolean
  readonly isOnline: boolean
  /** When the vehicle last reported (ms). */
  readonly updatedAt: number
}

const cities: ReadonlyArray<Readonly<Record<Region, readonly [number, number]>>> = [
  { US: [37.7749, -122.4194], CA: [43.6532, -79.3832], EUROPE: [52.52, 13.405] },
  { US: [40.7128, -74.006], CA: [49.2827, -123.1207], EUROPE: [48.8566, 2.3522] },
  { US: [41.8781, -87.6298], CA: [45.5017, -73.5673], EUROPE: [45.4642, 9.19] },
  { US: [30.2672, -97.7431], CA: [51.0447, -114.0719], EUROPE: [59.3293, 18.0686] }
]

const round = (value: number, digits: number) => {
  const f = 10 ** digits
  return Math.round(value * f) / f
}

/** How often a vehicle reports (ms): every five minutes, at its own offset. */
const REPORT_PERIOD = 300_000

/**
 * Readings of vehicle `v` as of its last report at or before `now`: every
 * value is the one at that instant (`updatedAt`), so two reads between two
 * reports answer the same datum, whichever API or endpoint they go through.
 *
 * @since 0.1.0
 */
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

/**
 * The status of a signal on a vehicle: mostly SUCCESS, some ERROR (with a
 * resolution), some UNAVAILABLE. Vehicle 0 always has one of each.
 *
 * @since 0.1.0
 */
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

/**
 * The `attributes.body` of a signal from the readings.
 *
 * @since 0.1.0
 */
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

const KM_PER_MILE = 1.609344
const KPA_PER_PSI = 6.894757

/**
 * The body of a legacy read endpoint, in the unit system asked for.
 *
 * @since 0.1.0
 */
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

/**
 * The v3 signal that holds the datum of each legacy read (the migration
 * guide's table): a reading set on that signal is what the legacy read answers.
 *
 * @since 0.2.0
 */
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

/**
 * The body of a legacy read from a reading set on its v3 signal
 * ({@link legacySignalCode}), in the unit system asked for; undefined when the
 * reading does not hold what the legacy body needs (the read then keeps its
 * generated value).
 *
 * @example
 * ```ts
 * import { legacyBodyOfReading } from "@connected-vehicle/simulator/Data"
 *
 * legacyBodyOfReading("/odometer", { unit: "km", value: 1609.344 }, true) // { distance: 1000 }
 * ```
 * @since 0.2.0
 */
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
    case "/vin":
      return typeof body["vin"] === "string" ? { vin: body["vin"] } : undefined
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

/**
 * The encoded service history of a vehicle (newest first; odometer in km or miles).
 *
 * @since 0.1.0
 */
export const serviceHistory = (seed: number, v: VehicleInfo, imperial: boolean): ReadonlyArray<{
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
      odometerDistance: imperial ? round(km / KM_PER_MILE, 1) : km,
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

/**
 * Whether the legacy service history is answered for a vehicle.
 *
 * @since 0.1.0
 */
export const supportsServiceHistory = (v: VehicleInfo): boolean =>
  v.model.region === "US" && serviceHistoryMakes.includes(v.model.make)

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
import type { Compatibility } from "@connected-vehicle/schema"
import type { Mode, PowertrainType, Region } from "@connected-vehicle/schema/Common"
import type { Permission } from "@connected-vehicle/schema/OAuth"
import * as catalog from "./internal/catalog.ts"
import * as dataset from "./internal/dataset.ts"
import * as legacy from "./internal/legacyReadings.ts"
import * as values from "./internal/readings.ts"
import * as seeded from "./internal/seeded.ts"

// --- Hashing ---

/**
 * A 32-bit mixing hash of a few integers (murmur3 finaliser per step).
 *
 * @example
 * ```ts
 * import { hash } from "@connected-vehicle/simulator/Data"
 *
 * const bucket = hash(42, 7, 3) % 100 // the same for the same parts
 * ```
 * @since 0.1.0
 * @category utils
 */
export const hash: (...parts: ReadonlyArray<number>) => number = seeded.hash

/**
 * A small seeded PRNG (mulberry32), used for run-wide fault decisions.
 *
 * @example
 * ```ts
 * import { prng } from "@connected-vehicle/simulator/Data"
 *
 * const random = prng(42)
 * const fails = random() < 0.1
 * ```
 * @since 0.1.0
 * @category utils
 */
export const prng: (seed: number) => () => number = seeded.prng

// --- Catalogs ---

/**
 * A signal the simulator knows, with how its value behaves.
 *
 * @example
 * ```ts
 * import { signalCatalog } from "@connected-vehicle/simulator/Data"
 * import type { SignalDefinition } from "@connected-vehicle/simulator/Data"
 *
 * const odometer: SignalDefinition | undefined = signalCatalog.find((s) => s.code === "odometer-traveleddistance")
 * ```
 * @since 0.1.0
 * @category models
 */
export interface SignalDefinition {
  readonly code: string
  readonly name: string
  readonly group: string
  readonly permission: Permission
  readonly capability: string
  readonly powertrains: ReadonlyArray<PowertrainType>
}

/**
 * The signal catalog.
 *
 * @example
 * ```ts
 * import { signalCatalog } from "@connected-vehicle/simulator/Data"
 *
 * const codes = signalCatalog.map((signal) => signal.code)
 * ```
 * @since 0.1.0
 * @category catalog
 */
export const signalCatalog: ReadonlyArray<SignalDefinition> = catalog.signalCatalog

/**
 * One make/model/powertrain/region combination: a compatibility entry, and
 * what seeded vehicles are drawn from.
 *
 * @example
 * ```ts
 * import { modelCatalog } from "@connected-vehicle/simulator/Data"
 * import type { ModelEntry } from "@connected-vehicle/simulator/Data"
 *
 * const electric: ReadonlyArray<ModelEntry> = modelCatalog.filter((m) => m.powertrainType === "BEV")
 * ```
 * @since 0.1.0
 * @category models
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

/**
 * Every model entry, in listing order (make, model, region).
 *
 * @example
 * ```ts
 * import { modelCatalog } from "@connected-vehicle/simulator/Data"
 *
 * const makes = new Set(modelCatalog.map((m) => m.make))
 * ```
 * @since 0.1.0
 * @category catalog
 */
export const modelCatalog: ReadonlyArray<ModelEntry> = catalog.modelCatalog

/**
 * Filters the compatibility listing as the service does (section 4.5): make
 * case-insensitive (surrounding spaces ignored), region and powertrain type
 * spelled exactly, `EV` = BEV + PHEV. A value outside the allowed ones
 * matches nothing; several values of one filter (a repeated parameter) must
 * all hold.
 *
 * @example
 * ```ts
 * import { compatibleModels } from "@connected-vehicle/simulator/Data"
 *
 * const usElectric = compatibleModels({ region: "US", powertrainType: "EV" })
 * const none = compatibleModels({ region: "MARS" }) // []
 * ```
 * @since 0.1.0
 * @category catalog
 */
export const compatibleModels = catalog.compatibleModels

/**
 * Makes (in the US) whose service history the legacy interface answers.
 *
 * @example
 * ```ts
 * import { serviceHistoryMakes } from "@connected-vehicle/simulator/Data"
 *
 * const hasHistory = (make: string) => serviceHistoryMakes.includes(make)
 * ```
 * @since 0.1.0
 * @category catalog
 */
export const serviceHistoryMakes: ReadonlyArray<string> = catalog.serviceHistoryMakes

/**
 * Every permission of section 5.
 *
 * @example
 * ```ts
 * import { allPermissions } from "@connected-vehicle/simulator/Data"
 *
 * const scope = allPermissions.join(" ")
 * ```
 * @since 0.1.0
 * @category catalog
 */
export const allPermissions: ReadonlyArray<Permission> = catalog.allPermissions


// --- The dataset ---

/**
 * Sizes of the dataset.
 *
 * @example
 * ```ts
 * import { makeDataset } from "@connected-vehicle/simulator/Data"
 * import type { DatasetOptions } from "@connected-vehicle/simulator/Data"
 *
 * const options: DatasetOptions = { seed: 42, vehicles: 100, users: 10, webhooks: 2, connections: 100 }
 * const data = makeDataset(options)
 * ```
 * @since 0.1.0
 * @category models
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
 * @example
 * ```ts
 * import { makeDataset } from "@connected-vehicle/simulator/Data"
 * import type { VehicleInfo } from "@connected-vehicle/simulator/Data"
 *
 * const data = makeDataset({ seed: 42, vehicles: 10, users: 2, webhooks: 1, connections: 10 })
 * const first: VehicleInfo = data.vehicle(0) // first.vin, first.model.make...
 * ```
 * @since 0.1.0
 * @category models
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
 * @example
 * ```ts
 * import { makeDataset } from "@connected-vehicle/simulator/Data"
 * import type { UserInfo } from "@connected-vehicle/simulator/Data"
 *
 * const data = makeDataset({ seed: 42, vehicles: 10, users: 2, webhooks: 1, connections: 10 })
 * const owner: UserInfo = data.user(0)
 * ```
 * @since 0.1.0
 * @category models
 */
export interface UserInfo {
  readonly index: number
  readonly id: string
  readonly externalId: string
}

/**
 * A seeded webhook.
 *
 * @example
 * ```ts
 * import { makeDataset } from "@connected-vehicle/simulator/Data"
 * import type { WebhookInfo } from "@connected-vehicle/simulator/Data"
 *
 * const data = makeDataset({ seed: 42, vehicles: 10, users: 2, webhooks: 1, connections: 10 })
 * const enabled: ReadonlyArray<WebhookInfo> = data.webhooks.filter((w) => w.isEnabled)
 * ```
 * @since 0.1.0
 * @category models
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

/**
 * The seeded dataset.
 *
 * @example
 * ```ts
 * import { makeDataset } from "@connected-vehicle/simulator/Data"
 * import type { Dataset } from "@connected-vehicle/simulator/Data"
 *
 * const data: Dataset = makeDataset({ seed: 42, vehicles: 10, users: 2, webhooks: 1, connections: 10 })
 * const vehiclesOfFirstUser = data.vehiclesOfUser(0)
 * ```
 * @since 0.1.0
 * @category models
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
 * @example
 * ```ts
 * import { makeDataset } from "@connected-vehicle/simulator/Data"
 *
 * const data = makeDataset({ seed: 42, vehicles: 1_000, users: 50, webhooks: 3, connections: 1_000 })
 * data.vehicle(0).vin
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const makeDataset: (options: DatasetOptions) => Dataset = dataset.makeDataset

// --- Time-dependent values ---

/**
 * The readings of a vehicle as of its last report (simulated time, ms since
 * epoch; a vehicle reports every five minutes). Values drift smoothly: the
 * odometer only grows, charge and fuel cycle over days, temperature follows
 * the day, the location wanders around a home spot.
 *
 * @example
 * ```ts
 * import { makeDataset, readings } from "@connected-vehicle/simulator/Data"
 * import type { Readings } from "@connected-vehicle/simulator/Data"
 *
 * const data = makeDataset({ seed: 42, vehicles: 10, users: 2, webhooks: 1, connections: 10 })
 * const r: Readings = readings(42, data.vehicle(0), Date.now())
 * ```
 * @since 0.1.0
 * @category models
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

/**
 * Readings of vehicle `v` as of its last report at or before `now`: every
 * value is the one at that instant (`updatedAt`), so two reads between two
 * reports answer the same datum, whichever API or endpoint they go through.
 *
 * @example
 * ```ts
 * import { makeDataset, readings } from "@connected-vehicle/simulator/Data"
 *
 * const data = makeDataset({ seed: 42, vehicles: 10, users: 2, webhooks: 1, connections: 10 })
 * const { odometerKm, stateOfCharge } = readings(42, data.vehicle(0), Date.now())
 * ```
 * @since 0.1.0
 * @category readings
 */
export const readings: (seed: number, v: VehicleInfo, now: number) => Readings = values.readings

/**
 * The status of a signal on a vehicle: mostly SUCCESS, some ERROR (with a
 * resolution), some UNAVAILABLE. Vehicle 0 always has one of each.
 *
 * @example
 * ```ts
 * import { signalStatus } from "@connected-vehicle/simulator/Data"
 *
 * const status = signalStatus(42, 0, 3) // { value: "SUCCESS" } or an ERROR with its error
 * ```
 * @since 0.1.0
 * @category readings
 */
export const signalStatus = values.signalStatus

/**
 * The `attributes.body` of a signal from the readings.
 *
 * @example
 * ```ts
 * import { makeDataset, readings, signalBody } from "@connected-vehicle/simulator/Data"
 *
 * const data = makeDataset({ seed: 42, vehicles: 10, users: 2, webhooks: 1, connections: 10 })
 * const v = data.vehicle(0)
 * const body = signalBody("odometer-traveleddistance", readings(42, v, Date.now()), v)
 * ```
 * @since 0.1.0
 * @category readings
 */
export const signalBody: (code: string, r: Readings, v: VehicleInfo) => Record<string, unknown> = values.signalBody

// --- Legacy values ---

/**
 * The body of a legacy read endpoint, in the unit system asked for.
 *
 * @example
 * ```ts
 * import { legacyBody, makeDataset, readings } from "@connected-vehicle/simulator/Data"
 *
 * const data = makeDataset({ seed: 42, vehicles: 10, users: 2, webhooks: 1, connections: 10 })
 * const v = data.vehicle(0)
 * const odometer = legacyBody("/odometer", readings(42, v, Date.now()), v, true) // distance in miles
 * ```
 * @since 0.1.0
 * @category legacy
 */
export const legacyBody = legacy.legacyBody

/**
 * The v3 signal that holds the datum of each legacy read (the migration
 * guide's table): a reading set on that signal is what the legacy read answers.
 *
 * @example
 * ```ts
 * import { legacySignalCode } from "@connected-vehicle/simulator/Data"
 *
 * legacySignalCode["/odometer"] // "odometer-traveleddistance"
 * ```
 * @since 0.2.0
 * @category legacy
 */
export const legacySignalCode = legacy.legacySignalCode

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
 * @category legacy
 */
export const legacyBodyOfReading = legacy.legacyBodyOfReading

/**
 * The encoded service history of a vehicle (newest first; `odometerDistance`
 * in kilometers whatever the unit system, spec section 2.8).
 *
 * @example
 * ```ts
 * import { makeDataset, serviceHistory, supportsServiceHistory } from "@connected-vehicle/simulator/Data"
 *
 * const data = makeDataset({ seed: 42, vehicles: 10, users: 2, webhooks: 1, connections: 10 })
 * const v = data.vehicle(0)
 * const history = supportsServiceHistory(v) ? serviceHistory(42, v) : []
 * ```
 * @since 0.1.0
 * @category legacy
 */
export const serviceHistory = legacy.serviceHistory

/**
 * Whether the legacy service history is answered for a vehicle.
 *
 * @example
 * ```ts
 * import { makeDataset, supportsServiceHistory } from "@connected-vehicle/simulator/Data"
 *
 * const data = makeDataset({ seed: 42, vehicles: 10, users: 2, webhooks: 1, connections: 10 })
 * const answered = supportsServiceHistory(data.vehicle(0))
 * ```
 * @since 0.1.0
 * @category legacy
 */
export const supportsServiceHistory: (v: VehicleInfo) => boolean = legacy.supportsServiceHistory

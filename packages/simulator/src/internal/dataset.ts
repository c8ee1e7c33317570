/**
 * The seeded dataset: vehicles and their attributes as pure functions of
 * `(seed, index)`, users, connections and subscriptions as a few typed
 * arrays, and webhooks.
 *
 * @internal
 */
import type { Permission } from "@connected-vehicle/schema/OAuth"
import type { Dataset, DatasetOptions, UserInfo, VehicleInfo, WebhookInfo } from "../Data.ts"
import { allPermissions, modelCatalog, signalCatalog } from "./catalog.ts"
import { DAY, EPOCH, hash, makeId, parseId, unit } from "./seeded.ts"

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

/** Vehicle `index` (computed on demand). */
const vehicleAt = (seed: number, vehicleMode: Uint8Array) => (index: number): VehicleInfo => {
  const model = modelCatalog[hash(seed, 12, index) % modelCatalog.length]!
  const year = model.start + (hash(seed, 13, index) % (model.end - model.start + 1))
  let vin = (wmi[model.make] ?? "1XX").padEnd(3, "X")
  for (let k = 0; vin.length < 17; k++) {
    vin += k === 6 ? "ABCDEFGHJKLMNPRSTVWXY123456789"[(year - 2001 + 30) % 30] : vinChars[hash(seed, 14, index, k) % vinChars.length]
  }
  return { index, id: makeId(seed, "vehicle", index), model, year, mode: vehicleMode[index] === 1 ? "simulated" : "live", vin }
}

const seededUsers = (seed: number, userCount: number): Array<UserInfo> => {
  const users: Array<UserInfo> = []
  for (let i = 0; i < userCount; i++) {
    users.push({
      index: i,
      id: makeId(seed, "user", i),
      externalId: `customer-${String(1000 + (hash(seed, 21, i) % 9000)).padStart(4, "0")}-${i}`
    })
  }
  return users
}

/** Connection i: vehicle i. Every user gets one before any gets two; the vehicles of each user, grouped. */
const seededConnections = (seed: number, connectionCount: number, userCount: number) => {
  const connectionUser = new Int32Array(connectionCount)
  for (let i = 0; i < connectionCount; i++) connectionUser[i] = i < userCount ? i : hash(seed, 31, i) % userCount
  const perUserCount = new Int32Array(userCount)
  for (let i = 0; i < connectionCount; i++) perUserCount[connectionUser[i]!]!++
  const perUserOffsets = new Int32Array(userCount + 1)
  for (let u = 0; u < userCount; u++) perUserOffsets[u + 1] = perUserOffsets[u]! + perUserCount[u]!
  const perUserVehicles = new Int32Array(connectionCount)
  const fill = perUserOffsets.slice(0, userCount)
  for (let i = 0; i < connectionCount; i++) perUserVehicles[fill[connectionUser[i]!]!++] = i
  return {
    connectionUser,
    vehiclesOfUser: (userIndex: number) => perUserVehicles.subarray(perUserOffsets[userIndex]!, perUserOffsets[userIndex + 1]!)
  }
}

/** When connections were created and updated, and their permissions. */
const connectionDates = (seed: number, connectionCount: number, userCount: number) => {
  // Newest first: spread over at most a year before the epoch.
  const step = Math.min(37 * 60_000, Math.floor((365 * DAY) / Math.max(1, connectionCount)))
  const connectionCreatedAt = (index: number) => EPOCH - (index + 1) * step - (hash(seed, 32, index) % Math.max(1, step))
  const connectionUpdatedAt = (index: number) =>
    Math.min(EPOCH, connectionCreatedAt(index) + (hash(seed, 33, index) % (30 * DAY)))
  // Each user's first connection (index < userCount) holds every permission; a later one
  // read_vehicle_info and read_odometer, and each other permission three times in four (seeded).
  const connectionPermissions = (index: number): ReadonlyArray<Permission> => {
    if (index < userCount) return allPermissions
    const bits = hash(seed, 34, index)
    return allPermissions.filter((p, k) =>
      p === "read_vehicle_info" || p === "read_odometer" || ((bits >>> (2 * k)) & 3) !== 0
    )
  }
  return { connectionCreatedAt, connectionUpdatedAt, connectionPermissions }
}

const seededWebhooks = (seed: number, webhookCount: number): Array<WebhookInfo> => {
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
  return webhooks
}

/** @internal */
export const makeDataset = (options: DatasetOptions): Dataset => {
  const { seed } = options
  const connectionCount = Math.max(0, Math.floor(options.connections))
  const userCount = Math.max(1, Math.floor(options.users))
  const vehicleCount = Math.max(connectionCount, Math.floor(options.vehicles), 1)
  const webhookCount = Math.max(0, Math.floor(options.webhooks))

  const vehicleMode = new Uint8Array(vehicleCount)
  for (let i = 0; i < vehicleCount; i++) vehicleMode[i] = unit(seed, 11, i) < 0.2 ? 1 : 0

  const users = seededUsers(seed, userCount)
  const { connectionUser, vehiclesOfUser } = seededConnections(seed, connectionCount, userCount)
  const { connectionCreatedAt, connectionUpdatedAt, connectionPermissions } = connectionDates(seed, connectionCount, userCount)
  const webhooks = seededWebhooks(seed, webhookCount)

  // Subscription i belongs to connection i (same order, createdAt DESC).
  const subscriptionWebhook = new Int32Array(webhookCount === 0 ? 0 : connectionCount)
  for (let i = 0; i < subscriptionWebhook.length; i++) subscriptionWebhook[i] = hash(seed, 51, i) % webhookCount

  return {
    options,
    vehicleCount,
    vehicle: vehicleAt(seed, vehicleMode),
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
    vehiclesOfUser,
    subscriptionCount: subscriptionWebhook.length,
    subscriptionWebhook,
    subscriptionId: (index) => makeId(seed, "subscription", index),
    subscriptionIndex: (id) => parseId(seed, "subscription", subscriptionWebhook.length, id),
    subscriptionCreatedAt: (index) => connectionCreatedAt(index) + 60_000 + (hash(seed, 52, index) % 600_000),
    vehicleMode
  }
}

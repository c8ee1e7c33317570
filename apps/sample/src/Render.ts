/**
 * Human renderings of the service's resources: aligned tables, one function
 * per resource list. `--json` prints the values themselves instead.
 *
 * @since 0.1.0
 */
import { DateTime } from "effect"
import type { CompatibilityEntry } from "@connected-vehicle/schema/Compatibility"
import type { ConnectionListItem } from "@connected-vehicle/schema/Connection"
import type { BatchItem } from "@connected-vehicle/schema/Legacy"
import type { Signal } from "@connected-vehicle/schema/Signal"
import type { Subscription } from "@connected-vehicle/schema/Subscription"
import type { Webhook } from "@connected-vehicle/schema/Webhook"
import * as Signals from "@connected-vehicle/v3/Signals"
import { printable } from "./Printable.ts"
import { keyValues, render } from "./Table.ts"

const date = (d: DateTime.DateTime) => DateTime.formatIso(d).slice(0, 10)

/**
 * Counts by region and powertrain (one row per region, one column per powertrain).
 *
 * @example
 * ```ts
 * import { compatibilityCounts } from "@connected-vehicle/sample/Render"
 *
 * console.log(compatibilityCounts([]))
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const compatibilityCounts = (entries: ReadonlyArray<CompatibilityEntry>): string => {
  const powertrains = [...new Set(entries.map((e) => e.attributes.powertrainType))].sort()
  const regions = [...new Set(entries.map((e) => e.attributes.region))].sort()
  const count = (region: string, powertrain?: string) =>
    entries.filter((e) =>
      e.attributes.region === region && (powertrain === undefined || e.attributes.powertrainType === powertrain)
    ).length
  return render(regions, [
    { header: "REGION", cell: (r) => r },
    ...powertrains.map((p) => ({ header: p, cell: (r: string) => count(r, p) })),
    { header: "TOTAL", cell: (r) => count(r) }
  ])
}

/**
 * Compatibility entries: make, model, years, powertrain, region, signal and command counts.
 *
 * @example
 * ```ts
 * import { compatibilityEntries } from "@connected-vehicle/sample/Render"
 *
 * console.log(compatibilityEntries([]))
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const compatibilityEntries = (entries: ReadonlyArray<CompatibilityEntry>): string =>
  render(entries, [
    { header: "MAKE", cell: (e) => e.attributes.make },
    { header: "MODEL", cell: (e) => e.attributes.model },
    { header: "YEARS", cell: (e) => `${e.attributes.years.start}-${e.attributes.years.end}` },
    { header: "POWERTRAIN", cell: (e) => e.attributes.powertrainType },
    { header: "REGION", cell: (e) => e.attributes.region },
    { header: "SIGNALS", cell: (e) => e.attributes.capabilities.filter((c) => c.type === "signal").length },
    { header: "COMMANDS", cell: (e) => e.attributes.capabilities.filter((c) => c.type === "command").length }
  ])

/**
 * Connections: id, user, vehicle, mode, permissions count, creation date.
 *
 * @example
 * ```ts
 * import { connections } from "@connected-vehicle/sample/Render"
 *
 * console.log(connections([]))
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const connections = (items: ReadonlyArray<ConnectionListItem>): string =>
  render(items, [
    { header: "CONNECTION", cell: (c) => c.id },
    { header: "USER", cell: (c) => c.attributes.user.id },
    { header: "EXTERNAL ID", cell: (c) => c.attributes.user.externalId },
    { header: "VEHICLE", cell: (c) => c.relationships.vehicle.data.id },
    {
      header: "MAKE / MODEL / YEAR",
      cell: (c) => `${c.attributes.vehicle.make} ${c.attributes.vehicle.model} ${c.attributes.vehicle.year}`
    },
    { header: "POWERTRAIN", cell: (c) => c.attributes.vehicle.powertrainType },
    { header: "MODE", cell: (c) => c.attributes.vehicle.mode },
    { header: "PERMISSIONS", cell: (c) => c.attributes.permissions.length },
    { header: "CREATED", cell: (c) => date(c.meta.createdAt) }
  ])

const valueOf = (signal: Signal) => {
  const { unit, value, ...rest } = signal.attributes.body
  // any JSON value: an array or an object as its JSON text
  if (value !== undefined) return typeof value === "object" && value !== null ? JSON.stringify(value) : value
  const keys = Object.keys(rest)
  return keys.length === 0 ? undefined : JSON.stringify(rest)
}

/**
 * Signals grouped by group, then the failed ones with their error and
 * resolution, then the unavailable ones.
 *
 * @example
 * ```ts
 * import { signals } from "@connected-vehicle/sample/Render"
 *
 * console.log(signals([]))
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const signals = (items: ReadonlyArray<Signal>): string => {
  const parts = Signals.partition(items)
  const groups = [...new Set(parts.succeeded.map((s) => s.attributes.group))].sort()
  const out: Array<string> = []
  for (const group of groups) {
    const rows = parts.succeeded.filter((s) => s.attributes.group === group)
    out.push(`[${printable(group)}]`)
    out.push(render(rows, [
      { header: "CODE", cell: (s) => s.attributes.code },
      { header: "NAME", cell: (s) => s.attributes.name },
      { header: "VALUE", cell: valueOf },
      { header: "UNIT", cell: (s) => s.attributes.body.unit ?? "" },
      { header: "RETRIEVED", cell: (s) => DateTime.formatIso(s.meta.retrievedAt) }
    ]))
    out.push("")
  }
  if (parts.failed.length > 0) {
    out.push(`FAILED SIGNALS (${parts.failed.length})`)
    out.push(render(parts.failed, [
      { header: "CODE", cell: (f) => f.signal.attributes.code },
      { header: "GROUP", cell: (f) => f.signal.attributes.group },
      { header: "ERROR", cell: (f) => f.error === undefined ? "-" : `${f.error.type}/${f.error.code}` },
      { header: "RESOLUTION", cell: (f) => f.resolution ?? "-" },
      { header: "DETAIL", cell: (f) => f.error?.detail ?? "-" }
    ]))
    out.push("")
  }
  const other = [...parts.unavailable, ...parts.unrecognized]
  if (other.length > 0) {
    out.push(`UNAVAILABLE SIGNALS (${other.length})`)
    out.push(render(other, [
      { header: "CODE", cell: (s) => s.attributes.code },
      { header: "GROUP", cell: (s) => s.attributes.group },
      { header: "STATUS", cell: (s) => s.attributes.status.value }
    ]))
    out.push("")
  }
  return out.join("\n").trimEnd()
}

/**
 * Webhooks: id, name, enabled, auto-subscribe, triggers, callback.
 *
 * @example
 * ```ts
 * import { webhooks } from "@connected-vehicle/sample/Render"
 *
 * console.log(webhooks([]))
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const webhooks = (items: ReadonlyArray<Webhook>): string =>
  render(items, [
    { header: "WEBHOOK", cell: (w) => w.id },
    { header: "NAME", cell: (w) => w.attributes.name },
    { header: "ENABLED", cell: (w) => w.attributes.isEnabled ? "yes" : "no" },
    { header: "AUTO", cell: (w) => w.attributes.autoSubscribe ? "yes" : "no" },
    { header: "TRIGGERS", cell: (w) => w.attributes.triggers.map((t) => t.code).join(",") },
    { header: "CALLBACK", cell: (w) => w.attributes.callbackUri }
  ])

/**
 * Subscriptions: id, webhook, user, vehicle, mode, creation date.
 *
 * @example
 * ```ts
 * import { subscriptions } from "@connected-vehicle/sample/Render"
 *
 * console.log(subscriptions([]))
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const subscriptions = (items: ReadonlyArray<Subscription>): string =>
  render(items, [
    { header: "SUBSCRIPTION", cell: (s) => s.id },
    { header: "WEBHOOK", cell: (s) => s.relationships.webhook.data.id },
    { header: "USER", cell: (s) => s.relationships.user.data.id },
    { header: "VEHICLE", cell: (s) => s.relationships.vehicle.data.id },
    { header: "MAKE / MODEL", cell: (s) => `${s.attributes.vehicle.make} ${s.attributes.vehicle.model}` },
    { header: "MODE", cell: (s) => s.attributes.vehicle.mode },
    { header: "CREATED", cell: (s) => date(s.meta.createdAt) }
  ])

/**
 * A legacy batch: one row per requested path with its own status and a
 * summary of its body.
 *
 * @example
 * ```ts
 * import { batch } from "@connected-vehicle/sample/Render"
 *
 * console.log(batch([{ path: "/odometer", code: 200, body: { distance: 12 }, headers: {} }]))
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const batch = (items: ReadonlyArray<BatchItem>): string =>
  render(items, [
    { header: "PATH", cell: (i) => i.path },
    { header: "STATUS", cell: (i) => i.code },
    { header: "DATA AGE", cell: (i) => i.headers["sc-data-age"] ?? "-" },
    { header: "BODY", cell: (i) => summary(i.body) }
  ])

/**
 * A one-line summary of a JSON body (`key=value` pairs, error envelopes as `type code`).
 *
 * @example
 * ```ts
 * import { summary } from "@connected-vehicle/sample/Render"
 *
 * summary({ distance: 12.5 }) // "distance=12.5"
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const summary = (body: unknown): string => {
  if (typeof body !== "object" || body === null) return String(body)
  const errors = (body as { readonly errors?: unknown }).errors
  if (Array.isArray(errors) && errors.length > 0) {
    const first = errors[0] as { readonly type?: string; readonly code?: string; readonly detail?: string }
    return `${first.type ?? "?"} ${first.code ?? "?"}: ${first.detail ?? ""}`
  }
  if (Array.isArray(body)) return `${body.length} record(s)`
  return Object.entries(body).map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : String(v)}`).join(" ")
}

/**
 * `key: value` lines (re-exported for commands that show one record).
 *
 * @example
 * ```ts
 * import { keyValues } from "@connected-vehicle/sample/Render"
 *
 * keyValues([["vehicle", "v-1"], ["year", 2024], ["vin", null]])
 * ```
 * @since 0.1.0
 * @category rendering
 */
export { keyValues }

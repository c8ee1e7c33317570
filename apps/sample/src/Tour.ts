/**
 * The guided tour (`sample` without a command): the service walked through
 * as a real integration would, printed as tables (or one JSON document with
 * `--json`):
 *
 * 1. the compatibility listing: counts by region and powertrain, then the
 *    entries of one make;
 * 2. the legacy OAuth flow: consent URL, redirect with its code (a real HTTP
 *    request follows the 302 to a local listener), token exchange, vehicle list;
 * 3. legacy reads of one vehicle in one batch, each entry with its own status;
 * 4. a v3 application token (client credentials), the application's
 *    connections, every signal of one connected vehicle through its user;
 * 5. the application's webhooks and subscriptions;
 * 6. on the embedded simulator, one webhook delivery: a receiver in this
 *    process, a webhook pointing at it, a signal change, the verified event.
 *
 * @since 0.1.0
 */
import { Clock, Console, DateTime, Effect, Result, Stream } from "effect"
import * as TokenExchange from "@connected-vehicle/auth/TokenExchange"
import { TokenStore } from "@connected-vehicle/auth/TokenStore"
import type { BatchResult, EntryError } from "@connected-vehicle/legacy-v2/Batch"
import type { Reading } from "@connected-vehicle/legacy-v2/Reading"
import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
import type { LegacyPath, ServiceRecord } from "@connected-vehicle/schema/Legacy"
import { Compatibility } from "@connected-vehicle/v3/Compatibility"
import { Connections } from "@connected-vehicle/v3/Connections"
import { Signals } from "@connected-vehicle/v3/Signals"
import * as SignalsModule from "@connected-vehicle/v3/Signals"
import { Subscriptions } from "@connected-vehicle/v3/Subscriptions"
import { Webhooks } from "@connected-vehicle/v3/Webhooks"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Authorize from "./Authorize.ts"
import * as Listen from "./Listen.ts"
import * as TourDelivery from "./TourDelivery.ts"
import { deprecationPhrase } from "./Migrate.ts"
import * as Render from "./Render.ts"
import { printable, printableJson } from "./Printable.ts"
import { SampleError } from "./SampleError.ts"
import { heading, keyValues, render } from "./Table.ts"
import { Target } from "./Target.ts"

/**
 * One entry of a legacy batch, flattened for display and JSON.
 *
 * @example
 * ```ts
 * import { renderBatch } from "@connected-vehicle/sample/Tour"
 * import type { BatchEntry } from "@connected-vehicle/sample/Tour"
 *
 * const entry: BatchEntry = { path: "/odometer", ok: true, status: 200, value: { distance: 20100 }, dataAge: undefined, error: undefined }
 * const text = renderBatch([entry])
 * ```
 * @since 0.1.0
 * @category models
 */
export interface BatchEntry {
  readonly path: string
  readonly ok: boolean
  readonly status: number | undefined
  readonly value: unknown
  readonly dataAge: string | undefined
  readonly error: { readonly tag: string; readonly code: string | undefined; readonly detail: string } | undefined
}

const errorOf = (error: EntryError): NonNullable<BatchEntry["error"]> => {
  const reason = reasonOf(error)
  return {
    tag: reason._tag,
    code: "code" in reason ? reason.code : undefined,
    detail: "detail" in reason ? reason.detail : reason.message
  }
}

/**
 * Flattens a decoded batch in the order of `paths`.
 *
 * @example
 * ```ts
 * import { batchEntries } from "@connected-vehicle/sample/Tour"
 *
 * batchEntries({}, [])
 * ```
 * @since 0.1.0
 * @category utils
 */
export const batchEntries = (
  result: Partial<BatchResult<LegacyPath>>,
  paths: ReadonlyArray<LegacyPath>
): ReadonlyArray<BatchEntry> =>
  paths.flatMap((path) => {
    const entry = result[path] as Result.Result<Reading<unknown>, EntryError> | undefined
    if (entry === undefined) return []
    return [Result.match(entry, {
      onSuccess: (reading): BatchEntry => ({
        path,
        ok: true,
        status: 200,
        value: reading.value,
        dataAge: reading.dataAge === undefined ? undefined : DateTime.formatIso(reading.dataAge),
        error: undefined
      }),
      onFailure: (error): BatchEntry => ({
        path,
        ok: false,
        status: "status" in error ? error.status : undefined,
        value: undefined,
        dataAge: undefined,
        error: errorOf(error)
      })
    })]
  })

/**
 * The batch as a table: path, status, value or error.
 *
 * @example
 * ```ts
 * import { renderBatch } from "@connected-vehicle/sample/Tour"
 *
 * console.log(renderBatch([]))
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const renderBatch = (entries: ReadonlyArray<BatchEntry>): string =>
  render(entries, [
    { header: "PATH", cell: (e) => e.path },
    { header: "STATUS", cell: (e) => e.status === undefined ? "-" : String(e.status) },
    { header: "RESULT", cell: (e) => e.ok ? "ok" : e.error!.tag },
    {
      header: "VALUE / ERROR",
      cell: (e) => e.ok ? Render.summary(e.value) : `${e.error!.code ?? ""} ${e.error!.detail}`.trim()
    },
    { header: "DATA AGE", cell: (e) => e.dataAge ?? "-" }
  ])

/**
 * Service records as a table.
 *
 * @example
 * ```ts
 * import { renderServiceHistory } from "@connected-vehicle/sample/Tour"
 *
 * console.log(renderServiceHistory([]))
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const renderServiceHistory = (records: ReadonlyArray<ServiceRecord>): string =>
  render(records, [
    { header: "SERVICE", cell: (r) => r.serviceId },
    { header: "DATE", cell: (r) => r.serviceDate === null ? null : DateTime.formatIso(r.serviceDate).slice(0, 10) },
    { header: "KM", cell: (r) => r.odometerDistance, align: "right" },
    { header: "TASKS", cell: (r) => r.serviceTasks.map((t) => t.taskDescription ?? "?").join("; ") },
    {
      header: "COST",
      cell: (r) => r.serviceCost.totalCost === null ? null : `${r.serviceCost.totalCost} ${r.serviceCost.currency ?? ""}`.trim()
    }
  ])

const tourPaths: readonly [LegacyPath, ...Array<LegacyPath>] = ["/odometer", "/location", "/vin", "/engine/oil", "/tires/pressure"]

/**
 * The tour's first line: where it runs (`the embedded simulator at URL`, or
 * the remote target's URL).
 *
 * @example
 * ```ts
 * import { header } from "@connected-vehicle/sample/Tour"
 *
 * header({ label: "http://127.0.0.1:4010", embedded: false })
 * // "Connected-vehicle SDK sample: talking to http://127.0.0.1:4010"
 * ```
 * @category rendering
 * @since 0.2.0
 */
export const header = (target: { readonly label: string; readonly embedded: boolean }): string =>
  `Connected-vehicle SDK sample: talking to ${target.embedded ? `the ${target.label}` : target.label}`

/**
 * Runs the tour; prints as it goes (or one JSON document at the end with `json`).
 *
 * @example
 * ```ts
 * import * as Tour from "@connected-vehicle/sample/Tour"
 *
 * const tour = Tour.run(false)
 * ```
 * @since 0.1.0
 * @category commands
 */
export const run = (json: boolean) =>
  Effect.gen(function*() {
    const startedAt = yield* Clock.currentTimeMillis
    const target = yield* Target
    const say: Say = (text) => json ? Effect.void : Console.log(text)
    yield* say(header(target))
    const compatibility = yield* compatibilityStep(say)
    const legacy = yield* legacyStep(say, target)
    const v3 = yield* v3Step(say, target)
    const management = yield* managementStep(say)
    const delivery = yield* deliveryStep(say, target, v3)
    const elapsed = ((yield* Clock.currentTimeMillis) - startedAt) / 1000
    const summary = {
      target: target.label,
      compatibilityEntries: compatibility.listing.data.length,
      legacyVehicles: legacy.vehicles.paging.count,
      legacyReads: legacy.entries.length,
      legacyReadsOk: legacy.entries.filter((e) => e.ok).length,
      connections: v3.connectionPage.meta.totalCount,
      signals: v3.signalItems.length,
      failedSignals: SignalsModule.partition(v3.signalItems).failed.length,
      webhooks: management.webhooks.meta.totalCount,
      subscriptions: management.subscriptions.meta.totalCount,
      webhookEvents: delivery === undefined ? 0 : 1,
      seconds: elapsed
    }
    yield* Console.log(
      json
        ? printableJson(JSON.stringify({ summary, ...documentOf(compatibility, legacy, v3, management, delivery) }, null, 2))
        : `\nOK: ${summary.compatibilityEntries} compatibility entries, ${summary.legacyReadsOk}/${summary.legacyReads} legacy reads, ` +
          `${summary.connections} connections, ${summary.signals} signals (${summary.failedSignals} failed), ` +
          `${summary.webhooks} webhooks, ${summary.subscriptions} subscriptions, ${summary.webhookEvents} webhook event received ` +
          `in ${elapsed.toFixed(1)} s`
    )
    return summary
  })

/** Prints a line of the tour (nothing with `--json`). */
type Say = (text: string) => Effect.Effect<void>

/** 1. The compatibility listing: counts, then the entries of one make. */
const compatibilityStep = (say: Say) =>
  Effect.gen(function*() {
    const compatibility = yield* Compatibility
    const listing = yield* compatibility.list()
    const makes = [...new Set(listing.data.map((e) => e.attributes.make))].sort()
    const make = makes.includes("Tesla") ? "Tesla" : makes[0]
    const ofMake = make === undefined ? { data: [] } : yield* compatibility.list({ make })
    yield* say(heading("1. Compatibility listing (GET /v3/compatible-vehicles, no credential)"))
    yield* say(`${listing.data.length} make/model/powertrain/region entries, ${makes.length} makes\n`)
    yield* say(Render.compatibilityCounts(listing.data))
    yield* say(`\nEntries for ${make === undefined ? "(none)" : printable(make)}:\n${Render.compatibilityEntries(ofMake.data)}`)
    return { listing, make, ofMake }
  })

/** 2. The legacy OAuth flow and the user's vehicles, then 3. one batch of legacy reads. */
const legacyStep = (say: Say, target: Target["Service"]) =>
  Effect.gen(function*() {
    yield* say(heading("2. Legacy OAuth: consent, redirect, code exchange (v2.0)"))
    const authorization = yield* Authorize.run({
      key: target.userKey,
      port: 0,
      follow: true,
      loginHint: target.loginHint,
      onConsentUrl: (url) => say(keyValues([["Consent URL", url]]))
    })
    yield* say(keyValues([
      ["Redirected to", authorization.redirectedTo],
      ["Code", `${authorization.code} (single use, exchanged at POST /oauth/token)`],
      ["Access token", Authorize.redact(authorization.token.accessToken)],
      ["Expires at", new Date(authorization.token.expiresAt).toISOString()],
      [
        "Refresh token",
        authorization.token.refreshToken === undefined ? "-" : Authorize.redact(authorization.token.refreshToken)
      ]
    ]))
    const vehicles = yield* Vehicles.Vehicles
    const list = yield* vehicles.list({ limit: 10 })
    yield* say(`\nVehicles of the user (GET /v2.0/vehicles): ${list.paging.count}\n${list.vehicles.map((v) => `  ${printable(v)}`).join("\n")}`)
    const vehicleId = list.vehicles[0]
    if (vehicleId === undefined) return yield* new SampleError({ reason: "The user has no vehicle to read" })
    const batch = yield* vehicles.batch(vehicleId, tourPaths)
    const entries = batchEntries(batch, tourPaths)
    yield* say(heading(`3. Legacy reads of ${printable(vehicleId)} in one batch (POST /v2.0/vehicles/{id}/batch)`))
    yield* say(renderBatch(entries))
    const isoOf = (date: DateTime.Utc | undefined) => date === undefined ? null : DateTime.formatIso(date)
    const deprecation = {
      deprecatedAt: isoOf(batch.deprecation?.deprecatedAt),
      sunsetAt: isoOf(batch.deprecation?.sunsetAt),
      link: batch.deprecation?.link ?? null
    }
    const phrase = deprecationPhrase(deprecation.deprecatedAt?.slice(0, 10) ?? null, deprecation.sunsetAt?.slice(0, 10) ?? null, yield* Clock.currentTimeMillis)
    yield* say(
      `\nDeprecated: v2.0 ${phrase} (the response's deprecation headers). ` +
        `Move to v3: ${printable(deprecation.link ?? "docs/migrating-to-v3.md")}; compare with \`migrate check ${printable(vehicleId)}\`.`
    )
    return { authorization, vehicles: list, vehicleId, entries, deprecation }
  })

/** 4. An application token, the application's connections, every signal of one connected vehicle. */
const v3Step = (say: Say, target: Target["Service"]) =>
  Effect.gen(function*() {
    yield* say(heading("4. v3: application token, connections, signals"))
    const appToken = yield* TokenExchange.clientCredentials()
    const store = yield* TokenStore
    yield* store.set(target.applicationKey, appToken) // the v3 services' session uses this token
    yield* say(keyValues([
      ["Application token", `${Authorize.redact(appToken.accessToken)} (client credentials, no user context)`],
      ["Expires at", new Date(appToken.expiresAt).toISOString()]
    ]))
    const connections = yield* Connections
    const connectionPage = yield* connections.list({ pageSize: 10 })
    yield* say(`\nConnections (${connectionPage.meta.totalCount} in all, first ${connectionPage.data.length}):`)
    yield* say(Render.connections(connectionPage.data))
    const chosen = connectionPage.data[0]
    if (chosen === undefined) return yield* new SampleError({ reason: "The application has no connection" })
    const vehicleId = chosen.relationships.vehicle.data.id
    const userId = chosen.relationships.user.data.id
    const signalItems = yield* Stream_collect(yield* Signals, vehicleId, userId)
    yield* say(`\nSignals of ${printable(vehicleId)} on behalf of user ${printable(userId)} (sc-user-id):\n`)
    yield* say(Render.signals(signalItems))
    return { appToken, connectionPage, vehicleId, userId, signalItems }
  })

/** 5. The application's webhooks and subscriptions. */
const managementStep = (say: Say) =>
  Effect.gen(function*() {
    const webhooks = yield* (yield* Webhooks).list({ pageSize: 20 })
    const subscriptions = yield* (yield* Subscriptions).list({ pageSize: 10 })
    yield* say(heading("5. Webhooks and subscriptions of the application"))
    yield* say(`Webhooks (${webhooks.meta.totalCount}):\n${Render.webhooks(webhooks.data)}`)
    yield* say(
      `\nSubscriptions (${subscriptions.meta.totalCount} in all, first ${subscriptions.data.length}):\n${
        Render.subscriptions(subscriptions.data)
      }`
    )
    return { webhooks, subscriptions }
  })

/** 6. A webhook delivery from the embedded simulator to a receiver in this process (skipped elsewhere). */
const deliveryStep = (
  say: Say,
  target: Target["Service"],
  v3: Effect.Success<ReturnType<typeof v3Step>>
) =>
  Effect.gen(function*() {
    yield* say(heading("6. A webhook delivery: the embedded simulator to a receiver in this process"))
    const delivery = target.simulator === undefined ? undefined : yield* TourDelivery.tourDelivery(target.simulator, {
      vehicleId: v3.vehicleId,
      userId: v3.userId,
      data: v3.signalItems.slice(0, 3).map((s) => s.attributes.code)
    })
    yield* say(
      delivery === undefined
        ? "Skipped: only the embedded simulator delivers to a local receiver (see `webhooks listen`)."
        : TourDelivery.renderTourDelivery(delivery)
    )
    return delivery
  })

/** The `--json` document of the tour (besides its summary). */
const documentOf = (
  compatibility: Effect.Success<ReturnType<typeof compatibilityStep>>,
  legacy: Effect.Success<ReturnType<typeof legacyStep>>,
  v3: Effect.Success<ReturnType<typeof v3Step>>,
  management: Effect.Success<ReturnType<typeof managementStep>>,
  delivery: Effect.Success<ReturnType<typeof deliveryStep>>
) => ({
  compatibility: { total: compatibility.listing.data.length, make: compatibility.make, entries: compatibility.ofMake.data },
  legacy: {
    consentUrl: legacy.authorization.consentUrl,
    redirectUri: legacy.authorization.redirectUri,
    accessToken: Authorize.redact(legacy.authorization.token.accessToken),
    vehicles: legacy.vehicles,
    batch: { vehicleId: legacy.vehicleId, entries: legacy.entries },
    deprecation: legacy.deprecation
  },
  v3: {
    applicationToken: Authorize.redact(v3.appToken.accessToken),
    connections: v3.connectionPage,
    signals: { vehicleId: v3.vehicleId, userId: v3.userId, data: v3.signalItems },
    webhooks: management.webhooks,
    subscriptions: management.subscriptions
  },
  webhookDelivery: delivery === undefined ? null : {
    receiverUrl: delivery.receiverUrl,
    webhookId: delivery.webhookId,
    verification: delivery.verification,
    firstDeliveryEventId: delivery.firstDeliveryEventId,
    change: delivery.change,
    attempts: delivery.attempts,
    event: JSON.parse(Listen.jsonLine(delivery.event))
  }
})

const Stream_collect = (signals: Signals["Service"], vehicleId: string, userId: string) =>
  Effect.map(
    Effect.flatMap(Effect.succeed(signals.stream({ vehicleId, userId, pageSize: 100 })), (stream) =>
      Stream.runCollect(stream)),
    (chunk) => Array.from(chunk)
  )

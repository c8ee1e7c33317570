/**
 * The handlers of the management root of `ServiceApi`: subscriptions and
 * webhooks, seeded or created through the simulator (`Delivery`).
 *
 * @internal
 */
import { quoted } from "./oauthText.ts"
import { ServiceApi } from "@connected-vehicle/schema/Api"
import type { Subscription, Webhook } from "@connected-vehicle/schema"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import type { Dataset } from "../Data.ts"
import type { CreatedWebhook } from "../Delivery.ts"
import type { Origins } from "../Env.ts"
import { CurrentGrant, Env, notFound, originFor } from "../Env.ts"
import { idFilter, matching, modeCode, orderedPage, requireApp, utc, vehicleSummary } from "./handlerUtils.ts"

/** A subscription, seeded or created through the simulator (`Delivery`). */
interface SubscriptionRow {
  readonly id: string
  readonly vehicleIndex: number
  readonly userIndex: number
  readonly webhookId: string
  readonly createdAt: number
}

const seededSubscription = (data: Dataset, i: number): SubscriptionRow => ({
  id: data.subscriptionId(i),
  vehicleIndex: i,
  userIndex: data.connectionUser[i]!,
  webhookId: data.webhooks[data.subscriptionWebhook[i]!]!.id,
  createdAt: data.subscriptionCreatedAt(i)
})

const subscriptionResource = (data: Dataset, origins: Origins, row: SubscriptionRow): Subscription.Subscription => {
  const v = data.vehicle(row.vehicleIndex)
  const user = data.user(row.userIndex)
  const created = row.createdAt
  // The spec's samples carry `webhook` as data.type in all three relationships.
  const relationship = (id: string, path: string) => ({
    data: { id, type: "webhook" },
    links: { related: `${originFor(origins, `/v3/${path}`)}/v3/${path}/${id}` }
  })
  return {
    id: row.id,
    type: "subscription",
    attributes: { vehicle: vehicleSummary(v) },
    meta: { createdAt: utc(created), updatedAt: utc(created) },
    links: { self: `${origins.management}/v3/subscriptions/${row.id}` },
    relationships: {
      webhook: relationship(row.webhookId, "webhooks"),
      user: relationship(user.id, "users"),
      vehicle: relationship(v.id, "vehicles")
    }
  }
}

/** @internal */
export const SubscriptionsLive = HttpApiBuilder.group(ServiceApi, "subscriptions", (handlers) =>
  handlers.handleAll({
    list: ({ query, request }) =>
      Effect.gen(function*() {
        const { data, deliveries, origins } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        const user = yield* idFilter("userId", query["filter[userId]"], data.userIndex)
        const webhook = yield* idFilter("webhookId", query["filter[webhookId]"], data.webhookIndex)
        const vehicle = yield* idFilter("vehicleId", query["filter[vehicleId]"], data.vehicleIndex)
        const mode = modeCode(query["filter[mode]"])
        const keep = user === undefined && webhook === undefined && vehicle === undefined && mode === -1
          ? undefined
          : (i: number) =>
            (user === undefined || data.connectionUser[i] === user) &&
            (webhook === undefined || data.subscriptionWebhook[i] === webhook) &&
            (vehicle === undefined || i === vehicle) &&
            (mode === -1 || data.vehicleMode[i] === mode)
        const hits = matching(data.subscriptionCount, keep)
        // subscriptions created through the simulator come first (newest first), as -(k + 1)
        const webhookId = query["filter[webhookId]"]?.toLowerCase()
        const created = deliveries.subscriptions().filter((s) =>
          (user === undefined || s.userIndex === user) &&
          (webhookId === undefined || s.webhookId === webhookId) &&
          (vehicle === undefined || s.vehicleIndex === vehicle) &&
          (mode === -1 || data.vehicleMode[s.vehicleIndex] === mode)
        )
        const render = (i: number) =>
          subscriptionResource(data, origins, i < 0 ? created[-i - 1]! : seededSubscription(data, i))
        if (created.length === 0) return orderedPage(origins, "/v3/subscriptions", request, hits, query, render)
        const seeded = typeof hits === "number" ? hits : hits.length
        const all = new Int32Array(created.length + seeded)
        for (let k = 0; k < created.length; k++) all[k] = -(k + 1)
        for (let k = 0; k < seeded; k++) all[created.length + k] = typeof hits === "number" ? k : hits[k]!
        return orderedPage(origins, "/v3/subscriptions", request, all, query, render)
      }),
    get: ({ params }) =>
      Effect.gen(function*() {
        const { data, deliveries, origins } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        const id = params.subscriptionId.toLowerCase()
        const i = data.subscriptionIndex(id)
        const row = i === -1 ? deliveries.subscriptions().find((s) => s.id === id) : seededSubscription(data, i)
        if (row === undefined) return yield* notFound(`No subscription with id ${quoted(params.subscriptionId)}`)
        return { data: subscriptionResource(data, origins, row) }
      })
  }))

/** A webhook, seeded or created through the simulator (`Delivery`). */
const webhookResource = (origins: Origins, w: CreatedWebhook): Webhook.Webhook => {
  const ref = (s: { readonly group: string; readonly name: string; readonly code: string }) => ({
    group: s.group,
    name: s.name,
    code: s.code
  })
  return {
    id: w.id,
    type: "webhook",
    attributes: {
      name: w.name,
      triggers: w.triggers.map(ref),
      data: w.data.map(ref),
      callbackUri: w.callbackUri,
      errorCallbackUri: w.errorCallbackUri,
      isEnabled: w.isEnabled,
      autoSubscribe: w.autoSubscribe
    },
    meta: { createdAt: utc(w.createdAt) },
    links: { self: `${origins.management}/v3/webhooks/${w.id}` }
  }
}

/** A value of the webhook list's query as decoded (`WebhooksQuery`): of the allowed kind, else as given. */
type QueryValue = string | boolean | number | ReadonlyArray<string> | undefined

/** The values of a filter as given: none, one, or several (a repeated parameter, each must hold). */
const valuesOf = (value: QueryValue): ReadonlyArray<string | boolean | number> =>
  value === undefined ? [] : typeof value === "object" ? value : [value]

/** A boolean filter's value: `true` or `false`, else one that matches nothing. */
const booleanOf = (value: string | boolean | number) =>
  value === true || value === "true" ? true : value === false || value === "false" ? false : undefined

/**
 * A paging value of the webhook list: one number that is an integer as
 * JavaScript reads it (`10`, `1e3`, `3.0`; clamped into [min, max]), else
 * the default (undefined).
 */
const pagingValue = (value: QueryValue, min: number, max: number): number | undefined => {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN
  return Number.isInteger(n) ? Math.min(max, Math.max(min, n)) : undefined
}

/** @internal */
export const WebhooksLive = HttpApiBuilder.group(ServiceApi, "webhooks", (handlers) =>
  handlers.handleAll({
    list: ({ query, request }) =>
      Effect.gen(function*() {
        const { data, deliveries, origins } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        // section 4.4 lists no 400: every query is answered (see `WebhooksQuery`)
        const name = query["filter[name]"]
        const uri = query["filter[callbackUri]"]
        const enabled = query["filter[isEnabled]"]
        const auto = query["filter[autoSubscribe]"]
        // webhooks created through the simulator come first (newest first)
        const all: ReadonlyArray<CreatedWebhook> = [...deliveries.webhooks(), ...data.webhooks]
        const hits = all.flatMap((w, k) =>
          // name and callback URI: partial, case-insensitive (section 4.4)
          valuesOf(name).every((part) => w.name.toLowerCase().includes(String(part).toLowerCase())) &&
            valuesOf(uri).every((part) => w.callbackUri.toLowerCase().includes(String(part).toLowerCase())) &&
            valuesOf(enabled).every((value) => booleanOf(value) === w.isEnabled) &&
            valuesOf(auto).every((value) => booleanOf(value) === w.autoSubscribe)
            ? [k]
            : []
        )
        const paging = { page: pagingValue(query.page, 1, Number.MAX_SAFE_INTEGER), pageSize: pagingValue(query.pageSize, 1, 100) }
        return orderedPage(origins, "/v3/webhooks", request, hits, paging, (k) => webhookResource(origins, all[k]!))
      }),
    get: ({ params }) =>
      Effect.gen(function*() {
        const { data, deliveries, origins } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        const id = params.webhookId.toLowerCase()
        const i = data.webhookIndex(id)
        const w = i === -1 ? deliveries.webhooks().find((w) => w.id === id) : data.webhooks[i]
        if (w === undefined) return yield* notFound(`No webhook with id ${quoted(params.webhookId)}`)
        return { data: webhookResource(origins, w) }
      })
  }))

/**
 * The handlers of the vehicle and compatibility roots of `ServiceApi`:
 * signals, connections, the compatibility listing.
 *
 * @internal
 */
import { quoted } from "./oauthText.ts"
import { ServiceApi } from "@connected-vehicle/schema/Api"
import type { Connection } from "@connected-vehicle/schema"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import type { Dataset } from "../Data.ts"
import { compatibleModels } from "../Data.ts"
import type { Origins } from "../Env.ts"
import { CurrentGrant, Env, forbidden, notFound } from "../Env.ts"
import { idFilter, matching, modeCode, orderedPage, requireApp, utc, vehicleForUser, vehicleSummary } from "./handlerUtils.ts"
import { heldPermissions, listLink, missingPermission, PageMemo, signalsPageText, signalText } from "./render.ts"

const json = (text: string) => HttpServerResponse.text(text, { status: 200, contentType: "application/json" })

/** @internal */
export const SignalsLive = HttpApiBuilder.group(ServiceApi, "signals", (handlers) => {
  const pages = new PageMemo<HttpServerResponse.HttpServerResponse>()
  return handlers.handleAll({
    list: ({ headers, params, query, request }) =>
      Effect.gen(function*() {
        const { data, deliveries, enforcePermissions, origins, state } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        const now = state.now()
        const version = deliveries.readingsVersion()
        const key = `${request.url} ${headers["sc-user-id"]}`
        const memo = pages.get(key, data, now, version)
        if (memo !== undefined) return memo
        const v = yield* vehicleForUser(data, params.vehicleId, headers["sc-user-id"])
        const response = json(signalsPageText(data, origins, deliveries, v, request.url, now, query.page, query.pageSize, enforcePermissions))
        pages.set(key, data, now, version, response)
        return response
      }),
    get: ({ headers, params }) =>
      Effect.gen(function*() {
        const { data, deliveries, enforcePermissions, origins, state } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        const v = yield* vehicleForUser(data, params.vehicleId, headers["sc-user-id"])
        const k = v.model.signals.findIndex((s) => s.code === params.signalCode.toLowerCase())
        if (k === -1) return yield* notFound(`Vehicle ${v.id} has no signal ${params.signalCode}`)
        const signal = v.model.signals[k]!
        const denied = missingPermission(heldPermissions(data, enforcePermissions, v), v, signal.permission)
        if (denied !== undefined) return yield* forbidden(`${denied}, which signal ${signal.code} requires`)
        return json(signalText(data, origins, deliveries, v, k, state.now()))
      })
  })
})

const connectionItem = (data: Dataset, origins: Origins, i: number): Connection.ConnectionListItem => {
  const v = data.vehicle(i)
  const user = data.user(data.connectionUser[i]!)
  return {
    id: data.connectionId(i),
    type: "connection",
    attributes: {
      permissions: data.connectionPermissions(i),
      vehicle: vehicleSummary(v),
      user: { id: user.id, externalId: user.externalId }
    },
    relationships: {
      vehicle: { data: { id: v.id, type: "vehicle" }, links: { related: `${origins.vehicle}/v3/vehicles/${v.id}` } },
      user: { data: { id: user.id, type: "user" }, links: { related: `${origins.vehicle}/v3/users/${user.id}` } }
    },
    meta: { createdAt: utc(data.connectionCreatedAt(i)), updatedAt: utc(data.connectionUpdatedAt(i)) },
    links: { self: `${origins.vehicle}/v3/connections/${data.connectionId(i)}` }
  }
}

/** @internal */
export const ConnectionsLive = HttpApiBuilder.group(ServiceApi, "connections", (handlers) =>
  handlers.handleAll({
    list: ({ query, request }) =>
      Effect.gen(function*() {
        const { data, origins } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        const user = yield* idFilter("userId", query["filter[userId]"], data.userIndex)
        const vehicle = yield* idFilter("vehicleId", query["filter[vehicleId]"], data.vehicleIndex)
        const mode = modeCode(query["filter[mode]"])
        const external = query["filter[userExternalId]"]
        const externalUser = external === undefined ? undefined : data.users.findIndex((u) => u.externalId === external)
        const users = data.connectionUser
        const keep = user === undefined && vehicle === undefined && mode === -1 && externalUser === undefined
          ? undefined
          : (i: number) =>
            (user === undefined || users[i] === user) &&
            (vehicle === undefined || i === vehicle) &&
            (mode === -1 || data.vehicleMode[i] === mode) &&
            (externalUser === undefined || users[i] === externalUser)
        const hits = vehicle !== undefined
          ? (vehicle >= 0 && vehicle < data.connectionCount && keep!(vehicle) ? Int32Array.of(vehicle) : new Int32Array(0))
          : matching(data.connectionCount, keep)
        return orderedPage(origins, "/v3/connections", request, hits, query, (i) => connectionItem(data, origins, i))
      }),
    get: ({ params }) =>
      Effect.gen(function*() {
        const { data, origins } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        const i = data.connectionIndex(params.connectionId.toLowerCase())
        if (i === -1) return yield* notFound(`No connection with id ${quoted(params.connectionId)}`)
        const item = connectionItem(data, origins, i)
        return {
          data: {
            id: item.id,
            type: item.type,
            attributes: { permissions: item.attributes.permissions, vehicle: item.attributes.vehicle },
            relationships: { vehicle: item.relationships.vehicle, user: { data: item.relationships.user.data } },
            meta: item.meta,
            links: item.links
          }
        }
      })
  }))

/** @internal */
export const CompatibilityLive = HttpApiBuilder.group(ServiceApi, "compatibility", (handlers) =>
  handlers.handleAll({
    list: ({ query, request }) =>
      Effect.gen(function*() {
        const { origins } = yield* Env
        const entries = compatibleModels({
          region: query["filter[region]"],
          make: query["filter[make]"],
          powertrainType: query["filter[powertrainType]"]
        })
        return {
          data: entries,
          meta: { page: 1, pageSize: entries.length, totalCount: entries.length },
          links: { self: listLink(origins, "/v3/compatible-vehicles", request.url) }
        }
      })
  }))

/**
 * The handlers of every group of `ServiceApi`.
 *
 * @since 0.1.0
 */
import { ServiceApi } from "@connected-vehicle/schema/Api"
import type { Mode } from "@connected-vehicle/schema/Common"
import type { Connection, Subscription, Webhook } from "@connected-vehicle/schema"
import type { LegacyPath } from "@connected-vehicle/schema/Legacy"
import { Permission, TokenLifetimes } from "@connected-vehicle/schema/OAuth"
import { DateTime, Effect, Layer, Redacted, Schema } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { createHash, timingSafeEqual } from "node:crypto"
import type { Dataset, VehicleInfo } from "./Data.ts"
import type { CreatedWebhook } from "./Delivery.ts"
import { allPermissions, compatibleModels } from "./Data.ts"
import type { Origins } from "./Env.ts"
import { legacyRead, originOfUrl, PageMemo, paginate as paginateUrl, signalsPageText, signalText } from "./internal/render.ts"
import {
  badRequest,
  CurrentGrant,
  CurrentRequestId,
  Env,
  MAX_BATCH_REQUESTS,
  forbidden,
  incompatible,
  notFound,
  oauthError,
  oauthUnauthorized,
  originFor,
  redirectUriAllowed
} from "./Env.ts"
import type { Grant } from "./State.ts"
import type { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const utc = (millis: number) => DateTime.makeUnsafe(millis) as DateTime.Utc

const originOf = (origins: Origins, request: HttpServerRequest.HttpServerRequest): string => originOfUrl(origins, request.url)

const paginate = (
  origins: Origins,
  request: HttpServerRequest.HttpServerRequest,
  total: number,
  page: number | undefined,
  pageSize: number | undefined
) => paginateUrl(origins, request.url, total, page, pageSize)

const requireApp = (grant: Grant | undefined) =>
  grant?._tag === "App"
    ? Effect.void
    : forbidden("This endpoint takes an application token (client-credentials grant), not a user token.")

const requireUser = (grant: Grant | undefined) =>
  grant?._tag === "User"
    ? Effect.succeed(grant)
    : forbidden("The v2.0 interface takes a user access token from the authorization-code flow.")

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Index of an id filter: -1 when it names nothing; fails when malformed. */
const idFilter = (name: string, value: string | undefined, lookup: (id: string) => number) =>
  value === undefined
    ? Effect.succeed(undefined)
    : uuidShape.test(value)
    ? Effect.succeed(lookup(value.toLowerCase()))
    : badRequest(`filter[${name}] must be a UUID, got ${JSON.stringify(value)}`)

const vehicleSummary = (v: VehicleInfo) => ({
  make: v.model.make,
  model: v.model.model,
  year: v.year,
  mode: v.mode,
  powertrainType: v.model.powertrainType
})

/** Vehicle `vehicleId` on behalf of user `userId`: 404 unknown vehicle, 403 not that user's. */
const vehicleForUser = (data: Dataset, vehicleId: string, userId: string) => {
  const index = data.vehicleIndex(vehicleId.toLowerCase())
  if (index === -1) return notFound(`No vehicle with id ${vehicleId}`)
  const userIndex = data.userIndex(userId.toLowerCase())
  if (userIndex === -1 || index >= data.connectionCount || data.connectionUser[index] !== userIndex) {
    return forbidden(`User ${userId} has no connection to vehicle ${vehicleId}`)
  }
  return Effect.succeed(data.vehicle(index))
}

// ---------------------------------------------------------------------------
// v3: signals
// ---------------------------------------------------------------------------

const json = (text: string) => HttpServerResponse.text(text, { status: 200, contentType: "application/json" })

const SignalsLive = HttpApiBuilder.group(ServiceApi, "signals", (handlers) => {
  const pages = new PageMemo<HttpServerResponse.HttpServerResponse>()
  return handlers.handleAll({
    list: ({ headers, params, query, request }) =>
      Effect.gen(function*() {
        const { data, deliveries, origins, state } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        const now = state.now()
        const version = deliveries.readingsVersion()
        const key = `${request.url} ${headers["sc-user-id"]}`
        const memo = pages.get(key, data, now, version)
        if (memo !== undefined) return memo
        const v = yield* vehicleForUser(data, params.vehicleId, headers["sc-user-id"])
        const response = json(signalsPageText(data, origins, deliveries, v, request.url, now, query.page, query.pageSize))
        pages.set(key, data, now, version, response)
        return response
      }),
    get: ({ headers, params }) =>
      Effect.gen(function*() {
        const { data, deliveries, origins, state } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        const v = yield* vehicleForUser(data, params.vehicleId, headers["sc-user-id"])
        const k = v.model.signals.findIndex((s) => s.code === params.signalCode.toLowerCase())
        if (k === -1) return yield* notFound(`Vehicle ${v.id} has no signal ${params.signalCode}`)
        return json(signalText(data, origins, deliveries, v, k, state.now()))
      })
  })
})

// ---------------------------------------------------------------------------
// v3: connections
// ---------------------------------------------------------------------------

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

/** Indexes in [0, count) passing `keep`, in order. */
const matching = (count: number, keep: ((i: number) => boolean) | undefined): Int32Array | number => {
  if (keep === undefined) return count
  const out = new Int32Array(count)
  let n = 0
  for (let i = 0; i < count; i++) if (keep(i)) out[n++] = i
  return out.subarray(0, n)
}

/**
 * One page of a list ordered by creation, newest first (`meta.orderBy` /
 * `orderDirection` as in the spec's samples): `hits` are the matching indexes,
 * or a count when every index in [0, count) matches.
 */
const orderedPage = <A>(
  origins: Origins,
  request: HttpServerRequest.HttpServerRequest,
  hits: ArrayLike<number> | number,
  query: { readonly page?: number | undefined; readonly pageSize?: number | undefined },
  render: (index: number) => A
) => {
  const total = typeof hits === "number" ? hits : hits.length
  const page = paginate(origins, request, total, query.page, query.pageSize)
  const data: Array<A> = []
  for (let k = page.start; k < page.end; k++) data.push(render(typeof hits === "number" ? k : hits[k]!))
  return {
    data,
    meta: { pageNumber: page.number, pageSize: page.size, totalCount: total, orderBy: "createdAt", orderDirection: "DESC" },
    links: page.links
  }
}

const modeCode = (mode: Mode | undefined) => mode === undefined ? -1 : mode === "simulated" ? 1 : 0

const ConnectionsLive = HttpApiBuilder.group(ServiceApi, "connections", (handlers) =>
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
        return orderedPage(origins, request, hits, query, (i) => connectionItem(data, origins, i))
      }),
    get: ({ params }) =>
      Effect.gen(function*() {
        const { data, origins } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        const i = data.connectionIndex(params.connectionId.toLowerCase())
        if (i === -1) return yield* notFound(`No connection with id ${params.connectionId}`)
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

// ---------------------------------------------------------------------------
// v3: subscriptions and webhooks
// ---------------------------------------------------------------------------

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

const SubscriptionsLive = HttpApiBuilder.group(ServiceApi, "subscriptions", (handlers) =>
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
        if (created.length === 0) return orderedPage(origins, request, hits, query, render)
        const seeded = typeof hits === "number" ? hits : hits.length
        const all = new Int32Array(created.length + seeded)
        for (let k = 0; k < created.length; k++) all[k] = -(k + 1)
        for (let k = 0; k < seeded; k++) all[created.length + k] = typeof hits === "number" ? k : hits[k]!
        return orderedPage(origins, request, all, query, render)
      }),
    get: ({ params }) =>
      Effect.gen(function*() {
        const { data, deliveries, origins } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        const id = params.subscriptionId.toLowerCase()
        const i = data.subscriptionIndex(id)
        const row = i === -1 ? deliveries.subscriptions().find((s) => s.id === id) : seededSubscription(data, i)
        if (row === undefined) return yield* notFound(`No subscription with id ${params.subscriptionId}`)
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

const WebhooksLive = HttpApiBuilder.group(ServiceApi, "webhooks", (handlers) =>
  handlers.handleAll({
    list: ({ query, request }) =>
      Effect.gen(function*() {
        const { data, deliveries, origins } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        const name = query["filter[name]"]?.toLowerCase()
        const uri = query["filter[callbackUri]"]?.toLowerCase()
        const enabled = query["filter[isEnabled]"]
        const auto = query["filter[autoSubscribe]"]
        // webhooks created through the simulator come first (newest first)
        const all: ReadonlyArray<CreatedWebhook> = [...deliveries.webhooks(), ...data.webhooks]
        const hits = all.flatMap((w, k) =>
          (name === undefined || w.name.toLowerCase().includes(name)) &&
            (uri === undefined || w.callbackUri.toLowerCase().includes(uri)) &&
            (enabled === undefined || w.isEnabled === enabled) &&
            (auto === undefined || w.autoSubscribe === auto)
            ? [k]
            : []
        )
        return orderedPage(origins, request, hits, query, (k) => webhookResource(origins, all[k]!))
      }),
    get: ({ params }) =>
      Effect.gen(function*() {
        const { data, deliveries, origins } = yield* Env
        yield* requireApp(yield* CurrentGrant)
        const id = params.webhookId.toLowerCase()
        const i = data.webhookIndex(id)
        const w = i === -1 ? deliveries.webhooks().find((w) => w.id === id) : data.webhooks[i]
        if (w === undefined) return yield* notFound(`No webhook with id ${params.webhookId}`)
        return { data: webhookResource(origins, w) }
      })
  }))

// ---------------------------------------------------------------------------
// v3: compatibility
// ---------------------------------------------------------------------------

const CompatibilityLive = HttpApiBuilder.group(ServiceApi, "compatibility", (handlers) =>
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
          links: { self: originOf(origins, request) + request.url }
        }
      })
  }))

// ---------------------------------------------------------------------------
// Authorization server
// ---------------------------------------------------------------------------

const parseScopes = (scope: string | undefined) => {
  if (scope === undefined || scope.trim() === "") return { scopes: new Set(allPermissions), unknown: [] }
  const words = scope.split(/[\s,]+/).filter((w) => w !== "")
  const isPermission = Schema.is(Permission)
  return {
    scopes: new Set(words.filter(isPermission)),
    unknown: words.filter((w) => !isPermission(w))
  }
}

const withParams = (uri: string, params: Record<string, string | undefined>) => {
  const url = new URL(uri)
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value)
  return url.toString()
}

/** The user a consent is given for: `login_hint` (user id or external id), else the first user. */
const consentingUser = (data: Dataset, request: HttpServerRequest.HttpServerRequest) => {
  const q = request.url.indexOf("?")
  const hint = q === -1 ? null : new URLSearchParams(request.url.slice(q + 1)).get("login_hint")
  if (hint === null || hint === "") return 0
  const byId = data.userIndex(hint.toLowerCase())
  return byId !== -1 ? byId : data.users.findIndex((u) => u.externalId === hint)
}

/** Compares two strings in constant time (SHA-256 digests, so the lengths are equal too). */
const sameSecret = (given: string, expected: string) =>
  timingSafeEqual(createHash("sha256").update(given).digest(), createHash("sha256").update(expected).digest())

const basicCredential = (authorization: string) => {
  const match = /^basic\s+(\S+)\s*$/i.exec(authorization)
  if (match === null) return undefined
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  return colon === -1 ? undefined : { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) }
}

const OAuthLive = HttpApiBuilder.group(ServiceApi, "oauth", (handlers) =>
  handlers.handleAll({
    authorize: ({ query, request }) =>
      Effect.gen(function*() {
        const { clientId, data, redirectUris, state } = yield* Env
        if (query.client_id !== clientId) return yield* oauthError("unauthorized_client", "Unknown client_id")
        // RFC 6749 4.1.2.1: never redirect to a URI the client has not registered.
        if (!redirectUriAllowed(redirectUris, query.redirect_uri)) {
          return yield* oauthError(
            "invalid_request",
            "redirect_uri is not registered for this client (registered: " + redirectUris.join(", ") + ")"
          )
        }
        const userIndex = consentingUser(data, request)
        if (userIndex === -1) return yield* oauthError("invalid_request", "login_hint names no user")
        const { scopes, unknown } = parseScopes(query.scope)
        if (unknown.length > 0) {
          return HttpServerResponse.redirect(withParams(query.redirect_uri, {
            error: "invalid_scope",
            error_description: `Unknown permission: ${unknown.join(" ")}`,
            state: query.state
          }))
        }
        const code = state.issueCode({
          userIndex,
          scopes,
          mode: query.mode ?? "live",
          redirectUri: query.redirect_uri
        })
        return HttpServerResponse.redirect(withParams(query.redirect_uri, { code, state: query.state }))
      }),
    token: ({ headers, payload }) =>
      Effect.gen(function*() {
        const { clientId, clientSecret, state } = yield* Env
        const credential = basicCredential(headers.authorization)
        if (credential === undefined) {
          return yield* oauthUnauthorized("Authorization must be Basic base64(client_id:client_secret)")
        }
        // Both compared, in constant time, whatever the first gives.
        const known = sameSecret(credential.id, clientId)
        if (!(sameSecret(credential.secret, clientSecret) && known)) {
          return yield* oauthUnauthorized("Unknown client or wrong secret")
        }
        const expires_in = TokenLifetimes.accessSeconds
        switch (payload.grant_type) {
          case "authorization_code": {
            const code = state.takeCode(payload.code)
            if (code === undefined) return yield* oauthError("invalid_grant", "Unknown or already used authorization code")
            if (code === "replayed") {
              return yield* oauthError(
                "invalid_grant",
                "The authorization code was already used; any tokens issued for it are now revoked"
              )
            }
            if (code === "expired") return yield* oauthError("invalid_grant", "The authorization code expired")
            if (code.redirectUri !== payload.redirect_uri) {
              return yield* oauthError("invalid_grant", "redirect_uri differs from the one given at consent")
            }
            const tokens = state.issueUserTokens(code)
            return {
              access_token: Redacted.make(tokens.accessToken),
              token_type: "Bearer",
              expires_in,
              refresh_token: Redacted.make(tokens.refreshToken)
            }
          }
          case "refresh_token": {
            const record = state.takeRefresh(payload.refresh_token)
            if (record === undefined) return yield* oauthError("invalid_grant", "Unknown or already used refresh token")
            if (record === "expired") return yield* oauthError("invalid_grant", "The refresh token expired")
            const tokens = state.issueUserTokens(record)
            return {
              access_token: Redacted.make(tokens.accessToken),
              token_type: "Bearer",
              expires_in,
              refresh_token: Redacted.make(tokens.refreshToken)
            }
          }
          case "client_credentials":
            return { access_token: Redacted.make(state.issueAppToken()), token_type: "Bearer", expires_in }
        }
      })
  }))

// ---------------------------------------------------------------------------
// Legacy v2.0
// ---------------------------------------------------------------------------

const unitSystemOf = (value: string | undefined) => value === "imperial" ? "imperial" : "metric"

const legacyVehicle = (data: Dataset, grant: Extract<Grant, { _tag: "User" }>, id: string) => {
  const index = data.vehicleIndex(id.toLowerCase())
  if (index === -1) return notFound(`No vehicle with id ${id}`)
  if (index >= data.connectionCount || data.connectionUser[index] !== grant.userIndex) {
    return forbidden(`The token's user has no connection to vehicle ${id}`)
  }
  return Effect.succeed(data.vehicle(index))
}

const legacyHandler = (path: LegacyPath) =>
({ headers, params }: {
  readonly headers: { readonly "sc-unit-system"?: "metric" | "imperial" | undefined }
  readonly params: { readonly id: string }
}) =>
  Effect.gen(function*() {
    const { data, deliveries, state } = yield* Env
    const grant = yield* requireUser(yield* CurrentGrant)
    const v = yield* legacyVehicle(data, grant, params.id)
    const item = legacyRead(data, deliveries, grant, v, path, unitSystemOf(headers["sc-unit-system"]), state.now())
    if (item.code === 403) return yield* forbidden(detailOf(item.body))
    if (item.code === 409) return yield* incompatible(detailOf(item.body))
    return HttpServerResponse.jsonUnsafe(item.body, { headers: item.headers })
  })

const withDebug = (body: ErrorEnvelope, requestId: string): ErrorEnvelope => ({
  errors: body.errors.map((item) => ({ ...item, meta: { debug: { ...item.meta?.debug, requestId } } })) as any
})

const detailOf = (body: unknown) => (body as { errors: ReadonlyArray<{ detail: string }> }).errors[0]!.detail

const LegacyLive = HttpApiBuilder.group(ServiceApi, "legacy", (handlers) =>
  handlers.handleAll({
    vehicles: ({ query }) =>
      Effect.gen(function*() {
        const { data } = yield* Env
        const grant = yield* requireUser(yield* CurrentGrant)
        const owned = data.vehiclesOfUser(grant.userIndex)
        const offset = query.offset ?? 0
        const limit = query.limit ?? 10
        const vehicles: Array<string> = []
        for (let k = offset; k < Math.min(owned.length, offset + limit); k++) vehicles.push(data.vehicle(owned[k]!).id)
        return { paging: { count: owned.length, offset }, vehicles }
      }),
    odometer: legacyHandler("/odometer"),
    location: legacyHandler("/location"),
    vin: legacyHandler("/vin"),
    engineOil: legacyHandler("/engine/oil"),
    tirePressure: legacyHandler("/tires/pressure"),
    serviceHistory: legacyHandler("/service/history"),
    batch: ({ headers, params, payload }) =>
      Effect.gen(function*() {
        const { data, deliveries, state } = yield* Env
        const grant = yield* requireUser(yield* CurrentGrant)
        const v = yield* legacyVehicle(data, grant, params.id)
        if (payload.requests.length > MAX_BATCH_REQUESTS) {
          return yield* badRequest(
            `requests holds ${payload.requests.length} paths; a batch takes at most ${MAX_BATCH_REQUESTS}`
          )
        }
        const requestId = yield* CurrentRequestId
        const unitSystem = unitSystemOf(headers["sc-unit-system"])
        const now = state.now()
        return {
          responses: payload.requests.map(({ path }) => {
            const item = legacyRead(data, deliveries, grant, v, path.split("?")[0]!, unitSystem, now)
            return { path, ...(item.code >= 400 ? { ...item, body: withDebug(item.body as ErrorEnvelope, requestId) } : item) }
          })
        }
      })
  }))

/**
 * Every group of `ServiceApi`, implemented.
 *
 * @since 0.1.0
 */
export const HandlersLive = Layer.mergeAll(
  SignalsLive,
  ConnectionsLive,
  SubscriptionsLive,
  WebhooksLive,
  CompatibilityLive,
  OAuthLive,
  LegacyLive
)

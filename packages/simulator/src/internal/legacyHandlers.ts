/**
 * The handlers of the legacy v2.0 interface of `ServiceApi` (a user token;
 * the vehicle must be the token user's).
 *
 * @internal
 */
import { ServiceApi } from "@connected-vehicle/schema/Api"
import { LegacyReads } from "@connected-vehicle/schema/Legacy"
import type { LegacyPath } from "@connected-vehicle/schema/Legacy"
import type { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
import { Effect, Record } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import type { Dataset } from "../Data.ts"
import { badRequest, CurrentGrant, CurrentRequestId, Env, forbidden, incompatible, MAX_BATCH_REQUESTS, notFound } from "../Env.ts"
import { quoted } from "./oauthText.ts"
import type { Grant } from "../State.ts"
import { requireUser } from "./handlerUtils.ts"
import { REQUEST_ID_HEADER, SC_REQUEST_ID_HEADER } from "./headers.ts"
import { limitedResponse } from "./limits.ts"
import { batchEntryPath } from "./paths.ts"
import { legacyRead } from "./render.ts"
import type { LegacyItem } from "./render.ts"

const unitSystemOf = (value: string | undefined) => value === "imperial" ? "imperial" : "metric"

const legacyVehicle = (data: Dataset, grant: Extract<Grant, { _tag: "User" }>, id: string) => {
  const index = data.vehicleIndex(id.toLowerCase())
  if (index === -1) return notFound(`No vehicle with id ${quoted(id)}`)
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
    const { data, deliveries, enforcePermissions, state } = yield* Env
    const grant = yield* requireUser(yield* CurrentGrant)
    const v = yield* legacyVehicle(data, grant, params.id)
    const item = legacyRead(data, deliveries, grant, enforcePermissions, v, path, unitSystemOf(headers["sc-unit-system"]), state.now())
    if (item.code === 403) return yield* forbidden(detailOf(item.body))
    if (item.code === 409) return yield* incompatible(detailOf(item.body))
    return HttpServerResponse.jsonUnsafe(item.body, { headers: item.headers })
  })

/**
 * A failed batch entry: its envelope with the request id in `meta.debug`,
 * and the headers of an error response (a JSON body, the request id under
 * both names), which a client decoding the entry as a response reads (the
 * official SDK takes a body without `content-type: application/json` for
 * text).
 */
const failedEntry = (item: LegacyItem, requestId: string): LegacyItem => ({
  ...item,
  body: withDebug(item.body as ErrorEnvelope, requestId),
  headers: { ...item.headers, "content-type": "application/json", [REQUEST_ID_HEADER]: requestId, [SC_REQUEST_ID_HEADER]: requestId }
})

const withDebug = (body: ErrorEnvelope, requestId: string): ErrorEnvelope => ({
  errors: body.errors.map((item) => ({ ...item, meta: { debug: { ...item.meta?.debug, requestId } } })) as any
})

const detailOf = (body: unknown) => (body as { errors: ReadonlyArray<{ detail: string }> }).errors[0]!.detail

/** @internal */
export const LegacyLive = HttpApiBuilder.group(ServiceApi, "legacy", (handlers) =>
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
    // one handler per read of the table the contract's read endpoints are built from
    ...Record.map(LegacyReads, (read) => legacyHandler(read.path)),
    batch: ({ headers, params, payload }) =>
      Effect.gen(function*() {
        const { data, deliveries, enforcePermissions, state, usage } = yield* Env
        const grant = yield* requireUser(yield* CurrentGrant)
        const v = yield* legacyVehicle(data, grant, params.id)
        if (payload.requests.length > MAX_BATCH_REQUESTS) {
          return yield* badRequest(
            `requests holds ${payload.requests.length} paths; a batch takes at most ${MAX_BATCH_REQUESTS}`
          )
        }
        // spec section 8: each requested endpoint counts against the per-vehicle limit; a batch
        // costing more than the whole limit would never fit (a 429 its Retry-After cannot help)
        const cost = Math.max(1, payload.requests.length)
        const perVehicle = usage.currentLimits().perVehicle
        if (perVehicle !== null && cost > perVehicle.limit) {
          return yield* badRequest(
            `a batch of ${cost} requests exceeds the per-vehicle limit of ${perVehicle.limit}`
          )
        }
        const limited = usage.admit({ vehicleIndex: v.index, cost, application: true })
        if (limited !== undefined) return limitedResponse(limited)
        const requestId = yield* CurrentRequestId
        const unitSystem = unitSystemOf(headers["sc-unit-system"])
        const now = state.now()
        return {
          responses: payload.requests.map(({ path }) => {
            const item = legacyRead(data, deliveries, grant, enforcePermissions, v, batchEntryPath(path), unitSystem, now)
            return { path, ...(item.code >= 400 ? failedEntry(item, requestId) : item) }
          })
        }
      })
  }))

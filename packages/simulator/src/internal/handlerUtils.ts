/**
 * What the handlers of `ServiceApi` share: the grant checks, id filters,
 * vehicle lookups on behalf of a user, and pages ordered by creation.
 *
 * @internal
 */
import type { Mode } from "@connected-vehicle/schema/Common"
import { DateTime, Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import type { Dataset, VehicleInfo } from "../Data.ts"
import type { Origins } from "../Env.ts"
import { badRequest, forbidden, notFound } from "../Env.ts"
import type { Grant } from "../State.ts"
import { APP_TOKEN_ONLY, USER_TOKEN_ONLY } from "./credential.ts"
import { quoted } from "./oauthText.ts"
import { paginate } from "./render.ts"

export const utc = (millis: number) => DateTime.makeUnsafe(millis) as DateTime.Utc

// the middleware refuses the wrong kind of token before the request is read
// (`credentialProblem`); these keep the handlers safe on their own
export const requireApp = (grant: Grant | undefined) => grant?._tag === "App" ? Effect.void : forbidden(APP_TOKEN_ONLY)

export const requireUser = (grant: Grant | undefined) =>
  grant?._tag === "User" ? Effect.succeed(grant) : forbidden(USER_TOKEN_ONLY)

export const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Index of an id filter: -1 when it names nothing; fails when malformed. */
export const idFilter = (name: string, value: string | undefined, lookup: (id: string) => number) =>
  value === undefined
    ? Effect.succeed(undefined)
    : uuidShape.test(value)
    ? Effect.succeed(lookup(value.toLowerCase()))
    : badRequest(`filter[${name}] must be a UUID, got ${quoted(value)}`)

export const vehicleSummary = (v: VehicleInfo) => ({
  make: v.model.make,
  model: v.model.model,
  year: v.year,
  mode: v.mode,
  powertrainType: v.model.powertrainType
})

/**
 * Vehicle `vehicleId` on behalf of user `userId`: 400 an empty or repeated
 * user id, 404 unknown vehicle, 403 not that user's.
 */
export const vehicleForUser = (data: Dataset, vehicleId: string, userId: string) => {
  // an empty header names no user: malformed like a missing one (400), not another user's vehicle (403)
  if (userId === "") return badRequest("Header sc-user-id must not be empty: it names the user the request is made for")
  // a repeated header arrives joined with ", ": one request names one user
  if (userId.includes(",")) {
    return badRequest(`Header sc-user-id must name one user; got ${quoted(userId)} (a repeated header?)`)
  }
  const index = data.vehicleIndex(vehicleId.toLowerCase())
  if (index === -1) return notFound(`No vehicle with id ${quoted(vehicleId)}`)
  const userIndex = data.userIndex(userId.toLowerCase())
  if (userIndex === -1 || index >= data.connectionCount || data.connectionUser[index] !== userIndex) {
    return forbidden(`User ${userId} has no connection to vehicle ${vehicleId}`)
  }
  return Effect.succeed(data.vehicle(index))
}

/** Indexes in [0, count) passing `keep`, in order. */
export const matching = (count: number, keep: ((i: number) => boolean) | undefined): Int32Array | number => {
  if (keep === undefined) return count
  const out = new Int32Array(count)
  let n = 0
  for (let i = 0; i < count; i++) if (keep(i)) out[n++] = i
  return out.subarray(0, n)
}

/**
 * One page of a list ordered by creation, newest first (`meta.orderBy` /
 * `orderDirection` as in the spec's samples): `hits` are the matching indexes,
 * or a count when every index in [0, count) matches; `path` is the spec's
 * path of the list, which its links name.
 */
export const orderedPage = <A>(
  origins: Origins,
  path: string,
  request: HttpServerRequest.HttpServerRequest,
  hits: ArrayLike<number> | number,
  query: { readonly page?: number | undefined; readonly pageSize?: number | undefined },
  render: (index: number) => A
) => {
  const total = typeof hits === "number" ? hits : hits.length
  const page = paginate(origins, path, request.url, total, query.page, query.pageSize)
  const data: Array<A> = []
  for (let k = page.start; k < page.end; k++) data.push(render(typeof hits === "number" ? k : hits[k]!))
  return {
    data,
    meta: { pageNumber: page.number, pageSize: page.size, totalCount: total, orderBy: "createdAt", orderDirection: "DESC" },
    links: page.links
  }
}

export const modeCode = (mode: Mode | undefined) => mode === undefined ? -1 : mode === "simulated" ? 1 : 0

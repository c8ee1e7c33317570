/**
 * The checks of a credential that need only the token and the endpoint,
 * made before the request's query, headers or body are read, so that a
 * request is refused in the order a real service refuses it: 401 (no or an
 * invalid token), then 403 (the wrong kind of token, or a token without the
 * endpoint's permission), then 400 (a malformed request). What needs the
 * request itself (the vehicle, the user it names, the connection's
 * permissions) is the handlers' 404 or 403, after the request is read.
 *
 * @internal
 */
import { LegacyReads } from "@connected-vehicle/schema/Legacy"
import type { Grant } from "../State.ts"
import { routeOf } from "./paths.ts"

/** The 403 detail of a user token on v3 (section 5.2: v3 takes client-credentials tokens). */
export const APP_TOKEN_ONLY = "This endpoint takes an application token (client-credentials grant), not a user token."

/** The 403 detail of an application token on v2.0 (section 5.3: a token per user). */
export const USER_TOKEN_ONLY = "The v2.0 interface takes a user access token from the authorization-code flow."

/** The 403 detail of a user token without `permission` (section 4.7). */
export const lacksPermission = (permission: string) => `The token lacks the permission ${permission}`

/**
 * Why the token of a request that passed the bearer check may not call the
 * endpoint it reaches (the 403 detail), or undefined. A request that reaches
 * no endpoint (the router's 404 or 405) is not checked here.
 */
export const credentialProblem = (method: string, path: string, grant: Grant | undefined): string | undefined => {
  if (grant === undefined) return undefined
  const route = routeOf(method, path)
  if (route === undefined) return undefined
  if (route.group !== "legacy") return grant._tag === "App" ? undefined : APP_TOKEN_ONLY
  if (grant._tag !== "User") return USER_TOKEN_ONLY
  if (!Object.hasOwn(LegacyReads, route.endpoint)) return undefined
  const permission = LegacyReads[route.endpoint as keyof typeof LegacyReads].permission
  return grant.scopes.has(permission) ? undefined : lacksPermission(permission)
}

/**
 * The errors of the consent step, `GET /oauth/authorize` (RFC 6749 section
 * 4.1.2.1): a request whose `client_id` or `redirect_uri` is missing,
 * repeated, unknown or not registered is answered 400 (never redirected);
 * once both are known valid, every other error goes to the redirect URI with
 * `error`, `error_description` and `state`, as a consent's code does.
 *
 * @internal
 */
import { AuthorizeQuery } from "@connected-vehicle/schema/Api"
import { redirectUriIssue } from "@connected-vehicle/schema/OAuth"
import { HttpServerResponse } from "effect/http"
import { redirectUriAllowed } from "../Env.ts"
import { describable, quoted } from "./oauthText.ts"

/** What the consent step knows of its client: the one client id and its registered redirect URIs. */
export interface ConsentClient {
  readonly clientId: string
  readonly redirectUris: ReadonlyArray<string>
}

/** Where a consent's outcome goes: a 400 of its own (`Refused`), or the redirect URI with `state`. */
export type ConsentTarget =
  | { readonly _tag: "Refused"; readonly error: string; readonly description: string }
  | { readonly _tag: "Redirect"; readonly redirectUri: string; readonly state: string | undefined }

const refused = (error: string, description: string): ConsentTarget => ({ _tag: "Refused", error, description })

const repeated = (key: string) => `Query parameter ${key} is repeated; send it once`

/** The query parameters of a request URL. */
export const queryOf = (url: string): URLSearchParams => {
  const q = url.indexOf("?")
  return new URLSearchParams(q === -1 ? "" : url.slice(q + 1))
}

/**
 * The target of a consent's errors: `Refused` when `client_id` or
 * `redirect_uri` is missing, repeated, not the client's, not a redirect URI
 * at all (`redirectUriIssue`: said why) or not registered
 * (the cases RFC 6749 section 4.1.2.1 keeps from the redirect), else the
 * redirect URI with the `state` the request sent (once; a repeated `state`
 * is not echoed).
 */
export const consentTarget = (params: URLSearchParams, client: ConsentClient): ConsentTarget => {
  const clientIds = params.getAll("client_id")
  if (clientIds.length === 0) return refused("invalid_request", "client_id is required")
  if (clientIds.length > 1) return refused("invalid_request", repeated("client_id"))
  if (clientIds[0] !== client.clientId) return refused("unauthorized_client", "Unknown client_id")
  const uris = params.getAll("redirect_uri")
  if (uris.length === 0) return refused("invalid_request", "redirect_uri is required")
  if (uris.length > 1) return refused("invalid_request", repeated("redirect_uri"))
  // a URI no client can register (the SDK's one rule) says why, not that this client did not
  const issue = redirectUriIssue(uris[0]!)
  if (issue !== undefined) return refused("invalid_request", `redirect_uri can be no redirect URI: ${issue}`)
  if (!redirectUriAllowed(client.redirectUris, uris[0]!)) {
    return refused(
      "invalid_request",
      "redirect_uri is not registered for this client (registered: " + client.redirectUris.join(", ") + ")"
    )
  }
  const states = params.getAll("state")
  return { _tag: "Redirect", redirectUri: uris[0]!, state: states.length === 1 ? states[0] : undefined }
}

const authorizeKeys = Object.keys(AuthorizeQuery.fields)

/** The description of a consent parameter sent more than once (RFC 6749 section 3.1: none may be), else undefined. */
export const repeatedParameter = (params: URLSearchParams): string | undefined => {
  const seen = new Set<string>()
  for (const [key] of params) {
    if (!authorizeKeys.includes(key)) continue
    if (seen.has(key)) return repeated(key)
    seen.add(key)
  }
  return undefined
}

/** `uri` with `params` set (the absent ones left out). */
export const withParams = (uri: string, params: Record<string, string | undefined>): string => {
  const url = new URL(uri)
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value)
  return url.toString()
}

/** The 302 to a consent's redirect URI with an OAuth `error` (no code). */
export const errorRedirect = (
  target: Extract<ConsentTarget, { _tag: "Redirect" }>,
  error: string,
  description: string
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.redirect(withParams(target.redirectUri, {
    error,
    error_description: describable(description),
    state: target.state
  }))

/**
 * The error of a consent query that the contract's `AuthorizeQuery` refused
 * (`detail`: the decoding's message), once its target is a redirect: a
 * repeated parameter, another `response_type` (`unsupported_response_type`),
 * a missing one, else the decoding's detail (`invalid_request`).
 */
export const queryError = (params: URLSearchParams, detail: string): { readonly error: string; readonly description: string } => {
  const twice = repeatedParameter(params)
  if (twice !== undefined) return { error: "invalid_request", description: twice }
  const responseType = params.get("response_type")
  if (responseType === null || responseType === "") {
    return { error: "invalid_request", description: "response_type is required; accepted: code" }
  }
  if (responseType !== "code") {
    return { error: "unsupported_response_type", description: `Unsupported response_type ${quoted(responseType)}; accepted: code` }
  }
  return { error: "invalid_request", description: detail }
}

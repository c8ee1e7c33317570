/**
 * The handlers of the authorization server of `ServiceApi`: the consent
 * step (`/oauth/authorize`) and the token endpoint.
 *
 * @internal
 */
import { ServiceApi } from "@connected-vehicle/schema/Api"
import { Permission } from "@connected-vehicle/schema/OAuth"
import type { TokenRequest } from "@connected-vehicle/schema/OAuth"
import { Effect, Redacted, Schema } from "effect"
import { HttpServerResponse, UrlParams } from "effect/http"
import type { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { createHash, timingSafeEqual } from "node:crypto"
import type { Dataset } from "../Data.ts"
import { allPermissions } from "../Data.ts"
import { Env, oauthError, oauthUnauthorized } from "../Env.ts"
import type { State } from "../State.ts"
import { consentTarget, errorRedirect, queryOf, repeatedParameter, withParams } from "./consent.ts"
import { parameterName, quoted } from "./oauthText.ts"
import { repeatedKey } from "./responses.ts"

/** The permissions a consent asks for (absent: all), or the `invalid_scope` description of its scope. */
const parseScopes = (scope: string | undefined): { readonly scopes: Set<Permission> } | { readonly invalid: string } => {
  if (scope === undefined) return { scopes: new Set(allPermissions) }
  const words = scope.split(/[\s,]+/).filter((w) => w !== "")
  // an empty scope asks for nothing: not a consent to every permission
  if (words.length === 0) return { invalid: "The scope is empty; name at least one permission" }
  const isPermission = Schema.is(Permission)
  const unknown = words.filter((w) => !isPermission(w))
  return unknown.length > 0
    ? { invalid: `Unknown permission: ${unknown.slice(0, 5).map(quoted).join(" ")}${unknown.length > 5 ? " ..." : ""}` }
    : { scopes: new Set(words.filter(isPermission)) }
}

/** The user a consent is given for: `login_hint` (user id or external id), else the first user. */
const consentingUser = (data: Dataset, hint: string | undefined) => {
  if (hint === undefined || hint === "") return 0
  const byId = data.userIndex(hint.toLowerCase())
  return byId !== -1 ? byId : data.users.findIndex((u) => u.externalId === hint)
}

/** Compares two strings in constant time (SHA-256 digests, so the lengths are equal too). */
const sameSecret = (given: string, expected: string) =>
  timingSafeEqual(createHash("sha256").update(given).digest(), createHash("sha256").update(expected).digest())

/**
 * The client id and secret of a Basic credential; `"base64"` when it is not
 * strict base64 (RFC 4648 section 4: standard alphabet, the padding, zero
 * bits after the last byte: what re-encoding the bytes gives back), which a
 * lax decoder would quietly repair or skip.
 */
const basicCredential = (authorization: string) => {
  const match = /^basic\s+(\S+)\s*$/i.exec(authorization)
  if (match === null) return undefined
  const bytes = Buffer.from(match[1]!, "base64")
  if (bytes.toString("base64") !== match[1]) return "base64" as const
  const decoded = bytes.toString("utf8")
  const colon = decoded.indexOf(":")
  return colon === -1 ? undefined : { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) }
}

/**
 * What is wrong with a token request's form body that decoded, or undefined:
 * a parameter sent twice (RFC 6749 section 3.2), a `client_secret` in the
 * body besides the Basic credential the endpoint requires (section 2.3: a
 * client uses one authentication method), or a `client_id` other than the
 * Basic credential's (`basicId`; section 3.2.1 lets a client send its own:
 * another client's is never read as the one authenticated).
 */
const bodyRefusal = (request: HttpServerRequest.HttpServerRequest, basicId: string | undefined) =>
  Effect.map(Effect.orElseSucceed(request.urlParamsBody, () => UrlParams.empty), (params): string | undefined => {
    const repeated = repeatedKey(params)
    if (repeated !== undefined) return `${parameterName(repeated)} is repeated; send it once`
    if (params.params.some(([name]) => name === "client_secret")) {
      return "The client authenticates with the Basic credential; client_secret in the body as well is a second method (RFC 6749 section 2.3: use one)"
    }
    const clientId = params.params.find(([name]) => name === "client_id")
    return clientId === undefined || basicId === undefined || clientId[1] === basicId
      ? undefined
      : "client_id in the body is not the Basic credential's client; send the same one, or none (RFC 6749 section 3.2.1)"
  })

/** The answer of a user token grant: access and refresh token. */
const userTokens = (tokens: { readonly accessToken: string; readonly refreshToken: string }, expires_in: number) => ({
  access_token: Redacted.make(tokens.accessToken),
  token_type: "Bearer",
  expires_in,
  refresh_token: Redacted.make(tokens.refreshToken)
})

/** The tokens of a token request from an authenticated client, or its OAuth error. */
const grantTokens = (state: State, payload: TokenRequest) =>
  Effect.gen(function*() {
    const expires_in = state.accessSeconds
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
        return userTokens(state.issueUserTokens(code), expires_in)
      }
      case "refresh_token": {
        const record = state.takeRefresh(payload.refresh_token)
        if (record === undefined) return yield* oauthError("invalid_grant", "Unknown or already used refresh token")
        if (record === "expired") return yield* oauthError("invalid_grant", "The refresh token expired")
        return userTokens(state.issueUserTokens(record), expires_in)
      }
      case "client_credentials":
        return { access_token: Redacted.make(state.issueAppToken()), token_type: "Bearer", expires_in }
    }
  })

/** @internal */
export const OAuthLive = HttpApiBuilder.group(ServiceApi, "oauth", (handlers) =>
  handlers.handleAll({
    authorize: ({ query, request }) =>
      Effect.gen(function*() {
        const env = yield* Env
        const params = queryOf(request.url)
        // RFC 6749 4.1.2.1: an unknown client or a redirect URI not registered is told here, never redirected to
        const target = consentTarget(params, env)
        if (target._tag === "Refused") return yield* oauthError(target.error, target.description)
        // every other error goes to the redirect URI, with the state
        const repeated = repeatedParameter(params)
        if (repeated !== undefined) return errorRedirect(target, "invalid_request", repeated)
        const userIndex = consentingUser(env.data, query.login_hint)
        if (userIndex === -1) return errorRedirect(target, "invalid_request", "login_hint names no user")
        const scope = parseScopes(query.scope)
        if ("invalid" in scope) return errorRedirect(target, "invalid_scope", scope.invalid)
        const code = env.state.issueCode({
          userIndex,
          scopes: scope.scopes,
          // `test` is the service's own spelling of `simulated`
          mode: query.mode === "test" ? "simulated" : query.mode ?? "live",
          redirectUri: query.redirect_uri
        })
        return HttpServerResponse.redirect(withParams(query.redirect_uri, { code, state: query.state }))
      }),
    token: ({ headers, payload, request }) =>
      Effect.gen(function*() {
        const { clientId, clientSecret, state, usage } = yield* Env
        // section 4.6: a User-Agent value is required
        const userAgent = request.headers["user-agent"]
        if (userAgent === undefined || userAgent.trim() === "") {
          return yield* oauthError("invalid_request", "User-Agent header is required")
        }
        const credential = basicCredential(headers.authorization)
        const refusal = yield* bodyRefusal(request, typeof credential === "object" ? credential.id : undefined)
        if (refusal !== undefined) return yield* oauthError("invalid_request", refusal)
        if (credential === "base64") {
          return yield* oauthUnauthorized(
            "The Basic credential is not base64 (RFC 4648: the standard alphabet A-Z a-z 0-9 + /, padded with = to a multiple of 4)"
          )
        }
        if (credential === undefined) {
          return yield* oauthUnauthorized("Authorization must be Basic base64(client_id:client_secret)")
        }
        // Both compared, in constant time, whatever the first gives.
        const known = sameSecret(credential.id, clientId)
        if (!(sameSecret(credential.secret, clientSecret) && known)) {
          return yield* oauthUnauthorized("Unknown client or wrong secret")
        }
        const tokens = yield* grantTokens(state, payload)
        usage.granted(payload.grant_type)
        return tokens
      })
  }))


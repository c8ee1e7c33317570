/**
 * The token endpoint (`POST {auth_url}/oauth/token`, section 4.6): the
 * authorization-code grant, the refresh-token grant and, for v3
 * applications, the client-credentials grant. Every call sends the Basic
 * credential of `client_id:client_secret`, a form body and the SDK's
 * User-Agent. A failure that may pass is retried by the transport's retry
 * policy (its one retry loop, with its backoff and the call's budget,
 * `retry.maxElapsed`), narrowed by the grant: at most `maxRetries` times (of
 * the call's options, 0 to 10, default 2), each after at least its
 * `Retry-After` (a 429's too; one over 10 seconds is not waited for, nor a
 * 429 without one), none later than 15 seconds after the first request, and
 * only where sending the request again is safe: a client-credentials request
 * after a refused or reset connection, a 5xx or a 429 (not after a timeout,
 * which took a whole timeout already); a code or refresh-token request only
 * after a 429 or a 503 (a lost answer or a 500 may have used the code or the
 * rotating refresh token; a proxy that answers 503 after forwarding the
 * request would defeat this). The options' `rateLimit`, `retryWhile`,
 * `retryWait` and `retry.retryNonIdempotent` are the grant's. The waits
 * between its requests are interruptible. Under `TestClock`, the waits
 * between retries pass only as the test clock is adjusted. An answer that
 * breaks section 4.6 (an `access_token` that cannot be sent as it is in
 * the `Authorization` header: empty, with a leading or trailing space or
 * tab, or with a character other than a tab, U+0020-U+007E and
 * U+0080-U+00FF; a
 * `token_type` other than `Bearer` in any case, an `expires_in` under one
 * second) is refused: `ConnectedVehicleError` with an `InvalidResponse`
 * reason, which quotes no token. An `expires_in` over a year (365 days) is
 * taken as a year: the token is renewed a year after its grant at the
 * latest. An empty `refresh_token` is taken as none (never stored nor sent).
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { AuthorizationApi } from "@connected-vehicle/schema/Api"
import type { AppTokenResponse, TokenRequest } from "@connected-vehicle/schema/OAuth"
import { TokenLifetimes } from "@connected-vehicle/schema/OAuth"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import { redirectUriIssue } from "./Consent.ts"
import { OAuthConfig } from "./OAuthConfig.ts"
import type { Token } from "./TokenStore.ts"
import { waiting } from "./internal/wait.ts"

/**
 * Errors of the token endpoint: a failed call (an `OAuth` reason for a
 * refusal of the authorization server), or an argument refused before sending.
 *
 * @example
 * ```ts
 * import type { TokenError } from "@connected-vehicle/auth/TokenExchange"
 *
 * const mustSignInAgain = (e: TokenError) =>
 *   e._tag === "ConnectedVehicleError" && e.reason._tag === "OAuth" && e.reason.error === "invalid_grant"
 * ```
 * @since 0.1.0
 * @category errors
 */
export type TokenError = ConnectedVehicleError | InvalidArgument

/**
 * `Basic base64(client_id:client_secret)` (section 5.4), redacted.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { basicCredential } from "@connected-vehicle/auth/TokenExchange"
 *
 * basicCredential("id", Redacted.make("secret")) // Redacted of "Basic aWQ6c2VjcmV0"
 * ```
 * @since 0.1.0
 * @category utils
 */
export const basicCredential = (clientId: string, clientSecret: Redacted.Redacted<string>): Redacted.Redacted<string> =>
  Redacted.make(`Basic ${Buffer.from(`${clientId}:${Redacted.value(clientSecret)}`, "utf8").toString("base64")}`)

// `url` replaces the contract's `{auth_url}/oauth/token` (before the
// transport's pipeline, which then leaves an absolute URL as it is)
const atUrl = (url: string | undefined) =>
  url === undefined ? <A, E, R>(effect: Effect.Effect<A, E, R>) => effect : Effect.updateService(
    Transport.Transport,
    (transport) => ({
      ...transport,
      httpClient: HttpClient.mapRequestInput(transport.httpClient, HttpClientRequest.setUrl(url))
    })
  )

const grant = (payload: TokenRequest, options?: Transport.CallOptions, url?: string) =>
  Effect.gen(function*() {
    const config = yield* OAuthConfig
    const oauth = yield* Transport.publicClient(AuthorizationApi, "oauth").pipe(atUrl(url))
    const given: unknown = options?.maxRetries
    if (given !== undefined && !(typeof given === "number" && Number.isSafeInteger(given) && given >= 0 && given <= maxRetries)) {
      return yield* new InvalidArgument({ field: "maxRetries", message: `maxRetries: Expected an integer between 0 and ${maxRetries}, got ${String(given)}` })
    }
    const { value } = yield* oauth.token(
      {
        headers: { authorization: Redacted.value(basicCredential(config.clientId, config.clientSecret)) },
        payload
      },
      grantOptions(options, given ?? defaultRetries, payload.grant_type === "client_credentials")
    )
    return yield* toToken(value)
  })

const defaultRetries = 2
const maxRetries = 10
// the longest `Retry-After` the grant waits itself (a longer one is the caller's to schedule)
const maxRetryAfter = Duration.seconds(10)
// no retry starts later than this after the grant's first request (a renewal holds a shared lease)
const retryWindowMillis = 15_000

/**
 * The call options of a grant's token request: the caller's, with the
 * grant's own retry policy for the transport's retries (its one retry loop):
 * `retries` retries, of a failure that {@link mayRepeat} (a POST: sent again
 * only as the grant says), each after at least its `Retry-After` (a 429's
 * too, never one over {@link maxRetryAfter}), none starting later than
 * {@link retryWindowMillis} after the request; the backoff and the call's
 * budget are the transport's. Each wait is told to the renewal that runs the
 * grant (`waiting`, whose callers that cannot wait that long fail at once)
 * and is interruptible: a renewal whose layer closes ends there (no request
 * is in flight then), even a refresh grant's, which is otherwise not.
 */
const grantOptions = (options: Transport.CallOptions | undefined, retries: number, clientCredentials: boolean): Transport.CallOptions => ({
  ...options,
  maxRetries: retries,
  retry: sentAgain(options?.retry),
  rateLimit: { wait: true, maxWait: maxRetryAfter },
  retryWhile: ({ delay, elapsed, error }) =>
    mayRepeat(error, clientCredentials) && Duration.toMillis(elapsed) + Duration.toMillis(delay) <= retryWindowMillis,
  retryWait: (wait, { delay, error }) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => waiting(now + Duration.toMillis(delay), error, Effect.interruptible(wait)))
})

// the caller's retry options, a POST retried (as `mayRepeat` says); what is not an object is left for the transport to refuse
const sentAgain = (retry: Transport.CallOptions["retry"]): Transport.CallOptions["retry"] =>
  retry === undefined ? { retryNonIdempotent: true }
  : typeof retry === "object" && retry !== null && !Array.isArray(retry) ? { ...retry, retryNonIdempotent: true }
  : retry

/**
 * Whether a failed token request may be sent again: a failure that may pass
 * (`isRetryable`) and came soon (not a `Timeout`, which already took a whole
 * timeout), and for a code or refresh-token grant only an answer that says
 * the request was not processed (429, 503).
 */
const mayRepeat = (error: ConnectedVehicleError, clientCredentials: boolean): boolean =>
  error.isRetryable && error.reason._tag !== "Timeout" && (clientCredentials || error.status === 429 || error.status === 503)

// the longest access token lifetime taken from a response (one year): a
// longer one is taken as this, so that every expiry is a date a store can
// hold (a refused one would lose the rotated refresh token of the grant)
const maxLifetimeSeconds = 365 * 86_400

// an empty refresh token is none: a refresh grant then keeps the current one
const toToken = (response: AppTokenResponse): Effect.Effect<Token> =>
  Effect.map(Clock.currentTimeMillis, (now) => {
    const refreshToken = response.refresh_token === undefined || Redacted.value(response.refresh_token) === "" ? undefined : response.refresh_token
    return {
      accessToken: response.access_token,
      issuedAt: now,
      expiresAt: now + Math.min(response.expires_in, maxLifetimeSeconds) * 1000,
      refreshToken,
      refreshExpiresAt: refreshToken === undefined ? undefined : now + TokenLifetimes.refreshSeconds * 1000
    }
  })

// a code is sent as given: a lone surrogate has no UTF-8 form (U+FFFD would
// go instead); the redirect URI follows the consent's rule
const codeIssue = (code: unknown, redirectUri: unknown): InvalidArgument | undefined => {
  if (typeof code !== "string" || code.length === 0) {
    return new InvalidArgument({ field: "code", message: "code: Expected the non-empty code of the consent redirect" })
  }
  if (!code.isWellFormed()) {
    return new InvalidArgument({ field: "code", message: "code: Expected well-formed Unicode (a lone surrogate cannot be sent)" })
  }
  const issue = redirectUriIssue(redirectUri)
  return issue === undefined ? undefined : new InvalidArgument({ field: "redirectUri", message: `redirectUri: ${issue}` })
}

/**
 * Exchanges an authorization code. `redirectUri` must be the one of the
 * consent URL. A `code` that is not a non-empty string of well-formed
 * Unicode, or a `redirectUri` that is not an absolute URI without a fragment
 * (`Consent.redirectUriIssue`), is an `InvalidArgument` naming it, before
 * anything is sent.
 *
 * @example
 * ```ts
 * import { exchangeCode } from "@connected-vehicle/auth/TokenExchange"
 *
 * const tokens = exchangeCode({ code: "abc", redirectUri: "https://app.example/callback" })
 * ```
 * @since 0.1.0
 * @category grants
 */
export const exchangeCode = (
  input: { readonly code: string; readonly redirectUri: string },
  options?: Transport.CallOptions
): Effect.Effect<Token, TokenError, Transport.Transport | OAuthConfig> =>
  Effect.suspend(() => {
    let payload: TokenRequest & { readonly grant_type: "authorization_code" }
    try {
      payload = { grant_type: "authorization_code", code: input.code, redirect_uri: input.redirectUri }
    } catch {
      // not an object (`null`, `undefined`), or a getter or a Proxy that throws
      return Effect.fail(new InvalidArgument({ field: "arguments", message: "arguments: Expected an object with code and redirectUri" }))
    }
    const invalid = codeIssue(payload.code, payload.redirect_uri)
    return invalid === undefined ? grant(payload, options) : Effect.fail(invalid)
  })

/**
 * Exchanges a refresh token for a new token set. A `refreshToken` that is
 * not a `Redacted` non-empty string fails with an `InvalidArgument` (`field:
 * "refreshToken"`) before anything is sent.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { refresh } from "@connected-vehicle/auth/TokenExchange"
 *
 * const tokens = refresh(Redacted.make("refresh-token"))
 * ```
 * @since 0.1.0
 * @category grants
 */
export const refresh = (
  refreshToken: Redacted.Redacted<string>,
  options?: Transport.CallOptions
): Effect.Effect<Token, TokenError, Transport.Transport | OAuthConfig> =>
  Effect.suspend(() => {
    const value: unknown = Redacted.isRedacted(refreshToken) ? Redacted.value(refreshToken) : undefined
    if (typeof value !== "string" || value === "") {
      return Effect.fail(new InvalidArgument({ field: "refreshToken", message: "refreshToken: Expected a Redacted non-empty string" }))
    }
    return grant({ grant_type: "refresh_token", refresh_token: value }, options)
  })

/**
 * An application token (v3, client credentials). The endpoint is not shown by
 * the spec: `tokenUrl`, else `OAuthConfig.clientCredentialsUrl`, else
 * `{auth_url}/oauth/token`.
 *
 * @example
 * ```ts
 * import { clientCredentials } from "@connected-vehicle/auth/TokenExchange"
 *
 * const appToken = clientCredentials()
 * const elsewhere = clientCredentials({ tokenUrl: "https://auth.example/oauth2/token" })
 * ```
 * @since 0.1.0
 * @category grants
 */
export const clientCredentials = (
  input?: { readonly scope?: string | undefined; readonly tokenUrl?: string | undefined },
  options?: Transport.CallOptions
): Effect.Effect<Token, TokenError, Transport.Transport | OAuthConfig> =>
  Effect.flatMap(Effect.service(OAuthConfig), (config) =>
    grant(
      { grant_type: "client_credentials", ...(input?.scope === undefined ? {} : { scope: input.scope }) },
      options,
      input?.tokenUrl ?? config.clientCredentialsUrl
    ))

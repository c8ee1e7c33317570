/**
 * Token exchange shapes (sections 4.6 and 5).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { headerValueIssue } from "./InvalidArgument.ts"
import { ErrorItem, errorOfStatus, makeEnvelope } from "./ServiceError.ts"

const Secret = Schema.RedactedFromValue(Schema.String)

// section 4.6: an access token that can be sent as it is (in the
// `Authorization` header: not empty, only a tab, U+0020-U+007E and
// U+0080-U+00FF, no leading or trailing space or tab), of
// type `Bearer` (RFC 6749: case insensitive), with a lifetime in seconds (at
// least one second: an access token already expired, or expiring within the
// second, is not a grant, and would be renewed on every call)
const tokenFields = {
  access_token: Schema.RedactedFromValue(Schema.String.check(
    Schema.makeFilter((s: string) => headerValueIssue(s, true) ?? true, {
      expected: "a token a header carries as it is",
      // (for generated values only: `headerValueIssue` decides)
      arbitraryConstraint: { patterns: [{ source: "^[\\x21-\\x7e\\x80-\\xff](?:[\\t\\x20-\\x7e\\x80-\\xff]*[\\x21-\\x7e\\x80-\\xff])?$", flags: "" }] }
    })
  )),
  token_type: Schema.String.check(Schema.isPattern(/^[Bb][Ee][Aa][Rr][Ee][Rr]$/u, { expected: "\"Bearer\" (in any case)" })),
  expires_in: Schema.Finite.check(Schema.isGreaterThanOrEqualTo(1))
}

/**
 * Response of the authorization-code and refresh-token grants. Token values
 * decode straight into `Redacted`. As section 4.6 has it: an `access_token`
 * that can be sent as it is in a header (not empty, only a tab,
 * U+0020-U+007E and U+0080-U+00FF, no leading or trailing space or tab), `token_type` `Bearer` (in any case,
 * RFC 6749), an `expires_in` of at least one second; anything else is
 * refused.
 *
 * @example
 * ```ts
 * import { Redacted, Schema } from "effect"
 * import { TokenResponse } from "@connected-vehicle/schema/OAuth"
 *
 * const token = Schema.decodeUnknownSync(TokenResponse)({
 *   access_token: "a", token_type: "Bearer", expires_in: 7200, refresh_token: "r"
 * })
 * Redacted.value(token.access_token) // "a"
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const TokenResponse = Schema.Struct({
  ...tokenFields,
  refresh_token: Secret
}).annotate({ identifier: "TokenResponse" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { TokenResponse } from "@connected-vehicle/schema/OAuth"
 *
 * const isTokenResponse: (u: unknown) => u is TokenResponse = Schema.is(TokenResponse)
 * ```
 * @category models
 * @since 0.1.0
 */
export type TokenResponse = typeof TokenResponse.Type

/**
 * Response of the client-credentials grant (no refresh token: a v3 application
 * asks for a new token instead).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { AppTokenResponse } from "@connected-vehicle/schema/OAuth"
 *
 * const isAppTokenResponse = Schema.is(AppTokenResponse)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const AppTokenResponse = Schema.Struct({
  ...tokenFields,
  refresh_token: Schema.optionalKey(Secret)
}).annotate({ identifier: "AppTokenResponse" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { AppTokenResponse } from "@connected-vehicle/schema/OAuth"
 *
 * const isAppTokenResponse: (u: unknown) => u is AppTokenResponse = Schema.is(AppTokenResponse)
 * ```
 * @category models
 * @since 0.1.0
 */
export type AppTokenResponse = typeof AppTokenResponse.Type

/**
 * Form body of `POST /oauth/token`: the grant type picks the other fields.
 * Only `authorization_code` is shown by the spec; `refresh_token` and
 * `client_credentials` follow RFC 6749.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { TokenRequest } from "@connected-vehicle/schema/OAuth"
 *
 * const isTokenRequest = Schema.is(TokenRequest)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const TokenRequest = Schema.Union([
  Schema.Struct({
    grant_type: Schema.Literal("authorization_code"),
    code: Schema.String,
    redirect_uri: Schema.String
  }),
  Schema.Struct({
    grant_type: Schema.Literal("refresh_token"),
    refresh_token: Schema.String
  }),
  Schema.Struct({
    grant_type: Schema.Literal("client_credentials"),
    scope: Schema.optionalKey(Schema.String)
  })
]).annotate({ identifier: "TokenRequest" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { TokenRequest } from "@connected-vehicle/schema/OAuth"
 *
 * const isTokenRequest: (u: unknown) => u is TokenRequest = Schema.is(TokenRequest)
 * ```
 * @category models
 * @since 0.1.0
 */
export type TokenRequest = typeof TokenRequest.Type

/**
 * RFC 6749 error codes (sections 4.1.2.1 and 5.2) of `/oauth/*`: what the
 * `error` member of an {@link OAuthErrorBody} names (`temporarily_unavailable`
 * answers a 429 or 503).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { OAuthErrorCode } from "@connected-vehicle/schema/OAuth"
 *
 * const isOAuthErrorCode = Schema.is(OAuthErrorCode)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const OAuthErrorCode = Schema.Literals([
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
  "access_denied",
  "unsupported_response_type",
  "server_error",
  "temporarily_unavailable"
])

/**
 * The error body of `/oauth/*`: RFC 6749's `error` and `error_description`
 * (what OAuth clients read) and, optionally, the section 7 `errors` (which
 * section 7 requires of every non-2xx body; the simulator sends both, see
 * {@link makeOAuthErrorBody}).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { OAuthErrorBody } from "@connected-vehicle/schema/OAuth"
 *
 * const isOAuthErrorBody = Schema.is(OAuthErrorBody)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const OAuthErrorBody = Schema.Struct({
  error: Schema.String,
  error_description: Schema.optionalKey(Schema.String),
  errors: Schema.optionalKey(Schema.NonEmptyArray(ErrorItem))
}).annotate({ identifier: "OAuthErrorBody" })

/**
 * An `/oauth/*` error body with both shapes: RFC 6749's `error` and
 * `error_description`, and the section 7 `errors` with one item (the type,
 * code and title of `status`, `description` as its detail).
 *
 * @example
 * ```ts
 * import { makeOAuthErrorBody } from "@connected-vehicle/schema/OAuth"
 *
 * const body = makeOAuthErrorBody(400, "invalid_grant", "Unknown or already used refresh token")
 * body.errors?.[0]?.code // "BAD_REQUEST"
 * ```
 * @category constructors
 * @since 0.2.0
 */
export const makeOAuthErrorBody = (status: number, error: string, description: string): OAuthErrorBody => {
  const { code, title, type } = errorOfStatus(status)
  return { error, error_description: description, errors: makeEnvelope(type, description, { status, code, title }).errors }
}

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { OAuthErrorBody } from "@connected-vehicle/schema/OAuth"
 *
 * const isOAuthErrorBody: (u: unknown) => u is OAuthErrorBody = Schema.is(OAuthErrorBody)
 * ```
 * @category models
 * @since 0.1.0
 */
export type OAuthErrorBody = typeof OAuthErrorBody.Type

/**
 * Permissions (scopes) of section 5.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Permission } from "@connected-vehicle/schema/OAuth"
 *
 * const isPermission = Schema.is(Permission)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Permission = Schema.Literals([
  "read_odometer",
  "read_location",
  "read_vin",
  "read_engine_oil",
  "read_tires",
  "read_service_history",
  "read_vehicle_info",
  "read_battery"
])

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Permission } from "@connected-vehicle/schema/OAuth"
 *
 * const isPermission: (u: unknown) => u is Permission = Schema.is(Permission)
 * ```
 * @category models
 * @since 0.1.0
 */
export type Permission = typeof Permission.Type

/**
 * Access token lifetime (7200 s) and refresh token lifetime (60 days), in seconds.
 *
 * @example
 * ```ts
 * import { TokenLifetimes } from "@connected-vehicle/schema/OAuth"
 *
 * const expiresAt = Date.now() + TokenLifetimes.accessSeconds * 1000
 * ```
 * @category constants
 * @since 0.1.0
 */
export const TokenLifetimes = {
  accessSeconds: 7200,
  refreshSeconds: 60 * 24 * 60 * 60
} as const

// a lone surrogate has no UTF-8 form: the URL would carry U+FFFD, another value than the one given
const illFormed = "Expected well-formed Unicode (a lone surrogate cannot be sent)"

// a URI scheme (RFC 3986 section 3.1) at the start: what makes a URI absolute
const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/

// schemes that run or embed content in the browser rather than reach an
// application: an authorization server must not send a code to them
const unsafeScheme = /^(?:javascript|vbscript|data|file|blob|about|filesystem|view-source):/i

// the authority of a URI with one (`scheme://authority/...`), up to the path, query or fragment (a
// backslash ends it too, which a URL parser reads as a slash in http and https)
const authority = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#\\]*)/

/** Whether `u` (which parses) has user information: what the parser finds, or an `@` in the authority it would read past. */
const hasUserInfo = (u: string): boolean => {
  const url = new URL(u)
  return url.username !== "" || url.password !== "" || (authority.exec(u)?.[1] ?? "").includes("@")
}

// an http or https URI a URL parser reads as another: without `//`
// (`https:app.example/cb` is `https://app.example/cb`), with a backslash
// (read as a slash), or with a dot segment in its path (`/a/../cb`,
// `/%2e/cb`: taken out), so the URI compared at the code exchange would not
// be the one given
const webScheme = /^https?:/i
const webAuthority = /^https?:\/\//i
const dotSegment = /\/(?:\.|%2e){1,2}(?=[/?#]|$)/i

/**
 * Whether the URL parser keeps the host of the http or https URI `u` as
 * written, but for case (RFC 3986: a host is case-insensitive) and the
 * ASCII form of an internationalized name (the same name): an empty host
 * (`http:///127.0.0.1/cb`), an IPv4 address written otherwise
 * (`http://2130706433/cb`), a percent-encoded or trailing-dot host is read as
 * another; so is an internationalized name the parser maps to another name
 * or to an address (fullwidth digits, `。`, a soft hyphen).
 */
const hostAsWritten = (u: string): boolean => {
  const written = /^https?:\/\/([^/?#]*)/i.exec(u)![1]!.replace(/:\d*$/, "")
  // a trailing dot: the same name to DNS, another host to a comparison of strings
  if (written.endsWith(".")) return false
  const hostname = new URL(u).hostname
  // eslint-disable-next-line no-control-regex
  if (!/[^\u0000-\u007f]/.test(written)) return written.toLowerCase() === hostname
  // an internationalized name is kept (its ASCII form is the same name) unless the parser maps it to
  // another one: fullwidth or compatibility characters (`１２７.０.０.１`), dots other than `.`
  // (`。`), characters it drops (a soft hyphen, a zero-width space), percent-encoding, or an address
  return written.normalize("NFKC") === written.normalize("NFC") && !otherDots.test(written) &&
    !droppedByParser.test(written) && !written.includes("%") && !ipLiteral.test(hostname)
}

// the characters a URL parser drops from a name (UTS 46: default ignorable), but the zero-width
// joiner and non-joiner, which it keeps (Persian and Indic names spell with them)
const droppedByParser = /(?![\u200c\u200d])\p{Default_Ignorable_Code_Point}/u

// the full stops a URL parser reads as `.` (UTS 46): the ideographic, fullwidth and halfwidth ones
const otherDots = /[\u3002\uff0e\uff61]/

// a hostname the parser made an address of
const ipLiteral = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[.*\])$/

/** Why an http or https URI `u` is read as another, or undefined when it is read as given (or of another scheme). */
const reReadIssue = (u: string): string | undefined => {
  if (!webScheme.test(u)) return undefined
  if (!webAuthority.test(u)) return "Expected an http or https URL as scheme://host[:port][/path] (a URL parser reads it otherwise)"
  if (u.includes("\\")) return "Expected an http or https URL without a backslash (not a URI character; a URL parser reads one before the query as a slash)"
  if (!hostAsWritten(u)) {
    return "Expected an http or https URL whose host a URL parser keeps as written (not empty, no IPv4 address in another form than a.b.c.d, no percent-encoding, no trailing dot, no character it maps to another: fullwidth, 。, invisible)"
  }
  const path = u.replace(/^https?:\/\/[^/?#]*/i, "").split(/[?#]/, 1)[0]!
  return dotSegment.test(path) ? "Expected an http or https URL without a dot segment in its path (/./ or /../: a URL parser takes them out)" : undefined
}

// a control character (C0, DEL, C1) or any white space: a URL parser takes
// some off or turns them into other characters, so the URI compared at the
// code exchange would not be the one given
const notInUri = /[\p{Cc}\s]/u

/**
 * Why `u` cannot be the redirect URI of the consent flow, `undefined` when it
 * can: RFC 6749 section 3.1.2 has it an absolute URI (with a scheme:
 * `https://app.example/callback`, `com.example.app:/callback`) without a
 * fragment; also without white space, a control character or user
 * information (`https://user:password@app.example/cb`: the consent URL would
 * carry the password, and the simulator never matches one), not of a
 * scheme a browser runs or embeds (`javascript:`, `vbscript:`, `data:`,
 * `file:`, `blob:`, `about:`, `filesystem:`, `view-source:`), and well-formed Unicode; an `http` or `https` URI
 * is `scheme://host...` with a host the URL parser keeps as written (not empty, no IPv4
 * address written otherwise than `a.b.c.d`), without a backslash or a dot segment (`/../`) in its path
 * (what the URL parser would change is not the URI given). The one rule of the SDK (`Consent.redirectUriIssue` of
 * `@connected-vehicle/auth`: the consent URL, the code exchange, the client's
 * `redirectUri` option) and of the simulator's registered redirect URIs and
 * consent. The URI is not quoted.
 *
 * @example
 * ```ts
 * import { redirectUriIssue } from "@connected-vehicle/schema/OAuth"
 *
 * redirectUriIssue("https://app.example/callback") // undefined
 * redirectUriIssue("myapp://callback") // undefined
 * redirectUriIssue("../callback") // "Expected an absolute URL (RFC 6749 section 3.1.2: with a scheme, as in https://app.example/callback)"
 * ```
 * @since 0.3.0
 * @category validation
 */
export const redirectUriIssue = (u: unknown): string | undefined => {
  if (typeof u !== "string" || u.length === 0) return "Expected an absolute URL (a non-empty string)"
  if (!u.isWellFormed()) return illFormed
  if (notInUri.test(u)) return "Expected an absolute URL without white space or control characters"
  if (!scheme.test(u) || !URL.canParse(u)) return "Expected an absolute URL (RFC 6749 section 3.1.2: with a scheme, as in https://app.example/callback)"
  if (unsafeScheme.test(u)) return "Expected a URL an application receives, not a javascript:, vbscript:, data:, file:, blob:, about:, filesystem: or view-source: URL"
  if (hasUserInfo(u)) return "Expected an absolute URL without user information (user:password@ before the host would be sent along)"
  const reRead = reReadIssue(u)
  if (reRead !== undefined) return reRead
  return u.includes("#") ? "Expected an absolute URL without a fragment (RFC 6749 section 3.1.2)" : undefined
}

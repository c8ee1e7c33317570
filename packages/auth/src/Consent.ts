/**
 * The consent URL the user is sent to (authorization-code flow, section 5).
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { HttpApiClient } from "effect/http-api"
import { AuthorizationApi } from "@connected-vehicle/schema/Api"
import { Mode } from "@connected-vehicle/schema/Common"
import { InvalidArgument, validate } from "@connected-vehicle/schema/InvalidArgument"
import * as OAuth from "@connected-vehicle/schema/OAuth"
import { Permission } from "@connected-vehicle/schema/OAuth"
import { TransportConfig } from "@connected-vehicle/transport/TransportConfig"
import { OAuthConfig } from "./OAuthConfig.ts"

/**
 * What the consent URL carries besides the client id.
 *
 * @example
 * ```ts
 * import type { ConsentOptions } from "@connected-vehicle/auth/Consent"
 *
 * const options: ConsentOptions = {
 *   redirectUri: "https://app.example/callback",
 *   permissions: ["read_odometer"],
 *   state: "xyz",
 *   mode: "simulated"
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface ConsentOptions {
  /** Must equal the `redirect_uri` of the later code exchange. */
  readonly redirectUri: string
  /**
   * The permissions asked for (`scope`): at least one, each of section 5.3
   * (`read_odometer`, ..., `read_battery`). Required: omitted, empty or with
   * another value, an `InvalidArgument` (`field: "permissions"`).
   */
  readonly permissions: ReadonlyArray<Permission>
  /** Opaque value echoed back on the redirect (CSRF protection). */
  readonly state?: string | undefined
  readonly mode?: Mode | undefined
}

/**
 * Builds `{auth_url}/oauth/authorize?response_type=code&client_id=...&redirect_uri=...&scope=...`
 * from the contract. Scope is the permissions joined by spaces. Fails with
 * an `InvalidArgument` (`field: "redirectUri"`) when the redirect URI is
 * missing, empty or not an absolute URI without a fragment
 * ({@link redirectUriIssue}), (`field: "permissions"`) when the permissions are
 * missing, empty (no `scope`: the simulator grants every permission) or
 * include one that section 5.3 does not list (the consent would be refused
 * with `invalid_scope`), and (`field: "authorizationUrl"`) when the
 * authorization root is not an absolute http(s) URL without query or
 * fragment.
 *
 * @example
 * ```ts
 * import { consentUrl } from "@connected-vehicle/auth/Consent"
 *
 * const url = consentUrl("http://127.0.0.1:8080", "my-client", {
 *   redirectUri: "https://app.example/callback",
 *   permissions: ["read_odometer", "read_vin"],
 *   state: "xyz"
 * })
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const consentUrl = (
  authorizationUrl: string,
  clientId: string,
  options: ConsentOptions
): Effect.Effect<string, InvalidArgument> =>
  Effect.suspend(() => {
    if (!isRoot(authorizationUrl)) {
      return Effect.fail(
        new InvalidArgument({
          field: "authorizationUrl",
          message: "authorizationUrl: Expected an absolute http(s) URL without query or fragment (the authorization root)"
        })
      )
    }
    const given = readConsent(options)
    if (given instanceof InvalidArgument) return Effect.fail(given)
    const { redirectUri } = given
    if (typeof redirectUri !== "string" || redirectUri.length === 0) {
      return Effect.fail(missingRedirectUri(
        redirectUri === undefined
          ? "none was given"
          : `got ${typeof redirectUri === "string" || redirectUri === null ? JSON.stringify(redirectUri) : `a ${typeof redirectUri}`}`
      ))
    }
    const issue = redirectUriIssue(redirectUri)
    if (issue !== undefined) return Effect.fail(new InvalidArgument({ field: "redirectUri", message: `redirectUri: ${issue}` }))
    return Effect.map(validate(ConsentFields, { permissions: given.permissions, state: given.state, mode: given.mode }), (valid) =>
      HttpApiClient.urlBuilder(AuthorizationApi, { baseUrl: authorizationUrl }).oauth.authorize({
        query: {
          response_type: "code",
          client_id: clientId,
          redirect_uri: redirectUri,
          scope: valid.permissions.join(" "),
          ...(valid.state === undefined ? {} : { state: valid.state }),
          ...(valid.mode === undefined ? {} : { mode: valid.mode })
        }
      }))
  })

// an authorization root: an absolute http(s) URL the consent path can be appended to (no query, no fragment)
const isRoot = (url: unknown): url is string =>
  typeof url === "string" && URL.canParse(url) && !url.includes("?") && !url.includes("#") &&
  ["http:", "https:"].includes(new URL(url).protocol)

// a lone surrogate has no UTF-8 form: the URL would carry U+FFFD, another value than the one given
const illFormed = "Expected well-formed Unicode (a lone surrogate cannot be sent)"

/**
 * Why `u` cannot be the redirect URI of the consent flow, `undefined` when it
 * can: RFC 6749 section 3.1.2 has it an absolute URI (with a scheme:
 * `https://app.example/callback`, `com.example.app:/callback`,
 * `myapp://callback`) without a fragment; also without white space or a
 * control character, and well-formed Unicode (what the URL parser would
 * change is not the URI given). The one rule of the consent URL
 * (`consentUrl`, `make`), the code exchange (`TokenExchange.exchangeCode`,
 * `Session.login`), the SDK client's `redirectUri` option and the
 * simulator's registered redirect URIs: `OAuth.redirectUriIssue` of
 * `@connected-vehicle/schema`. The URI is not quoted.
 *
 * @example
 * ```ts
 * import { redirectUriIssue } from "@connected-vehicle/auth/Consent"
 *
 * redirectUriIssue("https://app.example/callback") // undefined
 * redirectUriIssue("../callback") // "Expected an absolute URL (RFC 6749 section 3.1.2: with a scheme, as in https://app.example/callback)"
 * ```
 * @since 0.2.0
 * @category validation
 */
export const redirectUriIssue: (u: unknown) => string | undefined = OAuth.redirectUriIssue

// what the consent URL takes from its options, checked by `consentUrl`:
// permissions of section 5.3 only (a consent with another scope is refused
// with `invalid_scope`), at least one (the simulator takes an empty scope
// for every permission: no consent asks for more than it names)
const ConsentFields = Schema.Struct({
  permissions: Schema.Array(Permission).check(
    Schema.isMinLength(1, { expected: "at least one permission (an empty scope would ask for every permission)" })
  ),
  state: Schema.optional(Schema.String.check(Schema.makeFilter((s: string) => s.isWellFormed() || illFormed))),
  mode: Schema.optional(Mode)
})

// the fields of the options, or the `InvalidArgument` of options that are not
// an object or cannot be read (a getter or a Proxy that throws)
const readConsent = (options: unknown) => {
  try {
    if (typeof options === "object" && options !== null && !Array.isArray(options)) {
      const { mode, permissions, redirectUri, state } = options as Record<string, unknown>
      return { mode, permissions, redirectUri, state }
    }
  } catch {
    // below
  }
  return new InvalidArgument({ field: "arguments", message: "arguments: Expected an object whose fields can be read" })
}

/**
 * {@link consentUrl} with the configured authorization root and client id;
 * `redirectUri` defaults to the configured one (`OAuthConfig.redirectUri`);
 * without either, an `InvalidArgument` (`field: "redirectUri"`).
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { make } from "@connected-vehicle/auth/Consent"
 *
 * const url = make({ permissions: ["read_odometer"], state: "xyz" })
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Omit<ConsentOptions, "redirectUri"> & { readonly redirectUri?: string | undefined }
): Effect.Effect<string, InvalidArgument, TransportConfig | OAuthConfig> =>
  Effect.gen(function*() {
    const transport = yield* TransportConfig
    const oauth = yield* OAuthConfig
    const given = readConsent(options)
    if (given instanceof InvalidArgument) return yield* Effect.fail(given)
    const redirectUri = given.redirectUri ?? oauth.redirectUri
    if (redirectUri === undefined) {
      return yield* missingRedirectUri("none was given, nor configured (the client's redirectUri option, or CONNECTED_VEHICLE_REDIRECT_URI for layerConfig)")
    }
    return yield* consentUrl(transport.roots.authorization, oauth.clientId, { ...given, redirectUri } as ConsentOptions)
  })

/** The argument error of a missing or empty redirect URI (`what` says what was given). */
const missingRedirectUri = (what: string): InvalidArgument =>
  new InvalidArgument({
    field: "redirectUri",
    message: `redirectUri: Expected the redirect URI of the consent and the code exchange (a non-empty string), ${what}`
  })

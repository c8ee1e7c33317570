/**
 * The application's OAuth client: client id, client secret (always
 * `Redacted`), the default redirect URI, how early tokens are refreshed and
 * until when a token being renewed is still handed out.
 *
 * @since 0.1.0
 */
import { Config, Context, Duration, Effect, Layer, Option, Redacted, Result, Schema, SchemaGetter, SchemaIssue } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { redirectUriIssue } from "@connected-vehicle/schema/OAuth"
import { secretText } from "@connected-vehicle/schema/Redaction"
import * as ConfigurationError from "@connected-vehicle/transport/ConfigurationError"
import * as DurationVariable from "@connected-vehicle/transport/DurationVariable"
import { rootIssue } from "@connected-vehicle/transport/TransportConfig"

/**
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { OAuthConfig } from "@connected-vehicle/auth/OAuthConfig"
 *
 * const clientId = Effect.map(Effect.service(OAuthConfig), (c) => c.clientId)
 * ```
 * @since 0.1.0
 * @category services
 */
export class OAuthConfig extends Context.Service<OAuthConfig, {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** Used by the consent URL and the code exchange when none is given. */
  readonly redirectUri: string | undefined
  /**
   * A token this close to its expiry is refreshed before use (default 60 s),
   * capped at half the token's lifetime.
   */
  readonly refreshAhead: Duration.Duration
  /**
   * A token due for renewal is still handed out, while it is renewed in the
   * background, until this long before its expiry (at most, and by default,
   * half the refresh-ahead window: 30 s with the default window, so that a
   * token handed out outlives the request that carries it); after that,
   * callers wait for the new token. `undefined` means the default.
   */
  readonly expiryMargin?: Duration.Duration | undefined
  /**
   * Endpoint of the client-credentials grant (not shown by the spec); `undefined`
   * means `{auth_url}/oauth/token`, where the simulator serves it.
   */
  readonly clientCredentialsUrl: string | undefined
  /**
   * How long a refusal by the token endpoint is given to the renewals of
   * its key without a token request (not shown by the spec): a refusal of
   * the client itself (`invalid_client`, `unauthorized_client`, a 401), and
   * an access token the service rejected that a renewal got back again.
   * `undefined` means {@link defaultRefusalWindow}.
   */
  readonly refusalWindow?: Duration.Duration | undefined
}>()("@connected-vehicle/auth/OAuthConfig") {}

/**
 * The default {@link OAuthConfig} `refusalWindow`: 10 seconds.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { defaultRefusalWindow } from "@connected-vehicle/auth/OAuthConfig"
 *
 * Duration.toSeconds(defaultRefusalWindow) // 10
 * ```
 * @since 0.2.0
 * @category constants
 */
export const defaultRefusalWindow: Duration.Duration = Duration.seconds(10)

/**
 * The longest {@link OAuthConfig} `refusalWindow`: one day (a longer one is
 * an `InvalidArgument`, or a `ConfigurationError` from the environment).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { maxRefusalWindow } from "@connected-vehicle/auth/OAuthConfig"
 *
 * Duration.toHours(maxRefusalWindow) // 24
 * ```
 * @since 0.2.0
 * @category constants
 */
export const maxRefusalWindow: Duration.Duration = Duration.days(1)

const withinRefusalMax = (window: Duration.Duration): boolean => Duration.toMillis(window) <= Duration.toMillis(maxRefusalWindow)

/**
 * Options of {@link layer}; see {@link OAuthConfig} for each field.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Options } from "@connected-vehicle/auth/OAuthConfig"
 *
 * const options: Options = {
 *   clientId: "app",
 *   clientSecret: Redacted.make("secret"),
 *   clientCredentialsUrl: "https://auth.example/oauth2/token"
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly redirectUri?: string | undefined
  /** A `Duration` input (default 60 seconds). */
  readonly refreshAhead?: Duration.Input | undefined
  /** A `Duration` input (default half the refresh-ahead window). */
  readonly expiryMargin?: Duration.Input | undefined
  readonly clientCredentialsUrl?: string | undefined
  /** A `Duration` input, at most {@link maxRefusalWindow} (default {@link defaultRefusalWindow}, 10 seconds). */
  readonly refusalWindow?: Duration.Input | undefined
}

/**
 * A layer from options. As `TransportConfig.layer` does, a `refreshAhead`,
 * an `expiryMargin` or a `refusalWindow` that is not a non-negative, finite `Duration` input
 * (`"banana"`, `NaN`, `-5000`, `Infinity`, `{ seconds: NaN }`, `[NaN, 0]`,
 * `{ millis: 5 }`: no such unit) throws an `InvalidArgument` naming it, when
 * the layer is made; so does a `clientId` that is empty or holds a colon (the
 * Basic credential joins the id and the secret with one) or a control
 * character, a `redirectUri` that `Consent.redirectUriIssue` refuses, or a
 * `clientCredentialsUrl` that is not an absolute `http:` or `https:` URL
 * without a user name, a password or a fragment (the rule of the transport's
 * roots, `TransportConfig.rootIssue`, a query allowed). `layerConfig` reads
 * `CONNECTED_VEHICLE_CLIENT_ID`, `_REDIRECT_URI` and `_CLIENT_CREDENTIALS_URL`
 * by the same rules.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { layer } from "@connected-vehicle/auth/OAuthConfig"
 *
 * const OAuthLive = layer({ clientId: "app", clientSecret: Redacted.make("secret"), redirectUri: "https://app.example/cb" })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<OAuthConfig> =>
  Layer.succeed(OAuthConfig, {
    clientId: checkedClientId(options.clientId),
    clientSecret: options.clientSecret,
    redirectUri: checked("redirectUri", options.redirectUri, redirectUriIssue),
    refreshAhead: durationOf("refreshAhead", options.refreshAhead) ?? defaultRefreshAhead,
    expiryMargin: durationOf("expiryMargin", options.expiryMargin),
    clientCredentialsUrl: checked("clientCredentialsUrl", options.clientCredentialsUrl, tokenUrlIssue),
    refusalWindow: refusalWindowOf(options.refusalWindow)
  })

const defaultRefreshAhead = Duration.seconds(60)

// a refusal window: a non-negative duration of at most a day, else the `InvalidArgument` naming it, thrown
const refusalWindowOf = (input: Duration.Input | undefined): Duration.Duration | undefined => {
  const window = durationOf("refusalWindow", input)
  if (window !== undefined && !withinRefusalMax(window)) {
    throw new InvalidArgument({ field: "refusalWindow", message: "refusalWindow: Expected at most 1 day" })
  }
  return window
}

/**
 * Why a client id cannot be sent (the Basic credential is the Base64 of
 * `<id>:<secret>`, joined by one colon: section 5 of the spec), `undefined`
 * when it can: a non-empty string without a colon or a control character.
 *
 * @example
 * ```ts
 * import { clientIdIssue } from "@connected-vehicle/auth/OAuthConfig"
 *
 * clientIdIssue("demo-client-id") // undefined
 * clientIdIssue("team:app") // "Expected no \":\" (...)"
 * ```
 * @since 0.2.0
 * @category utils
 */
export const clientIdIssue = (id: unknown): string | undefined =>
  typeof id !== "string" || id === ""
    ? "Expected a non-empty string"
    : id.includes(":")
    ? "Expected no \":\" (the Basic credential joins the id and the secret with one colon: a colon in the id would split it elsewhere)"
    : /[\u0000-\u001f\u007f]/.test(id)
    ? "Expected no control character"
    : undefined

const checkedClientId = (id: string): string => {
  const issue = clientIdIssue(id)
  if (issue !== undefined) throw new InvalidArgument({ field: "clientId", message: `clientId: ${issue}` })
  return id
}

const ClientId = Schema.String.check(Schema.makeFilter((id: string) => clientIdIssue(id) ?? true))

// why `u` cannot be the client-credentials endpoint: the rule of the
// transport's roots (an absolute http(s) URL without a user name, a password
// or a fragment; the URL is never quoted), a query allowed (RFC 6749 section
// 3.2: the token endpoint may have one; nothing is appended to this URL)
const tokenUrlIssue = (u: unknown): string | undefined =>
  typeof u !== "string"
    ? rootIssue(u)
    : u.includes("#")
    ? "Expected a URL without a fragment"
    : rootIssue(u.replace(/\?[\s\S]*$/, ""))

// `value` when it is unset or `issueOf` finds nothing, else the `InvalidArgument` naming `field`, thrown
const checked = (field: string, value: string | undefined, issueOf: (u: unknown) => string | undefined): string | undefined => {
  const issue = value === undefined ? undefined : issueOf(value)
  if (issue !== undefined) throw new InvalidArgument({ field, message: `${field}: ${issue}` })
  return value
}

// an optional variable that `issueOf` checks
const checkedVariable = (name: string, issueOf: (u: unknown) => string | undefined): Config.Config<string | undefined> =>
  Config.map(Config.option(Config.schema(Schema.String.check(Schema.makeFilter((s: string) => issueOf(s) ?? true)), name)), Option.getOrUndefined)

// a secret of the environment, by the one rule of a secret given as text
// (`secretText`): the white space around it trimmed; not UTF-8 text or a
// control character an issue that holds no part of the value (the variable is
// named by `Config.schema`); white space only is missing, as an empty variable is
const SecretFromText = Schema.String.pipe(Schema.decodeTo(Schema.Redacted(Schema.String), {
  decode: SchemaGetter.transformEffect((text: string) => {
    const checked = secretText(text)
    if (Result.isFailure(checked)) {
      const what = checked.failure === "not UTF-8 text" ? "is not UTF-8 text" : "holds a control character"
      return Effect.fail(new SchemaIssue.InvalidValue({ message: `Expected a secret as text, got one that ${what} (not shown)` }))
    }
    return checked.success.length === 0
      ? Effect.fail(new SchemaIssue.MissingKey(undefined))
      : Effect.succeed(Redacted.make(checked.success))
  }),
  encode: SchemaGetter.transform(Redacted.value)
}))

// the units of a `Duration` object input
const units = new Set(["weeks", "days", "hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"])

// the parts of an input that `Duration.fromInput` would read past: a `NaN`
// or a negative part of a tuple or object (read as zero), a key that is no
// unit (ignored)
const badParts = (input: unknown): boolean => {
  if (typeof input === "number") return Number.isNaN(input)
  if (typeof input !== "object" || input === null || Duration.isDuration(input)) return false
  const parts = Array.isArray(input) ? input.map((value) => ["nanoseconds", value] as const) : Object.entries(input)
  return parts.some(([unit, value]) => !units.has(unit) || (value !== undefined && (typeof value !== "number" || Number.isNaN(value) || value < 0)))
}

// a non-negative, finite duration, else the `InvalidArgument` naming `field`, thrown
const durationOf = (field: string, input: Duration.Input | undefined): Duration.Duration | undefined => {
  if (input === undefined) return undefined
  const decoded = badParts(input) ? Option.none() : Duration.fromInput(input)
  if (Option.isNone(decoded) || !Duration.isFinite(decoded.value) || Duration.toMillis(decoded.value) < 0) {
    throw new InvalidArgument({ field, message: `${field}: Expected a non-negative, finite duration` })
  }
  return decoded.value
}

/**
 * The OAuth client from the environment, as {@link Options}: the package's
 * one `Config` value, the names below `Config.nested("CONNECTED_VEHICLE")`
 * (`CLIENT_ID` is `CONNECTED_VEHICLE_CLIENT_ID` in the environment). It
 * composes with an application's own settings (`Config.all`) and nests
 * further (`Config.nested(config, "MYAPP")` reads
 * `MYAPP_CONNECTED_VEHICLE_CLIENT_ID`, ...). The deprecated
 * `_REFRESH_AHEAD_MS` is named in a warning each time it is read.
 *
 * | Variable | Meaning | Default |
 * |---|---|---|
 * | `CONNECTED_VEHICLE_CLIENT_ID` | the application's client id | required |
 * | `CONNECTED_VEHICLE_CLIENT_SECRET` | its secret (read as `Redacted`, by `secretText` of `@connected-vehicle/schema/Redaction`: the white space around it trimmed, not UTF-8 text or a control character inside an error naming the variable, never quoting it; white space only is missing) | required |
 * | `CONNECTED_VEHICLE_REDIRECT_URI` | the consent flow's redirect URI | none |
 * | `CONNECTED_VEHICLE_REFRESH_AHEAD` | renew a token this long before it expires (an Effect duration; the deprecated `_REFRESH_AHEAD_MS`, milliseconds, is read when it is not set) | `60 seconds` |
 * | `CONNECTED_VEHICLE_EXPIRY_MARGIN` | hand out a token due for renewal until this long before it expires (an Effect duration; at most half the refresh-ahead window) | half the refresh-ahead window |
 * | `CONNECTED_VEHICLE_CLIENT_CREDENTIALS_URL` | the client-credentials token endpoint | `{auth_url}/oauth/token` |
 * | `CONNECTED_VEHICLE_REFUSAL_WINDOW` | how long a refusal by the token endpoint (of the client, or of a token it gave back) holds without a token request (an Effect duration, at most `1 day`; `0 seconds`: none) | `10 seconds` |
 *
 * @example
 * ```ts
 * import { Config } from "effect"
 * import { config } from "@connected-vehicle/auth/OAuthConfig"
 *
 * const settings = Config.all({ oauth: config, port: Config.Port("PORT").pipe(Config.withDefault(8080)) })
 * // or every name under the application's own prefix: MYAPP_CONNECTED_VEHICLE_CLIENT_ID, ...
 * const mine = Config.nested(config, "MYAPP")
 * ```
 * @since 0.2.0
 * @category configuration
 */
export const config: Config.Config<Options> = Config.all({
  clientId: Config.schema(ClientId, "CLIENT_ID"),
  clientSecret: Config.schema(SecretFromText, "CLIENT_SECRET"),
  redirectUri: checkedVariable("REDIRECT_URI", redirectUriIssue),
  refreshAhead: DurationVariable.make("REFRESH_AHEAD", { positive: false }),
  expiryMargin: Config.map(
    Config.option(Config.schema(DurationVariable.FiniteDuration({ positive: false }), "EXPIRY_MARGIN")),
    Option.getOrUndefined
  ),
  clientCredentialsUrl: checkedVariable("CLIENT_CREDENTIALS_URL", tokenUrlIssue),
  refusalWindow: Config.map(
    Config.option(Config.schema(
      DurationVariable.FiniteDuration({ positive: false }).check(Schema.makeFilter(withinRefusalMax, { expected: "a duration of at most 1 day" })),
      "REFUSAL_WINDOW"
    )),
    Option.getOrUndefined
  )
}).pipe(DurationVariable.withWarning(["REFRESH_AHEAD"], { prefix: "CONNECTED_VEHICLE" }), Config.nested("CONNECTED_VEHICLE"))

/**
 * From the environment: {@link layer} of {@link config}.
 *
 * @example
 * ```ts
 * import { layerConfig } from "@connected-vehicle/auth/OAuthConfig"
 *
 * const OAuthLive = layerConfig
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<OAuthConfig, ConfigurationError.ConfigurationError> = Layer.unwrap(
  Effect.mapError(Effect.map(config, layer), ConfigurationError.fromConfigError)
)

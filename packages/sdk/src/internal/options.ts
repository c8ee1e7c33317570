/**
 * The Promise client's inputs checked: the client's options, a call's
 * options and a user's token. A bad value is an `InvalidArgumentError` naming
 * the field (never quoting a secret or a URL, which might hold one).
 */
import { ConfigProvider, Duration, Effect, Exit, Layer, Option, Redacted } from "effect"
import type { LogLevel } from "effect"
import * as Consent from "@connected-vehicle/auth/Consent"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import type { WarningLevel } from "@connected-vehicle/legacy-v2/Deprecation"
import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
import { headerValueIssue } from "@connected-vehicle/schema/InvalidArgument"
import { TokenLifetimes } from "@connected-vehicle/schema/OAuth"
import { unknownOption } from "@connected-vehicle/transport/Setting"
import type * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import type { ClientOptions, LogSetting, RequestOptions, UserToken } from "../ClientOptions.ts"
import { InvalidArgumentError } from "../ClientError.ts"

/** @internal */
export const invalid = (field: string, message: string) =>
  new InvalidArgumentError({ message: `${field}: ${message}`, field })

/**
 * The error of arguments or options that cannot be read (a getter or a Proxy that throws).
 *
 * @internal
 */
export const unreadable = (field: string) => invalid(field, "Expected an object whose fields can be read")

/**
 * The `InvalidArgumentError` of the first key of `input` that `known` does
 * not hold (a misspelt option from JavaScript), else undefined: the
 * transport's rule (`Setting.unknownOption`); throws what reading the keys
 * throws.
 *
 * @internal
 */
export const unknownKeyOf = (input: object, known: ReadonlyArray<string>): InvalidArgumentError | undefined => {
  const unknown = unknownOption(input, known)
  return unknown === undefined ? undefined : new InvalidArgumentError({ message: unknown.message, field: unknown.field, cause: unknown })
}

/** @internal */
export const throwIfInvalid = <A>(a: A | InvalidArgumentError): A => {
  if (a instanceof InvalidArgumentError) throw a
  return a
}

/** @internal */
export const millisOf = (field: string, input: Duration.Input): number | InvalidArgumentError => {
  const duration = Duration.fromInput(input)
  const millis = Option.isSome(duration) ? Duration.toMillis(duration.value) : Number.NaN
  return Number.isFinite(millis) && millis > 0 ? Math.ceil(millis) : invalid(field, "Expected a positive, finite duration")
}

/** @internal */
export const attemptsOf = (field: string, maxRetries: unknown): number | InvalidArgumentError =>
  typeof maxRetries === "number" && Number.isSafeInteger(maxRetries) && maxRetries >= 0
    ? maxRetries + 1
    : invalid(field, "Expected an integer >= 0")

/**
 * A call's options read once: the transport's per-call options (the same
 * names, `timeout` and `maxRetries`, passed as they are: the transport checks
 * them), the client's own `signal`, and a read's `unitSystem`.
 *
 * @internal
 */
export interface GivenOptions {
  readonly callOptions: Transport.CallOptions | undefined
  readonly signal: AbortSignal | undefined
  readonly unitSystem: unknown
}

// the fields of `RequestOptions` and `ReadOptions`
const callOptionKeys: ReadonlyArray<string> = ["timeout", "maxRetries", "signal", "unitSystem"]

// the fields of `UserToken`
const tokenKeys: ReadonlyArray<string> = ["accessToken", "refreshToken", "expiresAt", "expiresIn", "refreshExpiresAt"]

const none: GivenOptions = { callOptions: undefined, signal: undefined, unitSystem: undefined }

/**
 * The {@link GivenOptions} of a call's `RequestOptions` (or `ReadOptions`),
 * each field read once; options that are not an object or cannot be read (a
 * getter or a Proxy that throws) are an `InvalidArgumentError`.
 *
 * @internal
 */
export const toCallOptions = (options: RequestOptions | undefined): GivenOptions | InvalidArgumentError => {
  if (options === undefined) return none
  if (typeof options !== "object" || options === null) return invalid("options", "Expected an object")
  let maxRetries: unknown, signal: unknown, timeout: unknown, unitSystem: unknown
  let unknown: InvalidArgumentError | undefined
  try {
    // a misspelt option would be sent without it (`{ timout: "1 second" }`)
    unknown = unknownKeyOf(options, callOptionKeys)
    ;({ maxRetries, signal, timeout, unitSystem } = options as RequestOptions & { readonly unitSystem?: unknown })
  } catch {
    // a getter or a Proxy that throws
    return unreadable("options")
  }
  if (unknown !== undefined) return unknown
  if (signal !== undefined && !(signal instanceof AbortSignal)) return invalid("signal", "Expected an AbortSignal")
  const callOptions = timeout === undefined && maxRetries === undefined ? undefined : { timeout, maxRetries } as Transport.CallOptions
  return { callOptions, signal: signal as AbortSignal | undefined, unitSystem }
}

const epochMillis = (field: string, value: Date | number): number | InvalidArgumentError => {
  const millis = value instanceof Date ? value.getTime() : value
  return typeof millis === "number" && Number.isFinite(millis) ? millis : invalid(field, "Expected a Date or epoch milliseconds")
}

const nonEmpty = (u: unknown): Redacted.Redacted<string> | undefined =>
  typeof u === "string" && u.length > 0 ? Redacted.make(u) : undefined

/**
 * The stored token of a `UserToken`: its strings wrapped in `Redacted` first.
 *
 * @internal
 */
export const toToken = (input: UserToken, now: number): TokenStore.Token | InvalidArgumentError => {
  if (typeof input !== "object" || input === null) return invalid("token", "Expected an object")
  let given: UserToken
  let unknown: InvalidArgumentError | undefined
  try {
    // a misspelt field would be ignored (`expires_in` gave the default lifetime)
    unknown = unknownKeyOf(input, tokenKeys)
    const { accessToken, expiresAt, expiresIn, refreshExpiresAt, refreshToken } = input
    given = { accessToken, expiresAt, expiresIn, refreshExpiresAt, refreshToken } as UserToken
  } catch {
    // a getter or a Proxy that throws
    return unreadable("token")
  }
  if (unknown !== undefined) return unknown
  const accessToken = nonEmpty(given.accessToken)
  const refreshToken = nonEmpty(given.refreshToken)
  if (accessToken === undefined) return invalid("accessToken", "Expected a non-empty string")
  // sent as it is in the `Authorization` header (never quoted: a secret)
  const headerIssue = headerValueIssue(given.accessToken, true)
  if (headerIssue !== undefined) return invalid("accessToken", headerIssue)
  if (given.refreshToken !== undefined && refreshToken === undefined) return invalid("refreshToken", "Expected a non-empty string")
  if (given.expiresAt !== undefined && given.expiresIn !== undefined) return invalid("expiresIn", "Expected expiresAt or expiresIn, not both")
  const expiresAt = given.expiresAt !== undefined
    ? epochMillis("expiresAt", given.expiresAt)
    : given.expiresIn === undefined
    // neither: the service's access-token lifetime from now
    ? now + TokenLifetimes.accessSeconds * 1000
    : typeof given.expiresIn === "number" && Number.isFinite(given.expiresIn) && given.expiresIn > 0
    ? now + given.expiresIn * 1000
    : invalid("expiresIn", "Expected a positive number of seconds")
  if (expiresAt instanceof InvalidArgumentError) return expiresAt
  const refreshExpiresAt = given.refreshExpiresAt === undefined ? undefined : epochMillis("refreshExpiresAt", given.refreshExpiresAt)
  if (refreshExpiresAt instanceof InvalidArgumentError) return refreshExpiresAt
  return { accessToken, issuedAt: now, expiresAt, refreshToken, refreshExpiresAt }
}

/**
 * The roots of the client's options (`origin` or `roots`), once the
 * credentials are checked.
 *
 * @internal
 */
export const checkClientOptions = (options: ClientOptions): InvalidArgumentError | TransportConfig.Roots => {
  if (typeof options !== "object" || options === null) return invalid("options", "Expected an object")
  const clientIdIssue = OAuthConfig.clientIdIssue(options.clientId)
  if (clientIdIssue !== undefined) return invalid("clientId", clientIdIssue)
  const secret = options.clientSecret
  if (!(Redacted.isRedacted(secret) || (typeof secret === "string" && secret.length > 0))) {
    return invalid("clientSecret", "Expected a non-empty string")
  }
  const settings = checkSettings(options)
  if (settings !== undefined) return settings
  if ((options.origin === undefined) === (options.roots === undefined)) return invalid("origin", "Expected either origin or roots")
  if (options.origin !== undefined) {
    const origin = httpUrl("origin", options.origin)
    return origin instanceof InvalidArgumentError ? origin : TransportConfig.rootsFromOrigin(origin)
  }
  const roots = options.roots!
  if (typeof roots !== "object" || roots === null) return invalid("roots", "Expected the five roots")
  for (const key of ["base", "management", "compatibility", "authorization", "legacy"] as const) {
    const root = httpUrl(`roots.${key}`, roots[key])
    if (root instanceof InvalidArgumentError) return root
  }
  return roots
}

/** The options of the consent flow and the legacy reads: `redirectUri`, `unitSystem`, `userKey`. */
const checkSettings = (options: ClientOptions): InvalidArgumentError | undefined => {
  const { redirectUri, tokenStore, unitSystem, userKey } = options
  if (tokenStore !== undefined && !Layer.isLayer(tokenStore) && !isAsyncTokenStore(tokenStore)) {
    return invalid("tokenStore", "Expected a Layer of TokenStore, or an object with get, set and remove functions")
  }
  const redirectIssue = redirectUri === undefined ? undefined : Consent.redirectUriIssue(redirectUri)
  if (redirectIssue !== undefined) return invalid("redirectUri", redirectIssue)
  if (unitSystem !== undefined && unitSystem !== "metric" && unitSystem !== "imperial") return invalid("unitSystem", "Expected metric or imperial")
  const keyIssue = userKey === undefined ? undefined : TokenStore.checkKey(userKey)
  return keyIssue === undefined ? undefined : invalid("userKey", keyIssue.message.replace(/^key: /, ""))
}

const isAsyncTokenStore = (u: unknown): boolean =>
  typeof u === "object" && u !== null && ["get", "set", "remove"].every((name) => typeof (u as Record<string, unknown>)[name] === "function")

/** An absolute `http:` or `https:` URL without credentials, query or fragment (`TransportConfig.rootIssue`; the URL is not quoted: it might hold credentials). */
const httpUrl = (field: string, u: unknown): string | InvalidArgumentError => {
  const issue = TransportConfig.rootIssue(u)
  return issue === undefined ? u as string : invalid(field, issue)
}

/**
 * What the client reads of `TransportConfig.config`: its roots, given in
 * code, and `CONNECTED_VEHICLE_LOG` from the environment as it is now
 * (Effect's default provider keeps the one of its first use). No other
 * transport variable is looked up: the client's other settings are given in
 * code, and an unrelated variable (even an invalid one) is not its concern.
 */
const logProvider = (roots: TransportConfig.Roots): ConfigProvider.ConfigProvider => {
  const env = ConfigProvider.fromEnv()
  return ConfigProvider.orElse(
    ConfigProvider.fromUnknown({
      CONNECTED_VEHICLE: {
        BASE_URL: roots.base,
        MANAGEMENT_URL: roots.management,
        COMPAT_URL: roots.compatibility,
        AUTH_URL: roots.authorization,
        LEGACY_URL: roots.legacy
      }
    }),
    ConfigProvider.make((path) =>
      path.length === 2 && path[0] === "CONNECTED_VEHICLE" && path[1] === "LOG" ? env.load(path) : Effect.undefined
    )
  )
}

/**
 * The SDK's log level: the `logLevel` option, else the transport option's,
 * else `CONNECTED_VEHICLE_LOG` (the `logLevel` of `TransportConfig.config`,
 * read once, when the client is created; an invalid value is an
 * `InvalidArgumentError` naming it), else undefined (the runtime's minimum
 * level, `Info`).
 *
 * @internal
 */
export const logLevelOf = (
  options: ClientOptions,
  roots: TransportConfig.Roots
): LogLevel.LogLevel | undefined | InvalidArgumentError => {
  const setting: unknown = options.logLevel
  if (setting !== undefined) {
    return typeof setting === "string" && Object.hasOwn(TransportConfig.logLevels, setting)
      ? TransportConfig.logLevels[setting as LogSetting]
      : invalid("logLevel", "Expected debug, info, warn, error or off")
  }
  if (options.transport?.logLevel !== undefined) return options.transport.logLevel
  const fromEnv = Effect.runSyncExit(TransportConfig.config.parse(logProvider(roots)))
  return Exit.isSuccess(fromEnv)
    ? fromEnv.value.logLevel
    : invalid("CONNECTED_VEHICLE_LOG", "Expected debug, info, warn, error or off (any case)")
}

/**
 * The level of the legacy reads' deprecation warning: `Vehicles.config`
 * (`CONNECTED_VEHICLE_DEPRECATION_WARNINGS`, default `warn`), read once when
 * the client is created; an invalid value is an `InvalidArgumentError` naming
 * the variable.
 *
 * @internal
 */
export const deprecationWarningsOf = (): WarningLevel | InvalidArgumentError => {
  const fromEnv = Effect.runSyncExit(
    Effect.provideService(Vehicles.config, ConfigProvider.ConfigProvider, ConfigProvider.fromEnv())
  )
  return Exit.isSuccess(fromEnv)
    ? fromEnv.value.deprecationWarnings
    : invalid("CONNECTED_VEHICLE_DEPRECATION_WARNINGS", "Expected off, warn, info or debug (any case)")
}

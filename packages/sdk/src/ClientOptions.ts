/**
 * The options of the Promise client (`@connected-vehicle/sdk/Client`, which
 * re-exports them): the client's ({@link ClientOptions}), a call's
 * ({@link RequestOptions}, {@link ReadOptions}), a user's token, a token
 * store, and its logging.
 *
 * @since 0.2.0
 */
import type { Duration, Layer, Redacted } from "effect"
import type { HttpClient } from "effect/http"
import type * as TokenStore from "@connected-vehicle/auth/TokenStore"
import type { UnitSystem } from "@connected-vehicle/schema/Legacy"
import type * as TransportConfig from "@connected-vehicle/transport/TransportConfig"

/**
 * Options of one call.
 *
 * @example
 * ```ts
 * import type { RequestOptions } from "@connected-vehicle/sdk/Client"
 *
 * const options: RequestOptions = { timeout: "5 seconds", maxRetries: 0, signal: AbortSignal.timeout(10_000) }
 * ```
 * @since 0.1.0
 * @category options
 */
export interface RequestOptions {
  /** Timeout of each attempt (a `Duration` input: milliseconds or `"5 seconds"`). */
  readonly timeout?: Duration.Input | undefined
  /** Retries after the first attempt (0 disables them); the transport's backoff applies. */
  readonly maxRetries?: number | undefined
  /** Cancels the call: the request is aborted (its connection closed) and the call rejects with `AbortError`. */
  readonly signal?: AbortSignal | undefined
}

/**
 * Options of a legacy read or batch: the unit system and the call's options.
 *
 * @example
 * ```ts
 * import type { ReadOptions } from "@connected-vehicle/sdk/Client"
 *
 * const options: ReadOptions = { unitSystem: "imperial", timeout: 2_000 }
 * ```
 * @since 0.1.0
 * @category options
 */
export interface ReadOptions extends RequestOptions {
  readonly unitSystem?: UnitSystem | undefined
}

/**
 * A user's legacy token, as the application got it (strings, wrapped in
 * `Redacted` at once by `setUserToken`). Its expiry is `expiresAt` (a `Date`
 * or epoch milliseconds) or `expiresIn` (seconds from now); with neither,
 * the token is taken to expire 7200 seconds (the service's access-token
 * lifetime, spec section 5) after `setUserToken`, and is renewed with the
 * refresh token before then (or when the service answers 401).
 *
 * @example
 * ```ts
 * import type { UserToken } from "@connected-vehicle/sdk/Client"
 *
 * declare const saved: { access: string; refresh: string }
 * const token: UserToken = { accessToken: saved.access, refreshToken: saved.refresh, expiresIn: 3600 }
 * ```
 * @since 0.1.0
 * @category options
 */
export interface UserToken {
  readonly accessToken: string
  readonly refreshToken?: string | undefined
  /** When the access token expires (a `Date` or epoch milliseconds). */
  readonly expiresAt?: Date | number | undefined
  /** Seconds from now until the access token expires; with neither this nor `expiresAt`, 7200. */
  readonly expiresIn?: number | undefined
  readonly refreshExpiresAt?: Date | number | undefined
}

/**
 * Where the client keeps tokens, as Promises (the tokens stay `Redacted`): a
 * database or a secret store shared by several processes. Or an Effect
 * `Layer<TokenStore>`. Default: in memory.
 *
 * A rejection fails the call with a `CredentialsError` (its message is not
 * kept: it might quote a token). It is retried by the call's retries only
 * when the rejected value says it may pass by itself with `transient: true`
 * (a connection blip of the database); anything else (a corrupt value, a
 * refused access) fails the call at once.
 *
 * It has no `renewal` (see `TokenStore` of `@connected-vehicle/auth`): a
 * sign-out (`remove`) made while a renewal of the key runs is undone by the
 * renewal's `set`. Pass an Effect `Layer<TokenStore>` whose store
 * implements `renewal` for a sign-out to win.
 *
 * @example
 * ```ts
 * import type { Token } from "@connected-vehicle/auth/TokenStore"
 * import type { AsyncTokenStore } from "@connected-vehicle/sdk/Client"
 *
 * const tokens = new Map<string, Token>()
 * const store: AsyncTokenStore = {
 *   get: async (key) => tokens.get(key),
 *   set: async (key, token) => void tokens.set(key, token),
 *   remove: async (key) => void tokens.delete(key)
 * }
 * const blip = Object.assign(new Error("connection reset"), { transient: true }) // retried by the call
 * ```
 * @since 0.1.0
 * @category options
 */
export interface AsyncTokenStore {
  readonly get: (key: string) => Promise<TokenStore.Token | undefined>
  readonly set: (key: string, token: TokenStore.Token) => Promise<void>
  readonly remove: (key: string) => Promise<void>
}

/**
 * A log level of the client (`logLevel`, `CONNECTED_VEHICLE_LOG`).
 *
 * @example
 * ```ts
 * import type { LogSetting } from "@connected-vehicle/sdk/Client"
 *
 * const level: LogSetting = process.env["NODE_ENV"] === "production" ? "warn" : "debug"
 * ```
 * @since 0.2.0
 * @category options
 */
export type LogSetting = keyof typeof TransportConfig.logLevels

/**
 * One log line of the SDK, as the `logger` option receives it.
 *
 * @example
 * ```ts
 * import type { LogEntry } from "@connected-vehicle/sdk/Client"
 *
 * const toConsole = (entry: LogEntry) => console.error(entry.level, entry.message, JSON.stringify(entry.annotations))
 * ```
 * @since 0.2.0
 * @category options
 */
export interface LogEntry {
  readonly level: "debug" | "info" | "warn" | "error"
  readonly message: string
  /** The line's fields (`method`, `url`, `attempt`, `status`, `durationMillis`, `requestId`, ...). */
  readonly annotations: Readonly<Record<string, unknown>>
  readonly date: Date
}

/**
 * Options of `createClient`: the application's credentials, where the
 * service is (`origin`, or the five `roots`), and the defaults of every call.
 *
 * @example
 * ```ts
 * import type { ClientOptions } from "@connected-vehicle/sdk/Client"
 *
 * const options: ClientOptions = {
 *   clientId: "demo-client-id",
 *   clientSecret: process.env["CONNECTED_VEHICLE_CLIENT_SECRET"] ?? "",
 *   origin: "http://127.0.0.1:4010",
 *   timeout: "10 seconds",
 *   maxRetries: 2
 * }
 * ```
 * @since 0.1.0
 * @category options
 */
export type ClientOptions =
  & {
    readonly clientId: string
    /** Wrapped in `Redacted` at once; never in an error, a log or `inspect`. */
    readonly clientSecret: string | Redacted.Redacted<string>
    /** The redirect URI of the consent flow (`legacy.authorizationUrl`, `legacy.login`). */
    readonly redirectUri?: string | undefined
    /** Default timeout of each attempt (default 30 seconds). */
    readonly timeout?: Duration.Input | undefined
    /** Default retries after the first attempt (default 3). */
    readonly maxRetries?: number | undefined
    /** Unit system of the legacy reads (default `metric`). */
    readonly unitSystem?: UnitSystem | undefined
    /** Token-store key of the user behind the legacy reads (default `"user"`). */
    readonly userKey?: string | undefined
    readonly tokenStore?: AsyncTokenStore | Layer.Layer<TokenStore.TokenStore> | undefined
    /**
     * What the SDK logs (`http attempt` lines at `debug`, with method,
     * redacted URL, attempt, status, duration and request id; never a token
     * or secret): `debug`, `info`, `warn`, `error` or `off`. Default: the
     * `CONNECTED_VEHICLE_LOG` environment variable (the same names), else
     * `info`. Lines go to stderr (Effect's default logger), or to `logger`.
     */
    readonly logLevel?: LogSetting | undefined
    /** Receives the SDK's log lines instead of stderr (pino, winston, ...). */
    readonly logger?: ((entry: LogEntry) => void) | undefined
    /** Further transport policies (user agent, backoff, rate-limit waits, request-id header). */
    readonly transport?: Omit<TransportConfig.Options, "roots"> | undefined
    /** The HTTP client (default: the SDK's undici client, for Node; elsewhere give `FetchHttpClient.layer`). */
    readonly httpClient?: Layer.Layer<HttpClient.HttpClient> | undefined
  }
  & (
    | { readonly origin: string; readonly roots?: undefined }
    | { readonly roots: TransportConfig.Roots; readonly origin?: undefined }
  )

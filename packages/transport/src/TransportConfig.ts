/**
 * Where the service lives and how the transport talks to it: the five roots
 * of the spec, the per-request timeout, the retry and rate-limit policies, the
 * response headers that carry the request id and the SDK's log level.
 *
 * @since 0.1.0
 */
import { Config, Context, Duration, Effect, Layer } from "effect"
import type { LogLevel } from "effect"
import { fromConfigError } from "./ConfigurationError.ts"
import type { ConfigurationError } from "./ConfigurationError.ts"
import * as env from "./internal/env.ts"
import { check, duration, flag, headerNames, keys, logLevel, rootIssue as issueOfRoot, roots, unset, userAgent } from "./internal/options.ts"
import { sdkVersion } from "./internal/version.ts"

/**
 * The five roots of the spec. The three v3 roots end in `/v3`; the legacy
 * root does not include `/v2.0` (paths do).
 *
 * @example
 * ```ts
 * import type { Roots } from "@connected-vehicle/transport/TransportConfig"
 *
 * const roots: Roots = {
 *   base: "https://api.example.com/v3",
 *   management: "https://management.example.com/v3",
 *   compatibility: "https://compat.example.com/v3",
 *   authorization: "https://auth.example.com",
 *   legacy: "https://api.example.com"
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Roots {
  /** `{base_url}`: signals and connections. */
  readonly base: string
  /** `{management_url}`: subscriptions and webhooks. */
  readonly management: string
  /** `{compat_url}`: the compatibility listing. */
  readonly compatibility: string
  /** `{auth_url}`: the authorization server (`/oauth/authorize`, `/oauth/token`). */
  readonly authorization: string
  /** `{legacy_url}`: the v2.0 interface. */
  readonly legacy: string
}

/**
 * Retry of 408, 500, 502, 503 and 504 responses (decided by the status,
 * whatever the body says), of 429 responses (see the rate-limit policy) and
 * of transport failures (connection reset, timeout).
 * Other statuses are never retried.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { RetryPolicy } from "@connected-vehicle/transport/TransportConfig"
 *
 * const patient: RetryPolicy = {
 *   maxAttempts: 6,
 *   initialDelay: Duration.millis(500),
 *   factor: 2,
 *   maxDelay: Duration.seconds(10),
 *   maxElapsed: Duration.minutes(1),
 *   retryNonIdempotent: false
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface RetryPolicy {
  /** Total attempts including the first (1 disables retries). */
  readonly maxAttempts: number
  /** Delay before the first retry, times `factor` for each further one (at least a response's `Retry-After`). */
  readonly initialDelay: Duration.Duration
  readonly factor: number
  /** Cap of one delay. */
  readonly maxDelay: Duration.Duration
  /**
   * Budget of the whole call: attempts, backoff and `Retry-After` waits. No
   * wait starts that would leave the next attempt less than a quarter of its
   * timeout (or of this budget, when smaller; at most 1 s) of it, and each
   * attempt's timeout is cut to what is left of it.
   */
  readonly maxElapsed: Duration.Duration
  /** Retry POST requests too (token exchange, batch). Off by default. */
  readonly retryNonIdempotent: boolean
}

/**
 * What to do with a 429: fail at once with the `RateLimit` reason (default),
 * or wait for `Retry-After` when it is at most `maxWait` and fits the
 * budget. `maxWait` bounds any other status's `Retry-After` wait too.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { RateLimitPolicy } from "@connected-vehicle/transport/TransportConfig"
 *
 * const waitBriefly: RateLimitPolicy = { wait: true, maxWait: Duration.seconds(5) }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface RateLimitPolicy {
  readonly wait: boolean
  readonly maxWait: Duration.Duration
}

/**
 * Overrides of a {@link RetryPolicy}, durations as `Duration` inputs
 * (`"500 millis"`, `Duration.seconds(2)`, or a number of milliseconds).
 *
 * @example
 * ```ts
 * import type { RetryOptions } from "@connected-vehicle/transport/TransportConfig"
 *
 * const quick: RetryOptions = { maxAttempts: 3, initialDelay: "50 millis", maxElapsed: "5 seconds" }
 * ```
 * @since 0.2.0
 * @category models
 */
export interface RetryOptions {
  readonly maxAttempts?: number | undefined
  readonly initialDelay?: Duration.Input | undefined
  readonly factor?: number | undefined
  readonly maxDelay?: Duration.Input | undefined
  readonly maxElapsed?: Duration.Input | undefined
  readonly retryNonIdempotent?: boolean | undefined
}

/**
 * Overrides of a {@link RateLimitPolicy}.
 *
 * @example
 * ```ts
 * import type { RateLimitOptions } from "@connected-vehicle/transport/TransportConfig"
 *
 * const wait: RateLimitOptions = { wait: true, maxWait: "10 seconds" }
 * ```
 * @since 0.2.0
 * @category models
 */
export interface RateLimitOptions {
  readonly wait?: boolean | undefined
  readonly maxWait?: Duration.Input | undefined
}

/**
 * The configuration of the transport.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { TransportConfig } from "@connected-vehicle/transport/TransportConfig"
 *
 * const showRoots = Effect.map(Effect.service(TransportConfig), (config) => config.roots)
 * ```
 * @since 0.1.0
 * @category services
 */
export class TransportConfig extends Context.Service<TransportConfig, {
  readonly roots: Roots
  readonly userAgent: string
  /** Covers the whole exchange of one attempt, response body included. */
  readonly timeout: Duration.Duration
  readonly retry: RetryPolicy
  readonly rateLimit: RateLimitPolicy
  /**
   * Response headers read as the request id (kept on results and errors), in
   * order of preference and lower-case: the first one present wins. By
   * default `sc-request-id` (the service's) then `x-request-id` (the
   * simulator's, and common behind proxies).
   */
  readonly requestIdHeaders: ReadonlyArray<string>
  /**
   * The level of what the SDK logs, whatever the application's
   * `MinimumLogLevel` (`"None"` silences it); `undefined` (default): the
   * fiber's `MinimumLogLevel`.
   */
  readonly logLevel: LogLevel.LogLevel | undefined
  /**
   * Also trace each attempt with the `HttpClient`'s own client span (URL and
   * redacted headers), then the trace context sent instead of the call's.
   * Off by default.
   */
  readonly httpSpans: boolean
}>()("@connected-vehicle/transport/TransportConfig") {}

/**
 * Options of {@link make}: the roots are required, everything else has a default.
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/transport/TransportConfig"
 * import { rootsFromOrigin } from "@connected-vehicle/transport/TransportConfig"
 *
 * const options: Options = { roots: rootsFromOrigin("http://127.0.0.1:8080"), timeout: "5 seconds", retry: { maxAttempts: 2 } }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly roots: Roots
  readonly userAgent?: string | undefined
  /** Timeout of each attempt (a `Duration` input; a number is milliseconds). */
  readonly timeout?: Duration.Input | undefined
  readonly retry?: RetryOptions | undefined
  readonly rateLimit?: RateLimitOptions | undefined
  /** One header, or several in order of preference (see `requestIdHeaders`). */
  readonly requestIdHeader?: string | ReadonlyArray<string> | undefined
  readonly httpSpans?: boolean | undefined
  readonly logLevel?: LogLevel.LogLevel | undefined
}

/**
 * Default policies. `rateLimit.maxWait` is below `retry.maxElapsed`
 * so that the longest accepted wait still fits the call's budget.
 *
 * @example
 * ```ts
 * import { defaults } from "@connected-vehicle/transport/TransportConfig"
 *
 * defaults.retry.maxAttempts // 4
 * ```
 * @since 0.1.0
 * @category constants
 */
export const defaults = {
  userAgent: `connected-vehicle-sdk/${sdkVersion} (+@connected-vehicle/transport)`,
  timeout: Duration.seconds(30),
  retry: {
    maxAttempts: 4,
    initialDelay: Duration.millis(200),
    factor: 2,
    maxDelay: Duration.seconds(5),
    maxElapsed: Duration.seconds(30),
    retryNonIdempotent: false
  } satisfies RetryPolicy,
  rateLimit: { wait: false, maxWait: Duration.seconds(20) } satisfies RateLimitPolicy,
  requestIdHeaders: ["sc-request-id", "x-request-id"] as ReadonlyArray<string>,
  httpSpans: false,
  logLevel: undefined
} as const

/**
 * Builds the configuration from options. A root that is not an absolute
 * `http:` or `https:` URL without credentials, query or fragment
 * ({@link rootIssue}), a duration that is not a positive
 * (a delay: non-negative), finite `Duration` input, `maxAttempts` that is not
 * an integer >= 1, a `factor` below 1, a `requestIdHeader` that is not a
 * header name or a list of them, a `userAgent` that is blank or that a header
 * cannot carry as it is (a character other than a tab, U+0020-U+007E and
 * U+0080-U+00FF), an `httpSpans` that is not a boolean, a `logLevel` that is
 * not one of Effect's, or a key that is not an option (`timout`, `retry.maxRetriez`:
 * a misspelling, which would keep the default) throws an `InvalidArgument` naming it.
 *
 * @example
 * ```ts
 * import { make, rootsFromOrigin } from "@connected-vehicle/transport/TransportConfig"
 *
 * const config = make({ roots: rootsFromOrigin("http://127.0.0.1:8080"), timeout: "5 seconds" })
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): TransportConfig["Service"] => ({
  roots: roots(keys(options, optionKeys).roots),
  userAgent: userAgent(options.userAgent, defaults.userAgent),
  timeout: duration("timeout", options.timeout, defaults.timeout, true),
  retry: retryPolicy(defaults.retry, options.retry),
  rateLimit: rateLimitPolicy(defaults.rateLimit, options.rateLimit),
  requestIdHeaders: headerNames(options.requestIdHeader, defaults.requestIdHeaders),
  httpSpans: flag("httpSpans", options.httpSpans, defaults.httpSpans),
  logLevel: logLevel(options.logLevel) ?? defaults.logLevel
})

// the fields of `Options`, `RetryOptions` and `RateLimitOptions` (a missing one is a type error)
const optionKeys = Object.keys({
  roots: 1, userAgent: 1, timeout: 1, retry: 1, rateLimit: 1, requestIdHeader: 1, httpSpans: 1, logLevel: 1
} satisfies Record<keyof Options, 1>)
const retryKeys = Object.keys({
  maxAttempts: 1, initialDelay: 1, factor: 1, maxDelay: 1, maxElapsed: 1, retryNonIdempotent: 1
} satisfies Record<keyof RetryOptions, 1>)
const rateLimitKeys = Object.keys({ wait: 1, maxWait: 1 } satisfies Record<keyof RateLimitOptions, 1>)

/**
 * The request id of a response: the value of the first of `names` (see
 * `requestIdHeaders`) that is present and not empty; of a header sent more
 * than once (joined with ", " in `Headers`), its first non-empty value.
 *
 * @example
 * ```ts
 * import { defaults, requestIdOf } from "@connected-vehicle/transport/TransportConfig"
 *
 * requestIdOf({ "x-request-id": "r-1", "sc-request-id": "sc-1" }, defaults.requestIdHeaders) // "sc-1"
 * requestIdOf({ "x-request-id": "r-1" }, defaults.requestIdHeaders) // "r-1"
 * requestIdOf({ "x-request-id": "a1, b2" }, defaults.requestIdHeaders) // "a1"
 * ```
 * @since 0.1.0
 * @category utils
 */
export const requestIdOf = (
  headers: Readonly<Record<string, string | undefined>>,
  names: ReadonlyArray<string>
): string | undefined => {
  for (let i = 0; i < names.length; i++) {
    const value = headers[names[i]!]
    if (value === undefined || value === "") continue
    if (!value.includes(",")) return value
    const first = value.split(",").map((part) => part.trim()).find((part) => part !== "")
    if (first !== undefined) return first
  }
  return undefined
}

/**
 * `base` with the options' overrides (`undefined` fields are ignored); an
 * invalid one, or a key that is not an option, throws an `InvalidArgument`
 * naming it (`retry.maxRetriez`).
 *
 * @example
 * ```ts
 * import { defaults, retryPolicy } from "@connected-vehicle/transport/TransportConfig"
 *
 * const quick = retryPolicy(defaults.retry, { maxAttempts: 2, initialDelay: "10 millis" })
 * ```
 * @since 0.2.0
 * @category constructors
 */
export const retryPolicy = (base: RetryPolicy, options: RetryOptions | undefined): RetryPolicy =>
  unset("retry", options, retryKeys) ? base : {
    maxAttempts: check("retry.maxAttempts", options.maxAttempts, base.maxAttempts, (n) => Number.isSafeInteger(n) && n >= 1, "an integer >= 1"),
    initialDelay: duration("retry.initialDelay", options.initialDelay, base.initialDelay, false),
    factor: check("retry.factor", options.factor, base.factor, (n) => Number.isFinite(n) && n >= 1, "a finite number >= 1"),
    maxDelay: duration("retry.maxDelay", options.maxDelay, base.maxDelay, false),
    maxElapsed: duration("retry.maxElapsed", options.maxElapsed, base.maxElapsed, true),
    retryNonIdempotent: flag("retry.retryNonIdempotent", options.retryNonIdempotent, base.retryNonIdempotent)
  }

/**
 * `base` with the options' overrides; an invalid one, or a key that is not
 * an option, throws an `InvalidArgument` naming it (`rateLimit.wiat`).
 *
 * @example
 * ```ts
 * import { defaults, rateLimitPolicy } from "@connected-vehicle/transport/TransportConfig"
 *
 * const waiting = rateLimitPolicy(defaults.rateLimit, { wait: true })
 * ```
 * @since 0.2.0
 * @category constructors
 */
export const rateLimitPolicy = (base: RateLimitPolicy, options: RateLimitOptions | undefined): RateLimitPolicy =>
  unset("rateLimit", options, rateLimitKeys) ? base : {
    wait: flag("rateLimit.wait", options.wait, base.wait),
    maxWait: duration("rateLimit.maxWait", options.maxWait, base.maxWait, false)
  }

/**
 * Why `url` cannot be a root (or an origin): not an absolute `http:` or
 * `https:` URL, or one with a user name, a password, a query or a fragment
 * (every path is appended to a root: after a `?` or a `#` it would not be
 * the path sent); `undefined` when it can. The message never quotes the URL.
 *
 * @example
 * ```ts
 * import { rootIssue } from "@connected-vehicle/transport/TransportConfig"
 *
 * rootIssue("https://api.example.com/v3") // undefined
 * rootIssue("http://127.0.0.1:8080/?x=1") // "Expected a URL without a query or fragment"
 * ```
 * @since 0.2.0
 * @category utils
 */
export const rootIssue: (url: unknown) => string | undefined = issueOfRoot

/**
 * The roots of a server that serves the whole service on one origin (the
 * simulator): `${origin}/v3` for the three v3 roots, `${origin}` for the
 * authorization server and the legacy interface.
 *
 * @example
 * ```ts
 * import { rootsFromOrigin } from "@connected-vehicle/transport/TransportConfig"
 *
 * rootsFromOrigin("http://127.0.0.1:8080").base // "http://127.0.0.1:8080/v3"
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const rootsFromOrigin = (origin: string): Roots => {
  const o = origin.replace(/\/+$/, "")
  return { base: `${o}/v3`, management: `${o}/v3`, compatibility: `${o}/v3`, authorization: o, legacy: o }
}

/**
 * A layer from options.
 *
 * @example
 * ```ts
 * import { layer, rootsFromOrigin } from "@connected-vehicle/transport/TransportConfig"
 *
 * const ConfigLive = layer({ roots: rootsFromOrigin("http://127.0.0.1:8080"), retry: { maxAttempts: 3 } })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<TransportConfig> =>
  Layer.succeed(TransportConfig, make(options))

/**
 * A layer pointing every root at one origin (the simulator's `url`).
 *
 * @example
 * ```ts
 * import { layerOrigin } from "@connected-vehicle/transport/TransportConfig"
 *
 * const ConfigSim = layerOrigin("http://127.0.0.1:8080", { timeout: "2 seconds" })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerOrigin = (origin: string, options?: Omit<Options, "roots">): Layer.Layer<TransportConfig> =>
  layer({ ...options, roots: rootsFromOrigin(origin) })

/**
 * The SDK's log settings (`CONNECTED_VEHICLE_LOG`, the Promise client's
 * `logLevel`) and the Effect log level of each (`off` is `None`).
 *
 * @example
 * ```ts
 * import { logLevels } from "@connected-vehicle/transport/TransportConfig"
 *
 * const level = logLevels.warn // "Warn"
 * ```
 * @since 0.2.0
 * @category constants
 */
export const logLevels: typeof env.logLevels = env.logLevels

/**
 * The transport's configuration read from the environment, as
 * {@link Options}: the package's one `Config` value, the variables' names
 * below `Config.nested("CONNECTED_VEHICLE")` (`TIMEOUT` is read as
 * `CONNECTED_VEHICLE_TIMEOUT` from the environment, as
 * `{ CONNECTED_VEHICLE: { TIMEOUT } }` from `ConfigProvider.fromUnknown`).
 * It composes with an application's own settings (`Config.all`), and nests
 * further: `Config.nested(config, "MYAPP")` reads `MYAPP_CONNECTED_VEHICLE_TIMEOUT`.
 * Durations are Effect durations (`CONNECTED_VEHICLE_TIMEOUT="5 seconds"`;
 * the deprecated `*_MS` names, integers of milliseconds, are read when the
 * new name is not set, with one warning naming them each time the value is
 * read). Values are validated (the timeout and budget positive, delays
 * non-negative, attempts a positive integer, the backoff factor at least 1);
 * an invalid or missing value is a `ConfigError` naming the variable.
 *
 * The variables, their meaning and defaults are listed in the package's
 * README (and every package's in the repository README): the five roots
 * (`CONNECTED_VEHICLE_ORIGIN` or `*_URL`), `_USER_AGENT`, `_TIMEOUT`,
 * `_MAX_ATTEMPTS`, `_RETRY_*`, `_WAIT_ON_RATE_LIMIT`,
 * `_MAX_RATE_LIMIT_WAIT`, `_REQUEST_ID_HEADER`, `_HTTP_SPANS` and `_LOG`.
 *
 * @example
 * ```ts
 * import { Config, Effect } from "effect"
 * import { config, make } from "@connected-vehicle/transport/TransportConfig"
 *
 * // the application's own settings beside the transport's, read at once
 * const settings = Config.all({ transport: config, port: Config.Port("PORT").pipe(Config.withDefault(8080)) })
 * const transportConfig = Effect.gen(function*() {
 *   const { transport } = yield* settings
 *   return make(transport)
 * })
 * // or every name under the application's own prefix: MYAPP_CONNECTED_VEHICLE_ORIGIN, ...
 * const mine = Config.nested(config, "MYAPP")
 * ```
 * @since 0.2.0
 * @category configuration
 */
export const config: Config.Config<Options> = env.config

/**
 * The configuration from the environment: {@link make} of {@link config}.
 *
 * @example
 * ```ts
 * import { layerConfig } from "@connected-vehicle/transport/TransportConfig"
 *
 * // CONNECTED_VEHICLE_ORIGIN=http://127.0.0.1:8080 node app.ts
 * const ConfigLive = layerConfig
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<TransportConfig, ConfigurationError> = Layer.effect(
  TransportConfig,
  Effect.mapError(Effect.map(config, make), fromConfigError)
)

/**
 * Where the service lives and how the transport talks to it: the five roots
 * of the spec, the per-request timeout, the retry and rate-limit policies, the
 * response headers that carry the request id and the SDK's log level.
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer, Option, Schema, SchemaTransformation } from "effect"
import type { LogLevel } from "effect"
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
 * Retry of 500, 502, 503 and 504 responses (decided by the status, whatever
 * the body says) and of transport failures (connection reset, timeout).
 * Other statuses are never retried.
 *
 * @example
 * ```ts
 * import type { RetryPolicy } from "@connected-vehicle/transport/TransportConfig"
 *
 * const patient: RetryPolicy = {
 *   maxAttempts: 6,
 *   initialDelayMillis: 500,
 *   factor: 2,
 *   maxDelayMillis: 10_000,
 *   maxElapsedMillis: 60_000,
 *   retryNonIdempotent: false
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface RetryPolicy {
  /** Total attempts including the first (1 disables retries). */
  readonly maxAttempts: number
  /** Delay before the first retry; doubles (times `factor`) for each further one. */
  readonly initialDelayMillis: number
  readonly factor: number
  /** Cap of one delay. */
  readonly maxDelayMillis: number
  /**
   * Budget of the whole call: attempts, backoff and rate-limit waits. No wait
   * starts that would end past it, and each attempt's timeout is cut to what
   * is left of it.
   */
  readonly maxElapsedMillis: number
  /** Retry POST requests too (token exchange, batch). Off by default. */
  readonly retryNonIdempotent: boolean
}

/**
 * What to do with a 429 (decided by the status): fail at once with
 * `RateLimitError` (default), or wait for `Retry-After` when it is at most
 * `maxWaitMillis` and fits the `maxElapsedMillis` budget, then try again.
 *
 * @example
 * ```ts
 * import type { RateLimitPolicy } from "@connected-vehicle/transport/TransportConfig"
 *
 * const waitBriefly: RateLimitPolicy = { wait: true, maxWaitMillis: 5_000 }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface RateLimitPolicy {
  readonly wait: boolean
  readonly maxWaitMillis: number
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
  readonly timeoutMillis: number
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
   * @deprecated The one header read before `requestIdHeaders`, kept for
   * code that reads a response's headers itself: the first configured one,
   * else `x-request-id` as before. Read the id with
   * `requestIdOf(headers, config.requestIdHeaders)` instead.
   */
  readonly requestIdHeader: string
  /**
   * The level of what the SDK logs (see the transport README for every
   * message): a message is logged when its level is at or above this one,
   * whatever the application's `MinimumLogLevel`, and `"None"` silences the
   * SDK. `undefined` (the default) leaves it to the application: the
   * `MinimumLogLevel` in effect when the transport is built. Decided once,
   * when the transport is built, so that a call does no logging work (not
   * even formatting) below it.
   */
  readonly logLevel: LogLevel.LogLevel | undefined
  /**
   * Also trace each attempt with the `HttpClient`'s own client span, which
   * records the URL and the (redacted) request and response headers, and is
   * then the trace context (`traceparent`, `b3`) sent instead of the call's.
   * Off by default: every call has its own span either way
   * (`connected-vehicle.<group>.<endpoint>`, sent as the trace context), and
   * the per-attempt span costs about 0.05–0.09 ms per request.
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
 * const options: Options = { roots: rootsFromOrigin("http://127.0.0.1:8080"), retry: { maxAttempts: 2 } }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly roots: Roots
  readonly userAgent?: string | undefined
  readonly timeoutMillis?: number | undefined
  readonly retry?: { readonly [K in keyof RetryPolicy]?: RetryPolicy[K] | undefined } | undefined
  readonly rateLimit?: { readonly [K in keyof RateLimitPolicy]?: RateLimitPolicy[K] | undefined } | undefined
  /** One header, or several in order of preference (see `requestIdHeaders`). */
  readonly requestIdHeader?: string | ReadonlyArray<string> | undefined
  readonly httpSpans?: boolean | undefined
  readonly logLevel?: LogLevel.LogLevel | undefined
}

/**
 * Default policies. `rateLimit.maxWaitMillis` is below `retry.maxElapsedMillis`
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
  timeoutMillis: 30_000,
  retry: {
    maxAttempts: 4,
    initialDelayMillis: 200,
    factor: 2,
    maxDelayMillis: 5_000,
    maxElapsedMillis: 30_000,
    retryNonIdempotent: false
  } satisfies RetryPolicy,
  rateLimit: { wait: false, maxWaitMillis: 20_000 } satisfies RateLimitPolicy,
  requestIdHeaders: ["sc-request-id", "x-request-id"] as ReadonlyArray<string>,
  httpSpans: false,
  logLevel: undefined
} as const

/**
 * Builds the configuration from options.
 *
 * @example
 * ```ts
 * import { make, rootsFromOrigin } from "@connected-vehicle/transport/TransportConfig"
 *
 * const config = make({ roots: rootsFromOrigin("http://127.0.0.1:8080"), timeoutMillis: 5_000 })
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): TransportConfig["Service"] => ({
  roots: options.roots,
  userAgent: options.userAgent ?? defaults.userAgent,
  timeoutMillis: options.timeoutMillis ?? defaults.timeoutMillis,
  retry: { ...defaults.retry, ...stripUndefined(options.retry ?? {}) },
  rateLimit: { ...defaults.rateLimit, ...stripUndefined(options.rateLimit ?? {}) },
  requestIdHeaders: requestIdHeaders(options.requestIdHeader),
  requestIdHeader: options.requestIdHeader === undefined ? "x-request-id" : requestIdHeaders(options.requestIdHeader)[0]!,
  httpSpans: options.httpSpans ?? defaults.httpSpans,
  logLevel: options.logLevel ?? defaults.logLevel
})

const requestIdHeaders = (option: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> => {
  const names = (option === undefined ? [] : typeof option === "string" ? [option] : option)
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name.length > 0)
  return names.length === 0 ? defaults.requestIdHeaders : [...new Set(names)]
}

/**
 * The request id of a response: the value of the first of `names` (see
 * `requestIdHeaders`) that is present and not empty.
 *
 * @example
 * ```ts
 * import { defaults, requestIdOf } from "@connected-vehicle/transport/TransportConfig"
 *
 * requestIdOf({ "x-request-id": "r-1", "sc-request-id": "sc-1" }, defaults.requestIdHeaders) // "sc-1"
 * requestIdOf({ "x-request-id": "r-1" }, defaults.requestIdHeaders) // "r-1"
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
    if (value !== undefined && value !== "") return value
  }
  return undefined
}

const stripUndefined = <A extends object>(a: A): { readonly [K in keyof A]?: Exclude<A[K], undefined> } =>
  Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as any

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
 * const ConfigSim = layerOrigin("http://127.0.0.1:8080", { timeoutMillis: 2_000 })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerOrigin = (origin: string, options?: Omit<Options, "roots">): Layer.Layer<TransportConfig> =>
  layer({ ...options, roots: rootsFromOrigin(origin) })

const root = (name: string, suffix: string) =>
  Config.String(name).pipe(
    Config.orElse(() => Config.String("CONNECTED_VEHICLE_ORIGIN").pipe(Config.map((o) => o.replace(/\/+$/, "") + suffix)))
  )

/** Comma-separated header names, at least one. */
const HeaderNames = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Array(Schema.NonEmptyString).check(Schema.isMinLength(1, { expected: "at least one header name" })),
    SchemaTransformation.transform<ReadonlyArray<string>, string>({
      decode: (s) => s.split(",").map((name) => name.trim()).filter((name) => name.length > 0),
      encode: (names) => names.join(",")
    })
  )
)

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
export const logLevels = { debug: "Debug", info: "Info", warn: "Warn", error: "Error", off: "None" } as const

type LogSetting = keyof typeof logLevels

/** `debug`, `info`, `warn`, `error` or `off` (any case). */
const LogSetting = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Literals(["debug", "info", "warn", "error", "off"]),
    SchemaTransformation.transform<LogSetting, string>({
      // the literals check what this gives
      decode: (s) => s.trim().toLowerCase() as LogSetting,
      encode: (s) => s
    })
  )
)

/**
 * `CONNECTED_VEHICLE_LOG`, the SDK's log level (`debug`, `info`, `warn`,
 * `error` or `off`, any case) as Effect's `LogLevel` (`"Debug"` ... `"None"`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { logLevelConfig } from "@connected-vehicle/transport/TransportConfig"
 *
 * // CONNECTED_VEHICLE_LOG=debug → Option.some("Debug")
 * const level = Effect.option(logLevelConfig)
 * ```
 * @since 0.1.0
 * @category configuration
 */
export const logLevelConfig: Config.Config<LogLevel.LogLevel> = Config.schema(LogSetting, "CONNECTED_VEHICLE_LOG").pipe(
  Config.map((setting): LogLevel.LogLevel => logLevels[setting])
)

const positiveInt = (name: string) =>
  Config.option(Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), name))
const nonNegativeInt = (name: string) =>
  Config.option(Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), name))
const factorAtLeastOne = (name: string) =>
  Config.option(Config.schema(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(1)), name))

/**
 * The configuration read from the environment. Numbers are validated
 * (timeouts, attempts and delays must be positive integers, the backoff factor
 * at least 1); an invalid value is a `ConfigError`.
 *
 * | Variable | Meaning | Default |
 * |---|---|---|
 * | `CONNECTED_VEHICLE_ORIGIN` | one origin serving everything (simulator) | none |
 * | `CONNECTED_VEHICLE_BASE_URL` | `{base_url}` | `${ORIGIN}/v3` |
 * | `CONNECTED_VEHICLE_MANAGEMENT_URL` | `{management_url}` | `${ORIGIN}/v3` |
 * | `CONNECTED_VEHICLE_COMPAT_URL` | `{compat_url}` | `${ORIGIN}/v3` |
 * | `CONNECTED_VEHICLE_AUTH_URL` | `{auth_url}` | `${ORIGIN}` |
 * | `CONNECTED_VEHICLE_LEGACY_URL` | `{legacy_url}` | `${ORIGIN}` |
 * | `CONNECTED_VEHICLE_USER_AGENT` | User-Agent | `connected-vehicle-sdk/<version> ...` |
 * | `CONNECTED_VEHICLE_TIMEOUT_MS` | per-attempt timeout | 30000 |
 * | `CONNECTED_VEHICLE_MAX_ATTEMPTS` | attempts for 5xx / transport failures | 4 |
 * | `CONNECTED_VEHICLE_RETRY_INITIAL_DELAY_MS` | first backoff delay | 200 |
 * | `CONNECTED_VEHICLE_RETRY_FACTOR` | backoff factor | 2 |
 * | `CONNECTED_VEHICLE_RETRY_MAX_DELAY_MS` | cap of one delay | 5000 |
 * | `CONNECTED_VEHICLE_RETRY_MAX_ELAPSED_MS` | budget of a whole call | 30000 |
 * | `CONNECTED_VEHICLE_RETRY_NON_IDEMPOTENT` | retry POST too | false |
 * | `CONNECTED_VEHICLE_WAIT_ON_RATE_LIMIT` | wait for `Retry-After` on 429 | false |
 * | `CONNECTED_VEHICLE_MAX_RATE_LIMIT_WAIT_MS` | longest such wait | 20000 |
 * | `CONNECTED_VEHICLE_REQUEST_ID_HEADER` | response header(s) of the request id, comma-separated in order of preference | sc-request-id,x-request-id |
 * | `CONNECTED_VEHICLE_HTTP_SPANS` | also the `HttpClient`'s client span per attempt | false |
 * | `CONNECTED_VEHICLE_LOG` | the SDK's log level: `debug`, `info`, `warn`, `error` or `off` | the application's |
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
export const layerConfig: Layer.Layer<TransportConfig, Config.ConfigError> = Layer.effect(
  TransportConfig,
  Effect.gen(function*() {
    const roots: Roots = yield* Config.all({
      base: root("CONNECTED_VEHICLE_BASE_URL", "/v3"),
      management: root("CONNECTED_VEHICLE_MANAGEMENT_URL", "/v3"),
      compatibility: root("CONNECTED_VEHICLE_COMPAT_URL", "/v3"),
      authorization: root("CONNECTED_VEHICLE_AUTH_URL", ""),
      legacy: root("CONNECTED_VEHICLE_LEGACY_URL", "")
    })
    const rest = yield* Config.all({
      userAgent: Config.option(Config.NonEmptyString("CONNECTED_VEHICLE_USER_AGENT")),
      timeoutMillis: positiveInt("CONNECTED_VEHICLE_TIMEOUT_MS"),
      maxAttempts: positiveInt("CONNECTED_VEHICLE_MAX_ATTEMPTS"),
      initialDelayMillis: nonNegativeInt("CONNECTED_VEHICLE_RETRY_INITIAL_DELAY_MS"),
      factor: factorAtLeastOne("CONNECTED_VEHICLE_RETRY_FACTOR"),
      maxDelayMillis: nonNegativeInt("CONNECTED_VEHICLE_RETRY_MAX_DELAY_MS"),
      maxElapsedMillis: positiveInt("CONNECTED_VEHICLE_RETRY_MAX_ELAPSED_MS"),
      retryNonIdempotent: Config.option(Config.Boolean("CONNECTED_VEHICLE_RETRY_NON_IDEMPOTENT")),
      wait: Config.option(Config.Boolean("CONNECTED_VEHICLE_WAIT_ON_RATE_LIMIT")),
      maxWaitMillis: nonNegativeInt("CONNECTED_VEHICLE_MAX_RATE_LIMIT_WAIT_MS"),
      requestIdHeader: Config.option(Config.schema(HeaderNames, "CONNECTED_VEHICLE_REQUEST_ID_HEADER")),
      httpSpans: Config.option(Config.Boolean("CONNECTED_VEHICLE_HTTP_SPANS")),
      logLevel: Config.option(logLevelConfig)
    })
    const get = Option.getOrUndefined
    return make({
      roots,
      userAgent: get(rest.userAgent),
      timeoutMillis: get(rest.timeoutMillis),
      retry: {
        maxAttempts: get(rest.maxAttempts),
        initialDelayMillis: get(rest.initialDelayMillis),
        factor: get(rest.factor),
        maxDelayMillis: get(rest.maxDelayMillis),
        maxElapsedMillis: get(rest.maxElapsedMillis),
        retryNonIdempotent: get(rest.retryNonIdempotent)
      },
      rateLimit: { wait: get(rest.wait), maxWaitMillis: get(rest.maxWaitMillis) },
      requestIdHeader: get(rest.requestIdHeader),
      httpSpans: get(rest.httpSpans),
      logLevel: get(rest.logLevel)
    })
  })
)

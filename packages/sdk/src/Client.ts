/**
 * A Promise API for applications not written with Effect: `createClient`
 * gives plain async methods for every v3 and legacy read, `for await`
 * iteration over every paged list, per-call `{ timeout, maxRetries, signal }`,
 * and errors as classes (`@connected-vehicle/sdk/ClientError`, re-exported
 * here) usable with `instanceof`.
 *
 * It is a thin facade over the Effect services: one `ManagedRuntime` built
 * from `ConnectedVehicle.layer` runs every call, so the transport (retries,
 * timeouts, token refresh, redaction) is the one of the Effect SDK. Values are
 * those of the Effect services with every `DateTime` turned into a `Date`
 * ({@link Plain}), and a batch entry is `{ ok, reading | error }`.
 *
 * @since 0.1.0
 */
import { Cause, Config, ConfigProvider, DateTime, Duration, Effect, Exit, Fiber, Layer, Logger, ManagedRuntime, Option, Redacted, References, Result, Stream } from "effect"
import type { LogLevel } from "effect"
import type { HttpClient } from "effect/http"
import * as Consent from "@connected-vehicle/auth/Consent"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import type * as Batch from "@connected-vehicle/legacy-v2/Batch"
import type * as LegacyReading from "@connected-vehicle/legacy-v2/Reading"
import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
import type { CompatibilityPage } from "@connected-vehicle/schema/Compatibility"
import type { ConnectionListItem, ConnectionResponse, ConnectionsPage } from "@connected-vehicle/schema/Connection"
import type {
  EngineOil,
  LegacyBody,
  LegacyPath,
  Location,
  Odometer,
  ServiceHistory,
  TirePressure,
  UnitSystem,
  VehicleList,
  Vin
} from "@connected-vehicle/schema/Legacy"
import { TokenLifetimes } from "@connected-vehicle/schema/OAuth"
import type { Signal, SignalResponse, SignalsPage } from "@connected-vehicle/schema/Signal"
import type { Subscription, SubscriptionResponse, SubscriptionsPage } from "@connected-vehicle/schema/Subscription"
import type { Webhook, WebhookResponse, WebhooksPage } from "@connected-vehicle/schema/Webhook"
import type * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as Compatibility from "@connected-vehicle/v3/Compatibility"
import * as Connections from "@connected-vehicle/v3/Connections"
import * as Migration from "@connected-vehicle/v3/Migration"
import * as Signals from "@connected-vehicle/v3/Signals"
import * as Subscriptions from "@connected-vehicle/v3/Subscriptions"
import * as Webhooks from "@connected-vehicle/v3/Webhooks"
import { AbortError, ConnectedVehicleError, fromCause, fromEffectError, InvalidArgumentError } from "./ClientError.ts"
import * as ConnectedVehicle from "./ConnectedVehicle.ts"

export {
  AbortError,
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectedVehicleError,
  ConnectionError,
  CredentialsError,
  InvalidArgumentError,
  NotConnectedError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  ServerError,
  TimeoutError
} from "./ClientError.ts"

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
 * A value of the Effect services as the Promise client gives it: every
 * `DateTime` is a `Date`, everything else is unchanged.
 *
 * @example
 * ```ts
 * import type { DateTime } from "effect"
 * import type { Plain } from "@connected-vehicle/sdk/Client"
 *
 * const meta: Plain<{ readonly createdAt: DateTime.Utc }> = { createdAt: new Date() }
 * ```
 * @since 0.1.0
 */
export type Plain<A> = A extends DateTime.DateTime ? Date
  : A extends string | number | boolean | bigint | symbol | null | undefined ? A
  : A extends ReadonlyArray<infer I> ? ReadonlyArray<Plain<I>>
  : A extends object ? { readonly [K in keyof A]: Plain<A[K]> }
  : A

/**
 * A legacy read: the body (`value`), `dataAge` (the `sc-data-age` header, a
 * `Date`), `unitSystem` and `requestId`.
 *
 * @example
 * ```ts
 * import type { Reading } from "@connected-vehicle/sdk/Client"
 * import type { Odometer } from "@connected-vehicle/schema/Legacy"
 *
 * const describe = (r: Reading<Odometer>) => `${r.value.distance} as of ${r.dataAge?.toISOString() ?? "unknown"}`
 * ```
 * @since 0.1.0
 */
export type Reading<A> = Plain<LegacyReading.Reading<A>>

/**
 * One entry of a batch: its reading, or its own error.
 *
 * @example
 * ```ts
 * import type { BatchEntry } from "@connected-vehicle/sdk/Client"
 * import type { Vin } from "@connected-vehicle/schema/Legacy"
 *
 * const vinOf = (entry: BatchEntry<Vin>) => entry.ok ? entry.reading.value.vin : undefined
 * ```
 * @since 0.1.0
 */
export type BatchEntry<A> =
  | { readonly ok: true; readonly reading: Reading<A> }
  | { readonly ok: false; readonly error: ConnectedVehicleError }

/**
 * The result of a batch: one {@link BatchEntry} per requested path, typed by it.
 *
 * @example
 * ```ts
 * import type { BatchResult } from "@connected-vehicle/sdk/Client"
 *
 * const distance = (r: BatchResult<"/odometer">) => r["/odometer"].ok ? r["/odometer"].reading.value.distance : undefined
 * ```
 * @since 0.1.0
 */
export type BatchResult<P extends LegacyPath> = { readonly [K in P]: BatchEntry<LegacyBody<K>> }

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
 * ```
 * @since 0.1.0
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
 */
export interface LogEntry {
  readonly level: "debug" | "info" | "warn" | "error"
  readonly message: string
  /** The line's fields (`method`, `url`, `attempt`, `status`, `durationMillis`, `requestId`, ...). */
  readonly annotations: Readonly<Record<string, unknown>>
  readonly date: Date
}

/**
 * Options of {@link createClient}: the application's credentials, where the
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
    /** The HTTP client (default: undici on Node, else `fetch`). */
    readonly httpClient?: Layer.Layer<HttpClient.HttpClient> | undefined
  }
  & (
    | { readonly origin: string; readonly roots?: undefined }
    | { readonly roots: TransportConfig.Roots; readonly origin?: undefined }
  )

/**
 * A paged v3 list: one page, every page, every item.
 *
 * @example
 * ```ts
 * import type { PagedList } from "@connected-vehicle/sdk/Client"
 *
 * const count = async (list: PagedList<{ readonly pageSize?: number }, unknown, unknown>) => {
 *   let n = 0
 *   for await (const _ of list.iterate({ pageSize: 100 })) n++
 *   return n
 * }
 * ```
 * @since 0.1.0
 */
export interface PagedList<Args, Page, Item> {
  /** One page (`page`, `pageSize` and the filters in `args`). */
  readonly list: (args?: Args, options?: RequestOptions) => Promise<Plain<Page>>
  /** Every page from `page` (default 1), `pageSize` (default 100) each, fetched as the loop asks. */
  readonly pages: (args?: Args, options?: RequestOptions) => AsyncIterable<Plain<Page>>
  /** Every item of every page, fetched a page at a time as the loop asks. */
  readonly iterate: (args?: Args, options?: RequestOptions) => AsyncIterable<Plain<Item>>
}

/**
 * Signals of a vehicle.
 *
 * @example
 * ```ts
 * import type { SignalsClient } from "@connected-vehicle/sdk/Client"
 *
 * const odometer = (signals: SignalsClient) => signals.get({ vehicleId: "veh_1", userId: "usr_1", code: "odometer" })
 * ```
 * @since 0.1.0
 */
export interface SignalsClient {
  readonly list: (args: Signals.ListArgs, options?: RequestOptions) => Promise<Plain<SignalsPage>>
  readonly pages: (args: Signals.ListArgs, options?: RequestOptions) => AsyncIterable<Plain<SignalsPage>>
  readonly iterate: (args: Signals.ListArgs, options?: RequestOptions) => AsyncIterable<Plain<Signal>>
  readonly get: (
    args: Signals.Target & { readonly code: string },
    options?: RequestOptions
  ) => Promise<Plain<SignalResponse>>
}

/**
 * A migrated read: the legacy value (`value`), `dataAge` (the signal's
 * `meta.oemUpdatedAt`, what v2.0's `sc-data-age` said, a `Date`),
 * `unitSystem`, and the v3 `signal` it was built from (`undefined` for the
 * oil life of a vehicle without one).
 *
 * @example
 * ```ts
 * import type { MigratedReading } from "@connected-vehicle/sdk/Client"
 * import type { Odometer } from "@connected-vehicle/schema/Legacy"
 *
 * const describe = (r: MigratedReading<Odometer>) => `${r.value.distance} as of ${r.dataAge?.toISOString() ?? "unknown"}`
 * ```
 * @since 0.2.0
 */
export type MigratedReading<A> = Plain<Migration.Reading<A>>

/**
 * The v3 equivalent of each legacy read (`@connected-vehicle/v3/Migration`):
 * the legacy shape (`{ distance }`, `{ lifeRemaining }`, ...) from the v3
 * signal, with the application's token and the vehicle's user (`userId`, or
 * looked up in the connections list with one more request). Values equal
 * the legacy reads' (same units, same rounding; `unitSystem` defaults to the
 * client's, as for the legacy reads). Errors are the client's
 * classes: a signal in `ERROR` is the class of its error type
 * (`AuthenticationError`, `ConflictError` for `VEHICLE_STATE`, ...), an
 * `UNAVAILABLE` one a `ConflictError` (code `SIGNAL_UNAVAILABLE`), a vehicle
 * without a connection a `NotConnectedError`.
 *
 * @example
 * ```ts
 * import type { MigrationClient } from "@connected-vehicle/sdk/Client"
 *
 * const miles = async (migration: MigrationClient, vehicleId: string, userId: string) =>
 *   (await migration.odometer({ vehicleId, userId }, { unitSystem: "imperial" })).value.distance
 * ```
 * @since 0.2.0
 */
export interface MigrationClient {
  /** `odometer-traveleddistance` as `{ distance }` in km (metric) or miles (imperial). */
  readonly odometer: (target: Migration.Target, options?: ReadOptions) => Promise<MigratedReading<Odometer>>
  /** `location-preciselocation` as `{ latitude, longitude }`. */
  readonly location: (target: Migration.Target, options?: ReadOptions) => Promise<MigratedReading<Location>>
  /** `vehicleidentification-vin` as `{ vin }`. */
  readonly vin: (target: Migration.Target, options?: ReadOptions) => Promise<MigratedReading<Vin>>
  /** `internalcombustionengine-oillife` as `{ lifeRemaining }` (0..1); 1 for a vehicle without one (BEV). */
  readonly engineOil: (target: Migration.Target, options?: ReadOptions) => Promise<MigratedReading<EngineOil>>
  /** `wheel-tirepressures` as `{ frontLeft, frontRight, backLeft, backRight }` in kPa (metric) or psi (imperial). */
  readonly tirePressure: (target: Migration.Target, options?: ReadOptions) => Promise<MigratedReading<TirePressure>>
  /** The user id of the vehicle's connection (for `userId`); `NotConnectedError` when it has none. */
  readonly userIdOf: (vehicleId: string, options?: RequestOptions) => Promise<string>
}

/**
 * The v3 API.
 *
 * @example
 * ```ts
 * import type { V3Client } from "@connected-vehicle/sdk/Client"
 *
 * const webhookNames = async (v3: V3Client) => {
 *   const names: Array<string> = []
 *   for await (const webhook of v3.webhooks.iterate({ isEnabled: true })) names.push(webhook.attributes.name)
 *   return names
 * }
 * ```
 * @since 0.1.0
 */
export interface V3Client {
  readonly signals: SignalsClient
  readonly connections: PagedList<Connections.ListArgs, ConnectionsPage, ConnectionListItem> & {
    readonly get: (connectionId: string, options?: RequestOptions) => Promise<Plain<ConnectionResponse>>
  }
  readonly subscriptions: PagedList<Subscriptions.ListArgs, SubscriptionsPage, Subscription> & {
    readonly get: (subscriptionId: string, options?: RequestOptions) => Promise<Plain<SubscriptionResponse>>
  }
  readonly webhooks: PagedList<Webhooks.ListArgs, WebhooksPage, Webhook> & {
    readonly get: (webhookId: string, options?: RequestOptions) => Promise<Plain<WebhookResponse>>
  }
  /** The v3 equivalent of each legacy read, in the legacy shape (see {@link MigrationClient}). */
  readonly migration: MigrationClient
  readonly compatibility: {
    /** The public listing (no token), cached for 24 hours per filter combination. */
    readonly list: (filters?: Compatibility.Filters, options?: RequestOptions) => Promise<Plain<CompatibilityPage>>
    /** Drops the cached listings. */
    readonly invalidate: () => Promise<void>
  }
}

/**
 * The legacy v2.0 API, for the user signed in with `login` or
 * `setUserToken`.
 *
 * @example
 * ```ts
 * import type { LegacyClient } from "@connected-vehicle/sdk/Client"
 *
 * const odometers = async (legacy: LegacyClient) => {
 *   const out: Array<number> = []
 *   for await (const id of legacy.iterate()) out.push((await legacy.odometer(id)).value.distance)
 *   return out
 * }
 * ```
 * @since 0.1.0
 */
export interface LegacyClient {
  /** The consent URL to send the user to (`permissions`, `state`, `mode`; `redirectUri` defaults to the client's). */
  readonly authorizationUrl: (
    options: Omit<Consent.ConsentOptions, "redirectUri"> & { readonly redirectUri?: string | undefined }
  ) => Promise<string>
  /** Exchanges the code of the consent redirect and stores the user's tokens (refreshed as needed). */
  readonly login: (input: { readonly code: string; readonly redirectUri?: string | undefined }) => Promise<void>
  /** Stores a token the application already has for the user. */
  readonly setUserToken: (token: UserToken) => Promise<void>
  /** Forgets the user's tokens. */
  readonly logout: () => Promise<void>
  /** One page of vehicle ids (`limit` 1..50, `offset`). */
  readonly list: (args?: Vehicles.ListArgs, options?: RequestOptions) => Promise<Plain<VehicleList>>
  /** Every vehicle id, `limit` (default 50) per request. */
  readonly iterate: (args?: Pick<Vehicles.ListArgs, "limit">, options?: RequestOptions) => AsyncIterable<string>
  readonly odometer: (vehicleId: string, options?: ReadOptions) => Promise<Reading<Odometer>>
  readonly location: (vehicleId: string, options?: ReadOptions) => Promise<Reading<Location>>
  readonly vin: (vehicleId: string, options?: ReadOptions) => Promise<Reading<Vin>>
  readonly engineOil: (vehicleId: string, options?: ReadOptions) => Promise<Reading<EngineOil>>
  readonly tirePressure: (vehicleId: string, options?: ReadOptions) => Promise<Reading<TirePressure>>
  readonly serviceHistory: (vehicleId: string, options?: ReadOptions) => Promise<Reading<ServiceHistory>>
  /** Several reads in one request; each entry has its own result. Each path counts against the rate limit. */
  readonly batch: <const P extends LegacyPath>(
    vehicleId: string,
    paths: readonly [P, ...Array<P>],
    options?: ReadOptions
  ) => Promise<BatchResult<P>>
}

/**
 * The client: `v3`, `legacy`, and `close` (also `await using`).
 *
 * @example
 * ```ts
 * import type { Client } from "@connected-vehicle/sdk/Client"
 *
 * const total = async (client: Client) => (await client.v3.connections.list({ pageSize: 1 })).meta.totalCount
 * ```
 * @since 0.1.0
 */
export interface Client extends AsyncDisposable {
  readonly v3: V3Client
  readonly legacy: LegacyClient
  /** Cancels the calls in flight (they reject with `AbortError`) and releases the connections. */
  readonly close: () => Promise<void>
}

const invalid = (field: string, message: string) => new InvalidArgumentError({ message: `${field}: ${message}`, field, tag: "InvalidArgument" })

const millisOf = (field: string, input: Duration.Input): number | InvalidArgumentError => {
  const duration = Duration.fromInput(input)
  const millis = Option.isSome(duration) ? Duration.toMillis(duration.value) : Number.NaN
  return Number.isFinite(millis) && millis > 0 ? Math.ceil(millis) : invalid(field, "Expected a positive, finite duration")
}

const attemptsOf = (field: string, maxRetries: unknown): number | InvalidArgumentError =>
  typeof maxRetries === "number" && Number.isSafeInteger(maxRetries) && maxRetries >= 0
    ? maxRetries + 1
    : invalid(field, "Expected an integer >= 0")

/**
 * The transport's per-call options of the client's {@link RequestOptions}:
 * the same names (`timeout`, `maxRetries`), passed as they are (the transport
 * checks them); only `signal` is the client's own.
 */
const toCallOptions = (options: RequestOptions | undefined): Transport.CallOptions | undefined | InvalidArgumentError => {
  if (options === undefined) return undefined
  if (typeof options !== "object" || options === null) return invalid("options", "Expected an object")
  const { maxRetries, signal, timeout } = options
  if (signal !== undefined && !(signal instanceof AbortSignal)) return invalid("signal", "Expected an AbortSignal")
  if (timeout === undefined && maxRetries === undefined) return undefined
  return { timeout, maxRetries }
}

/**
 * Every `DateTime` of a decoded value as a `Date`: the plain objects and
 * arrays on the way to one are copied, the others (with no `DateTime` in
 * them) are the decoded ones, which nothing else holds (a value the SDK
 * caches, the compatibility listing, is copied by its caller).
 */
const plain = <A>(value: A): Plain<A> => toPlain(value) as Plain<A>

const toPlain = (u: unknown): unknown => typeof u === "object" && u !== null ? objectToPlain(u) : u

const objectToPlain = (u: object): unknown => {
  if (Array.isArray(u)) {
    let out: Array<unknown> | undefined
    for (let i = 0; i < u.length; i++) {
      const value: unknown = u[i]
      if (typeof value !== "object" || value === null) continue
      const converted = objectToPlain(value)
      if (converted !== value) (out ??= u.slice())[i] = converted
    }
    return out ?? u
  }
  const proto = Object.getPrototypeOf(u)
  if (proto === Object.prototype || proto === null) {
    let out: Record<string, unknown> | undefined
    // `for…in` and `Object.hasOwn`: no key array per object, and an enumerable
    // key added to `Object.prototype` is not walked (it could loop forever)
    for (const key in u) {
      if (!Object.hasOwn(u, key)) continue
      const value: unknown = (u as Record<string, unknown>)[key]
      if (typeof value !== "object" || value === null) continue
      const converted = objectToPlain(value)
      if (converted !== value) (out ??= { ...u })[key] = converted
    }
    return out ?? u
  }
  return DateTime.isDateTime(u) ? DateTime.toDateUtc(u) : u
}

const toBatchResult = <P extends LegacyPath>(result: Batch.BatchResult<P>): BatchResult<P> => {
  const out: Record<string, BatchEntry<unknown>> = {}
  for (const [path, entry] of Object.entries(result) as Array<[string, Batch.Entry<LegacyPath>]>) {
    out[path] = Result.isSuccess(entry)
      ? { ok: true, reading: plain(entry.success) as Reading<unknown> }
      : { ok: false, error: fromEffectError(entry.failure) }
  }
  return out as BatchResult<P>
}

const epochMillis = (field: string, value: Date | number): number | InvalidArgumentError => {
  const millis = value instanceof Date ? value.getTime() : value
  return typeof millis === "number" && Number.isFinite(millis) ? millis : invalid(field, "Expected a Date or epoch milliseconds")
}

/** The stored token of a {@link UserToken}: its strings wrapped in `Redacted` first. */
const toToken = (input: UserToken, now: number): TokenStore.Token | InvalidArgumentError => {
  if (typeof input !== "object" || input === null) return invalid("token", "Expected an object")
  const accessToken = typeof input.accessToken === "string" && input.accessToken.length > 0
    ? Redacted.make(input.accessToken)
    : undefined
  const refreshToken = typeof input.refreshToken === "string" && input.refreshToken.length > 0
    ? Redacted.make(input.refreshToken)
    : undefined
  if (accessToken === undefined) return invalid("accessToken", "Expected a non-empty string")
  if (input.refreshToken !== undefined && refreshToken === undefined) return invalid("refreshToken", "Expected a non-empty string")
  const expiresAt = input.expiresAt !== undefined
    ? epochMillis("expiresAt", input.expiresAt)
    : input.expiresIn === undefined
    // neither: the service's access-token lifetime from now
    ? now + TokenLifetimes.accessSeconds * 1000
    : typeof input.expiresIn === "number" && Number.isFinite(input.expiresIn) && input.expiresIn > 0
    ? now + input.expiresIn * 1000
    : invalid("expiresIn", "Expected a positive number of seconds")
  if (expiresAt instanceof InvalidArgumentError) return expiresAt
  const refreshExpiresAt = input.refreshExpiresAt === undefined ? undefined : epochMillis("refreshExpiresAt", input.refreshExpiresAt)
  if (refreshExpiresAt instanceof InvalidArgumentError) return refreshExpiresAt
  return { accessToken, issuedAt: now, expiresAt, refreshToken, refreshExpiresAt }
}

const tokenStoreLayer = (store: AsyncTokenStore): Layer.Layer<TokenStore.TokenStore> => {
  const attempt = <A>(key: string, f: () => Promise<A>) =>
    Effect.tryPromise({
      try: f,
      // the store's own error message is not kept: it might quote a token
      catch: (error) => new TokenStore.TokenStoreError({ key, reason: error instanceof Error ? error.name : "the store failed" })
    })
  return Layer.succeed(TokenStore.TokenStore, {
    get: (key) => Effect.map(attempt(key, () => store.get(key)), Option.fromNullishOr),
    set: (key, token) => attempt(key, () => store.set(key, token)),
    remove: (key) => attempt(key, () => store.remove(key))
  })
}

const checkClientOptions = (options: ClientOptions): InvalidArgumentError | TransportConfig.Roots => {
  if (typeof options !== "object" || options === null) return invalid("options", "Expected an object")
  if (typeof options.clientId !== "string" || options.clientId.length === 0) return invalid("clientId", "Expected a non-empty string")
  const secret = options.clientSecret
  if (!(Redacted.isRedacted(secret) || (typeof secret === "string" && secret.length > 0))) {
    return invalid("clientSecret", "Expected a non-empty string")
  }
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

/** An absolute `http:` or `https:` URL without credentials (the URL is not quoted: it might hold some). */
const httpUrl = (field: string, u: unknown): string | InvalidArgumentError => {
  if (typeof u !== "string" || !URL.canParse(u)) return invalid(field, "Expected an absolute http(s) URL")
  const url = new URL(u)
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return invalid(field, `Expected an http: or https: URL, not ${url.protocol}`)
  }
  if (url.username !== "" || url.password !== "") return invalid(field, "Expected a URL without user name or password")
  return u
}

/**
 * The SDK's log level: the `logLevel` option, else the transport option's,
 * else `CONNECTED_VEHICLE_LOG` (read once, when the client is created; an
 * invalid value is an `InvalidArgumentError` naming it), else undefined (the
 * runtime's minimum level, `Info`).
 */
const logLevelOf = (options: ClientOptions): LogLevel.LogLevel | undefined | InvalidArgumentError => {
  const setting: unknown = options.logLevel
  if (setting !== undefined) {
    return typeof setting === "string" && Object.hasOwn(TransportConfig.logLevels, setting)
      ? TransportConfig.logLevels[setting as LogSetting]
      : invalid("logLevel", "Expected debug, info, warn, error or off")
  }
  if (options.transport?.logLevel !== undefined) return options.transport.logLevel
  // the environment as it is now (Effect's default provider keeps the one of its first use)
  const fromEnv = Effect.runSyncExit(
    Effect.provideService(Config.option(TransportConfig.logLevelConfig), ConfigProvider.ConfigProvider, ConfigProvider.fromEnv())
  )
  return Exit.isSuccess(fromEnv)
    ? Option.getOrUndefined(fromEnv.value)
    : invalid("CONNECTED_VEHICLE_LOG", "Expected debug, info, warn, error or off (any case)")
}

const entryLevels: Partial<Record<LogLevel.LogLevel, LogEntry["level"]>> = {
  Trace: "debug",
  Debug: "debug",
  Info: "info",
  Warn: "warn",
  Error: "error",
  Fatal: "error"
}

/**
 * Where the client's log lines go: Effect's default logger on stderr (not
 * stdout, which belongs to the application), or the `logger` option.
 */
const loggerLayer = (logger: ((entry: LogEntry) => void) | undefined): Layer.Layer<never> =>
  logger === undefined
    ? Layer.succeed(Logger.LogToStderr, true)
    : Logger.layer([
      Logger.make((options) => {
        const message = Array.isArray(options.message) ? options.message.map(String).join(" ") : String(options.message)
        try {
          logger({
            level: entryLevels[options.logLevel] ?? "info",
            message,
            annotations: { ...options.fiber.getRef(References.CurrentLogAnnotations) },
            date: options.date
          })
        } catch {
          // a throwing logger must not fail the call that logged
        }
      })
    ])

const throwIfInvalid = <A>(a: A | InvalidArgumentError): A => {
  if (a instanceof InvalidArgumentError) throw a
  return a
}

/** Fails with `AbortError` when the signal fires (at once if it has). */
const whenAborted = (signal: AbortSignal): Effect.Effect<never, AbortError> =>
  Effect.callback<never, AbortError>((resume) => {
    const onAbort = () => resume(Effect.fail(abortError(signal)))
    if (signal.aborted) return onAbort()
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

const closedReason = "the client was closed"

const abortError = (signal: AbortSignal) => {
  const reason: unknown = signal.reason
  return new AbortError({
    message: reason === closedReason ? "The call was aborted: the client was closed" : "The call was aborted",
    tag: "Interrupt",
    ...(reason === undefined ? {} : { cause: reason })
  })
}

/**
 * Creates a client. Nothing is sent until the first call; the application's
 * token is fetched then and renewed as needed. Bad options throw an
 * `InvalidArgumentError` (that never quotes the secret).
 *
 * @example
 * ```ts
 * import { createClient, NotFoundError } from "@connected-vehicle/sdk/Client"
 *
 * await using client = createClient({ clientId: "demo-client-id", clientSecret: "demo-client-secret", origin: "http://127.0.0.1:4010" })
 * for await (const connection of client.v3.connections.iterate({ mode: "live" })) {
 *   console.log(connection.id, connection.meta.createdAt.toISOString())
 * }
 * const webhook = await client.v3.webhooks.get("wh_1", { timeout: "5 seconds" }).catch((e) => {
 *   if (e instanceof NotFoundError) return undefined
 *   throw e
 * })
 * ```
 * @since 0.1.0
 */
export const createClient = (options: ClientOptions): Client => {
  const roots = throwIfInvalid(checkClientOptions(options))
  const clientSecret = Redacted.isRedacted(options.clientSecret) ? options.clientSecret : Redacted.make(options.clientSecret)
  const timeoutMillis = options.timeout === undefined ? undefined : throwIfInvalid(millisOf("timeout", options.timeout))
  const maxAttempts = options.maxRetries === undefined ? undefined : throwIfInvalid(attemptsOf("maxRetries", options.maxRetries))
  const userKey = options.userKey ?? "user"
  const redirectUri = options.redirectUri
  // the legacy reads' unit system is also the migrated reads' (a drop-in replacement)
  const defaultUnitSystem = options.unitSystem
  const store = options.tokenStore === undefined
    ? undefined
    : Layer.isLayer(options.tokenStore)
    ? options.tokenStore as Layer.Layer<TokenStore.TokenStore>
    : tokenStoreLayer(options.tokenStore as AsyncTokenStore)
  const transport = options.transport
  const logLevel = throwIfInvalid(logLevelOf(options))
  if (options.logger !== undefined && typeof options.logger !== "function") throw invalid("logger", "Expected a function")

  const runtime = ManagedRuntime.make(ConnectedVehicle.layer({
    transport: {
      ...transport,
      roots,
      ...(timeoutMillis === undefined ? {} : { timeoutMillis }),
      ...(maxAttempts === undefined ? {} : { retry: { ...transport?.retry, maxAttempts } }),
      ...(logLevel === undefined ? {} : { logLevel })
    },
    oauth: { clientId: options.clientId, clientSecret, redirectUri },
    userKey,
    legacy: { unitSystem: options.unitSystem },
    tokenStore: store,
    httpClient: options.httpClient
  }).pipe(Layer.provideMerge(loggerLayer(options.logger))))
  type Services = ConnectedVehicle.Services

  const closing = new AbortController()
  let closed: Promise<void> | undefined

  const signalOf = (signal: AbortSignal | undefined) =>
    signal === undefined ? closing.signal : AbortSignal.any([closing.signal, signal])

  /** A call's failure: `AbortError` once the client is closed or the call's signal fired. */
  const failureOf = (cause: Cause.Cause<unknown>, signal: AbortSignal | undefined) =>
    closing.signal.aborted ? abortError(closing.signal) : signal?.aborted ? abortError(signal) : fromCause(cause)

  /** The calls in flight, interrupted by `close`. */
  const inFlight = new Set<Fiber.Fiber<unknown, unknown>>()

  /**
   * Runs one call: a rejected promise for bad options, an `AbortError` when
   * cancelled. Once the runtime is built, a call is a fiber on its context
   * (tracked here for `close`), with an abort listener only on the caller's
   * own signal, if any: no combined signal and no runtime bookkeeping per call.
   * `post` maps the value where the fiber's exit is observed (no effect of its
   * own); a throw while building the effect, or in `post`, is a defect of the
   * call, not a raw rejection.
   */
  function run<A, E>(
    options: RequestOptions | undefined,
    make: (callOptions: Transport.CallOptions | undefined) => Effect.Effect<A, E, Services>
  ): Promise<A>
  function run<A, E, B>(
    options: RequestOptions | undefined,
    make: (callOptions: Transport.CallOptions | undefined) => Effect.Effect<A, E, Services>,
    post: (value: A) => B
  ): Promise<B>
  function run<A, E>(
    options: RequestOptions | undefined,
    make: (callOptions: Transport.CallOptions | undefined) => Effect.Effect<A, E, Services>,
    post?: (value: A) => unknown
  ): Promise<unknown> {
    const callOptions = toCallOptions(options)
    if (callOptions instanceof InvalidArgumentError) return Promise.reject(callOptions)
    if (closing.signal.aborted) return Promise.reject(abortError(closing.signal))
    const signal = options?.signal
    if (signal?.aborted) return Promise.reject(abortError(signal))
    let effect: Effect.Effect<A, E, Services>
    try {
      effect = make(callOptions)
    } catch (error) {
      return Promise.reject(fromCause(Cause.die(error)))
    }
    return new Promise((resolve, reject) => {
      const runOptions = signal === undefined ? undefined : { signal }
      const context = runtime.cachedContext
      const fiber: Fiber.Fiber<A, E> = context === undefined
        ? runtime.runFork(effect, runOptions)
        : Effect.runForkWith(context)(effect, runOptions)
      inFlight.add(fiber)
      fiber.addObserver((exit) => {
        inFlight.delete(fiber)
        if (Exit.isFailure(exit)) return reject(failureOf(exit.cause, signal))
        if (post === undefined) return resolve(exit.value)
        try {
          resolve(post(exit.value))
        } catch (error) {
          reject(failureOf(Cause.die(error), signal))
        }
      })
    })
  }

  const call = <A, E>(
    options: RequestOptions | undefined,
    make: (callOptions: Transport.CallOptions | undefined) => Effect.Effect<A, E, Services>
  ): Promise<Plain<A>> => run(options, make, plain)

  /** A stream as an `AsyncIterable`: each `for await` runs it once, pulling pages as the loop asks. */
  const iterable = <A, E>(
    options: RequestOptions | undefined,
    make: (callOptions: Transport.CallOptions | undefined) => Stream.Stream<A, E, Services>
  ): AsyncIterable<Plain<A>> => ({
    async *[Symbol.asyncIterator]() {
      const callOptions = toCallOptions(options)
      if (callOptions instanceof InvalidArgumentError) throw callOptions
      const signal = signalOf(options?.signal)
      if (signal.aborted) throw abortError(signal)
      const context = await runtime.context()
      const stream = Stream.unwrap(Effect.sync(() => make(callOptions))).pipe(
        Stream.map(plain),
        Stream.catchCause((cause) => Stream.fail(fromCause(cause))),
        Stream.interruptWhen(whenAborted(signal))
      )
      yield* Stream.toAsyncIterableWith(stream, context)
    }
  })

  const service = Effect.service

  /** A migrated read: the client's read options as the Effect `Migration.ReadOptions`. */
  const migrated = <A>(
    options: ReadOptions | undefined,
    make: (readOptions: Migration.ReadOptions | undefined) => Effect.Effect<Migration.Reading<A>, Migration.ReadError, Services>
  ): Promise<MigratedReading<A>> =>
    call(options, (co) => {
      const unitSystem = options?.unitSystem ?? defaultUnitSystem
      return make(unitSystem === undefined ? co : { ...co, unitSystem })
    })

  const v3: V3Client = {
    signals: {
      list: (args, options) => call(options, (co) => Effect.flatMap(service(Signals.Signals), (s) => s.list(args, co))),
      pages: (args, options) => iterable(options, (co) => Stream.unwrap(Effect.map(service(Signals.Signals), (s) => s.pages(args, co)))),
      iterate: (args, options) =>
        iterable(options, (co) => Stream.unwrap(Effect.map(service(Signals.Signals), (s) => s.stream(args, co)))),
      get: (args, options) => call(options, (co) => Effect.flatMap(service(Signals.Signals), (s) => s.get(args, co)))
    },
    connections: {
      list: (args, options) => call(options, (co) => Effect.flatMap(service(Connections.Connections), (s) => s.list(args, co))),
      pages: (args, options) =>
        iterable(options, (co) => Stream.unwrap(Effect.map(service(Connections.Connections), (s) => s.pages(args, co)))),
      iterate: (args, options) =>
        iterable(options, (co) => Stream.unwrap(Effect.map(service(Connections.Connections), (s) => s.stream(args, co)))),
      get: (id, options) => call(options, (co) => Effect.flatMap(service(Connections.Connections), (s) => s.get(id, co)))
    },
    subscriptions: {
      list: (args, options) => call(options, (co) => Effect.flatMap(service(Subscriptions.Subscriptions), (s) => s.list(args, co))),
      pages: (args, options) =>
        iterable(options, (co) => Stream.unwrap(Effect.map(service(Subscriptions.Subscriptions), (s) => s.pages(args, co)))),
      iterate: (args, options) =>
        iterable(options, (co) => Stream.unwrap(Effect.map(service(Subscriptions.Subscriptions), (s) => s.stream(args, co)))),
      get: (id, options) => call(options, (co) => Effect.flatMap(service(Subscriptions.Subscriptions), (s) => s.get(id, co)))
    },
    webhooks: {
      list: (args, options) => call(options, (co) => Effect.flatMap(service(Webhooks.Webhooks), (s) => s.list(args, co))),
      pages: (args, options) =>
        iterable(options, (co) => Stream.unwrap(Effect.map(service(Webhooks.Webhooks), (s) => s.pages(args, co)))),
      iterate: (args, options) =>
        iterable(options, (co) => Stream.unwrap(Effect.map(service(Webhooks.Webhooks), (s) => s.stream(args, co)))),
      get: (id, options) => call(options, (co) => Effect.flatMap(service(Webhooks.Webhooks), (s) => s.get(id, co)))
    },
    migration: {
      odometer: (target, options) => migrated(options, (ro) => Migration.odometer(target, ro)),
      location: (target, options) => migrated(options, (ro) => Migration.location(target, ro)),
      vin: (target, options) => migrated(options, (ro) => Migration.vin(target, ro)),
      engineOil: (target, options) => migrated(options, (ro) => Migration.engineOil(target, ro)),
      tirePressure: (target, options) => migrated(options, (ro) => Migration.tirePressure(target, ro)),
      userIdOf: (vehicleId, options) => run(options, (co) => Migration.userIdOf(vehicleId, co))
    },
    compatibility: {
      // the listing is cached by the service: each caller gets a copy of its own (no `DateTime` in it)
      list: (filters, options) =>
        run(options, (co) =>
          Effect.flatMap(service(Compatibility.Compatibility), (s) =>
            Effect.map(s.list(filters, co), (page): Plain<CompatibilityPage> => structuredClone(page)))),
      invalidate: () => run(undefined, () => Effect.flatMap(service(Compatibility.Compatibility), (s) => s.invalidate))
    }
  }

  const vehicles = service(Vehicles.Vehicles)
  /** The Effect read options of the client's: `unitSystem` and the call's options. */
  const readOptions = (options: ReadOptions | undefined, co: Transport.CallOptions | undefined): Vehicles.ReadOptions | undefined =>
    options?.unitSystem === undefined ? co : { ...co, unitSystem: options.unitSystem }
  const read = <A>(
    pick: (s: Vehicles.Vehicles["Service"]) => (vehicleId: string, options?: Vehicles.ReadOptions) => Effect.Effect<LegacyReading.Reading<A>, Vehicles.ReadError>
  ) =>
  (vehicleId: string, options?: ReadOptions): Promise<Reading<A>> =>
    call(options, (co) => Effect.flatMap(vehicles, (s) => pick(s)(vehicleId, readOptions(options, co))))

  const legacy: LegacyClient = {
    authorizationUrl: (consent) => run(undefined, () => Consent.make(consent)),
    login: (input) =>
      run<void, unknown>(undefined, () => {
        if (typeof input !== "object" || input === null || typeof input.code !== "string" || input.code.length === 0) {
          return Effect.fail(invalid("code", "Expected the non-empty code of the consent redirect"))
        }
        const uri = input.redirectUri ?? redirectUri
        if (uri === undefined) return Effect.fail(invalid("redirectUri", "Expected the redirect URI of the consent (or the client's redirectUri)"))
        return Effect.asVoid(Session.login(userKey, { code: input.code, redirectUri: uri }))
      }),
    setUserToken: (input) =>
      run<void, unknown>(undefined, () => {
        const token = toToken(input, Date.now())
        if (token instanceof InvalidArgumentError) return Effect.fail(token)
        return Effect.flatMap(service(TokenStore.TokenStore), (s) => s.set(userKey, token))
      }),
    logout: () => run(undefined, () => Effect.flatMap(service(TokenStore.TokenStore), (s) => s.remove(userKey))),
    list: (args, options) => call(options, (co) => Effect.flatMap(vehicles, (s) => s.list(args, co))),
    iterate: (args, options) => iterable(options, (co) => Stream.unwrap(Effect.map(vehicles, (s) => s.stream(args, co)))),
    odometer: read((s) => s.odometer),
    location: read((s) => s.location),
    vin: read((s) => s.vin),
    engineOil: read((s) => s.engineOil),
    tirePressure: read((s) => s.tirePressure),
    serviceHistory: read((s) => s.serviceHistory),
    batch: (vehicleId, paths, options) =>
      run(options, (co) => Effect.flatMap(vehicles, (s) => Effect.map(s.batch(vehicleId, paths, readOptions(options, co)), toBatchResult)))
  }

  const close = (): Promise<void> => {
    if (closed === undefined) {
      closing.abort(closedReason)
      closed = Effect.runPromise(Fiber.interruptAll([...inFlight])).then(() => runtime.dispose())
    }
    return closed
  }

  return { v3, legacy, close, [Symbol.asyncDispose]: close }
}

/**
 * Whether a value is one of the client's errors.
 *
 * @example
 * ```ts
 * import { isClientError } from "@connected-vehicle/sdk/Client"
 *
 * const status = (error: unknown) => isClientError(error) ? error.status : undefined
 * ```
 * @since 0.1.0
 */
export const isClientError = (u: unknown): u is ConnectedVehicleError => u instanceof ConnectedVehicleError

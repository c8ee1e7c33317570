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
import type { DateTime, Duration, Layer, Redacted } from "effect"
import type { HttpClient } from "effect/http"
import type * as Consent from "@connected-vehicle/auth/Consent"
import type * as TokenStore from "@connected-vehicle/auth/TokenStore"
import type * as LegacyReading from "@connected-vehicle/legacy-v2/Reading"
import type * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
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
import type { Signal, SignalResponse, SignalsPage } from "@connected-vehicle/schema/Signal"
import type { Subscription, SubscriptionResponse, SubscriptionsPage } from "@connected-vehicle/schema/Subscription"
import type { Webhook, WebhookResponse, WebhooksPage } from "@connected-vehicle/schema/Webhook"
import type * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import type * as Compatibility from "@connected-vehicle/v3/Compatibility"
import type * as Connections from "@connected-vehicle/v3/Connections"
import type * as Migration from "@connected-vehicle/v3/Migration"
import type * as Signals from "@connected-vehicle/v3/Signals"
import type * as Subscriptions from "@connected-vehicle/v3/Subscriptions"
import type * as Webhooks from "@connected-vehicle/v3/Webhooks"
import { ConnectedVehicleError } from "./ClientError.ts"
import { settingsOf } from "./internal/layer.ts"
import { makeLegacy } from "./internal/legacy.ts"
import { makeRunner } from "./internal/runner.ts"
import { makeV3 } from "./internal/v3.ts"

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
  const settings = settingsOf(options)
  const runner = makeRunner(settings.layer)
  return {
    v3: makeV3(runner, settings.unitSystem),
    legacy: makeLegacy(runner, settings),
    close: runner.close,
    [Symbol.asyncDispose]: runner.close
  }
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

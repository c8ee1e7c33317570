/**
 * A Promise API for applications not written with Effect: `createClient`
 * gives plain async methods for every v3 and legacy read, `for await`
 * iteration over every paged list, per-call `{ timeout, maxRetries, signal }`,
 * and errors as classes (`@connected-vehicle/sdk/ClientError`, re-exported
 * here) usable with `instanceof`; its options are those of
 * `@connected-vehicle/sdk/ClientOptions`, also re-exported here.
 *
 * It is a thin facade over the Effect services: one `ManagedRuntime` built
 * from `ConnectedVehicle.layer` runs every call, so the transport (retries,
 * timeouts, token refresh, redaction) is the one of the Effect SDK. Values are
 * those of the Effect services with every `DateTime` turned into a `Date`
 * ({@link Plain}), and a batch entry is `{ ok, reading | error }`.
 *
 * @since 0.1.0
 */
import type { Context, DateTime, Effect, Stream } from "effect"
import type * as Consent from "@connected-vehicle/auth/Consent"
import type { Deprecation } from "@connected-vehicle/legacy-v2/Deprecation"
import type * as LegacyReading from "@connected-vehicle/legacy-v2/Reading"
import type * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
import type { LegacyBody, LegacyPath } from "@connected-vehicle/schema/Legacy"
import type * as Compatibility from "@connected-vehicle/v3/Compatibility"
import type * as Migration from "@connected-vehicle/v3/Migration"
import type * as Signals from "@connected-vehicle/v3/Signals"
import type * as V3 from "@connected-vehicle/v3/V3"
import type { ListParameters, Resource } from "@connected-vehicle/v3/Resource"
import { ConnectedVehicleError } from "./ClientError.ts"
import type { ClientOptions, ReadOptions, RequestOptions, UserToken } from "./ClientOptions.ts"
import { settingsOf } from "./internal/layer.ts"
import { makeLegacy } from "./internal/legacy.ts"
import { makeRunner } from "./internal/runner.ts"
import { makeV3 } from "./internal/v3.ts"

/**
 * The error classes of `@connected-vehicle/sdk/ClientError` (documented
 * there), re-exported for `instanceof` next to the client.
 *
 * @example
 * ```ts
 * import { NotFoundError, RateLimitError } from "@connected-vehicle/sdk/Client"
 *
 * const retryLater = (error: unknown) => error instanceof RateLimitError || !(error instanceof NotFoundError)
 * // or, on any of them: error.reason, error.isRetryable, error.retryAfter (milliseconds)
 * ```
 * @since 0.1.0
 * @category errors
 */
export {
  AbortError,
  AuthenticationError,
  BillingError,
  CompatibilityError,
  ConnectedServicesAccountError,
  ConnectedVehicleError,
  ConnectionError,
  CredentialsError,
  InvalidArgumentError,
  InvalidRequestError,
  InvalidResponseError,
  MalformedBodyError,
  NotConnectedError,
  NotFoundError,
  OAuthError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnexpectedStatusError,
  UnrecognizedError,
  UpstreamError,
  ValidationError,
  VehicleStateError
} from "./ClientError.ts"

/**
 * The options of the client and of its calls, from
 * `@connected-vehicle/sdk/ClientOptions` (documented there).
 *
 * @example
 * ```ts
 * import type { RequestOptions } from "@connected-vehicle/sdk/Client"
 *
 * const quick: RequestOptions = { timeout: "2 seconds", maxRetries: 0 }
 * ```
 * @since 0.1.0
 * @category options
 */
export type { AsyncTokenStore, ClientOptions, LogEntry, LogSetting, ReadOptions, RequestOptions, UserToken } from "./ClientOptions.ts"

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
 * @category models
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
 * @category models
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
 * @category models
 */
export type BatchEntry<A> =
  | { readonly ok: true; readonly reading: Reading<A> }
  | { readonly ok: false; readonly error: ConnectedVehicleError }

/**
 * The key of a batch result's deprecation info ({@link BatchResult}): a symbol,
 * so that walking the entries finds them only, in the types as at run time.
 *
 * @example
 * ```ts
 * import { BatchDeprecation, type BatchResult } from "@connected-vehicle/sdk/Client"
 *
 * const since = (r: BatchResult<"/odometer">) => r[BatchDeprecation]?.deprecatedAt?.toISOString()
 * ```
 * @since 0.2.0
 * @category symbols
 */
export const BatchDeprecation: unique symbol = Symbol.for("@connected-vehicle/sdk/Client/BatchDeprecation")

/**
 * The result of a batch: one {@link BatchEntry} per requested path, typed by
 * it, and under {@link BatchDeprecation} the batch response's deprecation
 * headers, as a reading's `deprecation`, when it sent any.
 *
 * @example
 * ```ts
 * import { BatchDeprecation, type BatchResult } from "@connected-vehicle/sdk/Client"
 *
 * const distance = (r: BatchResult<"/odometer">) => r["/odometer"].ok ? r["/odometer"].reading.value.distance : undefined
 * const failed = (r: BatchResult<"/odometer" | "/vin">) => Object.values(r).filter((entry) => !entry.ok).length
 * const sunset = (r: BatchResult<"/odometer">) => r[BatchDeprecation]?.sunsetAt?.toISOString() ?? "not announced"
 * ```
 * @since 0.1.0
 * @category models
 */
export type BatchResult<P extends LegacyPath> =
  & { readonly [K in P]: BatchEntry<LegacyBody<K>> }
  & { readonly [BatchDeprecation]?: Plain<Deprecation> }

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
 * @category models
 */
export interface PagedList<Args, Page, Item> {
  /** One page (`page`, `pageSize` and the filters in `args`). */
  readonly list: (...args: ListParameters<Args, RequestOptions>) => Promise<Plain<Page>>
  /** Every page from `page` (default 1), `pageSize` (default 100) each, fetched as the loop asks. */
  readonly pages: (...args: ListParameters<Args, RequestOptions>) => AsyncIterable<Plain<Page>>
  /** Every item of every page, fetched a page at a time as the loop asks. */
  readonly iterate: (...args: ListParameters<Args, RequestOptions>) => AsyncIterable<Plain<Item>>
}

/**
 * A paged list with `get`: one page, every page, every item, one resource
 * by its identifier.
 *
 * @example
 * ```ts
 * import type { PagedResource } from "@connected-vehicle/sdk/Client"
 *
 * const name = async (webhooks: PagedResource<{}, unknown, unknown, string, { readonly data: { readonly id: string } }>) =>
 *   (await webhooks.get("wh_1")).data.id
 * ```
 * @since 0.2.0
 * @category models
 */
export interface PagedResource<Args, Page, Item, Get, Response> extends PagedList<Args, Page, Item> {
  /** One resource by its identifier (a string), or by its identifying arguments (an object). */
  readonly get: (...args: [Get] extends [string] ? [id: Get, options?: RequestOptions] : [args: Get, options?: RequestOptions]) => Promise<Plain<Response>>
}

/**
 * The Promise face of one member of an Effect service: a method returning an
 * `Effect` of `A` returns a `Promise` of `Plain<A>`, one returning a `Stream`
 * an `AsyncIterable`, an `Effect` value is a method of no argument; the call
 * options (the second argument) are the client's ({@link RequestOptions}, or
 * {@link ReadOptions} where the service takes a `unitSystem`). The error type
 * becomes the client's error classes (rejections).
 *
 * @example
 * ```ts
 * import type { Effect } from "effect"
 * import type { Promised } from "@connected-vehicle/sdk/Client"
 *
 * type Get = Promised<(id: string, options?: { readonly timeout?: number }) => Effect.Effect<{ readonly id: string }, Error>>
 * // (id: string, options?: RequestOptions) => Promise<{ readonly id: string }>
 * ```
 * @since 0.2.0
 * @category models
 */
export type Promised<F> = F extends (...args: infer A) => Effect.Effect<infer X, infer _E, infer _R>
  ? (...args: PromisedParameters<A>) => Promise<Plain<X>>
  : F extends (...args: infer A) => Stream.Stream<infer X, infer _E, infer _R>
    ? (...args: PromisedParameters<A>) => AsyncIterable<Plain<X>>
  : F extends Effect.Effect<infer X, infer _E, infer _R> ? () => Promise<Plain<X>>
  : never

/** The parameters of a Promise method: the call options (second) are the client's. */
type PromisedParameters<A> = { [I in keyof A]: I extends "1" ? PromisedOptions<A[I]> : A[I] }

type PromisedOptions<O> = "unitSystem" extends keyof NonNullable<O> ? ReadOptions : RequestOptions

/**
 * The Promise face of an Effect service: each member as {@link Promised}
 * (its documentation kept).
 *
 * @example
 * ```ts
 * import type { PromiseClient } from "@connected-vehicle/sdk/Client"
 * import type { Compatibility } from "@connected-vehicle/v3/Compatibility"
 *
 * type CompatibilityClient = PromiseClient<Compatibility["Service"]>
 * const refresh = (compatibility: CompatibilityClient) => compatibility.invalidate()
 * ```
 * @since 0.2.0
 * @category models
 */
export type PromiseClient<S> = { readonly [K in keyof S]: Promised<S[K]> }

/**
 * The Promise client of a v3 service of the `Resource` shape
 * (`@connected-vehicle/v3/Resource`): `list` and `get` as Promises, `pages`
 * and `stream` (`iterate`) as `AsyncIterable`s, and each other method of the
 * service (another endpoint of its table) as {@link Promised}.
 *
 * @example
 * ```ts
 * import type { ResourceClient } from "@connected-vehicle/sdk/Client"
 * import type { Connections } from "@connected-vehicle/v3/Connections"
 *
 * type ConnectionsClient = ResourceClient<Connections["Service"]>
 * ```
 * @since 0.2.0
 * @category models
 */
export type ResourceClient<S> = S extends Resource<any, infer Page, infer Item, infer Get, infer Response, infer _E> ?
    & PagedResource<S["list"] extends (args: infer Args, ...rest: infer _) => unknown ? Exclude<Args, undefined> : never, Page, Item, Get, Response>
    & ([Exclude<keyof S, keyof Resource<any, any, any, any, any>>] extends [never] ? unknown
      : PromiseClient<Omit<S, keyof Resource<any, any, any, any, any>>>)
  : never

/**
 * The Promise clients of a table of services of the `Resource` shape, by
 * name (the v3 client's `connections`, `subscriptions`, `webhooks`, from
 * `V3.resources` of `@connected-vehicle/v3/V3`).
 *
 * @example
 * ```ts
 * import type { ResourceClients } from "@connected-vehicle/sdk/Client"
 * import type * as V3 from "@connected-vehicle/v3/V3"
 *
 * type Paged = ResourceClients<typeof V3.resources>
 * const names = (paged: Paged) => Object.keys(paged)
 * ```
 * @since 0.2.0
 * @category models
 */
export type ResourceClients<T> = {
  readonly [K in keyof T]: T[K] extends Context.Key<infer _I, infer S> ? ResourceClient<S> : never
}

/**
 * Signals of a vehicle: the Promise face of the `Signals` service of
 * `@connected-vehicle/v3/Signals` ({@link ResourceClient}).
 *
 * @example
 * ```ts
 * import type { SignalsClient } from "@connected-vehicle/sdk/Client"
 *
 * const odometer = (signals: SignalsClient) => signals.get({ vehicleId: "veh_1", userId: "usr_1", code: "odometer" })
 * ```
 * @since 0.1.0
 * @category models
 */
export interface SignalsClient extends ResourceClient<Signals.Signals["Service"]> {}

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
 * @category models
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
 * (`AuthenticationError`, `VehicleStateError`, ...), an
 * `UNAVAILABLE` one a `VehicleStateError` (code `SIGNAL_UNAVAILABLE`), a vehicle
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
 * @category models
 */
export interface MigrationClient extends PromiseClient<typeof Migration.reads> {
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
 * @category models
 */
export interface V3Client extends ResourceClients<typeof V3.resources> {
  readonly signals: SignalsClient
  /** The v3 equivalent of each legacy read, in the legacy shape (see {@link MigrationClient}). */
  readonly migration: MigrationClient
  /** The public listing (no token), cached for 24 hours per filter combination. */
  readonly compatibility: PromiseClient<Compatibility.Compatibility["Service"]>
}

/**
 * The legacy v2.0 API, for the user signed in with `login` or
 * `setUserToken`: sign-in, and the Promise face of the `Vehicles` service of
 * `@connected-vehicle/legacy-v2/Vehicles` (`list`, `iterate`, each read,
 * `batch`).
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
 * @category models
 */
export interface LegacyClient extends PromiseClient<Omit<Vehicles.Vehicles["Service"], "stream" | "batch">> {
  /** The consent URL to send the user to (`permissions`: at least one of section 5.3, required; `state`, `mode`; `redirectUri` defaults to the client's). */
  readonly authorizationUrl: (
    options: Omit<Consent.ConsentOptions, "redirectUri"> & { readonly redirectUri?: string | undefined }
  ) => Promise<string>
  /** Exchanges the code of the consent redirect and stores the user's tokens (refreshed as needed). */
  readonly login: (input: { readonly code: string; readonly redirectUri?: string | undefined }) => Promise<void>
  /** Stores a token the application already has for the user. */
  readonly setUserToken: (token: UserToken) => Promise<void>
  /** Forgets the user's tokens. */
  readonly logout: () => Promise<void>
  /** Every vehicle id, `limit` (default 50) per request. */
  readonly iterate: Promised<Vehicles.Vehicles["Service"]["stream"]>
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
 * @category models
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
 * @category constructors
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
 * @category guards
 */
export const isClientError = (u: unknown): u is ConnectedVehicleError => u instanceof ConnectedVehicleError

/**
 * The legacy v2.0 vehicle-data interface (section 4.7): the vehicle list, the
 * six read endpoints and the batch endpoint, for one user's bearer token.
 *
 * Reads are sent with the request header `sc-unit-system` (`metric` unless
 * configured or asked otherwise) and return a {@link Reading}: the decoded
 * body with the response's `sc-data-age` (as a `DateTime.Utc`) and
 * `sc-unit-system`.
 *
 * **The reads and the batch are deprecated as of December 1, 2026** (spec section 9; the
 * vehicle list is not). The `Deprecation`, `Sunset` and `Link rel="deprecation"` headers a
 * response carries are exposed as `deprecation` on readings, pages and batches, and logged
 * once per process per endpoint (see {@link Options} `deprecationWarnings`). The v3
 * replacement of each read is `Migration` of `@connected-vehicle/v3` (the same legacy shape
 * from v3 signals); see `docs/migrating-to-v3.md`.
 *
 * @since 0.1.0
 */
import { Clock, Config, Context, Effect, Layer, Stream } from "effect"
import * as ConfigurationError from "@connected-vehicle/transport/ConfigurationError"
import type { HttpClient, HttpClientResponse } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { LegacyApi, LegacyVehiclesQuery } from "@connected-vehicle/schema/Api"
import { InvalidArgument, isIdentifier } from "@connected-vehicle/schema/InvalidArgument"
import type { BatchResponse, LegacyBody, LegacyPath, VehicleList } from "@connected-vehicle/schema/Legacy"
import { LegacyReads, UnitSystem } from "@connected-vehicle/schema/Legacy"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Pagination from "@connected-vehicle/transport/Pagination"
import * as Transport from "@connected-vehicle/transport/Transport"
import { Keyword } from "@connected-vehicle/transport/Setting"
import { type ConnectedVehicleError, redactUrl } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Batch from "./Batch.ts"
import * as Deprecation from "./Deprecation.ts"
import { toReading } from "./internal/headers.ts"
import { checkIdentifier, checkListArgs, checkPaths, checkStreamArgs, checkUnitSystem, isUnitSystem, unitSystemOf } from "./internal/args.ts"
import type { Reading } from "./Reading.ts"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"

/**
 * Options of a read or a batch: the unit system, and the transport's per-call
 * overrides (`timeout`, `maxRetries`, `retry`, `rateLimit`).
 *
 * @example
 * ```ts
 * import type { ReadOptions } from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const imperial: ReadOptions = { unitSystem: "imperial", timeout: "2 seconds", retry: { maxAttempts: 1 } }
 * ```
 * @deprecated v2.0 is deprecated as of 2026-12-01: use `Migration.ReadOptions` of `@connected-vehicle/v3`.
 * @since 0.1.0
 * @category models
 */
export interface ReadOptions extends Transport.CallOptions {
  /** Overrides the configured unit system for this call. */
  readonly unitSystem?: UnitSystem | undefined
}

/**
 * Options of {@link make} and {@link layer}. The v3 equivalent is `V3.Options` of `@connected-vehicle/v3`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpClient } from "effect/http"
 * import type { Options } from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const options: Options = {
 *   unitSystem: "imperial",
 *   transformClient: HttpClient.tapRequest((request) => Effect.logDebug(request.url)),
 *   deprecationWarnings: "info"
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Unit system requested with every read (default `metric`). */
  readonly unitSystem?: UnitSystem | undefined
  /** Transforms the HTTP client of this service (after the transport's own pipeline). */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
  /**
   * The level of the deprecation warning logged once per process per v2.0
   * endpoint (`off` to silence it). Default `warn`; {@link layerConfig} reads
   * it from `CONNECTED_VEHICLE_DEPRECATION_WARNINGS` ({@link config}).
   */
  readonly deprecationWarnings?: Deprecation.WarningLevel | undefined
}

/**
 * Arguments of `list`, derived from the contract's `LegacyVehiclesQuery`:
 * `limit` (1..50, default 10 on the service) and `offset` (>= 0). Not deprecated
 * (spec section 9.3); the v3 equivalent is `Connections.ListArgs`.
 *
 * @example
 * ```ts
 * import type { ListArgs } from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const secondPage: ListArgs = { limit: 50, offset: 50 }
 * ```
 * @since 0.1.0
 * @category models
 */
export type ListArgs = { readonly [K in keyof typeof LegacyVehiclesQuery.Type]?: typeof LegacyVehiclesQuery.Type[K] | undefined }

/**
 * The errors of a read: the service's, the transport's, and an invalid
 * argument (`unitSystem`, an empty vehicle id, an empty batch, ...).
 *
 * @example
 * ```ts
 * import type { ReadError } from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const retryable = (error: ReadError) => error._tag === "ConnectedVehicleError" && error.isRetryable
 * ```
 * @deprecated v2.0 is deprecated as of 2026-12-01: use `Migration.ReadError` of `@connected-vehicle/v3` (the same classes).
 * @since 0.1.0
 * @category errors
 */
export type ReadError = InvalidArgument | ConnectedVehicleError

/**
 * One page of the vehicle list, with the deprecation headers of its response (if any:
 * the list is not deprecated, spec section 9.3). The v3 equivalent is `Connections.list`.
 *
 * @example
 * ```ts
 * import type { VehiclePage } from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const deprecated = (page: VehiclePage) => page.deprecation !== undefined
 * ```
 * @since 0.2.0
 * @category models
 */
export type VehiclePage = VehicleList & { readonly deprecation?: Deprecation.Deprecation }

type Table = typeof LegacyReads

// The reads of the service, by the name of their endpoint in the contract's
// legacy group, with their path: both from `LegacyReads`, the table the
// contract's read endpoints are built from.
const reads = Object.fromEntries(Object.entries(LegacyReads).map(([name, read]) => [name, read.path])) as {
  readonly [K in keyof Table]: Table[K]["path"]
}

type ReadName = keyof typeof reads

/** One read per entry of the table: the vehicle, the options, the endpoint's body as a `Reading`. */
type Reads<T extends Readonly<Record<string, LegacyPath>>> = {
  readonly [K in keyof T]: (vehicleId: string, options?: ReadOptions) => Effect.Effect<Reading<LegacyBody<T[K]>>, ReadError>
}

/**
 * The legacy vehicle-data service: `list` and `stream` (the vehicle list),
 * one read per read endpoint of the contract's legacy group (`odometer`,
 * `location`, `vin`, `engineOil`, `tirePressure`, `serviceHistory`: the
 * entries of `LegacyReads` of `@connected-vehicle/schema/Legacy`, by name,
 * `Vehicles.reads`), and `batch`. The reads and `batch` are deprecated as
 * of 2026-12-01 (spec section 9; use the `Migration` reads of `@connected-vehicle/v3`,
 * `docs/migrating-to-v3.md`); `list` and `stream` are not (section 9.3).
 *
 * @example
 * ```ts
 * import { Effect, Result, Stream } from "effect"
 * import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const program = Effect.gen(function*() {
 *   const vehicles = yield* Vehicles
 *   const ids = yield* Stream.runCollect(vehicles.stream())
 *   const odometer = yield* vehicles.odometer(ids[0]!, { unitSystem: "imperial" })
 *   const batch = yield* vehicles.batch(ids[0]!, ["/odometer", "/tires/pressure"])
 *   return [odometer.value.distance, Result.isSuccess(batch["/tires/pressure"])]
 * })
 * ```
 * @since 0.1.0
 * @category services
 */
export class Vehicles extends Context.Service<Vehicles, Reads<typeof reads> & {
  /**
   * One page of vehicle ids (`limit` 1..50, default 10 on the service; `offset` >= 0).
   *
   * Not deprecated (spec section 9.3); the v3 equivalent is `Connections.list({ userId })` of `@connected-vehicle/v3`.
   */
  readonly list: (
    args?: ListArgs,
    options?: Transport.CallOptions
  ) => Effect.Effect<VehiclePage, InvalidArgument | ConnectedVehicleError>
  /**
   * Every vehicle id, `limit` (default 50) per request; the per-call `options` apply to each request.
   *
   * Not deprecated (spec section 9.3); the v3 equivalent is `Connections.stream({ userId })` of `@connected-vehicle/v3`.
   */
  readonly stream: (
    args?: Pick<ListArgs, "limit">,
    options?: Transport.CallOptions
  ) => Stream.Stream<string, InvalidArgument | ConnectedVehicleError>
  /**
   * Several reads in one request. Each requested path counts against the
   * per-vehicle request limit. The call fails only when the batch request
   * itself fails; each entry carries its own result.
   *
   * @deprecated v2.0 is deprecated as of 2026-12-01: use one `Migration` read per path, or `Signals.list`
   * (every signal of the vehicle in one request) of `@connected-vehicle/v3`.
   */
  readonly batch: <const P extends LegacyPath>(
    vehicleId: string,
    paths: readonly [P, ...Array<P>],
    options?: ReadOptions
  ) => Effect.Effect<Batch.BatchResult<P>, ReadError>
}>()("@connected-vehicle/legacy-v2/Vehicles") {
  /** The reads of the service: each read endpoint of the contract's legacy group (`LegacyReads`), by name, and its path. */
  static readonly reads = reads
}

/**
 * Builds the service from the transport and the user's credential (v3: `Signals.make` with `Migration`).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Vehicles, make } from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const VehiclesLive = Layer.effect(Vehicles, make({ unitSystem: "imperial" }))
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<Vehicles["Service"], never, Transport.Transport | Credentials> =>
  Effect.gen(function*() {
    const transport = yield* Transport.Transport
    const defaultUnitSystem = options?.unitSystem ?? "metric"
    const level = options?.deprecationWarnings ?? "warn"
    const transformed = options?.transformClient === undefined
      ? transport.httpClient
      : options.transformClient(transport.httpClient)
    // the notice is read from each response's head by the transport itself
    // (the client's onResponse hook, at each response head)
    const clientOptions = level === "off" ? undefined : { onResponse: warnOnResponse(level) }
    const client = yield* Transport.client(LegacyApi, "legacy", clientOptions).pipe(
      Effect.provideService(Transport.Transport, { ...transport, httpClient: transformed })
    )
    const shared: Shared = {
      defaultUnitSystem,
      requestIdHeaders: transport.config.requestIdHeaders,
      // as errors show it (a configured root's user info removed), once
      legacyRoot: redactUrl(transport.config.roots.legacy).replace(/\/+$/, "")
    }
    const fetchPage = (query: typeof LegacyVehiclesQuery.Type, callOptions: Transport.CallOptions | undefined) =>
      client.vehicles({ query }, callOptions)
    const read = <A>(path: LegacyPath, call: ReadCall<A>) => readOf(shared, path, call)

    return Vehicles.of({
      list: (args, callOptions) =>
        Effect.flatMap(checkListArgs(args), (query) =>
          Effect.map(fetchPage(query, callOptions), (r): VehiclePage => {
            const deprecation = Deprecation.fromHeaders(r.headers)
            return deprecation === undefined ? r.value : { ...r.value, deprecation }
          })),
      stream: (args, given) => {
        // the options read once: every page's request gets the copy
        const callOptions = Pagination.readOptions(given)
        if (callOptions instanceof InvalidArgument) return Stream.fail(callOptions)
        return Stream.unwrap(Effect.map(
          checkStreamArgs(args),
          (query) =>
            Pagination.offsetItems((offset, limit) => fetchPage({ offset, limit }, callOptions), { limit: query.limit ?? 50 })
        ))
      },
      ...(Object.fromEntries(
        Object.entries(reads).map(([name, path]) => [name, read(path, client[name as ReadName] as ReadCall<unknown>)])
      ) as Reads<typeof reads>),
      batch: (vehicleId, paths, readOptions) => batchOf(shared, client.batch, vehicleId, paths, readOptions)
    })
  })

/** What the reads of one service share. */
interface Shared {
  readonly defaultUnitSystem: UnitSystem
  readonly requestIdHeaders: ReadonlyArray<string>
  /** The legacy root as errors show it (`redactUrl`), without a trailing slash. */
  readonly legacyRoot: string
}

// the vehicle's URL as errors show it (the root already redacted, the id encoded)
const vehicleUrl = (shared: Shared, vehicleId: string) => `${shared.legacyRoot}/v2.0/vehicles/${encodeURIComponent(vehicleId)}`

/** A read endpoint of the legacy client. */
type ReadCall<A> = (
  request: {
    readonly params: { readonly id: string }
    readonly headers: { readonly "sc-unit-system": UnitSystem }
  },
  options?: Transport.CallOptions
) => Effect.Effect<Transport.Result<A>, Transport.ErrorOf>

/** One read: the arguments checked, the request sent, the body and headers as a `Reading`. */
const readOf = <A>(shared: Shared, path: LegacyPath, call: ReadCall<A>) =>
(vehicleId: string, readOptions?: ReadOptions): Effect.Effect<Reading<A>, ReadError> => {
  const unitSystem = unitSystemOf(readOptions, shared.defaultUnitSystem)
  if (unitSystem instanceof InvalidArgument) return Effect.fail(unitSystem)
  const reading = Effect.flatMap(
    call({ params: { id: vehicleId }, headers: { "sc-unit-system": unitSystem } }, readOptions),
    (r) =>
      Effect.fromResult(toReading(r.value, r.headers, {
        requested: unitSystem,
        requestIdHeader: shared.requestIdHeaders,
        method: "GET",
        url: () => vehicleUrl(shared, vehicleId) + path,
        status: r.status,
        // read by the transport with the same header names
        requestId: r.requestId
      }))
  )
  // valid arguments (the common case) need no effect of their own
  return isIdentifier(vehicleId) && isUnitSystem(unitSystem)
    ? reading
    : Effect.andThen(Effect.andThen(checkIdentifier("vehicleId", vehicleId), checkUnitSystem(unitSystem)), reading)
}

/** The batch endpoint of the legacy client. */
type BatchCall = (
  request: {
    readonly params: { readonly id: string }
    readonly headers: { readonly "sc-unit-system": UnitSystem }
    readonly payload: { readonly requests: readonly [{ readonly path: LegacyPath }, ...Array<{ readonly path: LegacyPath }>] }
  },
  options?: Transport.CallOptions
) => Effect.Effect<Transport.Result<BatchResponse>, Transport.ErrorOf>

/** A batch: the arguments checked, one request for the distinct paths, each entry decoded on its own. */
const batchOf = <const P extends LegacyPath>(
  shared: Shared,
  call: BatchCall,
  vehicleId: string,
  paths: readonly [P, ...Array<P>],
  readOptions: ReadOptions | undefined
): Effect.Effect<Batch.BatchResult<P>, ReadError> => {
  const unitSystem = unitSystemOf(readOptions, shared.defaultUnitSystem)
  if (unitSystem instanceof InvalidArgument) return Effect.fail(unitSystem)
  return Effect.gen(function*() {
    yield* checkIdentifier("vehicleId", vehicleId)
    yield* checkUnitSystem(unitSystem)
    const unique = yield* checkPaths(paths)
    const response = yield* call({
      params: { id: vehicleId },
      headers: { "sc-unit-system": unitSystem },
      payload: { requests: [{ path: unique[0] }, ...unique.slice(1).map((path) => ({ path }))] }
    }, readOptions)
    return Batch.decode(response.value, unique, {
      vehicleUrl: vehicleUrl(shared, vehicleId),
      unitSystem,
      requestIdHeader: shared.requestIdHeaders,
      now: yield* Clock.currentTimeMillis,
      date: response.headers["date"],
      deprecation: Deprecation.fromHeaders(response.headers),
      response: { status: response.status, requestId: response.requestId }
    })
  })
}

/**
 * The service on the transport and the user's credential (v3: `V3.layer` with `Migration`).
 *
 * @example
 * ```ts
 * import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const VehiclesLive = Vehicles.layer({ unitSystem: "metric" })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<Vehicles, never, Transport.Transport | Credentials> =>
  Layer.effect(Vehicles, make(options))

/**
 * The configuration of this package from the environment (or the
 * `ConfigProvider` in use), the package's one `Config` value:
 * `deprecationWarnings` from `DEPRECATION_WARNINGS` below
 * `Config.nested("CONNECTED_VEHICLE")`, that is
 * `CONNECTED_VEHICLE_DEPRECATION_WARNINGS` (`off`, `warn`, `info` or
 * `debug`, in any case, as `CONNECTED_VEHICLE_LOG`; default `warn`). Another value is a `ConfigError` naming the
 * variable. {@link layerConfig} reads it; compose it with the application's
 * own settings to read them at once, or nest it further
 * (`Config.nested(config, "MYAPP")`). The v3 equivalent is `TransportConfig.config`
 * of `@connected-vehicle/transport` with `V3.layer`.
 *
 * @example
 * ```ts
 * import { Config, Effect, Layer } from "effect"
 * import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const settings = Config.all({ legacy: Vehicles.config, port: Config.Port("PORT").pipe(Config.withDefault(8080)) })
 * const VehiclesLive = Layer.unwrap(Effect.gen(function*() {
 *   const { legacy } = yield* settings
 *   return Vehicles.layer({ ...legacy, unitSystem: "imperial" })
 * }))
 * ```
 * @since 0.2.0
 * @category configuration
 */
export const config: Config.Config<{ readonly deprecationWarnings: Deprecation.WarningLevel }> = Config.all({
  deprecationWarnings: Config.schema(Keyword(Deprecation.WarningLevel.literals), "DEPRECATION_WARNINGS").pipe(Config.withDefault("warn" as const))
}).pipe(Config.nested("CONNECTED_VEHICLE"))

/**
 * Everything an application needs for one user's legacy data, configured from
 * the environment (`TransportConfig.layerConfig`: `CONNECTED_VEHICLE_ORIGIN`
 * or `CONNECTED_VEHICLE_LEGACY_URL` and `CONNECTED_VEHICLE_AUTH_URL`;
 * `OAuthConfig.layerConfig`: `CONNECTED_VEHICLE_CLIENT_ID`,
 * `CONNECTED_VEHICLE_CLIENT_SECRET`; {@link config}:
 * `CONNECTED_VEHICLE_DEPRECATION_WARNINGS`, unless `deprecationWarnings` is
 * given), `UndiciHttpClient.layer()` (the transport package's client, for
 * Node; or `options.httpClient`), and the user
 * session stored under `userKey` in the token store (in memory unless
 * `tokenStore` is given).
 *
 * The layer also provides the token store, the OAuth configuration and the
 * transport, so that the application can run `Session.login(userKey, ...)`
 * after the consent redirect; tokens are then refreshed as needed. The v3
 * equivalent is `V3.layerConfig` of `@connected-vehicle/v3` (client credentials,
 * no user sign-in) with `Migration`; see `docs/migrating-to-v3.md`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Session from "@connected-vehicle/auth/Session"
 * import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const program = Effect.gen(function*() {
 *   yield* Session.login("user-42", { code: "code-from-the-redirect", redirectUri: "https://app.example/callback" })
 *   const vehicles = yield* Vehicles.Vehicles
 *   return yield* vehicles.list({ limit: 50 })
 * })
 *
 * Effect.runPromise(program.pipe(Effect.provide(Vehicles.layerConfig({ userKey: "user-42" }))))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Options & {
    readonly userKey: string
    readonly tokenStore?: Layer.Layer<TokenStore.TokenStore> | undefined
    /** The HTTP client (default `UndiciHttpClient.layer()` of `@connected-vehicle/transport`, for Node; elsewhere give `FetchHttpClient.layer`). */
    readonly httpClient?: Layer.Layer<HttpClient.HttpClient> | undefined
  }
): Layer.Layer<
  Vehicles | TokenStore.TokenStore | OAuthConfig.OAuthConfig | Transport.Transport,
  ConfigurationError.ConfigurationError
> => {
  const TransportLive = Transport.layerConfig({ httpClient: options.httpClient ?? UndiciHttpClient.layer() })
  const Shared = Layer.mergeAll(options.tokenStore ?? TokenStore.layerMemory, OAuthConfig.layerConfig, TransportLive)
  const VehiclesLive = Layer.unwrap(Effect.mapError(Effect.gen(function*() {
    const configured = yield* config
    return layer({ ...options, deprecationWarnings: options.deprecationWarnings ?? configured.deprecationWarnings })
  }), ConfigurationError.fromConfigError))
  return VehiclesLive.pipe(
    Layer.provide(Session.layerUser(options.userKey)),
    Layer.provideMerge(Shared)
  )
}

/**
 * Logs the deprecation of the response's endpoint once per process (any v2.0
 * response: a read, the list, the batch, an error).
 */
const warnOnResponse = (level: Deprecation.WarningLevel) => (response: HttpClientResponse.HttpClientResponse) => {
  const endpoint = Deprecation.endpointOf(response.request.method, response.request.url)
  if (endpoint === undefined) return Effect.void
  return Effect.withFiber((fiber) => {
    // once warned, the headers are not even read
    if (fiber.getRef(Deprecation.Warned).has(endpoint)) return Effect.void
    const headers = response.headers
    if (headers["deprecation"] === undefined && headers["sunset"] === undefined) return Effect.void
    const deprecation = Deprecation.fromHeaders(headers)
    return deprecation === undefined ? Effect.void : Deprecation.warnOnce(endpoint, deprecation, level)
  })
}


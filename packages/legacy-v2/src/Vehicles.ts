/**
 * The legacy v2.0 vehicle-data interface (section 4.7): the vehicle list, the
 * six read endpoints and the batch endpoint, for one user's bearer token.
 *
 * Reads are sent with the request header `sc-unit-system` (`metric` unless
 * configured or asked otherwise) and return a {@link Reading}: the decoded
 * body with the response's `sc-data-age` (as a `DateTime.Utc`) and
 * `sc-unit-system`.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, identity, Layer, Stream } from "effect"
import type { Config } from "effect"
import type { HttpClient } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { LegacyApi, LegacyVehiclesQuery } from "@connected-vehicle/schema/Api"
import type { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { EngineOil, LegacyPath, Location, Odometer, ServiceHistory, TirePressure, VehicleList, Vin } from "@connected-vehicle/schema/Legacy"
import { UnitSystem } from "@connected-vehicle/schema/Legacy"
import type { ServiceError } from "@connected-vehicle/schema/ServiceError"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Pagination from "@connected-vehicle/transport/Pagination"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import type { TransportError } from "@connected-vehicle/transport/TransportError"
import * as Batch from "./Batch.ts"
import { toReading } from "./internal/headers.ts"
import { checkIdentifier, checkListArgs, checkPaths, checkValue } from "./internal/args.ts"
import type { Reading } from "./Reading.ts"

/**
 * Options of a read or a batch: the unit system, and the transport's per-call
 * overrides (`timeoutMillis`, `retry`, `rateLimit`).
 *
 * @example
 * ```ts
 * import type { ReadOptions } from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const imperial: ReadOptions = { unitSystem: "imperial", timeoutMillis: 2_000, retry: { maxAttempts: 1 } }
 * ```
 * @since 0.1.0
 */
export interface ReadOptions extends Transport.CallOptions {
  /** Overrides the configured unit system for this call. */
  readonly unitSystem?: UnitSystem | undefined
}

/**
 * Options of {@link make} and {@link layer}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpClient } from "effect/http"
 * import type { Options } from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const options: Options = {
 *   unitSystem: "imperial",
 *   transformClient: HttpClient.tapRequest((request) => Effect.logDebug(request.url))
 * }
 * ```
 * @since 0.1.0
 */
export interface Options {
  /** Unit system requested with every read (default `metric`). */
  readonly unitSystem?: UnitSystem | undefined
  /** Transforms the HTTP client of this service (after the transport's own pipeline). */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/**
 * Arguments of `list`, derived from the contract's `LegacyVehiclesQuery`:
 * `limit` (1..50, default 10 on the service) and `offset` (>= 0).
 *
 * @example
 * ```ts
 * import type { ListArgs } from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const secondPage: ListArgs = { limit: 50, offset: 50 }
 * ```
 * @since 0.1.0
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
 * const retryable = (error: ReadError) => error._tag === "RateLimitError"
 * ```
 * @since 0.1.0
 */
export type ReadError = InvalidArgument | ServiceError | TransportError

/**
 * The legacy vehicle-data service.
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
 */
export class Vehicles extends Context.Service<Vehicles, {
  /** One page of vehicle ids (`limit` 1..50, default 10 on the service; `offset` >= 0). */
  readonly list: (
    args?: ListArgs,
    options?: Transport.CallOptions
  ) => Effect.Effect<VehicleList, InvalidArgument | ServiceError | TransportError>
  /** Every vehicle id, `limit` (default 50) per request; the per-call `options` apply to each request. */
  readonly stream: (
    args?: Pick<ListArgs, "limit">,
    options?: Transport.CallOptions
  ) => Stream.Stream<string, InvalidArgument | ServiceError | TransportError>
  readonly odometer: (vehicleId: string, options?: ReadOptions) => Effect.Effect<Reading<Odometer>, ReadError>
  readonly location: (vehicleId: string, options?: ReadOptions) => Effect.Effect<Reading<Location>, ReadError>
  readonly vin: (vehicleId: string, options?: ReadOptions) => Effect.Effect<Reading<Vin>, ReadError>
  readonly engineOil: (vehicleId: string, options?: ReadOptions) => Effect.Effect<Reading<EngineOil>, ReadError>
  readonly tirePressure: (vehicleId: string, options?: ReadOptions) => Effect.Effect<Reading<TirePressure>, ReadError>
  readonly serviceHistory: (vehicleId: string, options?: ReadOptions) => Effect.Effect<Reading<ServiceHistory>, ReadError>
  /**
   * Several reads in one request. Each requested path counts against the
   * per-vehicle request limit. The call fails only when the batch request
   * itself fails; each entry carries its own result.
   */
  readonly batch: <const P extends LegacyPath>(
    vehicleId: string,
    paths: readonly [P, ...Array<P>],
    options?: ReadOptions
  ) => Effect.Effect<Batch.BatchResult<P>, ReadError>
}>()("@connected-vehicle/legacy-v2/Vehicles") {}

/**
 * Builds the service from the transport and the user's credential.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Vehicles, make } from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const VehiclesLive = Layer.effect(Vehicles, make({ unitSystem: "imperial" }))
 * ```
 * @since 0.1.0
 */
export const make = (options?: Options): Effect.Effect<Vehicles["Service"], never, Transport.Transport | Credentials> =>
  Effect.gen(function*() {
    const transport = yield* Transport.Transport
    const defaultUnitSystem = options?.unitSystem ?? "metric"
    const client = yield* Transport.client(LegacyApi, "legacy").pipe(
      options?.transformClient === undefined
        ? identity
        : Effect.provideService(Transport.Transport, { ...transport, httpClient: options.transformClient(transport.httpClient) })
    )
    const legacyRoot = transport.config.roots.legacy.replace(/\/+$/, "")
    const vehicleUrl = (vehicleId: string) => `${legacyRoot}/v2.0/vehicles/${encodeURIComponent(vehicleId)}`

    const fetchPage = (query: typeof LegacyVehiclesQuery.Type, callOptions: Transport.CallOptions | undefined) =>
      client.vehicles({ query }, callOptions)

    const read = <A>(
      path: LegacyPath,
      call: (
        request: {
          readonly params: { readonly id: string }
          readonly headers: { readonly "sc-unit-system": UnitSystem }
        },
        options?: Transport.CallOptions
      ) => Effect.Effect<Transport.Result<A>, ServiceError | TransportError>
    ) =>
    (vehicleId: string, readOptions?: ReadOptions): Effect.Effect<Reading<A>, ReadError> => {
      const unitSystem = readOptions?.unitSystem ?? defaultUnitSystem
      return Effect.andThen(
        Effect.andThen(checkIdentifier("vehicleId", vehicleId), checkValue("unitSystem", UnitSystem, unitSystem)),
        Effect.flatMap(
          call({ params: { id: vehicleId }, headers: { "sc-unit-system": unitSystem } }, readOptions),
          (r) =>
            Effect.fromResult(toReading(r.value, r.headers, {
              requested: unitSystem,
              requestIdHeader: transport.config.requestIdHeader,
              method: "GET",
              url: vehicleUrl(vehicleId) + path,
              status: r.status
            }))
        )
      )
    }

    return Vehicles.of({
      list: (args, callOptions) =>
        Effect.flatMap(checkListArgs(args), (query) => Effect.map(fetchPage(query, callOptions), (r) => r.value)),
      stream: (args, callOptions) =>
        Stream.unwrap(Effect.map(
          checkListArgs(args === undefined || args === null ? args : { limit: args.limit }),
          (query) =>
            Pagination.offsetItems((offset, limit) => fetchPage({ offset, limit }, callOptions), { limit: query.limit ?? 50 })
        )),
      odometer: read("/odometer", client.odometer),
      location: read("/location", client.location),
      vin: read("/vin", client.vin),
      engineOil: read("/engine/oil", client.engineOil),
      tirePressure: read("/tires/pressure", client.tirePressure),
      serviceHistory: read("/service/history", client.serviceHistory),
      batch: (vehicleId, paths, readOptions) => {
        const unitSystem = readOptions?.unitSystem ?? defaultUnitSystem
        return Effect.gen(function*() {
          yield* checkIdentifier("vehicleId", vehicleId)
          yield* checkValue("unitSystem", UnitSystem, unitSystem)
          const unique = yield* checkPaths(paths)
          const response = yield* client.batch({
            params: { id: vehicleId },
            headers: { "sc-unit-system": unitSystem },
            payload: { requests: [{ path: unique[0] }, ...unique.slice(1).map((path) => ({ path }))] }
          }, readOptions)
          return Batch.decode(response.value, unique, {
            vehicleUrl: vehicleUrl(vehicleId),
            unitSystem,
            requestIdHeader: transport.config.requestIdHeader,
            now: yield* Clock.currentTimeMillis
          })
        })
      }
    })
  })

/**
 * The service on the transport and the user's credential.
 *
 * @example
 * ```ts
 * import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
 *
 * const VehiclesLive = Vehicles.layer({ unitSystem: "metric" })
 * ```
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<Vehicles, never, Transport.Transport | Credentials> =>
  Layer.effect(Vehicles, make(options))

/**
 * Everything an application needs for one user's legacy data, configured from
 * the environment (`TransportConfig.layerConfig`: `CONNECTED_VEHICLE_ORIGIN`
 * or `CONNECTED_VEHICLE_LEGACY_URL` and `CONNECTED_VEHICLE_AUTH_URL`;
 * `OAuthConfig.layerConfig`: `CONNECTED_VEHICLE_CLIENT_ID`,
 * `CONNECTED_VEHICLE_CLIENT_SECRET`), `Transport.layerHttpClient` (undici on
 * Node, else `fetch`; or `options.httpClient`), and the user
 * session stored under `userKey` in the token store (in memory unless
 * `tokenStore` is given).
 *
 * The layer also provides the token store, the OAuth configuration and the
 * transport, so that the application can run `Session.login(userKey, ...)`
 * after the consent redirect; tokens are then refreshed as needed.
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
 */
export const layerConfig = (
  options: Options & {
    readonly userKey: string
    readonly tokenStore?: Layer.Layer<TokenStore.TokenStore> | undefined
    /** The HTTP client (default `Transport.layerHttpClient`: undici on Node, else `fetch`). */
    readonly httpClient?: Layer.Layer<HttpClient.HttpClient> | undefined
  }
): Layer.Layer<
  Vehicles | TokenStore.TokenStore | OAuthConfig.OAuthConfig | Transport.Transport,
  Config.ConfigError
> => {
  const TransportLive = Transport.layer.pipe(
    Layer.provide([TransportConfig.layerConfig, options.httpClient ?? Transport.layerHttpClient])
  )
  const Shared = Layer.mergeAll(options.tokenStore ?? TokenStore.layerMemory, OAuthConfig.layerConfig, TransportLive)
  return layer(options).pipe(
    Layer.provide(Session.layerUser(options.userKey)),
    Layer.provideMerge(Shared)
  )
}

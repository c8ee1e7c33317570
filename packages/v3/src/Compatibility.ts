/**
 * The public compatibility listing (section 4.5): which make / model /
 * powertrain / region combinations support which signals and commands.
 *
 * No credential is sent. The spec asks clients to cache the listing for at
 * least 24 hours (it changes daily), so results are kept in an Effect `Cache`
 * keyed by the filters (make compared case-insensitively) for `timeToLive`
 * (default 24 hours). Failures are not cached. A 500 is retried with
 * exponential backoff by the transport.
 *
 * @since 0.1.0
 */
import { Cache, Context, Duration, Effect, Exit, Layer, Option } from "effect"
import type { HttpClient } from "effect/http"
import { CompatibilityApi, CompatibilityFilters } from "@connected-vehicle/schema/Api"
import type { CompatibilityPage } from "@connected-vehicle/schema/Compatibility"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { ArgsOf } from "./internal/args.ts"
import { toQuery } from "./internal/args.ts"

/**
 * Filters of the listing, derived from the contract's `CompatibilityFilters`
 * (`region`, `make` case-insensitive, `powertrainType` where `EV` means BEV
 * and PHEV); omit all of them for everything. A value outside the allowed
 * ones is an `InvalidArgument` before any request (the service would answer
 * it with an empty listing).
 *
 * @example
 * ```ts
 * import type { Filters } from "@connected-vehicle/v3/Compatibility"
 *
 * const evsInEurope: Filters = { region: "EUROPE", powertrainType: "EV" }
 * ```
 * @since 0.1.0
 * @category models
 */
export type Filters = ArgsOf<typeof CompatibilityFilters.Type>

/**
 * Options of {@link make}.
 *
 * @example
 * ```ts
 * import { HttpClient, HttpClientRequest } from "effect/http"
 * import type { Options } from "@connected-vehicle/v3/Compatibility"
 *
 * const options: Options = {
 *   timeToLive: "48 hours",
 *   transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-team", "fleet"))
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** How long a listing is kept (default 24 hours, the spec's minimum). */
  readonly timeToLive?: Duration.Input | undefined
  /** Distinct filter combinations kept at once (default 256). */
  readonly capacity?: number | undefined
  /** Transforms the HTTP client of this service (after the transport's own pipeline). */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/**
 * The compatibility service.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Compatibility } from "@connected-vehicle/v3/Compatibility"
 *
 * const program = Effect.gen(function*() {
 *   const compatibility = yield* Compatibility
 *   const evs = yield* compatibility.list({ region: "US", powertrainType: "EV" })
 *   return evs.data.map((entry) => `${entry.attributes.make} ${entry.attributes.model}`)
 * })
 * ```
 * @since 0.1.0
 * @category services
 */
export class Compatibility extends Context.Service<Compatibility, {
  /**
   * The entries matching the filters, from the cache when fresh. The per-call
   * `options` apply when the listing is fetched (not cached, or expired).
   */
  readonly list: (
    args?: Filters,
    options?: Transport.CallOptions
  ) => Effect.Effect<CompatibilityPage, InvalidArgument | ConnectedVehicleError>
  /** Drops every cached listing. */
  readonly invalidate: Effect.Effect<void>
}>()("@connected-vehicle/v3/Compatibility") {}

/**
 * Default time to live of a cached listing: 24 hours.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { defaultTimeToLive } from "@connected-vehicle/v3/Compatibility"
 *
 * Duration.toHours(defaultTimeToLive) // 24
 * ```
 * @since 0.1.0
 * @category constants
 */
export const defaultTimeToLive: Duration.Duration = Duration.hours(24)

const checkArgs = toQuery(CompatibilityFilters)

/**
 * Builds the service (and its cache) from the transport.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Compatibility, make } from "@connected-vehicle/v3/Compatibility"
 *
 * const CompatibilityLive = Layer.effect(Compatibility, make({ timeToLive: "48 hours" }))
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<Compatibility["Service"], never, Transport.Transport> =>
  Effect.gen(function*() {
    const transport = yield* Transport.Transport
    const client = yield* Transport.publicClient(CompatibilityApi, "compatibility").pipe(
      Effect.provideService(
        Transport.Transport,
        options?.transformClient === undefined
          ? transport
          : { ...transport, httpClient: options.transformClient(transport.httpClient) }
      )
    )
    const timeToLive = options?.timeToLive ?? defaultTimeToLive
    const fetch = (key: string, callOptions?: Transport.CallOptions) =>
      Effect.map(client.list({ query: JSON.parse(key) as typeof CompatibilityFilters.Type }, callOptions), (r) => r.value)
    const cache = yield* Cache.makeWith(
      (key: string) => fetch(key),
      {
        capacity: options?.capacity ?? 256,
        timeToLive: (exit) => Exit.isSuccess(exit) ? timeToLive : Duration.zero
      }
    )
    return Compatibility.of({
      list: (args, callOptions) =>
        Effect.flatMap(checkArgs(args), (query) => {
          const make = query["filter[make]"]?.toLowerCase()
          // one key per filter combination, make compared case-insensitively
          const key = JSON.stringify({ ...query, ...(make === undefined ? {} : { "filter[make]": make }) }, Object.keys(CompatibilityFilters.fields))
          if (callOptions === undefined) return Cache.get(cache, key)
          // a fresh listing is served from the cache; otherwise this call's
          // options govern the request, and its result is cached
          return Effect.flatMap(Cache.getOption(cache, key), (cached) =>
            Option.isSome(cached)
              ? Effect.succeed(cached.value)
              : Effect.tap(fetch(key, callOptions), (page) => Cache.set(cache, key, page)))
        }),
      invalidate: Cache.invalidateAll(cache)
    })
  })

/**
 * The service on the transport (no credential needed).
 *
 * @example
 * ```ts
 * import * as Compatibility from "@connected-vehicle/v3/Compatibility"
 *
 * const CompatibilityLive = Compatibility.layer({ timeToLive: "24 hours" })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<Compatibility, never, Transport.Transport> =>
  Layer.effect(Compatibility, make(options))

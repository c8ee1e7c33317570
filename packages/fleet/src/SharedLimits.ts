/**
 * Request limits shared by every process of a fleet: a per-vehicle and a
 * per-application limit, kept by `effect/persistence`'s `RateLimiter` in
 * Redis (or in memory, for one process), and the `retry-after` of a 429
 * respected by all of them. It plugs into the SDK's transport as its
 * `transformClient`, so every v3 and legacy v2.0 call is limited without a
 * change to the code that makes it.
 *
 * Each key's requests are spread evenly: at most `limit` in any `window`
 * (`margin` added to the window for the time a request takes to arrive). A
 * legacy batch of `n` entries counts `n` against its vehicle (it takes
 * `2n - 1` of the vehicle's slots, so that its entries, counted at once by
 * the service, fit in every window around it) and 1 against the application.
 *
 * @since 0.1.0
 */
import { Clock, Context, Duration, Effect, Layer } from "effect"
import { HttpClient, HttpClientError, HttpClientResponse } from "effect/http"
import type { HttpClientRequest } from "effect/http"
import { RateLimiter, type Redis } from "effect/persistence"
import * as RetryAfter from "@connected-vehicle/transport/RetryAfter"
import { FleetError } from "./FleetError.ts"
import * as Admission from "./internal/admission.ts"
import * as Holds from "./internal/holds.ts"
import { vehicleOf } from "./internal/requests.ts"
import * as SharedRedis from "./SharedRedis.ts"

/**
 * A request limit: at most `limit` requests in any `window`.
 *
 * @example
 * ```ts
 * import type { Limit } from "@connected-vehicle/fleet/SharedLimits"
 *
 * const tenPerSecond: Limit = { limit: 10, window: "1 second" }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Limit {
  readonly limit: number
  readonly window: Duration.Input
}

/**
 * Options of the limits. The service does not publish its numbers: set
 * those of your contract.
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/fleet/SharedLimits"
 *
 * const options: Options = {
 *   perVehicle: { limit: 5, window: "1 second" },
 *   perApplication: { limit: 200, window: "1 second" },
 *   maxRetries: 5
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Per vehicle (default {@link defaults}: 10 per second); `false`: none. */
  readonly perVehicle?: Limit | false | undefined
  /** Per application (default {@link defaults}: 100 per second); `false`: none. */
  readonly perApplication?: Limit | false | undefined
  /**
   * Added to each window (default a fifth of it): half of it is how late a
   * request may be sent after its slot (while it waits for its other key),
   * half is for the time requests take to arrive.
   */
  readonly margin?: Duration.Input | undefined
  /** 429s answered to one request that are waited out and sent again here (default 3); then the 429 goes to the caller. */
  readonly maxRetries?: number | undefined
  /** Prefix of the Redis keys (default `"connected-vehicle:"`). */
  readonly prefix?: string | undefined
  /** How long Redis may take to answer (default 2 seconds); then `FleetError` `RedisUnavailable`. */
  readonly timeout?: Duration.Input | undefined
}

/**
 * The default limits: 10 requests per second per vehicle, 100 per second
 * per application.
 *
 * @example
 * ```ts
 * import { defaults } from "@connected-vehicle/fleet/SharedLimits"
 *
 * const halfAsMany = { ...defaults.perVehicle, limit: defaults.perVehicle.limit / 2 }
 * ```
 * @since 0.1.0
 * @category models
 */
export const defaults: { readonly perVehicle: Limit; readonly perApplication: Limit } = {
  perVehicle: { limit: 10, window: "1 second" },
  perApplication: { limit: 100, window: "1 second" }
}

/**
 * The shared limits: `admit` waits until a request may be sent (by every
 * limit and hold of its keys); `transformClient` applies them to an
 * `HttpClient` (give it to the SDK: `ConnectedVehicle.layer({ ..., transformClient })`).
 * A 429 holds its key (its vehicle, or the application when the service
 * says `APPLICATION_RATE_LIMITED` or the request names no vehicle) for its
 * `retry-after` in every process, then the request is sent again.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SharedLimits } from "@connected-vehicle/fleet/SharedLimits"
 *
 * const transformClient = Effect.map(Effect.service(SharedLimits), (limits) => limits.transformClient)
 * ```
 * @since 0.1.0
 * @category services
 */
export class SharedLimits extends Context.Service<SharedLimits, {
  readonly admit: (request: HttpClientRequest.HttpClientRequest) => Effect.Effect<void, FleetError>
  readonly transformClient: (client: HttpClient.HttpClient) => HttpClient.HttpClient
}>()("@connected-vehicle/fleet/SharedLimits") {}

const makeWith = (options: Options | undefined, limiter: RateLimiter.RateLimiter, holds: Holds.Holds): SharedLimits["Service"] => {
  const keysFor = Admission.keysOf(
    Admission.policyOf(options?.perVehicle, defaults.perVehicle, options?.margin),
    Admission.policyOf(options?.perApplication, defaults.perApplication, options?.margin)
  )
  const maxRetries = options?.maxRetries ?? 3
  const timeout = Duration.toMillis(Duration.fromInputUnsafe(options?.timeout ?? "2 seconds"))

  const admitKeys = Admission.make(limiter, holds, timeout)

  const admit = (request: HttpClientRequest.HttpClientRequest) => {
    const keys = keysFor(request)
    return keys === undefined ? Effect.void : admitKeys(keys)
  }

  // a 429: hold the key it names for its retry-after, everywhere; the response, readable again
  const onTooMany = (request: HttpClientRequest.HttpClientRequest, response: HttpClientResponse.HttpClientResponse) =>
    Effect.gen(function*() {
      const body = yield* Effect.orElseSucceed(response.text, () => "")
      const now = yield* Clock.currentTimeMillis
      const wait = RetryAfter.fromHeaders(response.headers, now) ?? 1_000
      const vehicle = vehicleOf(request)
      const key = vehicle === undefined || body.includes("APPLICATION_RATE_LIMITED") ? "application" : `vehicle:${vehicle}`
      yield* holds.hold(key, wait)
      yield* Effect.logDebug("429: requests held").pipe(Effect.annotateLogs({ key, millis: wait }))
      return HttpClientResponse.fromWeb(request, new Response(body, { status: response.status, headers: response.headers }))
    })

  const transformClient = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
    HttpClient.transform(client, (effect, request) => {
      const keys = keysFor(request)
      if (keys === undefined) return effect
      const send = (retries: number): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
        admitKeys(keys).pipe(
          Effect.andThen(effect),
          Effect.flatMap((response) =>
            response.status !== 429 ? Effect.succeed(response) : Effect.flatMap(onTooMany(request, response), (readable) =>
              retries < maxRetries ? send(retries + 1) : Effect.succeed(readable))
          ),
          Effect.catchTag("FleetError", (cause) =>
            Effect.fail(new HttpClientError.HttpClientError({
              reason: new HttpClientError.TransportError({ request, cause, description: cause.message })
            })))
        )
      return send(0)
    })

  return { admit, transformClient }
}

const build = (options: Options | undefined, limiter: RateLimiter.RateLimiter, holds: Holds.Holds) =>
  Effect.try({ try: () => makeWith(options, limiter, holds), catch: (error) => error as FleetError })

const timeoutOf = (options: Options | undefined) => Duration.toMillis(Duration.fromInputUnsafe(options?.timeout ?? "2 seconds"))

/**
 * The limits on the shared `Redis` (its `RateLimiter` store and holds under
 * `options.prefix`): every process built on the same Redis shares them.
 * Fails with `FleetError` `Configuration` for a limit that is not a
 * positive integer per a positive window.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import * as SharedLimits from "@connected-vehicle/fleet/SharedLimits"
 * import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
 *
 * const limits = SharedLimits.make({ perVehicle: { limit: 5, window: "1 second" } }).pipe(
 *   Effect.provide(SharedRedis.layer({ url: Redacted.make("redis://127.0.0.1:6379") }))
 * )
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<SharedLimits["Service"], FleetError, Redis.Redis> =>
  Effect.gen(function*() {
    const prefix = options?.prefix ?? "connected-vehicle:"
    const store = yield* RateLimiter.makeStoreRedis({ prefix: `${prefix}limit:` })
    const limiter = yield* Effect.provideService(RateLimiter.make, RateLimiter.RateLimiterStore, store)
    const holds = yield* Holds.makeRedis(`${prefix}hold:`, timeoutOf(options))
    return yield* build(options, limiter, holds)
  })

/**
 * The limits in this process's memory: the embedded default (one process).
 *
 * @example
 * ```ts
 * import * as SharedLimits from "@connected-vehicle/fleet/SharedLimits"
 *
 * const limits = SharedLimits.makeMemory({ perVehicle: { limit: 5, window: "1 second" } })
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options?: Options): Effect.Effect<SharedLimits["Service"], FleetError> =>
  Effect.gen(function*() {
    const limiter = yield* RateLimiter.make.pipe(Effect.provide(RateLimiter.layerStoreMemory))
    return yield* build(options, limiter, yield* Holds.makeMemory)
  })

/**
 * {@link make} as a layer, on the `Redis` in context.
 *
 * @example
 * ```ts
 * import { Layer, Redacted } from "effect"
 * import * as SharedLimits from "@connected-vehicle/fleet/SharedLimits"
 * import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
 *
 * const Limits = SharedLimits.layer().pipe(Layer.provide(SharedRedis.layer({ url: Redacted.make("redis://127.0.0.1:6379") })))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<SharedLimits, FleetError, Redis.Redis> =>
  Layer.effect(SharedLimits, make(options))

/**
 * {@link makeMemory} as a layer.
 *
 * @example
 * ```ts
 * import * as SharedLimits from "@connected-vehicle/fleet/SharedLimits"
 *
 * const Limits = SharedLimits.layerMemory({ perApplication: false })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (options?: Options): Layer.Layer<SharedLimits, FleetError> => Layer.effect(SharedLimits, makeMemory(options))

/**
 * The limits on the Redis of `REDIS_URL` when it is set, else in memory.
 *
 * @example
 * ```ts
 * import * as SharedLimits from "@connected-vehicle/fleet/SharedLimits"
 *
 * // REDIS_URL=redis://cache.internal:6379 node worker.ts
 * const Limits = SharedLimits.layerConfig({ perVehicle: { limit: 5, window: "1 second" } })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (options?: Options): Layer.Layer<SharedLimits, FleetError> =>
  SharedRedis.layerChoose(layer(options), layerMemory(options))

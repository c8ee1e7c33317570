/**
 * Request limits shared by every process of a fleet: a per-vehicle and a
 * per-application limit, kept by `effect/persistence`'s `RateLimiter` in
 * Redis (or in memory, for one process), and the `retry-after` of a 429
 * respected by all of them. It plugs into the SDK's transport as its
 * `admit` (each attempt waits for its slots before its token is read,
 * outside its timeout) and its `transformClient` (which records the holds of
 * 429s), so every v3 and legacy v2.0 call is limited without a change to
 * the code that makes it.
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
import { Connection, ConnectedVehicleError, redactUrl } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as RetryAfter from "@connected-vehicle/transport/RetryAfter"
import type { Admit } from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { FleetError } from "./FleetError.ts"
import * as Admission from "./internal/admission.ts"
import * as Holds from "./internal/holds.ts"
import { millis } from "./internal/options.ts"
import { scopeOf, vehicleOf } from "./internal/requests.ts"
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
 *   perApplication: { limit: 200, window: "1 second" }
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
   * request may be sent after its slot (while it waits for its other key,
   * and reads its token again: at most 25 ms; a wait for the token comes
   * before the slots), half is for the time requests take to arrive.
   */
  readonly margin?: Duration.Input | undefined
  /** Prefix of the Redis keys (default `"connected-vehicle:"`). */
  readonly prefix?: string | undefined
  /** How long Redis may take to answer (default 2 seconds); then `FleetError` `RedisUnavailable`. */
  readonly timeout?: Duration.Input | undefined
  /**
   * The longest a 429 holds its key (default {@link defaultMaxHold}, 20
   * seconds: the transport's default `rateLimit.maxWait`; give yours): a
   * longer `retry-after` holds this long only, and a hold found longer
   * (set by a process with a longer cap) is cut to it.
   */
  readonly maxHold?: Duration.Input | undefined
}

/**
 * The default {@link Options} `maxHold`: 20 seconds, the transport's
 * default `rateLimit.maxWait` (a call does not wait longer for a 429's
 * `retry-after` either).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { defaultMaxHold } from "@connected-vehicle/fleet/SharedLimits"
 *
 * console.log(Duration.toSeconds(defaultMaxHold)) // 20
 * ```
 * @since 0.2.0
 * @category models
 */
export const defaultMaxHold: Duration.Duration = TransportConfig.defaults.rateLimit.maxWait

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
 * The shared limits, the two options of the SDK's transport (give both:
 * `ConnectedVehicle.layer({ ..., admit, transformClient })`, as
 * `SharedAccess` does). `admit` waits until a request may be sent (by every
 * limit and hold of its keys; the transport runs it before each attempt,
 * before the token is read and outside the attempt's timeout); a failure of
 * the limits' store is a `Connection` reason naming it. `transformClient`
 * records the 429s: one holds its key (its vehicle, or the application
 * when the service's error envelope has the code `APPLICATION_RATE_LIMITED`
 * or the request names no vehicle; a body that is not an error envelope
 * holds the vehicle) for its `retry-after` in every process, and goes to
 * the transport as it came: the transport's retry policy
 * (`TransportConfig`'s `rateLimit`, e.g. `{ wait: true }`) decides whether
 * to send it again, and that attempt's `admit` waits for the hold.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SharedLimits } from "@connected-vehicle/fleet/SharedLimits"
 *
 * const sdkOptions = Effect.map(Effect.service(SharedLimits), ({ admit, transformClient }) => ({ admit, transformClient }))
 * ```
 * @since 0.1.0
 * @category services
 */
export class SharedLimits extends Context.Service<SharedLimits, {
  readonly admit: Admit
  readonly transformClient: (client: HttpClient.HttpClient) => HttpClient.HttpClient
}>()("@connected-vehicle/fleet/SharedLimits") {}

const makeWith = (
  options: Options | undefined,
  limiter: RateLimiter.RateLimiter,
  holds: (maxHold: number) => Effect.Effect<Holds.Holds>
): Effect.Effect<SharedLimits["Service"], FleetError> =>
  Effect.gen(function*() {
    const keysFor = Admission.keysOf(
      yield* Admission.policyOf("perVehicle", options?.perVehicle, defaults.perVehicle, options?.margin),
      yield* Admission.policyOf("perApplication", options?.perApplication, defaults.perApplication, options?.margin)
    )
    const maxHold = yield* millis("maxHold", options?.maxHold, defaultMaxHold)
    const held = yield* holds(maxHold)
    return withKeys(keysFor, Admission.make(limiter, held, yield* timeoutOf(options)), held, maxHold)
  })

const withKeys = (
  keysFor: (request: HttpClientRequest.HttpClientRequest) => Admission.Admission | undefined,
  admitKeys: (admission: Admission.Admission) => Effect.Effect<void, FleetError>,
  holds: Holds.Holds,
  maxHold: number
): SharedLimits["Service"] => {
  const admit: Admit = (request) => {
    const admission = keysFor(request)
    return admission === undefined ? Effect.void : Effect.mapError(admitKeys(admission), (cause) =>
      new ConnectedVehicleError({
        reason: new Connection({ method: request.method, url: redactUrl(request.url), description: `request limits: ${cause.message}`, sent: false, cause })
      }))
  }

  // a 429: hold the key it names for its retry-after, everywhere; the response passed on, its body readable again
  const onTooMany = (request: HttpClientRequest.HttpClientRequest, response: HttpClientResponse.HttpClientResponse) =>
    Effect.gen(function*() {
      const body = yield* Effect.orElseSucceed(response.text, () => "")
      const now = yield* Clock.currentTimeMillis
      const asked = Duration.toMillis(RetryAfter.fromHeaders(response.headers, now) ?? Duration.seconds(1))
      const wait = Math.min(asked, maxHold)
      const key = scopeOf(vehicleOf(request), body)
      yield* holds.hold(key, wait)
      yield* (asked > maxHold
        ? Effect.logWarning(`429: retry-after of ${asked} ms held for maxHold, ${maxHold} ms`)
        : Effect.logDebug("429: requests held")).pipe(Effect.annotateLogs({ key, millis: wait }))
      return HttpClientResponse.fromWeb(request, new Response(body, { status: response.status, headers: response.headers }))
    })

  // records a 429's hold (a Redis failure doing so: a transport failure); whether and when to send it again is the transport's schedule
  const transformClient = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
    HttpClient.transform(client, (effect, request) =>
      Effect.flatMap(effect, (response) =>
        response.status !== 429 ? Effect.succeed(response) : Effect.catchTag(onTooMany(request, response), "FleetError", (cause) =>
          Effect.fail(new HttpClientError.HttpClientError({
            reason: new HttpClientError.TransportError({ request, cause, description: cause.message })
          })))))

  return { admit, transformClient }
}

const timeoutOf = (options: Options | undefined) => millis("timeout", options?.timeout, "2 seconds")

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
    const timeout = yield* timeoutOf(options)
    const redis = yield* Effect.context<Redis.Redis>()
    return yield* makeWith(options, limiter, (maxHold) => Effect.provideContext(Holds.makeRedis(`${prefix}hold:`, timeout, maxHold), redis))
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
    return yield* makeWith(options, limiter, Holds.makeMemory)
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
 * The limits on the Redis of `REDIS_URL` (`FleetConfig`) when it is set,
 * else in memory (with a warning, unless `FLEET_STORAGE=memory`).
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
  SharedRedis.layerChoose(layer(options), layerMemory(options), "the request limits and 429 holds are")

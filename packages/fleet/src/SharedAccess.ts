/**
 * The SDK of one process of a fleet, with the shared limits and the one
 * token: `layerSdk` hands the SDK's layer constructor (such as
 * `ConnectedVehicle.layerConfig` of `@connected-vehicle/sdk`) the
 * `admit` and `transformClient` of `SharedLimits` and the `tokenStore` of `SharedToken`,
 * both on one Redis connection (`REDIS_URL`), or in memory without it.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import type { HttpClient } from "effect/http"
import type { Redis } from "effect/persistence"
import { makeMemory as makeMemoryStore, TokenStore } from "@connected-vehicle/auth/TokenStore"
import type { Admit } from "@connected-vehicle/transport/Transport"
import * as FleetConfig from "./FleetConfig.ts"
import type { FleetError } from "./FleetError.ts"
import * as SharedLimits from "./SharedLimits.ts"
import * as SharedRedis from "./SharedRedis.ts"
import * as SharedToken from "./SharedToken.ts"

/**
 * The limits' options, and the token store's under `token`.
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/fleet/SharedAccess"
 *
 * const options: Options = { perVehicle: { limit: 5, window: "1 second" }, token: { leaseDuration: "15 seconds" } }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options extends SharedLimits.Options {
  readonly token?: SharedToken.Options | undefined
}

/**
 * What the SDK's layers take to share them: the options `admit`,
 * `transformClient` and `tokenStore` of `ConnectedVehicle.Options`.
 *
 * @example
 * ```ts
 * import type { SdkOptions } from "@connected-vehicle/fleet/SharedAccess"
 *
 * const describe = (shared: SdkOptions) => typeof shared.transformClient
 * ```
 * @since 0.1.0
 * @category models
 */
export interface SdkOptions {
  readonly admit: Admit
  readonly transformClient: (client: HttpClient.HttpClient) => HttpClient.HttpClient
  readonly tokenStore: Layer.Layer<TokenStore>
}

/**
 * The shared options on the `Redis` in context.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import * as SharedAccess from "@connected-vehicle/fleet/SharedAccess"
 * import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
 *
 * const shared = SharedAccess.make().pipe(Effect.provide(SharedRedis.layer({ url: Redacted.make("redis://127.0.0.1:6379") })))
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<SdkOptions, FleetError, Redis.Redis> =>
  Effect.gen(function*() {
    const limits = yield* SharedLimits.make(options)
    // the one prefix of every key, tokens and leases included, unless the token's options name their own
    const store = yield* SharedToken.make({ prefix: options?.prefix, ...options?.token })
    return { admit: limits.admit, transformClient: limits.transformClient, tokenStore: Layer.succeed(TokenStore, store) }
  })

/**
 * The shared options in memory: for one process.
 *
 * @example
 * ```ts
 * import * as SharedAccess from "@connected-vehicle/fleet/SharedAccess"
 *
 * const shared = SharedAccess.makeMemory({ perVehicle: { limit: 5, window: "1 second" } })
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options?: Options): Effect.Effect<SdkOptions, FleetError> =>
  Effect.gen(function*() {
    const limits = yield* SharedLimits.makeMemory(options)
    return { admit: limits.admit, transformClient: limits.transformClient, tokenStore: Layer.succeed(TokenStore, yield* makeMemoryStore) }
  })

/**
 * The SDK layer that `build` makes from the shared options, on the Redis of
 * `REDIS_URL` (`FleetConfig`) when it is set (one connection, closed with
 * the layer), else in memory (with a warning, unless `FLEET_STORAGE=memory`).
 *
 * @example
 * ```ts
 * import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
 * import * as SharedAccess from "@connected-vehicle/fleet/SharedAccess"
 *
 * // REDIS_URL=redis://cache.internal:6379 CONNECTED_VEHICLE_ORIGIN=... node worker.ts
 * const Sdk = SharedAccess.layerSdk((shared) => ConnectedVehicle.layerConfig(shared), {
 *   perVehicle: { limit: 5, window: "1 second" }
 * })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerSdk = <A, E, R>(
  build: (shared: SdkOptions) => Layer.Layer<A, E, R>,
  options?: Options
): Layer.Layer<A, E | FleetError, R> =>
  Layer.unwrap(Effect.gen(function*() {
    const settings = yield* FleetConfig.read
    if (settings.redisUrl._tag === "None") {
      yield* FleetConfig.warnMemory(settings, "REDIS_URL", "the request limits, 429 holds and tokens are")
      return build(yield* makeMemory(options))
    }
    const redis = yield* Layer.build(SharedRedis.layer({ url: settings.redisUrl.value }))
    return build(yield* Effect.provideContext(make(options), redis))
  }))

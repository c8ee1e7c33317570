/**
 * The Redis every process of a fleet deployment shares for its request
 * limits, its 429 holds and its one application token: `REDIS_URL`, read
 * through one Effect `Config` value (like `Database.config`), and the
 * `Redis` service of `effect/persistence` on it (`NodeRedis` of
 * `@effect/platform-node`). Without it, those live in this process's memory.
 *
 * @since 0.1.0
 */
import { NodeRedis } from "@effect/platform-node"
import { Config, Effect, Layer, type Option, Redacted } from "effect"
import type { Redis } from "effect/persistence"
import { FleetError } from "./FleetError.ts"

/**
 * `REDIS_URL` (a `redis://` or `rediss://` URL, kept `Redacted`), or `None`
 * when unset: the in-memory default.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
 *
 * const program = Effect.map(SharedRedis.config, (url) => Option.isSome(url) ? "redis" : "memory")
 * ```
 * @since 0.1.0
 * @category config
 */
export const config: Config.Config<Option.Option<Redacted.Redacted<string>>> = Config.option(
  Config.Redacted("REDIS_URL")
)

/**
 * {@link config} read (a `FleetError` `Configuration` when invalid): the URL,
 * or `None` for the in-memory default.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
 *
 * const mode = Effect.map(SharedRedis.readConfig, (url) => url._tag === "Some" ? "redis" : "memory")
 * ```
 * @since 0.1.0
 * @category config
 */
export const readConfig: Effect.Effect<Option.Option<Redacted.Redacted<string>>, FleetError> = config.pipe(
  Effect.mapError((cause) => new FleetError({ reason: "Configuration", description: cause.message, cause }))
)

/**
 * Options of {@link layer}.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Options } from "@connected-vehicle/fleet/SharedRedis"
 *
 * const options: Options = { url: Redacted.make("redis://cache.internal:6379"), connectTimeout: "2 seconds" }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly url: Redacted.Redacted<string>
  /** How long connecting may take (default 5 seconds). */
  readonly connectTimeout?: number | undefined
}

/**
 * The `Redis` service on `options.url`, connected when built (an unreachable
 * server or a wrong URL fails there, with `FleetError` `RedisUnavailable`)
 * and closed with the layer. Commands sent while the connection is down fail
 * at once (no offline queue) instead of waiting for it to come back.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
 *
 * const RedisLive = SharedRedis.layer({ url: Redacted.make("redis://127.0.0.1:6379") })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Redis.Redis, FleetError> =>
  Layer.effectContext(
    Layer.build(NodeRedis.layer({
      url: Redacted.value(options.url),
      disableOfflineQueue: true,
      socket: { connectTimeout: options.connectTimeout ?? 5_000 }
    })).pipe(
      Effect.mapError((cause) =>
        new FleetError({ reason: "RedisUnavailable", description: `cannot connect to Redis: ${String(cause.cause)}`, cause })
      )
    )
  )

/**
 * Builds `ifRedis` on the `Redis` of `REDIS_URL` when it is set, else
 * `ifMemory`: how this package's `layerConfig` constructors choose.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { RateLimiter } from "effect/persistence"
 * import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
 *
 * const Store = SharedRedis.layerChoose(RateLimiter.layerStoreRedis(), RateLimiter.layerStoreMemory)
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerChoose = <A, E1, E2, R2>(
  ifRedis: Layer.Layer<A, E1, Redis.Redis>,
  ifMemory: Layer.Layer<A, E2, R2>
): Layer.Layer<A, E1 | E2 | FleetError, R2> =>
  Layer.unwrap(Effect.map(readConfig, (url) =>
    url._tag === "Some"
      ? Layer.provide(ifRedis, layer({ url: url.value })) as Layer.Layer<A, E1 | E2 | FleetError, R2>
      : ifMemory))

/**
 * The Redis every process of a fleet deployment shares for its request
 * limits, its 429 holds and its one application token: the `Redis` service
 * of `effect/persistence` (`NodeRedis` of `@effect/platform-node`) on
 * `REDIS_URL` (read by `FleetConfig`). Without it, those live in this
 * process's memory.
 *
 * @since 0.1.0
 */
import { NodeRedis } from "@effect/platform-node"
import { type Duration, Effect, Fiber, Layer, Option, Redacted } from "effect"
import type { Redis } from "effect/persistence"
import * as FleetConfig from "./FleetConfig.ts"
import { Configuration, FleetError, RedisUnavailable } from "./FleetError.ts"
import { millis } from "./internal/options.ts"

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
  /** How long connecting, the client's handshake included, may take (default 5 seconds). */
  readonly connectTimeout?: Duration.Input | undefined
}

/**
 * The `Redis` service on `options.url`, connected when built (an unreachable
 * server, or one whose connection and handshake do not end within
 * `connectTimeout`, fails there, with `FleetError` `RedisUnavailable`; a
 * timeout around the build interrupts it; a URL that is
 * not `redis://` or `rediss://` with `Configuration`, whose message and
 * cause hold no part of it; a `connectTimeout` that is not a duration too)
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
  Layer.effectContext(Effect.gen(function*() {
    const url = yield* checkUrl(options.url)
    const connectTimeout = yield* millis("connectTimeout", options.connectTimeout, "5 seconds")
    // destroys the client's sockets: its handshake waits for the server's answers with no bound, and its close
    // waits for them too; Node keeps one small listener per socket made on the signal (reconnections)
    const stop = new AbortController()
    const client = Layer.build(NodeRedis.layer({
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout: Math.ceil(connectTimeout), signal: stop.signal }
    })).pipe(
      Effect.mapError((cause) =>
        new FleetError({ reason: new RedisUnavailable({ description: `cannot connect to Redis: ${String(cause.cause)}`, cause }) })
      )
    )
    return yield* bounded(client, connectTimeout, () => stop.abort())
  }))

/**
 * `connect` within `timeout`: past it, or when interrupted, `abort` ends
 * the connection, and `connect` is awaited: the client's pending handshake
 * fails then (interrupting it instead would close the client while its
 * handshake is pending, which waits for it for ever); past it, this fails
 * with `RedisUnavailable`.
 */
const bounded = <A, R>(
  connect: Effect.Effect<A, FleetError, R>,
  timeout: number,
  abort: () => void
): Effect.Effect<A, FleetError, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkChild(connect, { uninterruptible: false }), (fiber) => {
      const stop = Effect.andThen(Effect.sync(abort), Fiber.await(fiber))
      return restore(Effect.timeoutOption(Fiber.join(fiber), timeout)).pipe(
        Effect.onInterrupt(() => stop),
        Effect.flatMap(Option.match({
          onSome: Effect.succeed,
          onNone: () =>
            Effect.andThen(
              stop,
              Effect.fail(new FleetError({ reason: new RedisUnavailable({ description: `cannot connect to Redis: no answer within ${timeout} ms` }) }))
            )
        }))
      )
    })
  )

// a URL that does not parse: Node's error would carry it whole (password included) in its `input`, so none of it is kept
const checkUrl = (url: Redacted.Redacted<string>): Effect.Effect<string, FleetError> => {
  const value = Redacted.value(url)
  const valid = URL.canParse(value) && /^rediss?:$/.test(new URL(value).protocol)
  return valid ? Effect.succeed(value) : Effect.fail(
    new FleetError({
      reason: new Configuration({ description: "the Redis URL (REDIS_URL, or the url option) is not a redis:// or rediss:// URL" })
    })
  )
}

/**
 * Builds `ifRedis` on the `Redis` of `REDIS_URL` (`FleetConfig`) when it is
 * set, else `ifMemory`, after a warning naming `what` is then in memory
 * (none with `FLEET_STORAGE=memory`): how this package's `layerConfig`
 * constructors choose.
 *
 * @example
 * ```ts
 * import { RateLimiter } from "effect/persistence"
 * import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
 *
 * const Store = SharedRedis.layerChoose(RateLimiter.layerStoreRedis(), RateLimiter.layerStoreMemory, "my rate limits")
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerChoose = <A, E1, E2, R2>(
  ifRedis: Layer.Layer<A, E1, Redis.Redis>,
  ifMemory: Layer.Layer<A, E2, R2>,
  what: string
): Layer.Layer<A, E1 | E2 | FleetError, R2> =>
  Layer.unwrap(Effect.gen(function*() {
    const settings = yield* FleetConfig.read
    if (settings.redisUrl._tag === "Some") {
      return Layer.provide(ifRedis, layer({ url: settings.redisUrl.value })) as Layer.Layer<A, E1 | E2 | FleetError, R2>
    }
    yield* FleetConfig.warnMemory(settings, "REDIS_URL", what)
    return ifMemory
  }))

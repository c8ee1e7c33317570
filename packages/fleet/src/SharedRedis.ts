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
import { connect } from "node:net"
import { connect as connectTls } from "node:tls"
import { type Duration, Effect, Layer, Redacted } from "effect"
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
  /** How long connecting, and the server's first answer, may take (default 5 seconds). */
  readonly connectTimeout?: Duration.Input | undefined
}

/**
 * The `Redis` service on `options.url`, connected when built (an unreachable
 * server, or one that does not answer within `connectTimeout`, fails there,
 * with `FleetError` `RedisUnavailable`; a URL that is
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
    yield* answers(new URL(url), connectTimeout)
    return yield* Layer.build(NodeRedis.layer({
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout: Math.ceil(connectTimeout) }
    })).pipe(
      Effect.mapError((cause) =>
        new FleetError({ reason: new RedisUnavailable({ description: `cannot connect to Redis: ${String(cause.cause)}`, cause }) })
      )
    )
  }))

/**
 * Whether the server at `url` answers a `PING` within `timeout` (any answer,
 * `NOAUTH` included): the client's own handshake waits for its answers with
 * no bound, and its close waits for them too, so a server that accepts the
 * connection and never answers would hold the layer forever. Interrupting
 * it closes its socket.
 */
const answers = (url: URL, timeout: number): Effect.Effect<void, FleetError> => {
  const unavailable = (description: string) => new FleetError({ reason: new RedisUnavailable({ description }) })
  return Effect.callback<void, FleetError>((resume) => {
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1")
    const port = url.port === "" ? 6379 : Number(url.port)
    const tls = url.protocol === "rediss:"
    const socket = tls ? connectTls({ host, port, servername: host }) : connect({ host, port })
    const end = (effect: Effect.Effect<void, FleetError>) => {
      socket.destroy()
      resume(effect)
    }
    socket.once(tls ? "secureConnect" : "connect", () => socket.write("PING\r\n"))
    socket.once("data", () => end(Effect.void))
    socket.on("error", (error) => end(Effect.fail(unavailable(`cannot connect to Redis: ${error.message}`))))
    socket.once("close", () => end(Effect.fail(unavailable("cannot connect to Redis: the connection was closed before an answer"))))
    return Effect.sync(() => socket.destroy())
  }).pipe(
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () => Effect.fail(unavailable(`cannot connect to Redis: no answer within ${timeout} ms`))
    })
  )
}

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

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
import { Context, type Duration, Effect, Layer, Redacted } from "effect"
import type { Redis } from "effect/persistence"
import * as FleetConfig from "./FleetConfig.ts"
import { Configuration, FleetError, RedisUnavailable } from "./FleetError.ts"
import { count, millis } from "./internal/options.ts"
import { urlIssue } from "./internal/urls.ts"

/**
 * Options of {@link layer}.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Options } from "@connected-vehicle/fleet/SharedRedis"
 *
 * const options: Options = { url: Redacted.make("redis://cache.internal:6379"), connectTimeout: "2 seconds", maxPending: 5_000 }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly url: Redacted.Redacted<string>
  /**
   * How long connecting, and the server's first answer, may take (default 5
   * seconds); closing the layer waits that long at most for the answers
   * still owed.
   */
  readonly connectTimeout?: Duration.Input | undefined
  /**
   * How many commands may be owed an answer at once (default
   * {@link defaultMaxPending}, at least {@link minMaxPending}: connecting
   * takes up to a dozen); one more fails at once. A command whose caller
   * stopped waiting (its `timeout`) is owed its answer until Redis gives it
   * or the connection is closed: this bounds what a stalled Redis keeps in
   * memory.
   *
   * @since 0.1.0
   */
  readonly maxPending?: number | undefined
}

/**
 * The default of `maxPending`: 10,000 commands owed an answer at once.
 *
 * @example
 * ```ts
 * import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
 *
 * const twice = SharedRedis.defaultMaxPending * 2
 * ```
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxPending = 10_000

/**
 * The least `maxPending`: 100 (the handshake of a connection sends up to a
 * dozen commands at once).
 *
 * @example
 * ```ts
 * import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
 *
 * const maxPending = Math.max(SharedRedis.minMaxPending, 50)
 * ```
 * @since 0.1.0
 * @category constants
 */
export const minMaxPending = 100

/**
 * The `Redis` service on `options.url`, connected when built (an unreachable
 * server, or one that does not answer within `connectTimeout`, fails there,
 * with `FleetError` `RedisUnavailable`; a URL that does not parse, or is
 * not `redis://` or `rediss://`, with `Configuration` saying which, whose
 * message and cause hold no part of it; a `connectTimeout` that is not a duration, or a
 * `maxPending` that is not an integer of at least 100, too) and closed with the
 * layer. Commands sent while the connection is down, or while `maxPending`
 * are owed an answer, fail at once (no offline queue) instead of waiting.
 * Closing waits for the answers owed for `connectTimeout` at most, then
 * drops the connection (a stalled Redis never gives them).
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
    const maxPending = yield* count("maxPending", options.maxPending, defaultMaxPending, minMaxPending)
    yield* answers(new URL(url), connectTimeout)
    const context = yield* Layer.build(NodeRedis.layer({
      url,
      disableOfflineQueue: true,
      commandsQueueMaxLength: maxPending,
      socket: { connectTimeout: Math.ceil(connectTimeout) }
    })).pipe(
      Effect.mapError((cause) =>
        new FleetError({ reason: new RedisUnavailable({ description: `cannot connect to Redis: ${String(cause.cause)}`, cause }) })
      )
    )
    // runs before NodeRedis' own close, which waits for every answer owed: for ever on a stalled Redis
    yield* Effect.addFinalizer(() => closeWithin(Context.get(context, NodeRedis.NodeRedis).client, connectTimeout))
    return context
  }))

/**
 * Closes `client` once the answers it is owed arrive, destroying it (the
 * commands still owed rejected) when that takes over `timeout`, or when
 * interrupted. Its timer ends with it.
 */
const closeWithin = (client: NodeRedis.NodeRedis["Service"]["client"], timeout: number): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(() => {
      client.destroy()
      end()
    }, timeout)
    const end = () => {
      clearTimeout(timer)
      timer = undefined
      resume(Effect.void)
    }
    // a client already closed (its reconnections given up) rejects: nothing is owed then
    client.close().then(end, end)
    return Effect.sync(() => {
      if (timer === undefined) return
      clearTimeout(timer)
      client.destroy()
    })
  })

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

const checkUrl = (url: Redacted.Redacted<string>): Effect.Effect<string, FleetError> => {
  const value = Redacted.value(url)
  const issue = urlIssue(value, ["redis:", "rediss:"])
  return issue === undefined ? Effect.succeed(value) : Effect.fail(
    new FleetError({ reason: new Configuration({ description: `the Redis URL (REDIS_URL, or the url option) ${issue}` }) })
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

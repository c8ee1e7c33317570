/**
 * A throwaway Redis for tests: Debian's `redis-server` listening on
 * 127.0.0.1 on a free port, nothing saved to disk (`--save ''`, no
 * append-only file), stopped with the scope.
 *
 * @since 0.1.0
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Context, Duration, Effect, Exit, Layer, Redacted, Scope } from "effect"
import { findBinary, freePort, onProcessEnd, spawnLogged, stopChild, waitForPort } from "./internal/process.ts"
import type { LocalServerError } from "./LocalServerError.ts"

/**
 * Options of {@link make}.
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/testing/RedisServer"
 *
 * const options: Options = { binary: "/usr/bin/redis-server", startTimeout: "10 seconds" }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The `redis-server` program (default `/usr/bin/redis-server`). */
  readonly binary?: string | undefined
  /** How long the server may take to accept connections (default 10 seconds). */
  readonly startTimeout?: Duration.Input | undefined
}

/**
 * A running server: its port and URL (`redis://127.0.0.1:<port>`).
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Running } from "@connected-vehicle/testing/RedisServer"
 *
 * const describe = (server: Running) => Redacted.value(server.url)
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Running {
  readonly port: number
  readonly url: Redacted.Redacted<string>
}

/**
 * The Redis server of a test.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RedisServer } from "@connected-vehicle/testing/RedisServer"
 *
 * const port = Effect.map(RedisServer, (server) => server.port)
 * ```
 * @since 0.1.0
 * @category services
 */
export class RedisServer extends Context.Service<RedisServer, Running>()(
  "@connected-vehicle/testing/RedisServer"
) {}

/**
 * Starts a server, stopped (SIGTERM, then SIGKILL) when the scope closes.
 * Fails with `LocalServerError` (`BinaryMissing` when Debian's
 * `redis-server` is not installed).
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import * as RedisServer from "@connected-vehicle/testing/RedisServer"
 *
 * const program = Effect.scoped(Effect.map(RedisServer.make(), (server) => Redacted.value(server.url)))
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<Running, LocalServerError, Scope.Scope> =>
  Effect.map(launch(options), ({ server }) => server)

/** The server, and how to stop it and delete its directory synchronously (when the process ends). */
const launch = (options: Options | undefined) =>
  Effect.gen(function*() {
    const binary = yield* findBinary(
      "redis",
      [options?.binary ?? "/usr/bin/redis-server"],
      "apt-get update && apt-get install -y redis-server"
    )
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "cv-redis-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    const port = yield* freePort
    const server = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawnLogged(binary, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir])
      ),
      ({ child }) => stopChild(child, 2000)
    )
    const timeoutMs = Duration.toMillis(Duration.fromInputUnsafe(options?.startTimeout ?? "10 seconds"))
    yield* waitForPort("redis", port, { timeoutMs, child: server.child, log: server.log })
    const stopNow = () => {
      server.child.kill("SIGKILL")
      rmSync(dir, { recursive: true, force: true })
    }
    const running: Running = { port, url: Redacted.make(`redis://127.0.0.1:${port}`) }
    return { server: running, stopNow }
  })

/**
 * {@link make} as a layer: one server for the layer's lifetime.
 *
 * @example
 * ```ts
 * import * as RedisServer from "@connected-vehicle/testing/RedisServer"
 *
 * const Redis = RedisServer.layer()
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<RedisServer, LocalServerError> =>
  Layer.effect(RedisServer, make(options))

/**
 * A server outside Effect, for a test runner's global setup: its URL as a
 * string and `stop()`. Should the process end without `stop()` (the test
 * runner interrupted: SIGINT, SIGTERM, or an exit), the server is killed
 * and its directory deleted then, and the signal then ends the process as
 * it would have.
 *
 * @example
 * ```ts
 * import * as RedisServer from "@connected-vehicle/testing/RedisServer"
 *
 * export default async function setup() {
 *   const server = await RedisServer.start()
 *   process.env.REDIS_URL = server.url
 *   return () => server.stop()
 * }
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const start = async (options?: Options): Promise<{
  readonly port: number
  readonly url: string
  readonly stop: () => Promise<void>
}> => {
  const scope = Effect.runSync(Scope.make())
  const exit = await Effect.runPromiseExit(Scope.provide(launch(options), scope))
  if (Exit.isFailure(exit)) {
    await Effect.runPromise(Scope.close(scope, exit))
    return Effect.runPromise(Effect.failCause(exit.cause))
  }
  const removeHandlers = onProcessEnd(exit.value.stopNow)
  return {
    port: exit.value.server.port,
    url: Redacted.value(exit.value.server.url),
    stop: () => {
      removeHandlers()
      return Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}

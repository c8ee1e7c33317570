/**
 * A throwaway Postgres for tests: Debian's `postgresql` programs, a new
 * cluster in a temporary directory, listening on 127.0.0.1 on a free port,
 * stopped and deleted with the scope. Postgres refuses to run as root: as
 * root, the cluster belongs to the `postgres` user and its programs run
 * through `runuser`. Tuned for tests (`fsync=off`): it survives a crash of a
 * client, not of the machine.
 *
 * @since 0.1.0
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Context, Duration, Effect, Exit, Layer, Redacted, Scope } from "effect"
import { findBinary, freePort, onProcessEnd, postgresBinDirectories, run } from "./internal/process.ts"
import { LocalServerError } from "./LocalServerError.ts"

/**
 * Options of {@link make}.
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/testing/PostgresServer"
 *
 * const options: Options = { binDirectory: "/usr/lib/postgresql/15/bin", startTimeout: "30 seconds" }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Where `initdb`, `pg_ctl` and `psql` are (default: the newest `/usr/lib/postgresql/<major>/bin`). */
  readonly binDirectory?: string | undefined
  /** How long the server may take to start (default 30 seconds). */
  readonly startTimeout?: Duration.Input | undefined
}

/**
 * A running server: its port, the URL of its `postgres` database (user
 * `postgres`, no password) and a way to create more databases.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Running } from "@connected-vehicle/testing/PostgresServer"
 *
 * const describe = (server: Running) => `127.0.0.1:${server.port} ${Redacted.value(server.url)}`
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Running {
  readonly port: number
  readonly url: Redacted.Redacted<string>
  readonly dataDirectory: string
  /** Creates database `name` (letters, digits, `_`) and answers its URL. */
  readonly createDatabase: (name: string) => Effect.Effect<Redacted.Redacted<string>, LocalServerError>
}

/**
 * The Postgres server of a test.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { PostgresServer } from "@connected-vehicle/testing/PostgresServer"
 *
 * const port = Effect.map(PostgresServer, (server) => server.port)
 * ```
 * @since 0.1.0
 * @category services
 */
export class PostgresServer extends Context.Service<PostgresServer, Running>()(
  "@connected-vehicle/testing/PostgresServer"
) {}

const install = "apt-get update && apt-get install -y postgresql"

const binDirectory = (options: Options | undefined): Effect.Effect<string, LocalServerError> => {
  const candidates = options?.binDirectory !== undefined ? [options.binDirectory] : postgresBinDirectories()
  return candidates.length === 0
    ? Effect.fail(new LocalServerError({ server: "postgres", reason: "BinaryMissing", detail: `no /usr/lib/postgresql/<major>/bin; install it with \`${install}\`` }))
    : Effect.succeed(candidates[0]!)
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0

/** As root, through `runuser -u postgres`; otherwise directly. */
const runAsOwner = (reason: LocalServerError["reason"], program: string, args: ReadonlyArray<string>, timeoutMs?: number) =>
  asRoot
    ? run("postgres", reason, "runuser", ["-u", "postgres", "--", program, ...args], timeoutMs === undefined ? undefined : { timeoutMs })
    : run("postgres", reason, program, args, timeoutMs === undefined ? undefined : { timeoutMs })

const urlOf = (port: number, database: string) => Redacted.make(`postgres://postgres@127.0.0.1:${port}/${database}`)

/**
 * Starts a server, stopped (`pg_ctl stop -m immediate`) and its directory
 * deleted when the scope closes. Fails with `LocalServerError`
 * (`BinaryMissing` when Debian's `postgresql` is not installed).
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import * as PostgresServer from "@connected-vehicle/testing/PostgresServer"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const server = yield* PostgresServer.make()
 *   return Redacted.value(yield* server.createDatabase("orders_test"))
 * }))
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<Running, LocalServerError, Scope.Scope> =>
  Effect.map(launch(options), ({ server }) => server)

/** The server, and how to stop it and delete its directory synchronously (when the process ends). */
const launch = (options: Options | undefined) =>
  Effect.gen(function*() {
    const bin = yield* binDirectory(options)
    const [initdb, pgCtl, psql] = yield* Effect.forEach(
      ["initdb", "pg_ctl", "psql"],
      (name) => findBinary("postgres", [join(bin, name)], install)
    )
    const root = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "cv-postgres-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    if (asRoot) yield* run("postgres", "StartFailed", "chown", ["postgres", root])
    const data = join(root, "data")
    yield* runAsOwner("StartFailed", initdb!, ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
    const port = yield* freePort
    const settings = `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories=${root} -c fsync=off -c full_page_writes=off -c max_connections=300`
    const timeoutMs = Duration.toMillis(Duration.fromInputUnsafe(options?.startTimeout ?? "30 seconds"))
    yield* Effect.acquireRelease(
      runAsOwner("StartFailed", pgCtl!, ["-D", data, "-o", settings, "-l", join(root, "server.log"), "-w", "-t", String(Math.ceil(timeoutMs / 1000)), "start"], timeoutMs + 5000),
      () => Effect.ignore(runAsOwner("CommandFailed", pgCtl!, ["-D", data, "-m", "immediate", "-w", "stop"]))
    )
    const createDatabase = (name: string) =>
      /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
        ? Effect.as(
          run("postgres", "CommandFailed", psql!, ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-qc", `CREATE DATABASE "${name}"`]),
          urlOf(port, name)
        )
        : Effect.fail(new LocalServerError({ server: "postgres", reason: "CommandFailed", detail: `invalid database name ${JSON.stringify(name)}` }))
    const stopNow = () => {
      const [program, args] = asRoot ? ["runuser", ["-u", "postgres", "--", pgCtl!]] as const : [pgCtl!, []] as const
      spawnSync(program, [...args, "-D", data, "-m", "immediate", "-w", "stop"], { stdio: "ignore", timeout: 10_000 })
      rmSync(root, { recursive: true, force: true })
    }
    const server: Running = { port, url: urlOf(port, "postgres"), dataDirectory: data, createDatabase }
    return { server, stopNow }
  })

/**
 * {@link make} as a layer: one server for the layer's lifetime.
 *
 * @example
 * ```ts
 * import * as PostgresServer from "@connected-vehicle/testing/PostgresServer"
 *
 * const Database = PostgresServer.layer()
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<PostgresServer, LocalServerError> =>
  Layer.effect(PostgresServer, make(options))

/**
 * A server outside Effect, for a test runner's global setup (one server for
 * every test file and the processes they start): its URL as a string and
 * `stop()`. Should the process end without `stop()` (the test runner
 * interrupted: SIGINT, SIGTERM, or an exit), the server is stopped
 * (`pg_ctl stop -m immediate`) and its directory deleted then, and the
 * signal then ends the process as it would have.
 *
 * @example
 * ```ts
 * import * as PostgresServer from "@connected-vehicle/testing/PostgresServer"
 *
 * export default async function setup() {
 *   const server = await PostgresServer.start()
 *   process.env.DATABASE_URL = server.url
 *   return () => server.stop()
 * }
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const start = async (options?: Options): Promise<{
  readonly port: number
  readonly url: string
  readonly createDatabase: (name: string) => Promise<string>
  readonly stop: () => Promise<void>
}> => {
  const scope = Effect.runSync(Scope.make())
  const exit = await Effect.runPromiseExit(Scope.provide(launch(options), scope))
  if (Exit.isFailure(exit)) {
    await Effect.runPromise(Scope.close(scope, exit))
    return Effect.runPromise(Effect.failCause(exit.cause))
  }
  const { server, stopNow } = exit.value
  const removeHandlers = onProcessEnd(stopNow)
  return {
    port: server.port,
    url: Redacted.value(server.url),
    createDatabase: (name) => Effect.runPromise(Effect.map(server.createDatabase(name), Redacted.value)),
    stop: () => {
      removeHandlers()
      return Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}

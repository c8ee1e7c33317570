/**
 * A runner process of the fleet state: the vehicle entities on Postgres
 * (`DATABASE_URL`), listening on 127.0.0.1:`FLEET_RUNNER_PORT`, with the
 * test's short shard lock settings. It prints `shards <n>` (the shards it
 * holds) and, when it polls, `polls <n>` (its polls so far,
 * `FleetMetrics.vehiclePolls`) every 200 ms until it is killed (the test
 * sends SIGKILL).
 *
 * With `SIM_URL` (and `CLIENT_ID`, `CLIENT_SECRET`), a vehicle idle for
 * `POLL_INTERVAL_MS` is polled (the signals of `POLL_SIGNALS`,
 * comma-separated) on that simulator, through `SharedAccess.layerSdk`: the
 * request limits (`VEHICLE_LIMIT` and `APPLICATION_LIMIT` per second) and
 * the application token (due `REFRESH_AHEAD_MS` before it expires) shared
 * with the other runners on `REDIS_URL`, under the key prefix `PREFIX`.
 * Without it, no polls (an in-memory simulator stands in for the SDK).
 */
import { createWriteStream } from "node:fs"
import { Effect, Exit, Layer, Logger, LogLevel, Metric, Redacted, References, Schedule } from "effect"
import { Sharding, ShardId } from "effect/cluster"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import { TokenStore } from "@connected-vehicle/auth/TokenStore"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as FleetCluster from "@connected-vehicle/fleet/FleetCluster"
import * as FleetMetrics from "@connected-vehicle/fleet/FleetMetrics"
import * as SharedAccess from "@connected-vehicle/fleet/SharedAccess"
import * as Simulated from "@connected-vehicle/testing/Simulated"
import { exitWithParent } from "../children.ts"
import { fastSharding } from "../stateFixtures.ts"

const env = (name: string) => process.env[name] ?? ""
const shardsPerGroup = Number(process.env.SHARDS_PER_GROUP ?? "60")
const polling = env("SIM_URL") !== ""
const refreshAhead = Number(env("REFRESH_AHEAD_MS") || "60000")

/**
 * With `RUNNER_LOG`, a file: every log line (at debug level too) goes there
 * as JSON, with the SDK's debug lines (each attempt, each retry) and how long
 * each `admit` and each token read took; the console gets Info and above.
 */
const logFile = env("RUNNER_LOG")
const debug = (message: string, annotations: Record<string, unknown>) =>
  logFile === "" ? Effect.void : Effect.logDebug(message).pipe(
    Effect.annotateLogs(annotations),
    Effect.provideService(References.MinimumLogLevel, "Debug")
  )
const Logs = logFile === "" ? Layer.empty : Layer.unwrap(Effect.sync(() => {
  const file = createWriteStream(logFile, { flags: "a" })
  return Logger.layer([
    Logger.map(Logger.formatJson, (line) => void file.write(`${line}\n`)),
    Logger.make((options) => {
      if (LogLevel.isGreaterThanOrEqualTo(options.logLevel, "Info")) Logger.defaultLogger.log(options)
    })
  ])
}))
const millisSince = (start: number) => Date.now() - start

/** The shared options, each `admit` and token read logged with how long it took. */
const traced = (shared: SharedAccess.SdkOptions): SharedAccess.SdkOptions =>
  logFile === "" ? shared : {
    ...shared,
    admit: (request) =>
      Effect.suspend(() => {
        const start = Date.now()
        return Effect.onExit(shared.admit(request), (exit) =>
          debug("admit", { url: request.url, waitMillis: millisSince(start), outcome: Exit.isSuccess(exit) ? "ok" : Exit.hasInterrupts(exit) ? "interrupted" : "failed" }))
      }),
    tokenStore: Layer.effect(TokenStore, Effect.map(Effect.service(TokenStore), (store) => TokenStore.of({
      ...store,
      get: (key, options) =>
        Effect.suspend(() => {
          const start = Date.now()
          return Effect.onExit(store.get(key, options), (exit) =>
            debug("token read", {
              key,
              peek: options?.peek === true,
              waitMillis: millisSince(start),
              outcome: Exit.isSuccess(exit) ? "ok" : "failed"
            }))
        }),
      set: (key, token) => Effect.andThen(store.set(key, token), debug("token stored", { key, expiresAt: token.expiresAt }))
    }))).pipe(Layer.provide(shared.tokenStore))
  }

/** What the polls read through: the simulator at `SIM_URL`, limits and token shared on Redis. */
const Sdk = polling
  ? SharedAccess.layerSdk((shared) =>
    ConnectedVehicle.layerWith(
      TransportConfig.layerOrigin(env("SIM_URL"), { rateLimit: { wait: true }, ...(logFile === "" ? {} : { logLevel: "Debug" }) }),
      OAuthConfig.layer({ clientId: env("CLIENT_ID"), clientSecret: Redacted.make(env("CLIENT_SECRET")), refreshAhead }),
      traced(shared)
    ), {
    prefix: env("PREFIX"),
    perVehicle: { limit: Number(env("VEHICLE_LIMIT")), window: "1 second" },
    perApplication: { limit: Number(env("APPLICATION_LIMIT")), window: "1 second" },
    token: { refreshAhead }
  })
  : Simulated.layer({ signIn: false })

const Runner = FleetCluster.layerPostgres({
  url: Redacted.make(env("DATABASE_URL")),
  maxConnections: 6,
  runnerAddress: { host: "127.0.0.1", port: Number(env("FLEET_RUNNER_PORT")) },
  ...(polling ? { pollInterval: Number(env("POLL_INTERVAL_MS")), pollSignals: env("POLL_SIGNALS").split(",") } : {}),
  shardingConfig: { ...fastSharding, shardsPerGroup }
}).pipe(Layer.provide(Sdk))

const report = Effect.gen(function*() {
  const sharding = yield* Sharding.Sharding
  const held = Array.from({ length: shardsPerGroup }, (_, i) => ShardId.make("default", i + 1)).filter(sharding.hasShardId)
  const polls = polling ? `polls ${(yield* Metric.value(FleetMetrics.vehiclePolls)).count}\n` : ""
  yield* Effect.sync(() => process.stdout.write(`shards ${held.length}\n${polls}`))
}).pipe(Effect.repeat(Schedule.spaced("200 millis")))

exitWithParent()
Effect.runFork(Layer.launch(Layer.effectDiscard(Effect.forkScoped(report)).pipe(Layer.provide(Runner), Layer.provide(Logs))))

/**
 * The fleet state running on `effect/cluster`: the vehicle entities
 * registered on this process's runner, with the `FleetState` they write.
 * Embedded (the default): one runner in this process, messages and runners
 * in memory. On Postgres (`DATABASE_URL`): any number of runner processes
 * share the shards (held as advisory locks), the messages
 * (`SqlMessageStorage`), the runners (`SqlRunnerStorage`) and the state
 * tables; runners talk to each other over TCP (`NodeClusterSocket`). The
 * messages processed longer than a retention ago are deleted, with their
 * replies.
 *
 * @since 0.1.0
 */
import { NodeClusterSocket } from "@effect/platform-node"
import type { Signals } from "@connected-vehicle/v3/Signals"
import { type Duration, Effect, Layer, Option } from "effect"
import {
  MessageStorage,
  RunnerAddress,
  RunnerHealth,
  Runners,
  RunnerStorage,
  Sharding,
  ShardingConfig
} from "effect/cluster"
import type { SqlClient } from "effect/sql"
import * as Database from "./Database.ts"
import * as FleetConfig from "./FleetConfig.ts"
import { Cluster, Configuration, FleetError } from "./FleetError.ts"
import * as FleetState from "./FleetState.ts"
import * as ClusterRetention from "./internal/clusterRetention.ts"
import { defaultClusterRetention, retentionMillis } from "./internal/retention.ts"
import * as VehicleEntity from "./VehicleEntity.ts"

/**
 * What the layers provide: the state, and the cluster's `Sharding` (which
 * `VehicleEntity.handler` and `VehicleEntity.track` send through).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Services } from "@connected-vehicle/fleet/FleetCluster"
 * import * as FleetState from "@connected-vehicle/fleet/FleetState"
 *
 * const signals: Effect.Effect<unknown, unknown, Services> = FleetState.latest("veh_1")
 * ```
 * @since 0.1.0
 * @category models
 */
export type Services = FleetState.FleetState | Sharding.Sharding

/**
 * Options of the layers: the vehicle entities' polling, this runner's
 * address (SQL: the host and port other runners reach it on; default
 * `localhost:34431`, so each runner of one host needs its own port), and any
 * other `ShardingConfig` setting (its shard lock and poll intervals, say).
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/fleet/FleetCluster"
 *
 * const options: Options = {
 *   clusterRetention: "2 hours",
 *   pollInterval: "10 minutes",
 *   pollSignals: ["odometer-traveleddistance"],
 *   runnerAddress: { host: "10.0.0.12", port: 34431 }
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options extends VehicleEntity.Options, FleetState.Options {
  readonly runnerAddress?: { readonly host: string; readonly port: number } | undefined
  /**
   * SQL: how long a processed message (its reply stored) and its reply are
   * kept in `effect/cluster`'s tables (default 1 hour; `Duration.infinity`
   * keeps every one). Each runner deletes the older ones every quarter of
   * it (1 second to 15 minutes). Not a positive duration: a `FleetError`
   * `Configuration` naming `clusterRetention`.
   */
  readonly clusterRetention?: Duration.Input | undefined
  readonly shardingConfig?: Partial<ShardingConfig.ShardingConfig["Service"]> | undefined
}

/** One runner, no network, messages and runners in memory (`effect/cluster`'s `TestRunner`, with settings). */
const memoryCluster = (options: Options | undefined) =>
  Sharding.layer.pipe(
    Layer.provideMerge(Runners.layerNoop),
    Layer.provide([MessageStorage.layerMemory, RunnerStorage.layerMemory, RunnerHealth.layerNoop]),
    Layer.provide(ShardingConfig.layer(options?.shardingConfig))
  )

/** `error`'s message and those of its causes (a socket server's `Open` says little: its Node.js error, `EADDRINUSE`, says why). */
const messagesOf = (error: unknown): string => {
  const messages: Array<string> = []
  for (let next = error, depth = 0; next instanceof Error && depth < 5; next = next.cause, depth++) {
    const code = "code" in next && typeof next.code === "string" && !next.message.includes(next.code) ? ` (${next.code})` : ""
    if (!messages.some((m) => m.includes(next.message))) messages.push(`${next.message}${code}`)
  }
  return messages.length === 0 ? String(error) : messages.join(": ")
}

// the runner's address always set here: effect/cluster would otherwise read HOST and PORT (often the HTTP server's)
// the processed messages' cleanup forked once the cluster's layer created (migrated) its tables
const sqlCluster = (options: Options | undefined) => {
  const address = options?.runnerAddress ?? FleetConfig.defaultRunnerAddress
  return Layer.effectContext(Effect.gen(function*() {
    const retention = yield* retentionMillis(options?.clusterRetention, "clusterRetention", defaultClusterRetention)
    const context = yield* Layer.build(NodeClusterSocket.layer({
      storage: "sql",
      shardingConfig: { runnerAddress: Option.some(RunnerAddress.make(address.host, address.port)), ...options?.shardingConfig }
    })).pipe(Effect.mapError((cause) => {
      const context = "the cluster runner could not start"
      return new FleetError({
        reason: cause._tag === "ConfigError"
          ? Configuration.fromConfigError(cause, context)
          : new Cluster({ description: `${context} on ${address.host}:${address.port}: ${messagesOf(cause)}`, cause })
      })
    }))
    yield* ClusterRetention.fork(retention)
    return context
  }))
}

/**
 * Embedded: the entities on one in-process runner, messages and state in
 * memory (lost with the process).
 *
 * @example
 * ```ts
 * import * as FleetCluster from "@connected-vehicle/fleet/FleetCluster"
 *
 * const Embedded = FleetCluster.layerMemory({ pollSignals: ["odometer-traveleddistance"] })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (options?: Options): Layer.Layer<Services, FleetError, Signals> =>
  VehicleEntity.layer(options).pipe(
    Layer.provideMerge(Layer.merge(FleetState.layerMemory(options), memoryCluster(options)))
  )

/**
 * This process as one runner of a deployment on the `SqlClient` in context
 * (Postgres): its shards, messages, runners and state shared with the
 * other runners. It deletes the processed messages older than
 * `clusterRetention` (never one still to be delivered).
 *
 * @example
 * ```ts
 * import { Layer, Redacted } from "effect"
 * import * as Database from "@connected-vehicle/fleet/Database"
 * import * as FleetCluster from "@connected-vehicle/fleet/FleetCluster"
 *
 * const Runner = FleetCluster.layerSql({ runnerAddress: { host: "10.0.0.12", port: 34431 } }).pipe(
 *   Layer.provide(Database.layer({ url: Redacted.make("postgres://fleet@db.internal/fleet") }))
 * )
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerSql = (options?: Options): Layer.Layer<Services, FleetError, SqlClient.SqlClient | Signals> =>
  VehicleEntity.layer(options).pipe(
    Layer.provideMerge(Layer.merge(FleetState.layerSql(options), sqlCluster(options)))
  )

/**
 * {@link layerSql} on its own connection pool to Postgres at `url`.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import * as FleetCluster from "@connected-vehicle/fleet/FleetCluster"
 *
 * const Runner = FleetCluster.layerPostgres({ url: Redacted.make("postgres://fleet@db.internal/fleet") })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerPostgres = (options: Options & Database.Options): Layer.Layer<Services, FleetError, Signals> =>
  layerSql(options).pipe(Layer.provide(Database.layer(options)))

/**
 * {@link layerPostgres} when `DATABASE_URL` is set, {@link layerMemory}
 * otherwise (with a warning, unless `FLEET_STORAGE=memory`), with the
 * polling, the runner's address and the retentions of `FleetConfig`
 * (`FLEET_POLL_INTERVAL`, `FLEET_POLL_SIGNALS`, `FLEET_RUNNER_HOST`,
 * `FLEET_RUNNER_PORT`, `FLEET_APPLIED_RETENTION`, `FLEET_CLUSTER_RETENTION`;
 * `options` override them).
 *
 * @example
 * ```ts
 * import * as FleetCluster from "@connected-vehicle/fleet/FleetCluster"
 *
 * const FromEnvironment = FleetCluster.layerConfig()
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (options?: Options): Layer.Layer<Services, FleetError, Signals> =>
  Layer.unwrap(Effect.gen(function*() {
    const settings = yield* FleetConfig.read
    const { appliedRetention, clusterRetention, pollInterval, pollSignals, runnerAddress } = settings
    const merged: Options = { pollInterval, pollSignals, runnerAddress, appliedRetention, clusterRetention, ...options }
    if (Option.isSome(settings.databaseUrl)) return layerPostgres({ ...merged, url: settings.databaseUrl.value })
    yield* FleetConfig.warnMemory(settings, "DATABASE_URL", "the cluster's messages and the fleet state are")
    return layerMemory(merged)
  }))

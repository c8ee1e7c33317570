/**
 * The environment of a fleet process, read through one Effect `Config`
 * value: `DATABASE_URL` (Postgres: the event queue, the dead letters, the
 * cluster and the fleet state), `REDIS_URL` (Redis: the shared request
 * limits, the 429 holds and the tokens), `FLEET_STORAGE`, the event queue's
 * `FLEET_QUEUE_RETENTION`, the fleet state's `FLEET_APPLIED_RETENTION`, and the cluster's
 * `FLEET_CLUSTER_RETENTION`, `FLEET_POLL_INTERVAL`, `FLEET_POLL_SIGNALS`, `FLEET_RUNNER_HOST` and
 * `FLEET_RUNNER_PORT`. Every `layerConfig` of this package reads it.
 *
 * Without a URL, what it would hold lives in this process's memory (the
 * embedded default) and the `layerConfig` that falls back logs one warning
 * naming what is in memory, so that a misspelt variable in production does
 * not silently lose durability; `FLEET_STORAGE=memory` says memory is meant
 * and silences it.
 *
 * @since 0.1.0
 */
import { isIdentifier } from "@connected-vehicle/schema/InvalidArgument"
import { boundedMessage } from "@connected-vehicle/schema/Message"
import { Config, Duration, Effect, Option, Redacted, Schema } from "effect"
import { Configuration, FleetError } from "./FleetError.ts"
import { durationIssue, MIN_POLL_INTERVAL, MIN_RETENTION } from "./internal/options.ts"
import { hostRule, runnerHost } from "./internal/hosts.ts"
import { urlIssue } from "./internal/urls.ts"
import { defaultAppliedRetention, defaultClusterRetention, defaultRetention } from "./internal/retention.ts"

/**
 * The settings read from the environment.
 *
 * - `databaseUrl`: `DATABASE_URL`, a `postgres://` URL kept `Redacted`; `None`: in memory
 * - `redisUrl`: `REDIS_URL`, a `redis://` or `rediss://` URL kept `Redacted`; `None`: in memory
 * - `memory`: `FLEET_STORAGE=memory`: in memory on purpose (no warning; a URL set as well is a `Configuration` error)
 * - `queueRetention`: `FLEET_QUEUE_RETENTION`, a duration (default 1 hour, at least 1 second,
 *   `Infinity` keeps everything; so are the two retentions below): how long the event
 *   queue keeps a finished event, and so how long the same `eventId` delivered again is stored
 *   once (`EventQueue.Options.retention`)
 * - `appliedRetention`: `FLEET_APPLIED_RETENTION`, a duration (default 7 days), at least
 *   `queueRetention`: how long the fleet state keeps an applied event's id, and so applies
 *   the same `eventId` once (`FleetState.Options.appliedRetention`)
 * - `clusterRetention`: `FLEET_CLUSTER_RETENTION`, a duration (default 1 hour): how long
 *   the cluster keeps a processed message and its reply on Postgres
 *   (`FleetCluster.Options.clusterRetention`)
 * - `pollInterval`: `FLEET_POLL_INTERVAL`, a finite duration of at least 1 second (default 15 minutes):
 *   a vehicle entity polls when no event arrived for this long (`VehicleEntity.Options.pollInterval`,
 *   which has the same floor)
 * - `pollSignals`: `FLEET_POLL_SIGNALS`, signal codes, comma-separated, each trimmed (default none: no polling)
 * - `runnerAddress`: `FLEET_RUNNER_HOST` (trimmed; a host name, an IPv4 address, or an IPv6
 *   address, bracketed or not, read without its brackets) and `FLEET_RUNNER_PORT`, this runner's address
 *   (`undefined` when neither is set: `localhost:34431`; `effect/cluster`'s own `HOST` and `PORT`
 *   are not read, `PORT` being often the HTTP server's)
 *
 * @example
 * ```ts
 * import type { FleetConfig } from "@connected-vehicle/fleet/FleetConfig"
 *
 * const durable = (settings: FleetConfig) => settings.databaseUrl._tag === "Some"
 * ```
 * @since 0.1.0
 * @category models
 */
export interface FleetConfig {
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly redisUrl: Option.Option<Redacted.Redacted<string>>
  readonly memory: boolean
  readonly queueRetention: Duration.Duration
  readonly appliedRetention: Duration.Duration
  readonly clusterRetention: Duration.Duration
  readonly pollInterval: Duration.Duration
  readonly pollSignals: ReadonlyArray<string>
  readonly runnerAddress: { readonly host: string; readonly port: number } | undefined
}

/**
 * The runner address used when neither `FLEET_RUNNER_HOST` nor
 * `FLEET_RUNNER_PORT` is set, and for the one that is not.
 *
 * @example
 * ```ts
 * import { defaultRunnerAddress } from "@connected-vehicle/fleet/FleetConfig"
 *
 * const second = { ...defaultRunnerAddress, port: defaultRunnerAddress.port + 1 }
 * ```
 * @since 0.1.0
 * @category config
 */
export const defaultRunnerAddress: { readonly host: string; readonly port: number } = { host: "localhost", port: 34431 }

/**
 * The whole environment of a fleet process, the package's one `Config`
 * value (see {@link FleetConfig}): `DATABASE_URL`, `REDIS_URL`, and the
 * fleet's own settings below `Config.nested("FLEET")` (`POLL_INTERVAL` is
 * `FLEET_POLL_INTERVAL` in the environment). It nests further:
 * `Config.nested(config, "MYAPP")` reads `MYAPP_DATABASE_URL`,
 * `MYAPP_FLEET_POLL_INTERVAL`, .... The other `ShardingConfig` settings are
 * read by `effect/cluster` itself (`SHARD_LOCK_EXPIRATION`, ...).
 *
 * @example
 * ```ts
 * import { ConfigProvider } from "effect"
 * import * as FleetConfig from "@connected-vehicle/fleet/FleetConfig"
 *
 * const env = ConfigProvider.fromEnv({ env: { FLEET_POLL_SIGNALS: "odometer-traveleddistance,charge-voltage" } })
 * const settings = FleetConfig.config.parse(env)
 * ```
 * @since 0.1.0
 * @category config
 */
export const config: Config.Config<FleetConfig> = Config.all({
  databaseUrl: Config.option(Config.Redacted("DATABASE_URL")),
  redisUrl: Config.option(Config.Redacted("REDIS_URL")),
  fleet: Config.all({
    storage: Config.option(Config.Literals(["memory"], "STORAGE")),
    queueRetention: Config.Duration("QUEUE_RETENTION").pipe(Config.withDefault(defaultRetention)),
    appliedRetention: Config.Duration("APPLIED_RETENTION").pipe(Config.withDefault(defaultAppliedRetention)),
    clusterRetention: Config.Duration("CLUSTER_RETENTION").pipe(Config.withDefault(defaultClusterRetention)),
    pollInterval: Config.Duration("POLL_INTERVAL").pipe(Config.withDefault(Duration.minutes(15))),
    pollSignals: Config.Array(Schema.String, "POLL_SIGNALS").pipe(Config.withDefault([])),
    host: Config.option(Config.String("RUNNER_HOST")),
    port: Config.option(Config.Port("RUNNER_PORT"))
  }).pipe(Config.nested("FLEET"))
}).pipe(Config.map(({ fleet: { host, port, storage, ...fleet }, ...urls }): FleetConfig => ({
  ...urls,
  ...fleet,
  memory: Option.isSome(storage),
  pollSignals: fleet.pollSignals.map((code) => code.trim()).filter((code) => code.length > 0),
  runnerAddress: Option.isNone(host) && Option.isNone(port) ? undefined : {
    // an IPv6 address without its brackets, as Node's `net` takes it; another value as it is, for `read` to refuse
    host: Option.match(host, { onNone: () => defaultRunnerAddress.host, onSome: (value) => runnerHost(value.trim()) ?? value.trim() }),
    port: Option.getOrElse(port, () => defaultRunnerAddress.port)
  }
})))

/**
 * {@link config} read: an invalid value (a retention under 1 second, or a
 * `FLEET_POLL_INTERVAL` under 1 second or infinite; a `DATABASE_URL` that
 * does not parse as a URL, is not a `postgres://` or `postgresql://` one or
 * has port 0, a `REDIS_URL` likewise not a `redis://` or `rediss://` one; a
 * `FLEET_POLL_SIGNALS` code that is not a signal code; a `FLEET_RUNNER_HOST`
 * that is not a host name (letters, digits and hyphens in labels of at most
 * 63 characters, 253 in all), an IPv4 or an IPv6 address), `FLEET_STORAGE=memory`
 * with `DATABASE_URL` or `REDIS_URL` set, or a `FLEET_APPLIED_RETENTION`
 * shorter than `FLEET_QUEUE_RETENTION` (a duplicate the queue stores again
 * would be applied again) is a `FleetError` `Configuration` naming the
 * variables (never a URL's value; another value shown as the SDK's messages
 * show text, escaped and cut: `boundedMessage` of
 * `@connected-vehicle/schema/Message`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as FleetConfig from "@connected-vehicle/fleet/FleetConfig"
 *
 * const mode = Effect.map(FleetConfig.read, (settings) => settings.databaseUrl._tag === "Some" ? "postgres" : "memory")
 * ```
 * @since 0.1.0
 * @category config
 */
export const read: Effect.Effect<FleetConfig, FleetError> = config.pipe(
  Effect.mapError((cause) => new FleetError({ reason: Configuration.fromConfigError(cause) })),
  Effect.flatMap((settings) => {
    const set = [
      ...(Option.isSome(settings.databaseUrl) ? ["DATABASE_URL"] : []),
      ...(Option.isSome(settings.redisUrl) ? ["REDIS_URL"] : [])
    ]
    if (settings.memory && set.length > 0) {
      return Effect.fail(configuration(`FLEET_STORAGE=memory, but ${set.join(" and ")} set as well: unset one`, ["FLEET_STORAGE", ...set]))
    }
    const invalid = invalidValues(settings)
    if (invalid.length > 0) {
      return Effect.fail(configuration(invalid.map(([variable, problem]) => `${variable}: ${problem}`).join("; "), invalid.map(([variable]) => variable)))
    }
    return Duration.isLessThan(settings.appliedRetention, settings.queueRetention)
      ? Effect.fail(configuration(
        `FLEET_APPLIED_RETENTION (${Duration.format(settings.appliedRetention)}) is shorter than FLEET_QUEUE_RETENTION ` +
          `(${Duration.format(settings.queueRetention)}): an event delivered again after the first would be applied again`,
        ["FLEET_APPLIED_RETENTION", "FLEET_QUEUE_RETENTION"]
      ))
      : Effect.succeed(settings)
  })
)

/** A URL that parses, of one of `schemes` (its value never said). */
const urlOf = (url: Option.Option<Redacted.Redacted<string>>, schemes: ReadonlyArray<string>): string | undefined =>
  Option.isNone(url) ? undefined : urlIssue(Redacted.value(url.value), schemes)

/** A value read from the environment, quoted as the SDK's messages show text: escaped, at most `limit` characters. */
const quoted = (text: string, limit = 100): string => `"${boundedMessage(text, limit)}"`

/** A runner's host (trimmed when read): a host name, an IPv4 or an IPv6 address (`runnerHost`). */
const hostIssue = (settings: FleetConfig): string | undefined => {
  const host = settings.runnerAddress?.host
  if (host === undefined || runnerHost(host) !== undefined) return undefined
  return `expected ${hostRule}, got ${host.length === 0 ? "a blank value" : quoted(host)}`
}

/** The codes of `FLEET_POLL_SIGNALS` that are not signal codes (the contract's `Identifier` rule, as a request path sends them). */
const signalsIssue = (settings: FleetConfig): string | undefined => {
  const invalid = settings.pollSignals.filter((code) => !isIdentifier(code))
  // each code cut, and the list: a value of any length gives a message of bounded length
  return invalid.length === 0 ? undefined : `expected signal codes (non-empty, no control character, no "/", not "." or ".."), got ${
    boundedMessage(invalid.map((code) => quoted(code)).join(", "), 1_000)
  }`
}

/** The variables whose value cannot be used, each with why. */
const invalidValues = (settings: FleetConfig): ReadonlyArray<readonly [string, string]> => {
  const problems: ReadonlyArray<readonly [string, string | undefined]> = [
    ["DATABASE_URL", urlOf(settings.databaseUrl, ["postgres:", "postgresql:"])],
    ["REDIS_URL", urlOf(settings.redisUrl, ["redis:", "rediss:"])],
    // the floors of the options given in code (`VehicleEntity`, the stores' retentions): one rule
    ["FLEET_QUEUE_RETENTION", durationIssue(settings.queueRetention, MIN_RETENTION, true)],
    ["FLEET_APPLIED_RETENTION", durationIssue(settings.appliedRetention, MIN_RETENTION, true)],
    ["FLEET_CLUSTER_RETENTION", durationIssue(settings.clusterRetention, MIN_RETENTION, true)],
    ["FLEET_POLL_INTERVAL", durationIssue(settings.pollInterval, MIN_POLL_INTERVAL, false)],
    ["FLEET_POLL_SIGNALS", signalsIssue(settings)],
    ["FLEET_RUNNER_HOST", hostIssue(settings)]
  ]
  return problems.flatMap(([variable, problem]) => problem === undefined ? [] : [[variable, problem] as const])
}

const configuration = (description: string, variables: ReadonlyArray<string>) =>
  new FleetError({ reason: new Configuration({ description, variables }) })

/**
 * Logs the warning of a `layerConfig` that falls back to memory because
 * `variable` is not set, naming `what` is in memory; nothing when
 * `FLEET_STORAGE=memory` says memory is meant.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as FleetConfig from "@connected-vehicle/fleet/FleetConfig"
 *
 * const warned = Effect.flatMap(FleetConfig.read, (settings) =>
 *   FleetConfig.warnMemory(settings, "DATABASE_URL", "my job table"))
 * ```
 * @since 0.1.0
 * @category config
 */
export const warnMemory = (settings: FleetConfig, variable: "DATABASE_URL" | "REDIS_URL", what: string): Effect.Effect<void> =>
  settings.memory
    ? Effect.void
    : Effect.logWarning(`${variable} is not set: ${what} in this process's memory, lost when it stops (FLEET_STORAGE=memory if that is meant)`)

/**
 * The one `Config` of the package: what it reads, what it refuses, and the
 * warning of a `layerConfig` that falls back to memory.
 */
import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigProvider, Duration, Effect, Layer, Logger, Option, Redacted, References } from "effect"
import * as FleetConfig from "@connected-vehicle/fleet/FleetConfig"
import * as FleetState from "@connected-vehicle/fleet/FleetState"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import * as SharedLimits from "@connected-vehicle/fleet/SharedLimits"
import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
import * as SharedToken from "@connected-vehicle/fleet/SharedToken"
import { type AddressInfo, connect, createServer } from "node:net"

/** What a terminal acts on (the rule of `@connected-vehicle/schema/Message`): none may reach a message raw. */
// eslint-disable-next-line no-control-regex
const active = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

const withEnv = (env: Record<string, string>) => Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))

/** The error `FleetConfig.read` fails with on `env`. */
const refused = (env: Record<string, string>) => Effect.flip(FleetConfig.read.pipe(withEnv(env)))

/** The warnings logged while `effect` runs. */
const warningsOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const logger = Logger.make((options) => {
      if (options.logLevel === "Warn") warnings.push(Logger.formatLogFmt.log(options))
    })
    yield* effect.pipe(Effect.provide(Logger.layer([logger])), Effect.provideService(References.MinimumLogLevel, "All"))
    return warnings
  })

describe("FleetConfig", () => {
  it.effect("config reads FLEET_* below Config.nested(\"FLEET\"), and nests further under an application's prefix", () =>
    Effect.gen(function*() {
      const fromObject = yield* FleetConfig.config.parse(ConfigProvider.fromUnknown({
        DATABASE_URL: "postgres://h/db",
        FLEET: { POLL_INTERVAL: "2 minutes", POLL_SIGNALS: ["charge-voltage"] }
      }))
      assert.strictEqual(Duration.toMillis(fromObject.pollInterval), 120_000)
      assert.deepStrictEqual(fromObject.pollSignals, ["charge-voltage"])
      assert.isTrue(Option.isSome(fromObject.databaseUrl))
      const mine = yield* Config.nested(FleetConfig.config, "MYAPP").parse(ConfigProvider.fromEnv({
        env: { MYAPP_FLEET_POLL_INTERVAL: "3 minutes", MYAPP_REDIS_URL: "redis://h:6379", FLEET_POLL_INTERVAL: "1 minute" }
      }))
      assert.strictEqual(Duration.toMillis(mine.pollInterval), 180_000)
      assert.isTrue(Option.isSome(mine.redisUrl) && Option.isNone(mine.databaseUrl))
    }))

  it.effect("DATABASE_URL and REDIS_URL are read as Redacted URLs, absent means in memory; FLEET_* and their defaults", () =>
    Effect.gen(function*() {
      const unset = yield* FleetConfig.read.pipe(withEnv({}))
      assert.isTrue(Option.isNone(unset.databaseUrl) && Option.isNone(unset.redisUrl))
      assert.isFalse(unset.memory)
      assert.strictEqual(Duration.toMillis(unset.pollInterval), 15 * 60_000)
      assert.strictEqual(Duration.toMillis(unset.queueRetention), 60 * 60_000)
      assert.strictEqual(Duration.toMillis(unset.appliedRetention), 7 * 86_400_000)
      assert.strictEqual(Duration.toMillis(unset.clusterRetention), 60 * 60_000)
      assert.deepStrictEqual([unset.pollSignals, unset.runnerAddress], [[], undefined])

      const set = yield* FleetConfig.read.pipe(withEnv({
        DATABASE_URL: "postgres://u:secret@h/db",
        REDIS_URL: "redis://:hush@h:6379",
        FLEET_POLL_INTERVAL: "90 seconds",
        FLEET_QUEUE_RETENTION: "2 days",
        FLEET_APPLIED_RETENTION: "3 days",
        FLEET_CLUSTER_RETENTION: "6 hours",
        FLEET_POLL_SIGNALS: "odometer-traveleddistance, charge-voltage",
        FLEET_RUNNER_PORT: "34500"
      }))
      assert.isTrue(Option.isSome(set.databaseUrl) && Redacted.isRedacted(set.databaseUrl.value))
      assert.isTrue(Option.isSome(set.redisUrl) && Redacted.isRedacted(set.redisUrl.value))
      assert.notInclude(String(set.databaseUrl), "secret")
      assert.notInclude(String(set.redisUrl), "hush")
      assert.strictEqual(Duration.toMillis(set.pollInterval), 90_000)
      assert.strictEqual(Duration.toMillis(set.queueRetention), 2 * 86_400_000)
      assert.strictEqual(Duration.toMillis(set.appliedRetention), 3 * 86_400_000)
      assert.strictEqual(Duration.toMillis(set.clusterRetention), 6 * 3_600_000)
      assert.deepStrictEqual(set.pollSignals, ["odometer-traveleddistance", "charge-voltage"])
      assert.deepStrictEqual(set.runnerAddress, { host: "localhost", port: 34500 })
    }))

  it.effect("FLEET_STORAGE=memory with a URL set, or an invalid value, is a Configuration error", () =>
    Effect.gen(function*() {
      const both = yield* refused({ FLEET_STORAGE: "memory", DATABASE_URL: "postgres://u:secret@h/db" })
      assert.strictEqual(both.reason._tag, "Configuration")
      assert.include(both.message, "DATABASE_URL")
      assert.notInclude(both.message, "secret")
      const typo = yield* refused({ FLEET_STORAGE: "memroy" })
      assert.strictEqual(typo.reason._tag, "Configuration")
      const memory = yield* FleetConfig.read.pipe(withEnv({ FLEET_STORAGE: "memory" }))
      assert.isTrue(memory.memory)
      const retention = yield* refused({ FLEET_QUEUE_RETENTION: "an hour" })
      assert.include(retention.message, "FLEET_QUEUE_RETENTION")
      const negative = yield* Effect.flip(Layer.build(Ingestion.layerMemory({ retention: -5 })).pipe(Effect.scoped))
      assert.strictEqual(negative.reason._tag, "Configuration")
      assert.include(negative.message, "retention")
    }))

  it.effect("FLEET_APPLIED_RETENTION shorter than FLEET_QUEUE_RETENTION (or not a duration) is a Configuration error naming both", () =>
    Effect.gen(function*() {
      const shorter = yield* refused({ FLEET_QUEUE_RETENTION: "2 days", FLEET_APPLIED_RETENTION: "1 day" })
      assert.strictEqual(shorter.reason._tag, "Configuration")
      assert.include(shorter.message, "FLEET_APPLIED_RETENTION")
      assert.include(shorter.message, "FLEET_QUEUE_RETENTION")
      // the default (7 days) against a longer queue retention too
      const defaulted = yield* refused({ FLEET_QUEUE_RETENTION: "8 days" })
      assert.include(defaulted.message, "FLEET_APPLIED_RETENTION")
      const equal = yield* FleetConfig.read.pipe(withEnv({ FLEET_QUEUE_RETENTION: "2 hours", FLEET_APPLIED_RETENTION: "2 hours" }))
      assert.strictEqual(Duration.toMillis(equal.appliedRetention), 2 * 3_600_000)
      const typo = yield* refused({ FLEET_APPLIED_RETENTION: "a week" })
      assert.include(typo.message, "FLEET_APPLIED_RETENTION")
    }))

  it.effect("a retention or poll interval that is not positive, or a URL of another scheme, is a Configuration error naming the variables", () =>
    Effect.gen(function*() {
      for (
        const [env, variables] of [
          [{ FLEET_QUEUE_RETENTION: "-5 seconds" }, ["FLEET_QUEUE_RETENTION"]],
          [{ FLEET_POLL_INTERVAL: "0 millis" }, ["FLEET_POLL_INTERVAL"]],
          [{ FLEET_POLL_INTERVAL: "Infinity" }, ["FLEET_POLL_INTERVAL"]],
          [{ FLEET_CLUSTER_RETENTION: "0 seconds" }, ["FLEET_CLUSTER_RETENTION"]],
          [{ FLEET_STORAGE: "memory", FLEET_CLUSTER_RETENTION: "0 seconds" }, ["FLEET_CLUSTER_RETENTION"]],
          [{ FLEET_APPLIED_RETENTION: "-1 days", FLEET_QUEUE_RETENTION: "-2 days" }, ["FLEET_QUEUE_RETENTION", "FLEET_APPLIED_RETENTION"]],
          [{ DATABASE_URL: "mysql://fleet:s3cret@db.internal/fleet" }, ["DATABASE_URL"]],
          [{ DATABASE_URL: "postgres://fleet:s3cret@[db", REDIS_URL: "http://:s3cret@cache.internal" }, ["DATABASE_URL", "REDIS_URL"]]
        ] as const
      ) {
        const error = yield* refused(env)
        const label = JSON.stringify(env)
        assert.strictEqual(error.reason._tag, "Configuration", label)
        assert.deepStrictEqual(error.reason._tag === "Configuration" ? error.reason.variables : undefined, variables, label)
        for (const variable of variables) assert.include(error.message, variable, label)
        assert.notInclude(JSON.stringify(error), "s3cret", label)
        assert.notInclude(String(error), "s3cret", label)
      }
      // an infinite retention keeps everything (as the options in code); the schemes of the README pass
      const kept = yield* FleetConfig.read.pipe(withEnv({
        FLEET_CLUSTER_RETENTION: "Infinity",
        FLEET_APPLIED_RETENTION: "Infinity",
        DATABASE_URL: "postgresql://fleet@db.internal/fleet",
        REDIS_URL: "rediss://cache.internal:6380"
      }))
      assert.isFalse(Duration.isFinite(kept.clusterRetention))
      assert.isTrue(Option.isSome(kept.databaseUrl))
    }))

  it.effect("a URL that does not parse says so (percent-encoding, the port's range), never quoting it; another scheme says which it expects", () =>
    Effect.gen(function*() {
      for (
        const [variable, url] of [
          ["DATABASE_URL", "postgres://app:p#s3cret@db.internal:5432/fleet"],
          ["DATABASE_URL", "postgres://app:s3cret@db.internal:65536/fleet"],
          ["REDIS_URL", "redis://:s3cret@cache.internal:notaport"]
        ] as const
      ) {
        const error = yield* refused({ [variable]: url })
        assert.include(error.message, `${variable}: does not parse as a URL (percent-encode the reserved characters`, url)
        assert.include(error.message, "a port is 1-65535", url)
        assert.notInclude(error.message, "expected a", url)
        assert.notInclude(JSON.stringify(error), "s3cret", url)
      }
      const scheme = yield* refused({ DATABASE_URL: "mysql://app:s3cret@db.internal/fleet" })
      assert.include(scheme.message, "DATABASE_URL: expected a postgres:// or postgresql:// URL")
      assert.notInclude(scheme.message, "does not parse")
      // the url options of the layers: the same two messages
      const direct = yield* Effect.flip(Layer.build(SharedRedis.layer({ url: Redacted.make("redis://:s3cret@cache.internal:65536") })).pipe(Effect.scoped))
      assert.include(direct.message, "does not parse as a URL")
      assert.notInclude(JSON.stringify(direct), "s3cret")
    }))

  it.effect("FLEET_RUNNER_HOST is trimmed; blank, or holding white space or a control character, is a Configuration error naming it", () =>
    Effect.gen(function*() {
      for (const host of ["  ", "\t", "a b\u001b", "runner\u0000.internal", "run ner", "runner\u0085"]) {
        const error = yield* refused({ FLEET_RUNNER_HOST: host })
        assert.strictEqual(error.reason._tag, "Configuration", JSON.stringify(host))
        assert.deepStrictEqual(error.reason._tag === "Configuration" ? error.reason.variables : undefined, ["FLEET_RUNNER_HOST"])
        assert.include(error.message, "FLEET_RUNNER_HOST: expected a host name", JSON.stringify(host))
        assert.notMatch(error.message, /[\u0000-\u001f\u007f-\u009f]/, JSON.stringify(host))
      }
      const trimmed = yield* FleetConfig.read.pipe(withEnv({ FLEET_RUNNER_HOST: " runner-1.internal ", FLEET_RUNNER_PORT: "34500" }))
      assert.deepStrictEqual(trimmed.runnerAddress, { host: "runner-1.internal", port: 34500 })
      // a fully qualified name with its root's dot (Kubernetes), a URL's bracketed zone (`%25`)
      const fqdn = yield* FleetConfig.read.pipe(withEnv({ FLEET_RUNNER_HOST: "my-svc.ns.svc.cluster.local." }))
      assert.strictEqual(fqdn.runnerAddress?.host, "my-svc.ns.svc.cluster.local.")
      const zone = yield* FleetConfig.read.pipe(withEnv({ FLEET_RUNNER_HOST: "[fe80::1%25eth0]" }))
      assert.strictEqual(zone.runnerAddress?.host, "fe80::1%eth0")
      // a Docker Compose service name (underscores resolve there)
      const compose = yield* FleetConfig.read.pipe(withEnv({ FLEET_RUNNER_HOST: "fleet_runner_1" }))
      assert.strictEqual(compose.runnerAddress?.host, "fleet_runner_1")
      const address = yield* FleetConfig.read.pipe(withEnv({ FLEET_RUNNER_HOST: "10.0.0.7" }))
      assert.deepStrictEqual(address.runnerAddress, { host: "10.0.0.7", port: 34431 })
    }))

  it.effect("FLEET_RUNNER_HOST that can be no host (a URL, a port, a path, a user, too long, a bidi character, an unclosed bracket) is refused, shown escaped and cut", () =>
    Effect.gen(function*() {
      const tooLong = `${"node".repeat(60)}.internal` // 249 characters in one label
      const overall = Array.from({ length: 4 }, () => "a".repeat(63)).join(".") // 255 characters
      for (
        const host of [
          "http://node1", "node1:4000", "node1/x", "a@b", "x".repeat(300), "h\u202ex", "[::1", "::1]", "[node1]",
          tooLong, overall, "-node1", "node1-", "a..b", ".node1", "node1..", "123", "10.0.0.256", "10.0.0", "bücher.example",
          "[fe80::1%\u202e]"
        ]
      ) {
        const label = JSON.stringify(host)
        const error = yield* refused({ FLEET_RUNNER_HOST: host })
        assert.strictEqual(error.reason._tag, "Configuration", label)
        assert.deepStrictEqual(error.reason._tag === "Configuration" ? error.reason.variables : undefined, ["FLEET_RUNNER_HOST"], label)
        assert.include(error.message, "FLEET_RUNNER_HOST: expected a host name (letters, digits, hyphens and underscores", label)
        assert.include(error.message, "an IPv4 or an IPv6 address", label)
        assert.notMatch(error.message, active, label)
        assert.isBelow(error.message.length, 400, label)
      }
      const long = yield* refused({ FLEET_RUNNER_HOST: "x".repeat(300) })
      assert.match(long.message, /"x+… \(\d+ more characters\)"$/)
      const bidi = yield* refused({ FLEET_RUNNER_HOST: "h\u202ex" })
      assert.include(bidi.message, String.raw`got "h\u202ex"`)
    }))

  it.effect("FLEET_RUNNER_HOST: a DNS name, an IPv4 address or an IPv6 address (its brackets taken off) is read as it is", () =>
    Effect.gen(function*() {
      const longest = [..."abc"].map((c) => c.repeat(63)).concat("d".repeat(61)).join(".") // 253 characters, labels of 63
      for (
        const [host, read] of [
          ["localhost", "localhost"],
          ["Runner-1.eu-west.internal", "Runner-1.eu-west.internal"],
          ["xn--bcher-kva.example", "xn--bcher-kva.example"],
          ["1password.example", "1password.example"],
          [longest, longest],
          ["10.0.0.7", "10.0.0.7"],
          ["::1", "::1"],
          ["[::1]", "::1"],
          [" [2001:db8::7] ", "2001:db8::7"],
          ["::ffff:10.0.0.7", "::ffff:10.0.0.7"]
        ] as const
      ) {
        const settings = yield* FleetConfig.read.pipe(withEnv({ FLEET_RUNNER_HOST: host }))
        assert.deepStrictEqual(settings.runnerAddress, { host: read, port: 34431 }, host)
      }
    }))

  it.effect("a bracketed IPv6 FLEET_RUNNER_HOST is read as a host a runner listens on and is reached at (loopback)", () =>
    Effect.gen(function*() {
      const settings = yield* FleetConfig.read.pipe(withEnv({ FLEET_RUNNER_HOST: "[::1]", FLEET_RUNNER_PORT: "34431" }))
      const host = settings.runnerAddress!.host
      // what effect/cluster's socket runner does with the address: listen on it, and connect to it
      const reached = yield* Effect.callback<string, Error>((resume) => {
        const server = createServer((socket) => socket.end("runner"))
        server.once("error", (error) => resume(Effect.fail(error)))
        server.listen({ host, port: 0 }, () => {
          const { port } = server.address() as AddressInfo
          let received = ""
          connect({ host, port })
            .on("data", (chunk) => received += chunk)
            .on("end", () => server.close(() => resume(Effect.succeed(received))))
            .on("error", (error) => server.close(() => resume(Effect.fail(error))))
        })
        return Effect.sync(() => server.close())
      })
      assert.strictEqual(reached, "runner")
    }))

  it.effect("the values quoted in a Configuration error are escaped by the SDK's one rule (bidi, line separators too)", () =>
    Effect.gen(function*() {
      const host = yield* refused({ FLEET_RUNNER_HOST: "runner\u2028\u202e1" })
      assert.notMatch(host.message, active)
      assert.include(host.message, String.raw`"runner\u2028\u202e1"`)
      const signals = yield* refused({ FLEET_POLL_SIGNALS: "charge-voltage,odometer/\u202etraveled\u2066distance" })
      assert.strictEqual(signals.reason._tag, "Configuration")
      assert.notMatch(signals.message, active)
      assert.include(signals.message, String.raw`"odometer/\u202etraveled\u2066distance"`)
      const many = yield* refused({ FLEET_POLL_SIGNALS: Array.from({ length: 500 }, (_, i) => `a/${i}`).join(",") })
      assert.isBelow(many.message.length, 2_100)
    }))

  it.effect("a FLEET_POLL_SIGNALS code that is not a signal code is a Configuration error naming the variable and the code, escaped", () =>
    Effect.gen(function*() {
      const error = yield* refused({ FLEET_POLL_SIGNALS: "odometer-traveleddistance, \u001b[31m ,charge/voltage,..,charge-voltage" })
      assert.strictEqual(error.reason._tag, "Configuration")
      assert.deepStrictEqual(error.reason._tag === "Configuration" ? error.reason.variables : undefined, ["FLEET_POLL_SIGNALS"])
      assert.include(error.message, "FLEET_POLL_SIGNALS: expected signal codes")
      assert.include(error.message, String.raw`"\u001b[31m", "charge/voltage", ".."`)
      assert.notInclude(error.message, "\u001b")
      assert.notInclude(error.message, "odometer-traveleddistance")
      const codes = yield* FleetConfig.read.pipe(withEnv({ FLEET_POLL_SIGNALS: " charge-voltage ,, odometer-traveleddistance" }))
      assert.deepStrictEqual(codes.pollSignals, ["charge-voltage", "odometer-traveleddistance"])
    }))

  it.effect("a poll interval or a retention under 1 second is a Configuration error, from the environment and in code alike", () =>
    Effect.gen(function*() {
      for (const [variable, value] of [["FLEET_POLL_INTERVAL", "1 nanos"], ["FLEET_POLL_INTERVAL", "999 millis"], ["FLEET_QUEUE_RETENTION", "1 nanos"], ["FLEET_APPLIED_RETENTION", "500 millis"], ["FLEET_CLUSTER_RETENTION", "1 micros"]] as const) {
        const error = yield* refused({ [variable]: value })
        assert.strictEqual(error.reason._tag, "Configuration", `${variable}=${value}`)
        assert.deepStrictEqual(error.reason._tag === "Configuration" ? error.reason.variables : undefined, [variable])
        assert.include(error.message, "at least 1s", `${variable}=${value}`)
      }
      const floors = yield* FleetConfig.read.pipe(withEnv({ FLEET_POLL_INTERVAL: "1 second", FLEET_QUEUE_RETENTION: "1 second", FLEET_CLUSTER_RETENTION: "1 second" }))
      assert.strictEqual(Duration.toMillis(floors.pollInterval), 1_000)
      // the same floor for the retentions given in code
      for (const retention of ["1 nanos", "999 millis"] as const) {
        const error = yield* Effect.flip(Layer.build(Ingestion.layerMemory({ retention })).pipe(Effect.scoped))
        assert.strictEqual(error.reason._tag, "Configuration")
        assert.include(error.message, "retention: expected a finite duration of at least 1s")
        const applied = yield* Effect.flip(FleetState.makeMemory({ appliedRetention: retention }))
        assert.include(applied.message, "appliedRetention: expected a finite duration of at least 1s")
      }
      yield* Layer.build(Ingestion.layerMemory({ retention: "1 second" })).pipe(Effect.scoped)
    }))

  it.effect("a layerConfig falling back to memory logs one warning naming what is in memory; FLEET_STORAGE=memory silences it", () =>
    Effect.gen(function*() {
      const build = <A, E>(layer: Layer.Layer<A, E>, env: Record<string, string>) =>
        warningsOf(Layer.build(layer).pipe(Effect.scoped, withEnv(env)))
      const ingestion = yield* build(Ingestion.layerConfig(), {})
      assert.strictEqual(ingestion.length, 1)
      assert.include(ingestion[0]!, "DATABASE_URL is not set")
      assert.include(ingestion[0]!, "event queue")
      const limits = yield* build(SharedLimits.layerConfig(), {})
      assert.strictEqual(limits.length, 1)
      assert.include(limits[0]!, "REDIS_URL is not set")
      assert.include(limits[0]!, "request limits")
      const token = yield* build(SharedToken.layerConfig(), {})
      assert.include(token[0]!, "tokens")
      assert.deepStrictEqual(yield* build(Layer.mergeAll(Ingestion.layerConfig(), SharedLimits.layerConfig()), { FLEET_STORAGE: "memory" }), [])
    }))

  it.effect("a malformed REDIS_URL is a Configuration error naming the variable, with no part of the URL (its password) in it", () =>
    Effect.gen(function*() {
      for (const url of ["redis://user:s3cret@[not-a-host:6379", "http://user:s3cret@cache.internal:6379", "user:s3cret@cache.internal"]) {
        const error = yield* Effect.flip(Layer.build(SharedLimits.layerConfig()).pipe(Effect.scoped, withEnv({ REDIS_URL: url })))
        assert.strictEqual(error.reason._tag, "Configuration", url)
        assert.include(error.message, "REDIS_URL")
        assert.isUndefined(error.reason.cause)
        assert.notInclude(JSON.stringify(error), "s3cret")
        assert.notInclude(String(error), "s3cret")
      }
      const direct = yield* Effect.flip(Layer.build(SharedRedis.layer({ url: Redacted.make("redis://:s3cret@[::1") })).pipe(Effect.scoped))
      assert.strictEqual(direct.reason._tag, "Configuration")
      assert.notInclude(JSON.stringify(direct), "s3cret")
    }))

  it.effect("a DATABASE_URL or REDIS_URL (or a url option) of port 0 is a Configuration error saying a port is 1-65535, never quoting it", () =>
    Effect.gen(function*() {
      for (
        const [variable, url] of [
          ["DATABASE_URL", "postgres://u:s3cret@db.internal:0/fleet"],
          ["DATABASE_URL", "postgresql://u:s3cret@db.internal:00/fleet"],
          ["REDIS_URL", "redis://:s3cret@cache.internal:0"],
          ["REDIS_URL", "rediss://:s3cret@cache.internal:000"]
        ] as const
      ) {
        const error = yield* refused({ [variable]: url })
        assert.strictEqual(error.reason._tag, "Configuration", url)
        assert.deepStrictEqual(error.reason._tag === "Configuration" ? error.reason.variables : undefined, [variable], url)
        assert.include(error.message, `${variable}: has port 0 (a port is 1-65535)`, url)
        assert.notInclude(JSON.stringify(error), "s3cret", url)
        assert.notInclude(String(error), "s3cret", url)
      }
      const direct = yield* Effect.flip(Layer.build(SharedRedis.layer({ url: Redacted.make("redis://:s3cret@127.0.0.1:0") })).pipe(Effect.scoped))
      assert.strictEqual(direct.reason._tag, "Configuration")
      assert.include(direct.message, "has port 0 (a port is 1-65535)")
      assert.notInclude(JSON.stringify(direct), "s3cret")
      const ports = yield* FleetConfig.read.pipe(withEnv({ DATABASE_URL: "postgres://u@db.internal:1/fleet", REDIS_URL: "redis://cache.internal:65535" }))
      assert.isTrue(Option.isSome(ports.databaseUrl) && Option.isSome(ports.redisUrl))
    }))

  it.effect("SharedRedis.layer: a connectTimeout that is not a duration is a Configuration error naming it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Layer.build(SharedRedis.layer({ url: Redacted.make("redis://127.0.0.1:6379"), connectTimeout: "soon" as never })).pipe(Effect.scoped))
      assert.strictEqual(error.reason._tag, "Configuration")
      assert.include(error.message, "connectTimeout")
    }))
})

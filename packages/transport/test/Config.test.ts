import { assert, describe, it } from "@effect/vitest"
import { Config as EffectConfig, ConfigProvider, Duration, Effect, Layer, Logger } from "effect"
import { TransportConfig } from "@connected-vehicle/transport/TransportConfig"
import * as Config from "@connected-vehicle/transport/TransportConfig"

const layerFromEnv = (env: Record<string, string>) =>
  Config.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))

describe("TransportConfig", () => {
  it.effect("an origin or a root with a query or a fragment is a ConfigurationError naming it (a root that is set is never replaced by the origin); make throws an InvalidArgument", () =>
    Effect.gen(function*() {
      for (
        const [env, name] of [
          [{ CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080/?x=1" }, "ORIGIN"],
          [{ CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080/#x" }, "ORIGIN"],
          [{ CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080", CONNECTED_VEHICLE_BASE_URL: "http://127.0.0.1:8080/v3?" }, "BASE_URL"],
          [{ CONNECTED_VEHICLE_ORIGIN: "ftp://127.0.0.1" }, "ORIGIN"]
        ] as const
      ) {
        const error = yield* Effect.flip(Effect.provide(Effect.service(TransportConfig), layerFromEnv(env)))
        assert.strictEqual(error._tag, "ConfigurationError")
        assert.include(error.message, name, JSON.stringify(env))
      }
      const roots = { ...Config.rootsFromOrigin("http://127.0.0.1:8080"), authorization: "http://u:pw@127.0.0.1:8080" }
      const thrown = (() => {
        try {
          Config.make({ roots })
        } catch (error) {
          return error as { readonly field: string; readonly message: string }
        }
      })()
      assert.strictEqual(thrown?.field, "roots.authorization")
      assert.notInclude(thrown!.message, "pw")
      assert.isUndefined(Config.rootIssue("https://api.example.com/v3"))
    }))

  it.effect("layerConfig derives the five roots from CONNECTED_VEHICLE_ORIGIN, each overridable", () =>
    Effect.gen(function*() {
      const config = yield* TransportConfig
      assert.deepStrictEqual(config.roots, {
        base: "http://127.0.0.1:8080/v3",
        management: "http://127.0.0.1:8080/v3",
        compatibility: "https://compat.example/v3",
        authorization: "http://127.0.0.1:8080",
        legacy: "http://127.0.0.1:8080"
      })
      assert.strictEqual(Duration.toMillis(config.timeout), 5000)
      assert.strictEqual(config.retry.maxAttempts, 2)
      assert.strictEqual(config.retry.retryNonIdempotent, false)
      assert.strictEqual(config.rateLimit.wait, true)
      assert.deepStrictEqual(config.requestIdHeaders, ["x-correlation-id"])
      assert.strictEqual(config.httpSpans, true)
    }).pipe(Effect.provide(layerFromEnv({
      CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080/",
      CONNECTED_VEHICLE_COMPAT_URL: "https://compat.example/v3",
      CONNECTED_VEHICLE_TIMEOUT: "5 seconds",
      CONNECTED_VEHICLE_MAX_ATTEMPTS: "2",
      CONNECTED_VEHICLE_WAIT_ON_RATE_LIMIT: "true",
      CONNECTED_VEHICLE_REQUEST_ID_HEADER: "X-Correlation-Id",
      CONNECTED_VEHICLE_HTTP_SPANS: "true"
    }))))

  it.effect("config is nested under CONNECTED_VEHICLE: the same names from the environment, an object level from fromUnknown, a further prefix of the user's", () =>
    Effect.gen(function*() {
      const direct = yield* Config.config.parse(ConfigProvider.fromEnv({
        env: { CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080", CONNECTED_VEHICLE_TIMEOUT: "5 seconds" }
      }))
      assert.strictEqual(direct.roots.base, "http://127.0.0.1:8080/v3")
      assert.strictEqual(Duration.toMillis(Duration.fromInputUnsafe(direct.timeout!)), 5000)
      const fromUnknown = yield* Config.config.parse(ConfigProvider.fromUnknown({
        CONNECTED_VEHICLE: { ORIGIN: "http://127.0.0.1:8080", TIMEOUT_MS: "250" }
      }))
      assert.strictEqual(fromUnknown.roots.legacy, "http://127.0.0.1:8080")
      assert.strictEqual(Duration.toMillis(Duration.fromInputUnsafe(fromUnknown.timeout!)), 250)
      const mine = EffectConfig.all({ transport: EffectConfig.nested(Config.config, "MYAPP"), port: EffectConfig.Port("PORT") })
      const read = yield* mine.parse(ConfigProvider.fromEnv({
        env: { MYAPP_CONNECTED_VEHICLE_ORIGIN: "http://sim:8080", PORT: "8081", CONNECTED_VEHICLE_ORIGIN: "http://elsewhere" }
      }))
      assert.strictEqual(read.transport.roots.base, "http://sim:8080/v3")
      assert.strictEqual(read.port, 8081)
      const error = yield* Effect.flip(Effect.provide(
        Effect.service(TransportConfig),
        layerFromEnv({ CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080", CONNECTED_VEHICLE_MAX_ATTEMPTS: "many" })
      ))
      assert.include(error.message, "at CONNECTED_VEHICLE_MAX_ATTEMPTS")
    }))

  it.effect("layerConfig fails when a root is missing", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.provide(Effect.service(TransportConfig), layerFromEnv({ CONNECTED_VEHICLE_BASE_URL: "http://x/v3" })))
      assert.strictEqual(error._tag, "ConfigurationError")
    }))

  it.effect("layerConfig reads every policy from the environment", () =>
    Effect.gen(function*() {
      const config = yield* TransportConfig
      assert.strictEqual(config.userAgent, "fleet-app/2.0")
      assert.deepStrictEqual(config.retry, {
        maxAttempts: 4,
        initialDelay: Duration.millis(50),
        factor: 3,
        maxDelay: Duration.millis(900),
        maxElapsed: Duration.millis(10_000),
        retryNonIdempotent: true
      })
      assert.deepStrictEqual(config.rateLimit, { wait: false, maxWait: Duration.millis(2_000) })
    }).pipe(Effect.provide(layerFromEnv({
      CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080",
      CONNECTED_VEHICLE_USER_AGENT: "fleet-app/2.0",
      CONNECTED_VEHICLE_RETRY_INITIAL_DELAY: "50 millis",
      CONNECTED_VEHICLE_RETRY_FACTOR: "3",
      CONNECTED_VEHICLE_RETRY_MAX_DELAY: "900 millis",
      CONNECTED_VEHICLE_RETRY_MAX_ELAPSED: "10 seconds",
      CONNECTED_VEHICLE_RETRY_NON_IDEMPOTENT: "true",
      CONNECTED_VEHICLE_MAX_RATE_LIMIT_WAIT: "2 seconds"
    }))))

  it.effect("the deprecated *_MS names (milliseconds) are read when the duration's name is not set; the new name wins", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, string>) =>
        Effect.provide(Effect.service(TransportConfig), layerFromEnv({ CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080", ...env }))
      const old = yield* read({
        CONNECTED_VEHICLE_TIMEOUT_MS: "5000",
        CONNECTED_VEHICLE_RETRY_INITIAL_DELAY_MS: "50",
        CONNECTED_VEHICLE_RETRY_MAX_DELAY_MS: "900",
        CONNECTED_VEHICLE_RETRY_MAX_ELAPSED_MS: "10000",
        CONNECTED_VEHICLE_MAX_RATE_LIMIT_WAIT_MS: "0"
      })
      assert.deepStrictEqual(
        [old.timeout, old.retry.initialDelay, old.retry.maxDelay, old.retry.maxElapsed, old.rateLimit.maxWait].map(Duration.toMillis),
        [5000, 50, 900, 10_000, 0]
      )
      const both = yield* read({ CONNECTED_VEHICLE_TIMEOUT: "2 seconds", CONNECTED_VEHICLE_TIMEOUT_MS: "5000" })
      assert.strictEqual(Duration.toMillis(both.timeout), 2000)
      // an invalid new value is an error, not a reason to read the old name
      const error = yield* Effect.flip(read({ CONNECTED_VEHICLE_TIMEOUT: "soon", CONNECTED_VEHICLE_TIMEOUT_MS: "5000" }))
      assert.include(error.message, "CONNECTED_VEHICLE_TIMEOUT")
    }))

  it.effect("layerConfig warns once, naming them, when deprecated *_MS names are read; not when the new names are set", () =>
    Effect.gen(function*() {
      const warnings = (env: Record<string, string>) => {
        const lines: Array<string> = []
        const logger = Logger.make((options) => {
          if (options.logLevel === "Warn") lines.push(String(options.message))
        })
        return Effect.as(
          Effect.provide(Effect.service(TransportConfig), layerFromEnv({ CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080", ...env })).pipe(
            Effect.provide(Logger.layer([logger]))
          ),
          lines
        )
      }
      const old = yield* warnings({ CONNECTED_VEHICLE_TIMEOUT_MS: "5000", CONNECTED_VEHICLE_RETRY_MAX_DELAY_MS: "900", CONNECTED_VEHICLE_RETRY_MAX_ELAPSED: "1 minute" })
      assert.strictEqual(old.length, 1)
      assert.include(old[0], "CONNECTED_VEHICLE_TIMEOUT_MS, CONNECTED_VEHICLE_RETRY_MAX_DELAY_MS")
      // the names as below `CONNECTED_VEHICLE`: the warning says an application's prefix comes before them
      assert.include(old[0], "under a prefix of the application's own, such as MYAPP_CONNECTED_VEHICLE_TIMEOUT_MS")
      assert.notInclude(old[0], "MAX_ELAPSED")
      assert.deepStrictEqual(yield* warnings({ CONNECTED_VEHICLE_TIMEOUT: "5 seconds", CONNECTED_VEHICLE_TIMEOUT_MS: "5000" }), [])
      assert.deepStrictEqual(yield* warnings({}), [])
    }))

  it.effect("layerConfig refuses a zero, negative, infinite or unreadable timeout, attempts, delay or budget, naming the variable", () =>
    Effect.gen(function*() {
      for (const [name, value] of [
        ["CONNECTED_VEHICLE_TIMEOUT", "0 seconds"],
        ["CONNECTED_VEHICLE_TIMEOUT", "-5 seconds"],
        ["CONNECTED_VEHICLE_TIMEOUT", "Infinity"],
        ["CONNECTED_VEHICLE_TIMEOUT", "5000"],
        ["CONNECTED_VEHICLE_TIMEOUT_MS", "0"],
        ["CONNECTED_VEHICLE_TIMEOUT_MS", "-5"],
        ["CONNECTED_VEHICLE_MAX_ATTEMPTS", "0"],
        ["CONNECTED_VEHICLE_RETRY_MAX_ELAPSED", "0 millis"],
        ["CONNECTED_VEHICLE_RETRY_MAX_ELAPSED_MS", "-1"],
        ["CONNECTED_VEHICLE_RETRY_INITIAL_DELAY", "-1 millis"],
        ["CONNECTED_VEHICLE_MAX_RATE_LIMIT_WAIT", "a while"],
        ["CONNECTED_VEHICLE_RETRY_FACTOR", "0.5"]
      ] as const) {
        const error = yield* Effect.flip(
          Effect.provide(Effect.service(TransportConfig), layerFromEnv({ CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080", [name]: value }))
        )
        assert.strictEqual(error._tag, "ConfigurationError", `${name}=${value}`)
        assert.include(error.message, name, `${name}=${value}`)
      }
    }))

  it.effect("CONNECTED_VEHICLE_REQUEST_ID_HEADER: one header or several in order of preference; both service headers by default", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, string>) =>
        Effect.provide(Effect.service(TransportConfig), layerFromEnv({ CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080", ...env }))
      assert.deepStrictEqual((yield* read({})).requestIdHeaders, ["sc-request-id", "x-request-id"])
      assert.deepStrictEqual(
        (yield* read({ CONNECTED_VEHICLE_REQUEST_ID_HEADER: " X-Trace-Id , sc-request-id" })).requestIdHeaders,
        ["x-trace-id", "sc-request-id"]
      )
      for (const value of [",", " "]) {
        const error = yield* Effect.flip(read({ CONNECTED_VEHICLE_REQUEST_ID_HEADER: value }))
        assert.strictEqual(error._tag, "ConfigurationError", JSON.stringify(value))
      }
    }))

  it.effect("a userAgent a header cannot carry as it is (a character above U+00FF, a control character) or a blank one is refused: make throws an InvalidArgument naming it, layerConfig fails with a ConfigurationError", () =>
    Effect.gen(function*() {
      const roots = Config.rootsFromOrigin("http://127.0.0.1:8080")
      for (const userAgent of ["sdk\u2713", "sdk\u0100", "a\r\nx-injected: 1", "a\u007f", " "]) {
        const thrown = (() => {
          try {
            Config.make({ roots, userAgent })
          } catch (error) {
            return error as { readonly _tag: string; readonly field: string }
          }
        })()
        assert.strictEqual(thrown?._tag, "InvalidArgument", JSON.stringify(userAgent))
        assert.strictEqual(thrown?.field, "userAgent")
        const error = yield* Effect.flip(Effect.provide(
          Effect.service(TransportConfig),
          layerFromEnv({ CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080", CONNECTED_VEHICLE_USER_AGENT: userAgent })
        ))
        assert.strictEqual(error._tag, "ConfigurationError", JSON.stringify(userAgent))
        assert.include(error.message, "USER_AGENT")
      }
      // a tab and Latin-1 are header characters
      assert.strictEqual(Config.make({ roots, userAgent: "fleet/1.0\t(caf\u00e9)" }).userAgent, "fleet/1.0\t(caf\u00e9)")
    }))

  it("requestIdOf reads the first header present; make takes one header or a list", () => {
    const roots = Config.rootsFromOrigin("http://127.0.0.1:8080")
    const both = { "sc-request-id": "sc-1", "x-request-id": "x-1" }
    const names = Config.make({ roots }).requestIdHeaders
    assert.strictEqual(Config.requestIdOf(both, names), "sc-1")
    assert.strictEqual(Config.requestIdOf({ "x-request-id": "x-1" }, names), "x-1")
    assert.strictEqual(Config.requestIdOf({ "sc-request-id": "", "x-request-id": "x-1" }, names), "x-1")
    assert.isUndefined(Config.requestIdOf({}, names))
    const one = Config.make({ roots, requestIdHeader: "X-Correlation-Id" })
    assert.deepStrictEqual(one.requestIdHeaders, ["x-correlation-id"])
    assert.isUndefined(Config.requestIdOf(both, one.requestIdHeaders))
    assert.deepStrictEqual(Config.make({ roots, requestIdHeader: ["x-request-id", "sc-request-id"] }).requestIdHeaders, [
      "x-request-id",
      "sc-request-id"
    ])
    // the deprecated single header keeps its old value unless one is configured
    assert.deepStrictEqual(one.requestIdHeaders, ["x-correlation-id"])
  })

  it.effect("CONNECTED_VEHICLE_LOG: debug, info, warn, error or off (any case); anything else is a ConfigurationError", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, string>) =>
        Effect.provide(Effect.service(TransportConfig), layerFromEnv({ CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080", ...env }))
      assert.isUndefined((yield* read({})).logLevel)
      const levels = { debug: "Debug", INFO: "Info", Warn: "Warn", error: "Error", off: "None" } as const
      for (const [value, level] of Object.entries(levels)) {
        assert.strictEqual((yield* read({ CONNECTED_VEHICLE_LOG: value })).logLevel, level)
      }
      for (const value of ["verbose", "trace", "1"]) {
        const error = yield* Effect.flip(read({ CONNECTED_VEHICLE_LOG: value }))
        assert.strictEqual(error._tag, "ConfigurationError", JSON.stringify(value))
      }
    }))

  it("the package exports one Config value, config (its log level included)", () => {
    const configs = Object.entries(Config).filter(([, value]) => EffectConfig.isConfig(value)).map(([name]) => name)
    assert.deepStrictEqual(configs, ["config"])
  })

  it("the default rate-limit wait fits the default budget", () => {
    assert.isTrue(Duration.isLessThan(Config.defaults.rateLimit.maxWait, Config.defaults.retry.maxElapsed))
  })

  it("the HttpClient's span per attempt is off unless asked for", () => {
    const roots = Config.rootsFromOrigin("http://127.0.0.1:8080")
    assert.isFalse(Config.make({ roots }).httpSpans)
    assert.isTrue(Config.make({ roots, httpSpans: true }).httpSpans)
  })
})

import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigProvider, Duration, Effect, Layer, Logger, Redacted } from "effect"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { fromConfigError } from "@connected-vehicle/transport/ConfigurationError"
import { inspect } from "node:util"

const read = (env: Record<string, string>) =>
  Effect.provide(
    Effect.service(OAuthConfig.OAuthConfig),
    OAuthConfig.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({
      env: { CONNECTED_VEHICLE_CLIENT_ID: "app", CONNECTED_VEHICLE_CLIENT_SECRET: "secret", ...env }
    }))))
  )

describe("OAuthConfig.layerConfig", () => {
  it.effect("CONNECTED_VEHICLE_REFRESH_AHEAD is a duration, else the deprecated _MS milliseconds, else 60 seconds", () =>
    Effect.gen(function*() {
      const refreshAhead = (env: Record<string, string>) => Effect.map(read(env), (config) => Duration.toMillis(config.refreshAhead))
      assert.strictEqual(yield* refreshAhead({}), 60_000)
      assert.strictEqual(yield* refreshAhead({ CONNECTED_VEHICLE_REFRESH_AHEAD: "2 minutes" }), 120_000)
      assert.strictEqual(yield* refreshAhead({ CONNECTED_VEHICLE_REFRESH_AHEAD_MS: "30000" }), 30_000)
      assert.strictEqual(
        yield* refreshAhead({ CONNECTED_VEHICLE_REFRESH_AHEAD: "10 seconds", CONNECTED_VEHICLE_REFRESH_AHEAD_MS: "30000" }),
        10_000
      )
    }))

  it.effect("CONNECTED_VEHICLE_EXPIRY_MARGIN is a duration, else unset (half the refresh-ahead window); an invalid one a ConfigurationError naming it", () =>
    Effect.gen(function*() {
      const margin = (env: Record<string, string>) =>
        Effect.map(read(env), (config) => config.expiryMargin === undefined ? undefined : Duration.toMillis(config.expiryMargin))
      assert.strictEqual(yield* margin({}), undefined)
      assert.strictEqual(yield* margin({ CONNECTED_VEHICLE_EXPIRY_MARGIN: "2 seconds" }), 2_000)
      assert.strictEqual(yield* margin({ CONNECTED_VEHICLE_EXPIRY_MARGIN: "0 millis" }), 0)
      const error = yield* Effect.flip(read({ CONNECTED_VEHICLE_EXPIRY_MARGIN: "-1 seconds" }))
      assert.strictEqual(error._tag, "ConfigurationError")
      assert.include(error.message, "CONNECTED_VEHICLE_EXPIRY_MARGIN")
    }))

  it.effect("CONNECTED_VEHICLE_REFUSAL_WINDOW is a duration, else unset (10 seconds); an invalid one a ConfigurationError naming it", () =>
    Effect.gen(function*() {
      const window = (env: Record<string, string>) =>
        Effect.map(read(env), (config) => config.refusalWindow === undefined ? undefined : Duration.toMillis(config.refusalWindow))
      assert.strictEqual(yield* window({}), undefined)
      assert.strictEqual(Duration.toMillis(OAuthConfig.defaultRefusalWindow), 10_000)
      assert.strictEqual(yield* window({ CONNECTED_VEHICLE_REFUSAL_WINDOW: "1 minute" }), 60_000)
      assert.strictEqual(yield* window({ CONNECTED_VEHICLE_REFUSAL_WINDOW: "0 millis" }), 0)
      assert.strictEqual(yield* window({ CONNECTED_VEHICLE_REFUSAL_WINDOW: "1 day" }), 86_400_000)
      for (const value of ["soon", "-1 seconds", "Infinity", "25 hours", "100000000 days"]) {
        const error = yield* Effect.flip(read({ CONNECTED_VEHICLE_REFUSAL_WINDOW: value }))
        assert.strictEqual(error._tag, "ConfigurationError", value)
        assert.include(error.message, "CONNECTED_VEHICLE_REFUSAL_WINDOW", value)
      }
    }))

  it.effect("an invalid refresh-ahead is a ConfigurationError naming the variable", () =>
    Effect.gen(function*() {
      for (
        const [name, value] of [
          ["CONNECTED_VEHICLE_REFRESH_AHEAD", "soon"],
          ["CONNECTED_VEHICLE_REFRESH_AHEAD", "-1 seconds"],
          ["CONNECTED_VEHICLE_REFRESH_AHEAD", "Infinity"],
          ["CONNECTED_VEHICLE_REFRESH_AHEAD_MS", "1.5"],
          ["CONNECTED_VEHICLE_REFRESH_AHEAD_MS", "-1"]
        ] as const
      ) {
        const error = yield* Effect.flip(read({ [name]: value }))
        assert.strictEqual(error._tag, "ConfigurationError", `${name}=${value}`)
        assert.include(error.message, name, `${name}=${value}`)
      }
    }))

  it.effect("config nests under an application's prefix; a deprecated _REFRESH_AHEAD_MS read is named in a warning (its name below the application's prefix)", () =>
    Effect.gen(function*() {
      const warnings: Array<string> = []
      const logger = Logger.make((options) => {
        if (options.logLevel === "Warn") warnings.push(String(options.message))
      })
      const mine = yield* Config.nested(OAuthConfig.config, "MYAPP").parse(ConfigProvider.fromEnv({
        env: {
          MYAPP_CONNECTED_VEHICLE_CLIENT_ID: "mine",
          MYAPP_CONNECTED_VEHICLE_CLIENT_SECRET: "hush",
          MYAPP_CONNECTED_VEHICLE_REFRESH_AHEAD_MS: "5000",
          CONNECTED_VEHICLE_CLIENT_ID: "not mine"
        }
      })).pipe(Effect.provide(Logger.layer([logger])))
      assert.strictEqual(mine.clientId, "mine")
      assert.strictEqual(Redacted.value(mine.clientSecret), "hush")
      assert.strictEqual(Duration.toMillis(Duration.fromInputUnsafe(mine.refreshAhead!)), 5000)
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0], "CONNECTED_VEHICLE_REFRESH_AHEAD_MS")
      assert.include(warnings[0], "set CONNECTED_VEHICLE_REFRESH_AHEAD to an Effect duration")
    }))
})

const thrownBy = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  return undefined
}

describe("OAuthConfig URLs", () => {
  const badTokenUrls = ["ftp://x/token", "not a url", "/oauth/token", "https://user:pw@auth.example/token", "https://auth.example/token#f", ""]
  const badRedirectUris = ["javascript:alert(1)", "../callback", "https://app.example/cb#f", "data:text/html,x", ""]

  it.effect("an invalid CONNECTED_VEHICLE_CLIENT_CREDENTIALS_URL or _REDIRECT_URI: a ConfigError from config, a ConfigurationError from layerConfig, naming the variable", () =>
    Effect.gen(function*() {
      // (an empty variable is an unset one)
      const cases = [
        ...badTokenUrls.map((value) => ["CONNECTED_VEHICLE_CLIENT_CREDENTIALS_URL", value] as const),
        ...badRedirectUris.map((value) => ["CONNECTED_VEHICLE_REDIRECT_URI", value] as const)
      ].filter(([, value]) => value !== "")
      for (const [name, value] of cases) {
        const env = { CONNECTED_VEHICLE_CLIENT_ID: "app", CONNECTED_VEHICLE_CLIENT_SECRET: "secret", [name]: value }
        const configError = yield* Effect.flip(OAuthConfig.config.parse(ConfigProvider.fromEnv({ env })))
        assert.strictEqual(configError._tag, "ConfigError", `${name}=${value}`)
        assert.include(String(configError), name.replace(/^CONNECTED_VEHICLE_/, ""), `${name}=${value}`)
        const error = yield* Effect.flip(read({ [name]: value }))
        assert.strictEqual(error._tag, "ConfigurationError", `${name}=${value}`)
        assert.include(error.message, name, `${name}=${value}`)
      }
    }))

  it.effect("a valid CONNECTED_VEHICLE_CLIENT_CREDENTIALS_URL (a query allowed) and _REDIRECT_URI are read as they are", () =>
    Effect.gen(function*() {
      const config = yield* read({
        CONNECTED_VEHICLE_CLIENT_CREDENTIALS_URL: "https://auth.example/oauth2/token?p=signin",
        CONNECTED_VEHICLE_REDIRECT_URI: "com.example.app:/callback"
      })
      assert.strictEqual(config.clientCredentialsUrl, "https://auth.example/oauth2/token?p=signin")
      assert.strictEqual(config.redirectUri, "com.example.app:/callback")
      const unset = yield* read({})
      assert.isUndefined(unset.clientCredentialsUrl)
      assert.isUndefined(unset.redirectUri)
    }))

  it("layer: an invalid clientCredentialsUrl or redirectUri throws an InvalidArgument naming it, which never quotes the URL", () => {
    const cases = [
      ...badTokenUrls.map((value) => ["clientCredentialsUrl", value] as const),
      ...badRedirectUris.map((value) => ["redirectUri", value] as const)
    ]
    for (const [field, value] of cases) {
      const thrown = thrownBy(() => OAuthConfig.layer({ clientId: "id", clientSecret: Redacted.make("s"), [field]: value }))
      assert.instanceOf(thrown, InvalidArgument, `${field} ${value}`)
      assert.strictEqual((thrown as InvalidArgument).field, field)
      if (value !== "") assert.notInclude((thrown as InvalidArgument).message, value)
    }
    OAuthConfig.layer({
      clientId: "id",
      clientSecret: Redacted.make("s"),
      clientCredentialsUrl: "http://127.0.0.1:4010/oauth/token?x=1",
      redirectUri: "https://app.example/cb"
    })
  })
})

describe("OAuthConfig.layer", () => {
  it("a refreshAhead, expiryMargin or refusalWindow that is not a non-negative, finite duration throws an InvalidArgument naming it", () => {
    for (const field of ["refreshAhead", "expiryMargin", "refusalWindow"] as const) {
      for (
        const value of ["banana", Number.NaN, -5000, Infinity, "-1 seconds", { seconds: Number.NaN }, [Number.NaN, 0], { millis: -1 }, { minutes: -1 }, [
          -1,
          0
        ], { seconds: "5" }]
      ) {
        let thrown: unknown
        try {
          OAuthConfig.layer({ clientId: "id", clientSecret: Redacted.make("s"), [field]: value as never })
        } catch (error) {
          thrown = error
        }
        assert.instanceOf(thrown, InvalidArgument, `${field} ${String(value)}`)
        assert.strictEqual((thrown as InvalidArgument).field, field)
      }
    }
  })

  it("a refusalWindow over a day throws an InvalidArgument naming it", () => {
    for (const value of ["25 hours", "100000000 days", Number.MAX_SAFE_INTEGER] as const) {
      let thrown: unknown
      try {
        OAuthConfig.layer({ clientId: "id", clientSecret: Redacted.make("s"), refusalWindow: value })
      } catch (error) {
        thrown = error
      }
      assert.instanceOf(thrown, InvalidArgument, String(value))
      assert.strictEqual((thrown as InvalidArgument).field, "refusalWindow")
    }
    OAuthConfig.layer({ clientId: "id", clientSecret: Redacted.make("s"), refusalWindow: "1 day" })
  })

  it.effect("a client id that is empty or holds a colon or a control character: an InvalidArgument from layer, a ConfigurationError from layerConfig", () =>
    Effect.gen(function*() {
      for (const clientId of ["", "team:app", "app\n"]) {
        let thrown: unknown
        try {
          OAuthConfig.layer({ clientId, clientSecret: Redacted.make("s") })
        } catch (error) {
          thrown = error
        }
        assert.instanceOf(thrown, InvalidArgument, JSON.stringify(clientId))
        assert.strictEqual((thrown as InvalidArgument).field, "clientId")
        const error = yield* Effect.flip(read({ CONNECTED_VEHICLE_CLIENT_ID: clientId }))
        assert.strictEqual(error._tag, "ConfigurationError", JSON.stringify(clientId))
        assert.include(error.message, "CONNECTED_VEHICLE_CLIENT_ID")
      }
      assert.isUndefined(OAuthConfig.clientIdIssue("demo-client-id"))
    }))

  it.effect("CONNECTED_VEHICLE_CLIENT_SECRET is read by secretText: trimmed; a control character or not UTF-8 text a ConfigurationError naming the variable, never quoting it; white space only missing", () =>
    Effect.gen(function*() {
      for (const text of ["s3cret-value ", "s3cret-value\r", "s3cret-value\r\n", "\ts3cret-value \n"]) {
        const config = yield* read({ CONNECTED_VEHICLE_CLIENT_SECRET: text })
        assert.strictEqual(Redacted.value(config.clientSecret), "s3cret-value", JSON.stringify(text))
      }
      for (const text of ["s3cret\u001b[2Jvalue", "s3cret\u0000value", "s3cret\u007fvalue\n", "s3cret\ud800value"]) {
        const error = yield* Effect.flip(read({ CONNECTED_VEHICLE_CLIENT_SECRET: text }))
        assert.strictEqual(error._tag, "ConfigurationError", JSON.stringify(text))
        assert.include(error.message, "CONNECTED_VEHICLE_CLIENT_SECRET")
        assert.match(error.message, text.includes("\ud800") ? /is not UTF-8 text/ : /holds a control character/)
        // nor in its cause (the ConfigError, its schema issue), however deep it is inspected
        assert.notInclude(inspect(error, { depth: null }), "s3cret", JSON.stringify(text))
      }
      const blank = yield* Effect.flip(read({ CONNECTED_VEHICLE_CLIENT_SECRET: " \r\n" }))
      assert.match(blank.message, /Missing key at CONNECTED_VEHICLE_CLIENT_SECRET/)
      const nested = yield* Effect.flip(Config.nested(OAuthConfig.config, "MYAPP").parse(ConfigProvider.fromEnv({
        env: { MYAPP_CONNECTED_VEHICLE_CLIENT_ID: "app", MYAPP_CONNECTED_VEHICLE_CLIENT_SECRET: "s3cret\u0007" }
      })))
      assert.include(fromConfigError(nested).message, "MYAPP_CONNECTED_VEHICLE_CLIENT_SECRET")
    }))

  it.effect("valid durations, zero included", () =>
    Effect.gen(function*() {
      const config = yield* Effect.provide(
        Effect.service(OAuthConfig.OAuthConfig),
        OAuthConfig.layer({ clientId: "id", clientSecret: Redacted.make("s"), refreshAhead: "2 minutes", expiryMargin: 0 })
      )
      assert.strictEqual(Duration.toMillis(config.refreshAhead), 120_000)
      assert.strictEqual(Duration.toMillis(config.expiryMargin!), 0)
      const objects = yield* Effect.provide(
        Effect.service(OAuthConfig.OAuthConfig),
        OAuthConfig.layer({ clientId: "id", clientSecret: Redacted.make("s"), refreshAhead: { minutes: 1, seconds: 30 }, expiryMargin: [2, 0] })
      )
      assert.strictEqual(Duration.toMillis(objects.refreshAhead), 90_000)
      assert.strictEqual(Duration.toMillis(objects.expiryMargin!), 2_000)
    }))
})

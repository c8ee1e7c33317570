import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigProvider, Effect, Option, Redacted } from "effect"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Listen from "@connected-vehicle/sample/Listen"
import * as SampleConfig from "@connected-vehicle/sample/SampleConfig"
import * as TokenFile from "@connected-vehicle/sample/TokenFile"
import { homedir } from "node:os"
import { join } from "node:path"

const withEnv = (env: Record<string, string>) => Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))

describe("SampleConfig", () => {
  it.effect("the token file: CONNECTED_VEHICLE_TOKEN_FILE, else under XDG_CONFIG_HOME, else under ~/.config", () =>
    Effect.gen(function*() {
      const path = (env: Record<string, string>) => TokenFile.defaultPath.pipe(withEnv(env))
      assert.strictEqual(yield* path({ CONNECTED_VEHICLE_TOKEN_FILE: "/srv/tokens.json", XDG_CONFIG_HOME: "/cfg" }), "/srv/tokens.json")
      assert.strictEqual(yield* path({ XDG_CONFIG_HOME: "/cfg" }), join("/cfg", "connected-vehicle", "sample-tokens.json"))
      assert.strictEqual(yield* path({}), join(homedir(), ".config", "connected-vehicle", "sample-tokens.json"))
    }))

  it.effect("the user's directory: INIT_CWD only when the package manager started the sample's start script", () =>
    Effect.gen(function*() {
      const directory = (env: Record<string, string>) =>
        Effect.map(SampleConfig.config, (settings) => settings.userDirectory).pipe(withEnv(env))
      const start = { npm_package_name: "@connected-vehicle/sample", npm_lifecycle_event: "start" }
      assert.deepStrictEqual(yield* directory({ ...start, INIT_CWD: "/home/me/work" }), Option.some("/home/me/work"))
      assert.deepStrictEqual(
        yield* directory({ npm_package_name: "connected-vehicle", npm_lifecycle_event: "sample", INIT_CWD: "/w" }),
        Option.some("/w")
      )
      // inherited by a process another script started (a test run)
      assert.deepStrictEqual(yield* directory({ npm_package_name: "connected-vehicle", npm_lifecycle_event: "test", INIT_CWD: "/w" }), Option.none())
      assert.deepStrictEqual(yield* directory({ ...start, INIT_CWD: "" }), Option.none())
      assert.deepStrictEqual(yield* directory(start), Option.none())
    }))

  it.effect("the webhook secret of `webhooks listen` comes from the ConfigProvider", () =>
    Effect.gen(function*() {
      const secret = yield* Listen.secretOf(Option.none()).pipe(withEnv({ [Listen.SECRET_VARIABLE]: " s3cret \n" }))
      assert.strictEqual(Redacted.value(secret), "s3cret")
      const missing = yield* Effect.flip(Listen.secretOf(Option.none()).pipe(withEnv({})))
      assert.isTrue(missing.usage)
      // the rule of a secret given as text (Redaction.secretText): a control character is refused, never quoted
      const controlled = yield* Effect.flip(Listen.secretOf(Option.none()).pipe(withEnv({ [Listen.SECRET_VARIABLE]: "s3\u001b[2Jcret" })))
      assert.isTrue(controlled.usage)
      assert.strictEqual(controlled.reason, `${Listen.SECRET_VARIABLE} holds a control character`)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("the fallbacks of --target, --client-id and --client-secret-file and the per-root variables are in the one Config value", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, string>) => SampleConfig.config.pipe(withEnv(env))
      const set = yield* read({
        CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080",
        CONNECTED_VEHICLE_CLIENT_ID: "my-app",
        CONNECTED_VEHICLE_CLIENT_SECRET: "s3cret",
        CONNECTED_VEHICLE_LEGACY_URL: "https://legacy.example.com"
      })
      assert.deepStrictEqual([set.origin, set.clientId], [Option.some("http://127.0.0.1:8080"), Option.some("my-app")])
      assert.strictEqual(Redacted.value(Option.getOrThrow(set.clientSecret)), "s3cret")
      assert.notInclude(JSON.stringify(set), "s3cret")
      assert.isTrue(set.separateRoots)
      const unset = yield* read({})
      assert.deepStrictEqual(
        [unset.origin, unset.clientId, unset.clientSecret, unset.separateRoots],
        [Option.none(), Option.none(), Option.none(), false]
      )
      // a prefix of your own nests every name, the CLI's fallbacks included
      const nested = yield* Config.nested(SampleConfig.config, "MYAPP").pipe(withEnv({ MYAPP_CONNECTED_VEHICLE_ORIGIN: "https://api.example.com" }))
      assert.deepStrictEqual(nested.origin, Option.some("https://api.example.com"))
    }))
})

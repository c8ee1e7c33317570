/**
 * `SimulatorConfig`: the package's one `Config` value (the webhook secret of
 * `CONNECTED_VEHICLE_WEBHOOK_SECRET`) and `layerConfig`, the loopback
 * simulator with it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigProvider, Effect, Exit, Layer, Option, Redacted } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { DEFAULT_WEBHOOK_SECRET } from "../src/Delivery.ts"
import { Simulator } from "../src/Simulator.ts"
import * as SimulatorConfig from "../src/SimulatorConfig.ts"

const withEnv = (env: Record<string, string>) => Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))

/** The webhook secret and the status of a request to the simulator that `layerConfig(options)` builds under `env`. */
const run = (env: Record<string, string>, options?: Parameters<typeof SimulatorConfig.layerConfig>[0]) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    const response = yield* Effect.promise(() => fetch(`${sim.url}/v3/compatible-vehicles?region=US`))
    return { secret: Redacted.value(sim.webhookSecret), status: response.status }
  }).pipe(Effect.provide(SimulatorConfig.layerConfig(options)), withEnv(env))

describe("SimulatorConfig", () => {
  it.effect("config: CONNECTED_VEHICLE_WEBHOOK_SECRET, Redacted, below Config.nested (a prefix of your own nests it)", () =>
    Effect.gen(function*() {
      const set = yield* SimulatorConfig.config.pipe(withEnv({ CONNECTED_VEHICLE_WEBHOOK_SECRET: "mgmt-token-1" }))
      assert.strictEqual(Redacted.value(Option.getOrThrow(set.webhookSecret)), "mgmt-token-1")
      assert.notInclude(JSON.stringify(set), "mgmt-token-1")
      assert.isTrue(Option.isNone((yield* SimulatorConfig.config.pipe(withEnv({}))).webhookSecret))
      const nested = yield* Config.nested(SimulatorConfig.config, "MYAPP").pipe(
        withEnv({ MYAPP_CONNECTED_VEHICLE_WEBHOOK_SECRET: "mgmt-token-2" })
      )
      assert.strictEqual(Redacted.value(Option.getOrThrow(nested.webhookSecret)), "mgmt-token-2")
    }))

  it.live("layerConfig: the loopback simulator signs with the environment's secret; the options' own secret wins; none: the default", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* run({ CONNECTED_VEHICLE_WEBHOOK_SECRET: "mgmt-token-3" }, { seed: 5 }), { secret: "mgmt-token-3", status: 200 })
      assert.deepStrictEqual(
        yield* run({ CONNECTED_VEHICLE_WEBHOOK_SECRET: "mgmt-token-3" }, { seed: 5, webhookSecret: "own" }),
        { secret: "own", status: 200 }
      )
      assert.deepStrictEqual(yield* run({}), { secret: DEFAULT_WEBHOOK_SECRET, status: 200 })
    }))

  it.live("layerConfig: a secret of the environment that is too long is an InvalidArgument naming the variable (never the secret); a bad option one naming the option", () =>
    Effect.gen(function*() {
      const failure = (env: Record<string, string>, options?: Parameters<typeof SimulatorConfig.layerConfig>[0]) =>
        Effect.gen(function*() {
          const exit = yield* Effect.exit(Layer.build(SimulatorConfig.layerConfig(options)).pipe(Effect.scoped, withEnv(env)))
          assert.isTrue(Exit.isFailure(exit))
          const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
          assert.strictEqual(error?._tag, "Fail")
          return (error as { readonly error: unknown }).error
        })
      const long = "x".repeat(1_025)
      const tooLong = yield* failure({ CONNECTED_VEHICLE_WEBHOOK_SECRET: long })
      assert.instanceOf(tooLong, InvalidArgument)
      assert.strictEqual((tooLong as InvalidArgument).field, "CONNECTED_VEHICLE_WEBHOOK_SECRET")
      assert.notInclude((tooLong as InvalidArgument).message, long)
      const option = yield* failure({}, { latency: -5 })
      assert.strictEqual((option as InvalidArgument).field, "latency")
    }))
})

import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit } from "effect"
import { ConfigurationError, fromConfigError } from "@connected-vehicle/transport/ConfigurationError"
import * as Vehicles from "../src/Vehicles.ts"

describe("Vehicles.layerConfig", () => {
  it.live("an invalid CONNECTED_VEHICLE_DEPRECATION_WARNINGS fails the layer with a ConfigurationError naming it", () =>
    Effect.gen(function*() {
      const provider = ConfigProvider.fromEnv({
        env: {
          CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:1",
          CONNECTED_VEHICLE_CLIENT_ID: "id",
          CONNECTED_VEHICLE_CLIENT_SECRET: "secret",
          CONNECTED_VEHICLE_DEPRECATION_WARNINGS: "loud"
        }
      })
      const error = yield* Effect.flip(
        Effect.asVoid(Effect.service(Vehicles.Vehicles)).pipe(
          Effect.provide(Vehicles.layerConfig({ userKey: "user" })),
          Effect.provide(ConfigProvider.layer(provider))
        )
      )
      assert.instanceOf(error, ConfigurationError)
      assert.include(error.message, "CONNECTED_VEHICLE_DEPRECATION_WARNINGS")
    }))
})

describe("Vehicles.config", () => {
  const read = (env: Record<string, string>) =>
    Effect.exit(Effect.provideService(Vehicles.config, ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env })))

  it.effect("is warn when unset, the level when valid, and a ConfigError naming the variable otherwise", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* read({}), Exit.succeed({ deprecationWarnings: "warn" as const }))
      for (const level of ["off", "warn", "info", "debug"] as const) {
        assert.deepStrictEqual(yield* read({ CONNECTED_VEHICLE_DEPRECATION_WARNINGS: level }), Exit.succeed({ deprecationWarnings: level }))
      }
      const invalid = yield* read({ CONNECTED_VEHICLE_DEPRECATION_WARNINGS: "loud" })
      assert.isTrue(Exit.isFailure(invalid))
      // the path below Config.nested("CONNECTED_VEHICLE"), the environment's name once a ConfigurationError
      assert.include(String(invalid), `["CONNECTED_VEHICLE"]["DEPRECATION_WARNINGS"]`)
      const error = yield* Effect.flip(Effect.provideService(Vehicles.config, ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({
        env: { CONNECTED_VEHICLE_DEPRECATION_WARNINGS: "loud" }
      })))
      assert.include(fromConfigError(error).message, "at CONNECTED_VEHICLE_DEPRECATION_WARNINGS")
    }))

  it.effect("the level is read in any case, white space around it ignored, as CONNECTED_VEHICLE_LOG", () =>
    Effect.gen(function*() {
      for (const [given, level] of [["OFF", "off"], ["Warn", "warn"], [" INFO ", "info"], ["dEbUg", "debug"]] as const) {
        assert.deepStrictEqual(yield* read({ CONNECTED_VEHICLE_DEPRECATION_WARNINGS: given }), Exit.succeed({ deprecationWarnings: level }), given)
      }
      const invalid = yield* read({ CONNECTED_VEHICLE_DEPRECATION_WARNINGS: "OFFF" })
      assert.isTrue(Exit.isFailure(invalid))
      assert.include(String(invalid), `["CONNECTED_VEHICLE"]["DEPRECATION_WARNINGS"]`)
    }))
})

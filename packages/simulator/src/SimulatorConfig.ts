/**
 * The simulator's environment, read through one Effect `Config` value (so
 * that a `ConfigProvider` of your own, in a test for instance, sets it): the
 * webhook secret, `CONNECTED_VEHICLE_WEBHOOK_SECRET`. The CLI reads it (a
 * `--webhook-secret-file` wins), and so does {@link layerConfig}; the other
 * layers of `Simulator` read no environment.
 *
 * @since 0.3.0
 */
import { Config, Effect, Layer, Option, Redacted, Result } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { secretIssue } from "./internal/deliveryPolicy.ts"
import { secretText } from "./SecretFile.ts"
import { layer } from "./Simulator.ts"
import type { Simulator } from "./Simulator.ts"
import type { SimulatorOptions } from "./SimulatorOptions.ts"

/**
 * The settings of the environment.
 *
 * - `webhookSecret`: `CONNECTED_VEHICLE_WEBHOOK_SECRET`, the secret that signs
 *   webhook deliveries (kept `Redacted`, as written; `SimulatorOptions.webhookSecret`):
 *   {@link layerConfig} and the CLI read it with `SecretFile.secretText`
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import type { SimulatorConfig } from "@connected-vehicle/simulator/SimulatorConfig"
 *
 * const ownSecret = (settings: SimulatorConfig) => Option.isSome(settings.webhookSecret)
 * ```
 * @since 0.3.0
 * @category models
 */
export interface SimulatorConfig {
  readonly webhookSecret: Option.Option<Redacted.Redacted<string>>
}

/**
 * The simulator's environment, the package's one `Config` value (see
 * {@link SimulatorConfig}): its names below `Config.nested("CONNECTED_VEHICLE")`
 * (`WEBHOOK_SECRET` is `CONNECTED_VEHICLE_WEBHOOK_SECRET` in the environment).
 *
 * @example
 * ```ts
 * import { ConfigProvider, Effect } from "effect"
 * import { config } from "@connected-vehicle/simulator/SimulatorConfig"
 *
 * const env = ConfigProvider.fromEnv({ env: { CONNECTED_VEHICLE_WEBHOOK_SECRET: "my-management-token" } })
 * const secret = Effect.map(config.parse(env), (settings) => settings.webhookSecret)
 * ```
 * @since 0.3.0
 * @category configuration
 */
export const config: Config.Config<SimulatorConfig> = Config.all({
  webhookSecret: Config.option(Config.Redacted("WEBHOOK_SECRET"))
}).pipe(Config.nested("CONNECTED_VEHICLE"))

/**
 * `Simulator.layer` with the settings of {@link config}: the webhook secret of
 * the environment unless `options` give one (an empty variable is none), read
 * as the CLI and the sample read it (`SecretFile.secretText`: without the
 * white space around it). A secret of the environment that holds a control
 * character, is white space only or is longer than 1,024 characters is an
 * `InvalidArgument` naming the variable (never quoting the secret); the options are checked
 * as `Simulator.layer` checks them (an `InvalidArgument` too).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Simulator } from "@connected-vehicle/simulator/Simulator"
 * import { layerConfig } from "@connected-vehicle/simulator/SimulatorConfig"
 *
 * const program = Effect.gen(function*() {
 *   const sim = yield* Simulator
 *   yield* Effect.log(`simulator listening on ${sim.url}`)
 * }).pipe(Effect.provide(layerConfig({ seed: 42 })))
 * ```
 * @since 0.3.0
 * @category layers
 */
export const layerConfig = (
  options?: SimulatorOptions & { readonly port?: number; readonly host?: string }
): Layer.Layer<Simulator, Config.ConfigError | InvalidArgument> =>
  Layer.unwrap(Effect.flatMap(config, ({ webhookSecret }) =>
    Effect.suspend(() => {
      const given = options?.webhookSecret === undefined ? Option.getOrUndefined(webhookSecret) : undefined
      // the CLI's rule (`SecretFile.secretText`): trimmed; not UTF-8 text or a control character refused
      const text = given === undefined ? undefined : secretText(Redacted.value(given))
      const issue = text === undefined ? undefined : Result.isFailure(text) ? text.failure : secretIssue(text.success)
      if (issue !== undefined) {
        const field = "CONNECTED_VEHICLE_WEBHOOK_SECRET"
        return Effect.fail(new InvalidArgument({ field, message: `${field} ${issue}` }))
      }
      const fromEnvironment = text === undefined || Result.isFailure(text) ? undefined : Redacted.make(text.success)
      try {
        return Effect.succeed(layer(fromEnvironment === undefined ? options : { ...options, webhookSecret: fromEnvironment }))
      } catch (error) {
        if (error instanceof InvalidArgument) return Effect.fail(error)
        throw error
      }
    })))

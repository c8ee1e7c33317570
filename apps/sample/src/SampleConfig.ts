/**
 * The sample's own environment, read through one Effect `Config` value (so
 * that a `ConfigProvider` of your own, in a test for instance, sets it): where
 * the tokens are kept, the webhook secret and how the CLI was started. The
 * SDK's variables (roots, policies, client credentials) are read by the
 * transport's and the auth's `Config`.
 *
 * @since 0.1.0
 */
import { Config, Option } from "effect"
import type { Redacted } from "effect"

/**
 * The settings of the environment.
 *
 * - `tokenFile`: `CONNECTED_VEHICLE_TOKEN_FILE`, where the user's tokens are kept
 * - `configHome`: `XDG_CONFIG_HOME`, the user's configuration directory (default `~/.config`)
 * - `webhookSecret`: `CONNECTED_VEHICLE_WEBHOOK_SECRET`, the secret of `webhooks listen` (kept `Redacted`)
 * - `userDirectory`: the directory the user ran `pnpm sample` in (`INIT_CWD`, read only when
 *   the package manager started the sample's `start` script: `npm_package_name`, `npm_lifecycle_event`)
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import type { SampleConfig } from "@connected-vehicle/sample/SampleConfig"
 *
 * const hasTokenFile = (settings: SampleConfig) => Option.isSome(settings.tokenFile)
 * ```
 * @since 0.1.0
 * @category models
 */
export interface SampleConfig {
  readonly tokenFile: Option.Option<string>
  readonly configHome: Option.Option<string>
  readonly webhookSecret: Option.Option<Redacted.Redacted<string>>
  readonly userDirectory: Option.Option<string>
}

/** `pnpm start` in `apps/sample`, and the root's `pnpm sample`. */
const startScripts = new Set(["@connected-vehicle/sample start", "connected-vehicle sample"])

const optional = (name: string) => Config.map(Config.option(Config.String(name)), Option.filter((value) => value !== ""))

/**
 * The sample's environment, one `Config` value (see {@link SampleConfig}).
 *
 * @example
 * ```ts
 * import { ConfigProvider, Effect } from "effect"
 * import { config } from "@connected-vehicle/sample/SampleConfig"
 *
 * const env = ConfigProvider.fromEnv({ env: { CONNECTED_VEHICLE_TOKEN_FILE: "/tmp/tokens.json" } })
 * const tokenFile = Effect.map(config.parse(env), (settings) => settings.tokenFile)
 * ```
 * @since 0.1.0
 * @category configuration
 */
export const config: Config.Config<SampleConfig> = Config.all({
  tokenFile: optional("CONNECTED_VEHICLE_TOKEN_FILE"),
  configHome: optional("XDG_CONFIG_HOME"),
  webhookSecret: Config.option(Config.Redacted("CONNECTED_VEHICLE_WEBHOOK_SECRET")),
  userDirectory: Config.all([optional("INIT_CWD"), optional("npm_package_name"), optional("npm_lifecycle_event")]).pipe(
    Config.map(([initCwd, packageName, script]) =>
      // `INIT_CWD` alone is not enough: a process started by another script (a test run) inherits it
      Option.filter(initCwd, () => startScripts.has(`${Option.getOrElse(packageName, () => "")} ${Option.getOrElse(script, () => "")}`))
    )
  )
})

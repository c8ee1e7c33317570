/**
 * The sample's own environment, read through one Effect `Config` value (so
 * that a `ConfigProvider` of your own, in a test for instance, sets it): where
 * the tokens are kept, the webhook secret, how the CLI was started, and the
 * fallbacks of its `--target`, `--client-id` and `--client-secret-file`
 * flags. The SDK's layers read the SDK's variables (roots, policies, client
 * credentials) through the transport's and the auth's `Config`.
 *
 * @since 0.1.0
 */
import type { Config, Option, Redacted } from "effect"
import * as env from "./internal/env.ts"

/**
 * The settings of the environment.
 *
 * - `tokenFile`: `CONNECTED_VEHICLE_TOKEN_FILE`, where the user's tokens are kept
 * - `configHome`: `XDG_CONFIG_HOME`, the user's configuration directory (default `~/.config`)
 * - `webhookSecret`: `CONNECTED_VEHICLE_WEBHOOK_SECRET`, the secret of `webhooks listen` (kept `Redacted`)
 * - `userDirectory`: the directory the user ran `pnpm sample` in (`INIT_CWD`, read only when
 *   the package manager started the sample's `start` script: `npm_package_name`, `npm_lifecycle_event`)
 * - `origin`: `CONNECTED_VEHICLE_ORIGIN`, the target without `--target`
 * - `clientId`: `CONNECTED_VEHICLE_CLIENT_ID`, the client id without `--client-id`
 * - `clientSecret`: `CONNECTED_VEHICLE_CLIENT_SECRET`, the client secret without
 *   `--client-secret-file` (kept `Redacted`, as written; the CLI reads it, and the
 *   file, with `secretText` of `@connected-vehicle/schema/Redaction`: trimmed, no control character)
 * - `separateRoots`: whether any of the per-root variables (`CONNECTED_VEHICLE_BASE_URL`, ...,
 *   `Target.perRootVariables`) is set: a deployment with separate roots, without `--target`
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
  readonly origin: Option.Option<string>
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted<string>>
  readonly separateRoots: boolean
}

/**
 * The sample's environment, the app's one `Config` value (see
 * {@link SampleConfig}): its own names below `Config.nested("CONNECTED_VEHICLE")`
 * (`TOKEN_FILE` is `CONNECTED_VEHICLE_TOKEN_FILE` in the environment), the
 * user's and the package manager's (`XDG_CONFIG_HOME`, `INIT_CWD`, ...) not prefixed.
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
export const config: Config.Config<SampleConfig> = env.config

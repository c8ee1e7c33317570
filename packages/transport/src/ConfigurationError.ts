/**
 * A configuration that could not be read, as an `Error`.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import type { Config } from "effect"

/**
 * A configuration that could not be read: what is missing or invalid, and
 * where it was looked for. An `Error` (Effect's `ConfigError` is not one, so
 * a rejected `Effect.runPromise` printed `[object Object]`); the
 * `ConfigError` is its `cause`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { ConfigurationError } from "@connected-vehicle/transport/ConfigurationError"
 *
 * const report = (e: ConfigurationError) => Effect.logError(e.message)
 * ```
 * @since 0.2.0
 * @category errors
 */
export class ConfigurationError extends Schema.TaggedError<ConfigurationError>()("ConfigurationError", {
  description: Schema.String,
  cause: Schema.Unknown
}) {
  override get message() {
    return `Configuration missing or invalid: ${this.description} (read from the environment, or the ConfigProvider in use)`
  }
}

/**
 * The {@link ConfigurationError} of Effect's `ConfigError`.
 *
 * @example
 * ```ts
 * import { Config, Effect } from "effect"
 * import { fromConfigError } from "@connected-vehicle/transport/ConfigurationError"
 *
 * const port = Effect.mapError(Config.Port("PORT").asEffect(), fromConfigError)
 * ```
 * @since 0.2.0
 * @category errors
 */
export const fromConfigError = (error: Config.ConfigError): ConfigurationError =>
  new ConfigurationError({ description: error.message, cause: error })

/**
 * A configuration that could not be read, as an `Error`.
 *
 * @since 0.2.0
 */
import { Schema, SchemaIssue } from "effect"
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

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * What the error says, each place named as the environment variable read
 * there: the path's segments joined by `_`, as `ConfigProvider.fromEnv`
 * joins them (`CONNECTED_VEHICLE_TIMEOUT` for the path
 * `["CONNECTED_VEHICLE", "TIMEOUT"]` of a `Config.nested` value).
 */
const describe = (error: Config.ConfigError): string => {
  if (!Schema.isSchemaError(error.cause)) return error.message
  const { issues } = formatIssues(error.cause.issue)
  return issues.map(({ message, path }) =>
    path === undefined || path.length === 0
      ? message
      : `${message} at ${path.map((segment) => String(typeof segment === "object" ? segment.key : segment)).join("_")}`
  ).join("; ")
}

/**
 * The {@link ConfigurationError} of Effect's `ConfigError`, each variable
 * named as in the environment (`CONNECTED_VEHICLE_TIMEOUT`, also when the
 * value was read nested, `Config.nested`).
 *
 * @example
 * ```ts
 * import { Config, Effect } from "effect"
 * import { fromConfigError } from "@connected-vehicle/transport/ConfigurationError"
 *
 * const port = Effect.mapError(Config.Port("PORT"), fromConfigError)
 * ```
 * @since 0.2.0
 * @category errors
 */
export const fromConfigError = (error: Config.ConfigError): ConfigurationError =>
  new ConfigurationError({ description: describe(error), cause: error })

/**
 * The application's OAuth client: client id, client secret (always
 * `Redacted`), the default redirect URI and how early tokens are refreshed.
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer, Option } from "effect"
import type { Redacted } from "effect"

/**
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { OAuthConfig } from "@connected-vehicle/auth/OAuthConfig"
 *
 * const clientId = Effect.map(Effect.service(OAuthConfig), (c) => c.clientId)
 * ```
 * @since 0.1.0
 * @category services
 */
export class OAuthConfig extends Context.Service<OAuthConfig, {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** Used by the consent URL and the code exchange when none is given. */
  readonly redirectUri: string | undefined
  /**
   * A token this close to its expiry is refreshed before use (default 60 s),
   * capped at half the token's lifetime.
   */
  readonly refreshAheadMillis: number
  /**
   * Endpoint of the client-credentials grant (not shown by the spec); `undefined`
   * means `{auth_url}/oauth/token`, where the simulator serves it.
   */
  readonly clientCredentialsUrl: string | undefined
}>()("@connected-vehicle/auth/OAuthConfig") {}

/**
 * Options of {@link layer}; see {@link OAuthConfig} for each field.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Options } from "@connected-vehicle/auth/OAuthConfig"
 *
 * const options: Options = {
 *   clientId: "app",
 *   clientSecret: Redacted.make("secret"),
 *   clientCredentialsUrl: "https://auth.example/oauth2/token"
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly redirectUri?: string | undefined
  readonly refreshAheadMillis?: number | undefined
  readonly clientCredentialsUrl?: string | undefined
}

/**
 * A layer from options.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { layer } from "@connected-vehicle/auth/OAuthConfig"
 *
 * const OAuthLive = layer({ clientId: "app", clientSecret: Redacted.make("secret"), redirectUri: "https://app.example/cb" })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<OAuthConfig> =>
  Layer.succeed(OAuthConfig, {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    redirectUri: options.redirectUri,
    refreshAheadMillis: options.refreshAheadMillis ?? 60_000,
    clientCredentialsUrl: options.clientCredentialsUrl
  })

/**
 * From the environment: `CONNECTED_VEHICLE_CLIENT_ID`,
 * `CONNECTED_VEHICLE_CLIENT_SECRET`, optional `CONNECTED_VEHICLE_REDIRECT_URI`,
 * `CONNECTED_VEHICLE_REFRESH_AHEAD_MS` and `CONNECTED_VEHICLE_CLIENT_CREDENTIALS_URL`.
 *
 * @example
 * ```ts
 * import { layerConfig } from "@connected-vehicle/auth/OAuthConfig"
 *
 * const OAuthLive = layerConfig
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<OAuthConfig, Config.ConfigError> = Layer.effect(
  OAuthConfig,
  Effect.gen(function*() {
    const c = yield* Config.all({
      clientId: Config.String("CONNECTED_VEHICLE_CLIENT_ID"),
      clientSecret: Config.Redacted("CONNECTED_VEHICLE_CLIENT_SECRET"),
      redirectUri: Config.option(Config.String("CONNECTED_VEHICLE_REDIRECT_URI")),
      refreshAheadMillis: Config.Int("CONNECTED_VEHICLE_REFRESH_AHEAD_MS").pipe(Config.withDefault(60_000)),
      clientCredentialsUrl: Config.option(Config.String("CONNECTED_VEHICLE_CLIENT_CREDENTIALS_URL"))
    })
    return {
      clientId: c.clientId,
      clientSecret: c.clientSecret,
      redirectUri: Option.getOrUndefined(c.redirectUri),
      refreshAheadMillis: c.refreshAheadMillis,
      clientCredentialsUrl: Option.getOrUndefined(c.clientCredentialsUrl)
    }
  })
)

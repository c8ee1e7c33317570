/**
 * The bearer credential of a request, as a service: the transport asks it for
 * a token before each attempt and tells it when the service rejected one
 * (401), so that a token store (see `@connected-vehicle/auth`) can refresh.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Redacted } from "effect"
import type { ConnectedVehicleError } from "./ConnectedVehicleError.ts"

/**
 * Source of the bearer token.
 *
 * - `token`: the current access token (refreshing it first when needed).
 * - `refresh(rejected)`: called when the service answered 401 to `rejected`
 *   (at most once per call, retries included); when it returns `true` the
 *   transport replays the request once with `token`.
 *
 * Either fails with a `ConnectedVehicleError` whose reason is `Credentials`
 * (its `cause` the token request's error, if any): the call fails with it at
 * once, without retrying.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { Credentials } from "@connected-vehicle/transport/Credentials"
 *
 * const bearer = Effect.flatMap(Effect.service(Credentials), (c) => c.token).pipe(Effect.map(Redacted.isRedacted))
 * ```
 * @since 0.1.0
 * @category services
 */
export class Credentials extends Context.Service<Credentials, {
  readonly token: Effect.Effect<Redacted.Redacted<string>, ConnectedVehicleError>
  readonly refresh: (rejected: Redacted.Redacted<string>) => Effect.Effect<boolean, ConnectedVehicleError>
}>()("@connected-vehicle/transport/Credentials") {}

/**
 * A fixed token: `refresh` returns `false`, so a 401 is returned to the
 * caller at once, without a replay.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { layerStatic } from "@connected-vehicle/transport/Credentials"
 *
 * const CredentialsLive = layerStatic(Redacted.make(process.env.ACCESS_TOKEN ?? ""))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerStatic = (token: Redacted.Redacted<string>): Layer.Layer<Credentials> =>
  Layer.succeed(Credentials, { token: Effect.succeed(token), refresh: () => Effect.succeed(false) })

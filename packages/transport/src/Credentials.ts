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
 * - `token`: the current access token (refreshing it first when needed),
 *   read before each attempt; with the transport's `admit`, read once more
 *   after the wait for it (within what is left of the call's budget), and
 *   used when it comes within 25 ms (else the token read before is sent,
 *   and that read interrupted); a failure of that read for a moment
 *   (`transient`) or for later (`retryAfter`, `timeout`) sends the token
 *   read before too, any other fails the attempt (a user signed out
 *   meanwhile: nothing is sent).
 * - `refresh(rejected)`: called when the service answered 401 to `rejected`;
 *   when it returns `true` the transport replays the request once with
 *   `token` (unless `token` gives `rejected` back: the call then fails
 *   with the 401, the rejected token not sent again). A call refreshes once (retries included), unless the refresh
 *   failed for a moment (a `transient` reason, below): that one does not
 *   count, and a retry that is answered 401 again refreshes again.
 * - `tokenBy(deadline)` / `refreshBy(rejected, deadline)` (optional, used
 *   instead when given): the same, told the instant the attempt's wait for
 *   the credential runs out, so that one known to come later fails at once
 *   with why (`Session`'s renewal sleeping out the token endpoint's
 *   `Retry-After`: that answer's `status`, and what is left of the wait as
 *   `retryAfter`), not with the timeout.
 *
 * Each fails with a `ConnectedVehicleError` whose reason is `Credentials`
 * (its `cause` the token request's error, if any). One that is `transient`
 * (a token store that failed for a moment) is retried by the call's retry
 * policy, as a network failure is; any other fails the call at once,
 * without retrying.
 *
 * Each runs in a fiber of its own, bounded by the attempt's timeout cut to
 * what is left of the call's budget (`retry.maxElapsed`): past it the call
 * fails with a `Credentials` reason whose `timeout` is the limit that ran
 * out, and that fiber is interrupted. So a `token` and a `refresh` must be safe to
 * interrupt: a token request it started goes on in a fiber of its own
 * (a single flight that later calls join, as `Session`'s), or a rotating
 * refresh token may be lost. A `token` or `refresh` that forks fibers of
 * its own meant to outlive it forks them with `Effect.forkDetach` or
 * `Effect.forkIn` (a scope of its layer), as `Session` does, not as
 * children (`Effect.forkChild`), which are interrupted when it ends.
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
  /**
   * `token` for an attempt that needs it by `deadline` (an instant of the
   * fiber's `Clock`, as `Clock.currentTimeMillis`: when its wait for the
   * credential runs out). Optional: the transport calls it, when given,
   * instead of `token`, and bounds it the same way. An implementation that
   * knows its credential comes after `deadline` (a renewal sleeping out the
   * token endpoint's `Retry-After` past it) fails at once with why (a
   * `Credentials` reason with that token request's `status`, a `retryAfter`
   * of what is left of the wait, and its error as `cause`), rather than
   * keeping the call waiting for a timeout that says less.
   */
  readonly tokenBy?: ((deadline: number) => Effect.Effect<Redacted.Redacted<string>, ConnectedVehicleError>) | undefined
  /** `refresh`, for an attempt that needs the credential by `deadline` (as `tokenBy`). Optional. */
  readonly refreshBy?: ((rejected: Redacted.Redacted<string>, deadline: number) => Effect.Effect<boolean, ConnectedVehicleError>) | undefined
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

/**
 * The waits of a token grant between two of its requests (the token
 * endpoint's `Retry-After`, or a backoff), told to the renewal that runs it,
 * so that a caller waiting for that renewal and needing its token before the
 * wait ends fails at once with why (see `flight.ts`).
 *
 * @internal
 */
import { Context, Effect } from "effect"
import type { ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"

/**
 * A grant's wait: until when (an instant of the fiber's `Clock`), and the
 * failed token request's error it waits after.
 *
 * @internal
 */
export interface GrantWait {
  readonly until: number
  readonly error: ConnectedVehicleError
}

/**
 * Told of each wait of a grant as it starts (`undefined` once it is over);
 * none outside a renewal.
 *
 * @internal
 */
export const GrantWaits = Context.Reference<((wait: GrantWait | undefined) => void) | undefined>(
  "@connected-vehicle/auth/internal/GrantWaits",
  { defaultValue: () => undefined }
)

/**
 * `sleep`, the wait until `until` after `error`, told to the renewal that
 * runs the grant (if any) while it lasts.
 *
 * @internal
 */
export const waiting = <A, E, R>(until: number, error: ConnectedVehicleError, sleep: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) => {
    const tell = fiber.getRef(GrantWaits)
    if (tell === undefined) return sleep
    tell({ until, error })
    return Effect.ensuring(sleep, Effect.sync(() => tell(undefined)))
  })

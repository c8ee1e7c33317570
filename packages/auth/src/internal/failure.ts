/**
 * The failures of a `Session`: `Credentials` reasons, and which of them the
 * call's retry policy may try again.
 *
 * @internal
 */
import { Duration } from "effect"
import { ConnectedVehicleError, Credentials as NoCredential, isConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import type * as TokenExchange from "../TokenExchange.ts"
import type { TokenStoreError } from "../TokenStore.ts"
import type { GrantWait } from "./wait.ts"

/**
 * A failed call of the credential: a `Credentials` reason whose `cause` is
 * what failed (a token request, the store), with its `status` and
 * `retryAfter`; `transient` (retried by the call's policy) when the store
 * failed before any token request was sent and its `TokenStoreError` is
 * `transient` (a failure after one is made final by {@link afterRequest}
 * first). A failed token request is not: `TokenExchange` sent it again
 * already where that is safe, and the renewal is shared by every call
 * waiting for it (a call's retry would start another, sending a refresh
 * token again, and would multiply the token requests by the calls).
 *
 * @internal
 */
export const toCredentialsError = (error: TokenExchange.TokenError | TokenStoreError): ConnectedVehicleError => {
  if (isConnectedVehicleError(error) && error.reason._tag === "Credentials") return error
  const status = isConnectedVehicleError(error) ? error.status : undefined
  const retryAfter = isConnectedVehicleError(error) ? error.retryAfter : undefined
  const tag = isConnectedVehicleError(error) ? error.reason._tag : error._tag
  return noCredential(`${tag}: ${error.message}`, {
    ...(status === undefined ? {} : { status }),
    ...(retryAfter === undefined ? {} : { retryAfter }),
    ...(error._tag === "TokenStoreError" && error.transient === true ? { transient: true } : {}),
    cause: error
  })
}

/**
 * The failure of a caller of a renewal whose grant waits (the token
 * endpoint's `Retry-After`, or a backoff) until after the caller's
 * deadline: the token request's failure the grant waits after, as
 * {@link toCredentialsError} gives it (its `status`, the error as `cause`),
 * with what is left of the wait (at `now`) as `retryAfter`. Not `transient`:
 * the renewal goes on for the callers that can wait, and a retry would wait
 * for it too.
 *
 * @internal
 */
export const lateError = ({ error, until }: GrantWait, now: number): ConnectedVehicleError =>
  noCredential(
    `${error.reason._tag}: ${error.message}: the renewal waits until ${new Date(until).toISOString()} before it asks again, after this call's wait for its token ends (it goes on for the calls that can wait)`,
    {
      ...(error.status === undefined ? {} : { status: error.status }),
      retryAfter: Duration.millis(Math.max(0, until - now)),
      cause: error
    }
  )

/**
 * A failure of the store once a token request may have been sent (in a
 * `renew` of its own, or storing the granted token): not `transient`, since
 * the call's retry would renew again and send a refresh token the grant
 * already used.
 *
 * @internal
 */
export const afterRequest = (stored: boolean) => (error: TokenExchange.TokenError | TokenStoreError): TokenExchange.TokenError =>
  error._tag !== "TokenStoreError" ? error : noCredential(
    stored
      ? `the token request succeeded, but storing its token failed (not retried: the grant's refresh token is used; the new token is kept in memory for the next call, and stored again): TokenStoreError: ${error.message}`
      : `TokenStoreError: ${error.message}`,
    { cause: error }
  )
/** @internal */
export const renewFailed = afterRequest(false)
/** @internal */
export const notStored = afterRequest(true)

/**
 * A `ConnectedVehicleError` with a `Credentials` reason.
 *
 * @internal
 */
export const noCredential = (
  description: string,
  options?: { readonly status?: number; readonly retryAfter?: Duration.Duration; readonly cause?: unknown; readonly transient?: boolean }
) =>
  new ConnectedVehicleError({ reason: new NoCredential({ description, ...options }) })

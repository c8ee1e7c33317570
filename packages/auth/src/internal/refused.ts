/**
 * The refresh tokens the token endpoint refused with `invalid_grant`, per
 * store instance and key, in memory: a user session whose stored token still
 * holds one fails at once (sign the user in again) instead of sending it
 * again. A token stored since (by `Session.login`, or by another process
 * writing a shared store) holds another refresh token, so it is used: nothing
 * is removed from the store, and nothing the store holds is hidden.
 *
 * @internal
 */
import { Redacted } from "effect"
import {
  ConnectedVehicleError,
  Credentials,
  isConnectedVehicleError
} from "@connected-vehicle/transport/ConnectedVehicleError"
import type { Token, TokenStore } from "../TokenStore.ts"

/**
 * A refused refresh token of a key; `rejected`: the access token of its pair
 * once the service rejected it too (401), so that it is not sent again.
 *
 * @internal
 */
export interface Refused {
  readonly refreshToken: Redacted.Redacted<string>
  readonly rejected: Redacted.Redacted<string> | undefined
  /** the token endpoint's `invalid_grant` (an `OAuth` reason): the cause of every error given for it */
  readonly cause: ConnectedVehicleError
  /**
   * A granted token never stored (the session's kept token) whose refresh
   * token was refused: every token not newer than it is refused as well
   * (the stored one it replaced: its refresh token was used by that grant).
   */
  readonly kept?: Token | undefined
  /**
   * The refresh token was not refused but may have been used: its token
   * request failed after it may have reached the token endpoint (a 5xx but
   * a 503, a lost answer, a reset connection, a timeout), and a rotating
   * refresh token is used once. `cause` is the error that request's renewal gave.
   */
  readonly spent?: boolean | undefined
}

/**
 * Whether `a` was issued before `b` (by issue time when both have one, else by expiry).
 *
 * @internal
 */
export const older = (a: Token, b: Token): boolean =>
  a.issuedAt !== undefined && b.issuedAt !== undefined && a.issuedAt !== b.issuedAt ? a.issuedAt < b.issuedAt : a.expiresAt < b.expiresAt

const byStore = new WeakMap<TokenStore["Service"], Map<string, Refused>>()

/**
 * The refusals remembered per store: past it the oldest is forgotten (which
 * costs at most one more refused request for that key).
 *
 * @internal
 */
export const maxRefused = 10_000

/**
 * Sets `key` in `map` (the newest last), forgetting the oldest past
 * {@link maxRefused}: the refusals, and the session's per-key retry times.
 *
 * @internal
 */
export const remember = <V>(map: Map<string, V>, key: string, value: V): void => {
  map.delete(key)
  map.set(key, value)
  if (map.size > maxRefused) map.delete(map.keys().next().value!)
}

/**
 * Forgets the refusal of `key`, if any (a token was stored for it, or none is held).
 *
 * @internal
 */
export const forget = (store: TokenStore["Service"], key: string): void => {
  byStore.get(store)?.delete(key)
}

/**
 * The refused refresh tokens of `store`, by key.
 *
 * @internal
 */
export const refusedOf = (store: TokenStore["Service"]): Map<string, Refused> => {
  let refused = byStore.get(store)
  if (refused === undefined) {
    refused = new Map()
    byStore.set(store, refused)
  }
  return refused
}

/**
 * An `OAuth` reason `invalid_grant`: the grant (here the refresh token) is
 * invalid, expired, revoked or already used.
 *
 * @internal
 */
export const isInvalidGrant = (error: unknown): error is ConnectedVehicleError =>
  isConnectedVehicleError(error) && error.reason._tag === "OAuth" && error.reason.error === "invalid_grant"

/**
 * Whether the failed token request `error` may have reached the token
 * endpoint and used the refresh token it sent: no answer (a timeout, a
 * connection reset or cut: not one the transport knows was never sent,
 * `sent: false`, as a connection never made, a TLS handshake that failed,
 * or a timeout that ran out while connecting), a 5xx other than
 * a 503 (a 503 and a 429 say the request was not processed), a 2xx that
 * breaks section 4.6. An answer 3xx or 4xx (an `invalid_client`, say) did
 * not use it; an `invalid_grant` is a refusal (see {@link isInvalidGrant}).
 *
 * @internal
 */
export const mayHaveUsed = (error: unknown): error is ConnectedVehicleError => {
  if (!isConnectedVehicleError(error)) return false
  const { reason, status } = error
  if (status !== undefined) return status !== 503 && (status >= 500 || status < 300)
  return (reason._tag === "Timeout" || reason._tag === "Connection") && reason.sent !== false
}

/**
 * Whether `value` (what a store gave back) is the secret `secret`.
 *
 * @internal
 */
export const sameSecret = (value: unknown, secret: Redacted.Redacted<string>): boolean => {
  try {
    return Redacted.isRedacted(value) && Redacted.value(value) === Redacted.value(secret)
  } catch {
    // a wiped value (`Redacted.wipe`): not the secret
    return false
  }
}

/**
 * Whether `token` holds the refused refresh token (or is not newer than the refused kept token).
 *
 * @internal
 */
export const holds = (token: Token, refused: Refused): boolean =>
  sameSecret(token.refreshToken, refused.refreshToken) || (refused.kept !== undefined && !older(refused.kept, token))

/**
 * Whether the service already rejected the access token of `token`.
 *
 * @internal
 */
export const rejects = (token: Token, refused: Refused): boolean =>
  refused.rejected !== undefined && sameSecret(token.accessToken, refused.rejected)

// the errors that tell the caller to sign the user in again
const signInErrors = new WeakSet<ConnectedVehicleError>()

/**
 * Whether `error` is one of {@link refusedNow} or {@link signInAgain}.
 *
 * @internal
 */
export const isSignInAgain = (error: ConnectedVehicleError): boolean => signInErrors.has(error)

const signIn = (description: string, options: { readonly status?: number; readonly cause: ConnectedVehicleError }) => {
  const error = new ConnectedVehicleError({ reason: new Credentials({ description, ...options }) })
  signInErrors.add(error)
  return error
}

const hint = "sign the user in again (Session.login); a token stored for the key since (by another process, say) is used"

/**
 * The error of the refresh that the token endpoint refused (`invalid_grant`, its status and error as cause).
 *
 * @internal
 */
export const refusedNow = (key: string, cause: ConnectedVehicleError): ConnectedVehicleError =>
  signIn(`OAuth: ${cause.message}: the refresh token of ${key} was refused: ${hint}`, {
    ...(cause.status === undefined ? {} : { status: cause.status }),
    cause
  })

// the message of the token request's error under a renewal's `Credentials` error
const firstMessage = (error: ConnectedVehicleError): string =>
  error.reason._tag === "Credentials" && isConnectedVehicleError(error.reason.cause) ? error.reason.cause.message : error.message

/**
 * The error of a later call, before any request: no new token was stored since the refusal.
 *
 * @internal
 */
export const signInAgain = (key: string, refused: Refused): ConnectedVehicleError =>
  signIn(
    refused.spent === true
      ? `the refresh token of ${key} may have been used by a token request that failed (${firstMessage(refused.cause)}) and no new token was stored since: it is not sent again (a rotating refresh token is used once): ${hint}`
      : `the refresh token of ${key} was refused (invalid_grant) and no new token was stored since: ${hint}`,
    { cause: refused.cause }
  )

/**
 * Which reason a failure of the Effect SDK is for the Promise client, and
 * with which fields: a `ConnectedVehicleError` is its reason (a failed token
 * request: what happened to it), the few other errors of the SDK have a
 * reason of their own. `ClientError` builds the class of each reason.
 */
import { Duration } from "effect"
import { boundedMessage } from "@connected-vehicle/schema/Message"
import type { ConnectedVehicleError, Reason, ReasonTag } from "@connected-vehicle/transport/ConnectedVehicleError"
import { isConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import { maxDelay } from "@connected-vehicle/transport/RetryAfter"
import type { ErrorItem } from "@connected-vehicle/schema/ServiceError"

/**
 * The fields of a client error (`ErrorFields` of `ClientError`): each is
 * present when known; `about` and `errors` only when the service sent an
 * error envelope (its own text: never a token or secret).
 *
 * @internal
 */
export interface ClientErrorFields {
  readonly message: string
  readonly status?: number | undefined
  readonly requestId?: string | undefined
  readonly isRetryable?: boolean | undefined
  /** The `Retry-After` of an error response (a 429, a 503...), in milliseconds (the unit of `setTimeout`). */
  readonly retryAfter?: number | undefined
  readonly type?: string | undefined
  readonly code?: string | undefined
  readonly title?: string | undefined
  readonly detail?: string | undefined
  readonly resolution?: string | undefined
  readonly suggestedUserMessage?: string | undefined
  /** `links.about` of the envelope's first item: the documentation of the error. */
  readonly about?: string | undefined
  /** Every item of the service's error envelope, as sent (only when an envelope came). */
  readonly errors?: ReadonlyArray<ErrorItem> | undefined
  readonly location?: string | undefined
  /** The per-attempt timeout that ran out (`Timeout`), in milliseconds. */
  readonly timeout?: number | undefined
  readonly field?: string | undefined
  readonly vehicleId?: string | undefined
  /** The method and the URL (without user info) of the request that failed, when one was sent. */
  readonly method?: string | undefined
  readonly url?: string | undefined
  /** `false` when nothing of the request was written (`Connection`). */
  readonly sent?: boolean | undefined
  readonly cause?: unknown
}

/**
 * The reason of a client error: the reason of a failed call, or one of the
 * errors that are not a failed call.
 *
 * @internal
 */
export type ClientReason = ReasonTag | "InvalidArgument" | "NotConnected" | "Abort" | "Unknown"

/** @internal */
export interface Classified {
  readonly reason: ClientReason
  readonly fields: ClientErrorFields
}

type Tagged = { readonly _tag: string; readonly message: string } & Readonly<Record<string, unknown>>

const isTagged = (u: unknown): u is Tagged =>
  typeof u === "object" && u !== null && typeof (u as { _tag?: unknown })._tag === "string" &&
  typeof (u as { message?: unknown }).message === "string"

const str = (u: unknown): string | undefined => typeof u === "string" ? u : undefined

const maxDelayMillis = Duration.toMillis(maxDelay)

/**
 * A `retryAfter` in milliseconds for `setTimeout`: a finite number of at
 * most `RetryAfter.maxDelay` (2^31 − 1), whatever the reason was built with.
 */
const millisOf = (delay: Duration.Duration): number => {
  const millis = Duration.toMillis(delay)
  return Number.isNaN(millis) ? 0 : Math.max(0, Math.min(maxDelayMillis, millis))
}

/** The fields a reason of a failed call carries, flattened. */
const fieldsOf = (error: ConnectedVehicleError, reason: Reason, message: string): ClientErrorFields => {
  const r = reason as unknown as Readonly<Record<string, unknown>>
  const retryAfter = error.retryAfter
  return {
    message,
    status: error.status,
    requestId: error.requestId,
    isRetryable: error.isRetryable,
    retryAfter: retryAfter === undefined ? undefined : millisOf(retryAfter),
    type: reason._tag === "OAuth" ? "OAUTH" : str(r["type"]),
    code: reason._tag === "OAuth" ? reason.error : str(r["code"]),
    title: str(r["title"]),
    detail: reason._tag === "OAuth" ? reason.errorDescription : str(r["detail"]),
    resolution: str(r["resolution"]),
    suggestedUserMessage: str(r["suggestedUserMessage"]),
    about: str(r["about"]),
    // the envelope's items: none when no envelope came (a gateway's body: `fromStatus`)
    errors: Array.isArray(r["errors"]) && r["errors"].length > 0 ? r["errors"] as ReadonlyArray<ErrorItem> : undefined,
    location: str(r["location"]),
    timeout: reason._tag === "Timeout" ? Duration.toMillis(reason.timeout) : undefined,
    method: str(r["method"]),
    url: str(r["url"]),
    sent: reason._tag === "Connection" || reason._tag === "Timeout" ? reason.sent : undefined,
    cause: error
  }
}

/**
 * A credential that did not come within the call's timeout (or budget) is a
 * `Timeout`. One that could not be had because its token request failed is
 * reported as what happened to that request (unreachable, stalled, a 401 or
 * `invalid_client`, a 429, a 5xx); other refusals (`invalid_grant`: sign in
 * again) and a failing token store stay `Credentials`. The client error's
 * `cause` stays the `Credentials` error, and its `isRetryable` is the
 * `Credentials` reason's (whether the call could send the request again).
 */
const fromCredentials = (error: ConnectedVehicleError, fields: ClientErrorFields): Classified => {
  // the call's wait for its token ran out (the token request, or another process's renewal, still running)
  const waited = error.reason._tag === "Credentials" ? error.reason.timeout : undefined
  if (waited !== undefined) return { reason: "Timeout", fields: { ...fields, timeout: Duration.toMillis(waited) } }
  const request = error.reason._tag === "Credentials" ? error.reason.cause : undefined
  if (!isConnectedVehicleError(request)) return { reason: "Credentials", fields }
  // no request sent (a wait the token endpoint asked for holds it): its status's class, with this error's fields
  if (request.reason._tag === "Credentials") {
    const status = error.status
    const first = request.reason.cause
    // the token endpoint's refusal of the client (`invalid_client`, 400 or 401) given again: its code and type too
    const oauth = isConnectedVehicleError(first) && first.reason._tag === "OAuth" ? fieldsOf(first, first.reason, first.message) : undefined
    const clientRefused = oauth?.code === "invalid_client"
    const given = oauth === undefined ? fields : { ...fields, code: oauth.code, type: oauth.type }
    return status === 429
      ? { reason: "RateLimit", fields }
      : status === 401 || clientRefused
      ? { reason: "Authentication", fields: given }
      : status !== undefined && status >= 500
      ? { reason: "Server", fields }
      : { reason: "Credentials", fields: given }
  }
  // its message by the rule of every message (at most 2,048 characters, the token request's cut if need be)
  const inner = fieldsOf(request, request.reason, boundedMessage(`The token request failed: ${request.message}`))
  const status = request.status
  // retryable as the call saw it (`transient`): a refresh-token request that a 500 may have used is not;
  // `retryAfter` as the call saw it: what is left of the renewal's wait, when it failed for that
  // `sent: false` only when neither the token request nor the call's own request was written
  const sent = error.reason._tag === "Credentials" && error.reason.callSent === true ? undefined : inner.sent
  const withCause = { ...inner, isRetryable: error.isRetryable, retryAfter: fields.retryAfter ?? inner.retryAfter, sent, cause: error }
  switch (request.reason._tag) {
    case "Connection":
    case "Timeout":
      return { reason: request.reason._tag, fields: { ...withCause, status: undefined } }
  }
  if (inner.code === "invalid_client" || status === 401) return { reason: "Authentication", fields: withCause }
  if (status === 429) return { reason: "RateLimit", fields: withCause }
  if (status !== undefined && status >= 500) return { reason: "Server", fields: withCause }
  return { reason: "Credentials", fields: { ...fields, code: inner.code } }
}

/** The errors of the SDK that are not a failed call. */
const others: Readonly<Record<string, (error: Tagged) => Classified>> = {
  InvalidArgument: (error) => ({ reason: "InvalidArgument", fields: { message: error.message, field: str(error["field"]), cause: error } }),
  NotConnected: (error) => ({ reason: "NotConnected", fields: { message: error.message, vehicleId: str(error["vehicleId"]), cause: error } }),
  TokenStoreError: (error) => ({ reason: "Credentials", fields: { message: error.message, cause: error } })
}

/**
 * The reason and fields of an error of the SDK; anything else is an
 * "Unexpected failure" with the value as `cause`.
 *
 * @internal
 */
export const classify = (error: unknown): Classified => {
  if (isConnectedVehicleError(error)) {
    const fields = fieldsOf(error, error.reason, error.message)
    return error.reason._tag === "Credentials" ? fromCredentials(error, fields) : { reason: error.reason._tag, fields }
  }
  if (isTagged(error) && Object.hasOwn(others, error._tag)) return others[error._tag]!(error)
  return { reason: "Unknown", fields: { message: isTagged(error) ? error.message : "Unexpected failure", cause: error } }
}

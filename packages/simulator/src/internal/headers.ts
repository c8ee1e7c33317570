/**
 * The simulator's own header names, the body size limit, and the request id
 * of a request: what the public `App` module exports, and what the fast path
 * and the Node hardening share with it.
 *
 * @internal
 */
import type { State } from "../State.ts"

/** @internal */
export const FAULT_HEADER = "x-simulator-fault"

/** @internal */
export const FAULT_KEY_HEADER = "x-simulator-fault-key"

/** @internal */
export const REQUEST_ID_HEADER = "x-request-id"

/**
 * The request id again, under the name the service this one resembles uses
 * (its official SDK reads it): every answer carries both, the same value.
 *
 * @internal
 */
export const SC_REQUEST_ID_HEADER = "sc-request-id"

/**
 * The header every webhook delivery of the simulator carries (value `1`): the
 * control routes refuse a request with it, so a callback pointed at them
 * (`http://127.0.0.1:<port>/_simulator/reset`, however the host is written)
 * changes nothing.
 *
 * @internal
 */
export const DELIVERY_HEADER = "x-simulator-delivery"

/** @internal */
export const MAX_BODY_BYTES = 1024 * 1024

/** @internal */
export const DROP_MARKER = "x-simulator-internal-drop"

const requestIdShape = /^[\x21-\x7e]{1,128}$/

/** @internal */
export const isUsableRequestId = (incoming: string | undefined): incoming is string =>
  incoming !== undefined && requestIdShape.test(incoming)

/** @internal */
export const requestIdFor = (incoming: string | undefined, state: State): string =>
  isUsableRequestId(incoming) ? incoming : state.nextRequestId()

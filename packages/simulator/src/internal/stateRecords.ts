/**
 * The records a simulator's `State` keeps (codes, refresh tokens, the request
 * log's slots, fault rules) and their helpers.
 *
 * @internal
 */
import type { Mode } from "@connected-vehicle/schema/Common"
import type { Permission } from "@connected-vehicle/schema/OAuth"
import type { Grant, RequestLogEntry } from "../State.ts"

/** `req-<seed>-<n>`: the request id the simulator generates (see `State.generatedRequestId`). */
export const generatedRequestId = (seed: number, n: number): string => `req-${seed}-${n}`

/**
 * Keeps a map or set to at most `limit` entries: once over, the oldest
 * (first inserted) are forgotten, a sixteenth of the limit at a time. One by
 * one would cost a scan per insert: a `Map` or `Set` keeps the holes its
 * deletions leave at the front until it rehashes, and `keys().next()` walks
 * them.
 */
export const trimOldest = <K>(collection: Map<K, unknown> | Set<K>, limit: number): void => {
  if (collection.size <= limit) return
  let excess = collection.size - limit + (limit >> 4)
  for (const oldest of collection.keys()) {
    if (excess-- <= 0) break
    collection.delete(oldest)
  }
}

/** Sets `key` in a map kept to at most `limit` entries (see {@link trimOldest}). */
export const setCapped = <K, V>(map: Map<K, V>, key: K, value: V, limit: number): void => {
  map.set(key, value)
  trimOldest(map, limit)
}

export interface CodeRecord {
  readonly userIndex: number
  readonly scopes: ReadonlySet<Permission>
  readonly mode: Mode
  readonly redirectUri: string
  readonly expiresAt: number
}

export interface RefreshRecord {
  readonly userIndex: number
  readonly scopes: ReadonlySet<Permission>
  readonly mode: Mode
  readonly expiresAt: number
  /** The code exchange the token descends from (kept through rotations). */
  readonly family: number
}

/** A user grant and the code exchange it descends from. */
export type UserGrant = Extract<Grant, { readonly _tag: "User" }> & { readonly family: number }

/** A code already exchanged: replaying it revokes the tokens of its family. */
export interface UsedCode {
  readonly family: number
  readonly expiresAt: number
}

/**
 * Request headers as logged: Node's own record (a repeated header is an
 * array, joined with ", " when the log is read) or the application's.
 */
export type LoggedHeaders = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/**
 * A log slot: what the request carried, split and redacted when read. A
 * generated request id is kept as its number (`req-<seed>-<n>` when read).
 * The slot of a request logged once answered (`reusable`) is rewritten in
 * place when the ring comes round to it: no new object per request.
 */
export interface LogSlot {
  method: string
  url: string
  headers: LoggedHeaders
  requestId: string | number
  status: number
  readonly reusable: boolean
}

export const entryOf = (seed: number, slot: LogSlot): RequestLogEntry => {
  const q = slot.url.indexOf("?")
  const headers: Record<string, string> = {}
  for (const key in slot.headers) {
    const value = slot.headers[key]
    if (value === undefined) continue
    headers[key] = key === "authorization" ? "<redacted>" : typeof value === "string" ? value : value.join(", ")
  }
  return {
    method: slot.method,
    path: q === -1 ? slot.url : slot.url.slice(0, q),
    query: q === -1 ? "" : slot.url.slice(q + 1),
    headers,
    status: slot.status,
    requestId: typeof slot.requestId === "number" ? generatedRequestId(seed, slot.requestId) : slot.requestId
  }
}


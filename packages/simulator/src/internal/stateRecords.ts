/**
 * The records a simulator's `State` keeps (codes, refresh tokens, the request
 * log's slots, fault rules) and their helpers.
 *
 * @internal
 */
import type { Mode } from "@connected-vehicle/schema/Common"
import type { Permission } from "@connected-vehicle/schema/OAuth"
import type { Grant } from "../State.ts"

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

/**
 * When a token is renewed.
 *
 * @internal
 */
import { Redacted } from "effect"
import type { Token } from "../TokenStore.ts"

/**
 * Where a token stands at `now`: `fresh`; `due` for renewal (the
 * refresh-ahead window, capped at half the token's lifetime so that a
 * short-lived token is not renewed on every call) but still handed out;
 * `expired`: within the margin (capped at half that window) of its expiry,
 * or past it, or not a token at all.
 *
 * @internal
 */
// the margin: at most (and by default) half the refresh-ahead window, at least 0
export const phaseOf = (refreshAheadMillis: number, marginMillis: number | undefined) => (token: Token, now: number): "fresh" | "due" | "expired" => {
  const { expiresAt, issuedAt } = token
  // what a store handed back that is not a token (no `Redacted` access token) is renewed, never sent
  if (!Redacted.isRedacted(token.accessToken)) return "expired"
  const ahead = issuedAt === undefined ? refreshAheadMillis : Math.min(refreshAheadMillis, Math.max(0, expiresAt - issuedAt) / 2)
  if (expiresAt - ahead > now) return "fresh"
  return expiresAt - Math.max(0, Math.min(marginMillis ?? ahead / 2, ahead / 2)) > now ? "due" : "expired"
}

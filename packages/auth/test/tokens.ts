/**
 * User tokens for the auth tests.
 */
import { Redacted } from "effect"
import type * as TokenStore from "@connected-vehicle/auth/TokenStore"

/** A token with `access` / `refresh`, issued `age` milliseconds ago (two hours or more: expired); its refresh token valid a day. */
export const userToken = (age: number, access = "access-1", refresh = "refresh-1"): TokenStore.Token => {
  const now = Date.now()
  return {
    accessToken: Redacted.make(access),
    issuedAt: now - age,
    expiresAt: now - age + 7_200_000,
    refreshToken: Redacted.make(refresh),
    refreshExpiresAt: now + 86_400_000
  }
}

/** user-1's token with access-1 / refresh-1, expired (issued over two hours ago). */
export const expired = (): TokenStore.Token => userToken(7_201_000)

/**
 * Where tokens live between requests. The default keeps them in memory; a
 * team backs {@link TokenStore} with its database to share tokens between
 * processes (values stay `Redacted` until written).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"
import type { Redacted } from "effect"

/**
 * A token set with absolute expiry instants (epoch milliseconds, from
 * Effect's `Clock`).
 *
 * @since 0.1.0
 */
export interface Token {
  readonly accessToken: Redacted.Redacted<string>
  readonly expiresAt: number
  readonly refreshToken: Redacted.Redacted<string> | undefined
  readonly refreshExpiresAt: number | undefined
}

/**
 * Tokens by key (one key per user for v2.0, one for the application for v3).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { TokenStore } from "@connected-vehicle/auth/TokenStore"
 *
 * const signOut = (userId: string) => Effect.flatMap(Effect.service(TokenStore), (store) => store.remove(userId))
 * ```
 * @since 0.1.0
 */
export class TokenStore extends Context.Service<TokenStore, {
  readonly get: (key: string) => Effect.Effect<Option.Option<Token>>
  readonly set: (key: string, token: Token) => Effect.Effect<void>
  readonly remove: (key: string) => Effect.Effect<void>
}>()("@connected-vehicle/auth/TokenStore") {}

/**
 * An in-memory store.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { makeMemory } from "@connected-vehicle/auth/TokenStore"
 *
 * const program = Effect.map(makeMemory, (store) => store.get("app"))
 * ```
 * @since 0.1.0
 */
export const makeMemory: Effect.Effect<TokenStore["Service"]> = Effect.sync(() => {
  const tokens = new Map<string, Token>()
  return {
    get: (key) => Effect.sync(() => Option.fromNullishOr(tokens.get(key))),
    set: (key, token) => Effect.sync(() => void tokens.set(key, token)),
    remove: (key) => Effect.sync(() => void tokens.delete(key))
  }
})

/**
 * The in-memory store as a layer.
 *
 * @example
 * ```ts
 * import { layerMemory } from "@connected-vehicle/auth/TokenStore"
 *
 * const StoreLive = layerMemory
 * ```
 * @since 0.1.0
 */
export const layerMemory: Layer.Layer<TokenStore> = Layer.effect(TokenStore, makeMemory)

/**
 * Where tokens live between requests. The default keeps them in memory; a
 * team backs {@link TokenStore} with its database to share tokens between
 * processes (values stay `Redacted` until written).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { Redacted } from "effect"
import type { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { keyError } from "./internal/key.ts"
import { markLocal } from "./internal/localRenewal.ts"

/**
 * A token set with absolute instants (epoch milliseconds, from Effect's
 * `Clock`). `issuedAt` lets a short-lived token keep at least half its
 * lifetime before it is renewed (see `OAuthConfig.refreshAhead`);
 * without it the full refresh-ahead window applies.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Token } from "@connected-vehicle/auth/TokenStore"
 *
 * const now = Date.now()
 * const token: Token = {
 *   accessToken: Redacted.make("access"),
 *   issuedAt: now,
 *   expiresAt: now + 7_200_000,
 *   refreshToken: Redacted.make("refresh"),
 *   refreshExpiresAt: now + 60 * 86_400_000
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Token {
  readonly accessToken: Redacted.Redacted<string>
  readonly issuedAt?: number | undefined
  readonly expiresAt: number
  readonly refreshToken: Redacted.Redacted<string> | undefined
  readonly refreshExpiresAt: number | undefined
}

/**
 * A store failed to read or write (its database is down...). Never carries a
 * token value. `transient`: the failure may pass by itself (a connection
 * refused or reset, a timeout), so that a call of the `Session` that met it
 * before any token request is retried by the call's retry policy; absent or
 * `false` (the default, the safe choice when the store cannot tell): it will
 * not pass by itself (a value that does not decode, a corrupt file, a
 * refused permission), and the call fails at once.
 *
 * @example
 * ```ts
 * import { TokenStoreError } from "@connected-vehicle/auth/TokenStore"
 *
 * new TokenStoreError({ key: "user-42", reason: "connection refused", transient: true })
 * new TokenStoreError({ key: "user-42", reason: "the stored value is not a token" })
 * ```
 * @since 0.1.0
 * @category errors
 */
export class TokenStoreError extends Schema.TaggedError<TokenStoreError>()("TokenStoreError", {
  key: Schema.String,
  reason: Schema.String,
  /** The failure may pass by itself: retried by the call (since 0.2.0). */
  transient: Schema.optionalKey(Schema.Boolean)
}) {
  override get message() {
    return `Token store failed for ${this.key}: ${this.reason}`
  }
}

/**
 * Options of a read ({@link TokenStore} `get`).
 *
 * @example
 * ```ts
 * import type { GetOptions } from "@connected-vehicle/auth/TokenStore"
 *
 * const current: GetOptions = { peek: true }
 * ```
 * @since 0.2.0
 * @category models
 */
export interface GetOptions {
  /**
   * Only what is stored now: the `Session` serves a token that is due for
   * renewal but still valid while it renews it in the background. A store
   * that coordinates renewals between processes answers at once, without
   * taking part in a renewal. Without it (the read before a renewal), such
   * a store may take a renewal lease or wait for another process's renewal.
   * A store that keeps no such lease ignores it.
   */
  readonly peek?: boolean | undefined
}

/**
 * Tokens by key (one key per user for v2.0, one for the application for v3).
 * A key is a non-empty string of at most 1024 characters, without control
 * characters or lone surrogates (`"user:1234"`, an email address...); a store
 * may refuse another with an `InvalidArgument` (`field: "key"`), as the
 * memory store does. Renewals are coordinated by `Session` per store instance and key, so a
 * store needs no locking of its own within one process; a store shared
 * between processes coordinates them across processes with `renewal` (and
 * `get`'s {@link GetOptions} tell it whether a renewal may follow).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { TokenStore } from "@connected-vehicle/auth/TokenStore"
 *
 * const signOut = (userId: string) => Effect.flatMap(Effect.service(TokenStore), (store) => store.remove(userId))
 * ```
 * @since 0.1.0
 * @category services
 */
export class TokenStore extends Context.Service<TokenStore, {
  readonly get: (key: string, options?: GetOptions) => Effect.Effect<Option.Option<Token>, TokenStoreError | InvalidArgument>
  readonly set: (key: string, token: Token) => Effect.Effect<void, TokenStoreError | InvalidArgument>
  readonly remove: (key: string) => Effect.Effect<void, TokenStoreError | InvalidArgument>
  /**
   * Optional, for a store shared between processes: runs `use` (the
   * `Session`'s renewal of `key`, which stores the new token with `set`)
   * with the stored token, once no other process renews that key. A stored
   * token that `isDue` (the `Session`'s own rule: due for renewal, or
   * rejected by the service) does not flag is handed to `use` at once.
   * Otherwise the store takes a renewal lease, held while `use` runs
   * (however long the token request takes) and released after it, or,
   * while another process holds it, waits for that process's token and
   * hands it to `use` (which then renews nothing). So one process of the
   * fleet asks the token endpoint per renewal, and a refresh token is not
   * sent by two processes at once while the lease holds (a holder that
   * loses it, cut off from the store, may be followed by another that
   * sends the same refresh token: its `set` should then not store over the
   * other's token). A `remove` of `key` once the renewal has started wins:
   * the renewal's `set` (inside `use`) then stores nothing, so a sign-out
   * is never undone by a renewal that was running (the `Session` then
   * fails the renewing call: sign the user in again); a `set` outside a
   * renewal (`Session.login`) always stores. A failure of the store here,
   * before `use`, is retried by the call when the `TokenStoreError` is
   * `transient`; one inside `use` (storing a granted token) never is.
   * The `Session` reads the store (`get` with `peek`) after storing a
   * renewed token and takes nothing stored for a sign-out: a store with
   * `renewal` must read its own writes. Without it, the `Session` reads the
   * token with `get` (no `peek`) and renews; its `set` cannot tell a
   * renewal's write from a sign-in's, so a renewal running at a sign-out
   * stores its token again (implement `renewal` to keep a sign-out). A store
   * built by spreading {@link makeMemory} (`{ ...memory, get }`) keeps the
   * memory store's `renewal`, which reads the memory store's tokens, not
   * the custom `get`: override `renewal` as well, or leave it out.
   */
  readonly renewal?: <A, E, R>(
    key: string,
    isDue: (token: Token, now: number) => boolean,
    use: (current: Option.Option<Token>) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | TokenStoreError | InvalidArgument, R>
}>()("@connected-vehicle/auth/TokenStore") {}

/**
 * The rule every key of the SDK's stores follows: a non-empty string of at
 * most 1,024 characters, without control characters or lone surrogates (so
 * that a key can be logged and stored anywhere). The `InvalidArgument`
 * (`field: "key"`) of a key that breaks it, else `undefined`; the key is never
 * quoted.
 *
 * @example
 * ```ts
 * import { checkKey } from "@connected-vehicle/auth/TokenStore"
 *
 * checkKey("user:1234") // undefined
 * checkKey("")?.message // "key: Expected a non-empty string"
 * ```
 * @since 0.2.0
 * @category validation
 */
export const checkKey: (key: unknown) => InvalidArgument | undefined = keyError

// the renewal running in this fiber: its store, key and the entry it started from
const Renewing = Context.Reference<{ readonly store: object; readonly key: string; readonly from: Token | undefined } | undefined>(
  "@connected-vehicle/auth/TokenStore/Renewing",
  { defaultValue: () => undefined }
)

/**
 * An in-memory store. A key that is not a store key (see {@link TokenStore}:
 * `null`, `42`, `""`, a string over 1024 characters...) is an
 * `InvalidArgument` (`field: "key"`), checked when the method is called. Its
 * `renewal` runs `use` with the token held (one process: no lease); the
 * renewal's `set` stores only while the key still holds the token the
 * renewal started from, so a `remove` (a sign-out) or a `set` outside the
 * renewal (a sign-in) made meanwhile wins.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { makeMemory } from "@connected-vehicle/auth/TokenStore"
 *
 * const program = Effect.map(makeMemory, (store) => store.get("app"))
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory: Effect.Effect<TokenStore["Service"]> = Effect.sync(() => {
  const tokens = new Map<string, Token>()
  const self = {}
  // the key is checked once, when the method is called (a `Session` builds
  // its `get` once and runs it on every call)
  const checked = <A>(key: unknown, effect: Effect.Effect<A>): Effect.Effect<A, InvalidArgument> => {
    const error = keyError(key)
    return error === undefined ? effect : Effect.fail(error)
  }
  const set = (key: string, token: Token) =>
    Effect.flatMap(Effect.service(Renewing), (renewing) =>
      Effect.sync(() => {
        // a renewal's token is not stored over a sign-out or a sign-in made since it started
        if (renewing !== undefined && renewing.store === self && renewing.key === key && tokens.get(key) !== renewing.from) return
        tokens.set(key, token)
      }))
  return {
    get: (key) => checked(key, Effect.sync(() => Option.fromNullishOr(tokens.get(key)))),
    set: (key, token) => checked(key, set(key, token)),
    remove: (key) => checked(key, Effect.sync(() => void tokens.delete(key))),
    renewal: markLocal<NonNullable<TokenStore["Service"]["renewal"]>>((key, _isDue, use) => {
      const error = keyError(key)
      if (error !== undefined) return Effect.fail(error)
      return Effect.suspend(() => {
        const from = tokens.get(key)
        return Effect.provideService(use(Option.fromNullishOr(from)), Renewing, { store: self, key, from })
      })
    })
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
 * @category layers
 */
export const layerMemory: Layer.Layer<TokenStore> = Layer.effect(TokenStore, makeMemory)

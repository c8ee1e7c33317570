/**
 * One application token for the whole fleet: a `TokenStore` of
 * `@connected-vehicle/auth` kept in Redis, with a renewal lease. When the
 * token is due for renewal, the first process to ask takes the lease (a
 * Redis key with an expiry) and its `Session` fetches the new token; the
 * others wait for it and read it. So the token endpoint is asked once per
 * expiry across all processes, not once per process. The waiting is the
 * `Session`'s background renewal: requests go on with the current token
 * while it is valid, in every process. The same holds for users' tokens
 * (v2.0), which are renewed with their refresh token once.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import { Clock, Duration, Effect, Layer, Option, Redacted } from "effect"
import { Redis } from "effect/persistence"
import { type GetOptions, layerMemory, type Token, TokenStore, TokenStoreError } from "@connected-vehicle/auth/TokenStore"
import type { FleetError } from "./FleetError.ts"
import { redisCall } from "./internal/holds.ts"
import { millis } from "./internal/options.ts"
import * as SharedRedis from "./SharedRedis.ts"

/**
 * Options of the store.
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/fleet/SharedToken"
 *
 * const options: Options = { refreshAhead: "2 minutes", leaseDuration: "15 seconds" }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Prefix of the Redis keys (default `"connected-vehicle:"`). */
  readonly prefix?: string | undefined
  /**
   * When a token is due for renewal: the same as `OAuthConfig.refreshAhead`
   * (default 60 seconds, its default; capped at half the token's lifetime).
   */
  readonly refreshAhead?: Duration.Input | undefined
  /** How long a renewal may take before another process takes over (default 10 seconds). */
  readonly leaseDuration?: Duration.Input | undefined
  /** How often a waiting process looks for the new token (default 50 milliseconds). */
  readonly pollInterval?: Duration.Input | undefined
  /** How long Redis may take to answer one command (default 2 seconds). */
  readonly timeout?: Duration.Input | undefined
}

const encode = (token: Token): string =>
  JSON.stringify({
    accessToken: Redacted.value(token.accessToken),
    issuedAt: token.issuedAt,
    expiresAt: token.expiresAt,
    refreshToken: token.refreshToken === undefined ? undefined : Redacted.value(token.refreshToken),
    refreshExpiresAt: token.refreshExpiresAt
  })

const decode = (text: string | null): Option.Option<Token> => {
  if (text === null) return Option.none()
  try {
    const value = JSON.parse(text)
    if (typeof value?.accessToken !== "string" || typeof value.expiresAt !== "number") return Option.none()
    return Option.some({
      accessToken: Redacted.make(value.accessToken),
      issuedAt: typeof value.issuedAt === "number" ? value.issuedAt : undefined,
      expiresAt: value.expiresAt,
      refreshToken: typeof value.refreshToken === "string" ? Redacted.make(value.refreshToken) : undefined,
      refreshExpiresAt: typeof value.refreshExpiresAt === "number" ? value.refreshExpiresAt : undefined
    })
  } catch {
    return Option.none()
  }
}

// the refresh token's lifetime when the token does not say (spec: 60 days)
const refreshLifetime = 60 * 86_400_000

/**
 * When the stored token is of no more use: its refresh token's expiry (60
 * days after the access token's when unknown), else the access token's.
 */
const uselessAt = (token: Token): number =>
  token.refreshToken === undefined ? token.expiresAt : token.refreshExpiresAt ?? token.expiresAt + refreshLifetime

// the token (expiring in `millis`), and the lease released when it is ours: one atomic step
const setScript = Redis.script((tokenKey: string, leaseKey: string, json: string, owner: string, millis: number) => [tokenKey, leaseKey, json, owner, millis], {
  numberOfKeys: 2,
  lua: `
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[3])
if redis.call("GET", KEYS[2]) == ARGV[2] then
  redis.call("DEL", KEYS[2])
end
return 1
`
})

/**
 * The store on the `Redis` in context. `get` with `{ peek: true }` (the
 * `Session` handing out a token that is due for renewal but still valid)
 * answers the stored token at once. `get` without it (the read before a
 * renewal) answers the stored token when it is not due for renewal;
 * otherwise it takes the renewal lease (and answers the token, so that the
 * `Session` renews it and `set` stores the new one and frees the lease), or,
 * when another process holds the lease, waits for the new token. After
 * twice the lease duration without one it fails with `TokenStoreError`; a
 * Redis failure is a `TokenStoreError` too.
 * `set` stores a token with an expiry: Redis deletes it once it is of no
 * more use (when its refresh token expires, `refreshExpiresAt`, or 60 days
 * after `expiresAt` when that is unknown; without a refresh token, at
 * `expiresAt`). An option that is not a duration fails `make` with
 * `FleetError` `Configuration` naming it.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
 * import * as SharedToken from "@connected-vehicle/fleet/SharedToken"
 *
 * const store = SharedToken.make().pipe(Effect.provide(SharedRedis.layer({ url: Redacted.make("redis://127.0.0.1:6379") })))
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<TokenStore["Service"], FleetError, Redis.Redis> =>
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    const prefix = options?.prefix ?? "connected-vehicle:"
    const refreshAhead = yield* millis("refreshAhead", options?.refreshAhead, "60 seconds", "zero allowed")
    const lease = yield* millis("leaseDuration", options?.leaseDuration, "10 seconds")
    const poll = yield* millis("pollInterval", options?.pollInterval, "50 millis")
    const timeout = yield* millis("timeout", options?.timeout, "2 seconds")
    const owner = randomUUID()
    const set = redis.eval(setScript)

    const call = <A>(key: string, what: string, effect: Effect.Effect<A, Redis.RedisError>) =>
      effect.pipe(
        redisCall(what, timeout),
        Effect.mapError((error) => new TokenStoreError({ key, reason: error.description }))
      )

    // as `Session` decides: the refresh-ahead window, at most half the token's lifetime
    const usable = (token: Option.Option<Token>, now: number) => {
      if (Option.isNone(token)) return false
      const { expiresAt, issuedAt } = token.value
      const ahead = issuedAt === undefined ? refreshAhead : Math.min(refreshAhead, Math.max(0, expiresAt - issuedAt) / 2)
      return expiresAt - ahead > now
    }

    const peek = (key: string) => Effect.map(call(key, "read token", redis.send<string | null>("GET", `${prefix}token:${key}`)), decode)

    const get = (key: string, options?: GetOptions): Effect.Effect<Option.Option<Token>, TokenStoreError> =>
      options?.peek === true ? peek(key) : Effect.gen(function*() {
        const tokenKey = `${prefix}token:${key}`
        const leaseKey = `${prefix}lease:${key}`
        const deadline = (yield* Clock.currentTimeMillis) + 2 * lease
        while (true) {
          const [text, holder] = yield* call(key, "read token", redis.send<[string | null, string | null]>("MGET", tokenKey, leaseKey))
          const token = decode(text)
          const now = yield* Clock.currentTimeMillis
          if (usable(token, now) || holder === owner) return token
          if (holder === null) {
            const taken = yield* call(key, "take lease", redis.send<string | null>("SET", leaseKey, owner, "NX", "PX", String(lease)))
            // ours: read again (the previous holder may have stored the new token meanwhile)
            if (taken !== null) return yield* peek(key)
          }
          if (now >= deadline) {
            return yield* new TokenStoreError({ key, reason: `no new token after ${2 * lease} ms: another process holds the renewal lease` })
          }
          yield* Effect.sleep(poll)
        }
      })

    return TokenStore.of({
      get,
      set: (key, token) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          call(key, "store token", set(`${prefix}token:${key}`, `${prefix}lease:${key}`, encode(token), owner, Math.max(1, Math.ceil(uselessAt(token) - now))))
        ).pipe(Effect.asVoid),
      remove: (key) => call(key, "remove token", redis.send("DEL", `${prefix}token:${key}`)).pipe(Effect.asVoid)
    })
  })

/**
 * {@link make} as a layer, on the `Redis` in context.
 *
 * @example
 * ```ts
 * import { Layer, Redacted } from "effect"
 * import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
 * import * as SharedToken from "@connected-vehicle/fleet/SharedToken"
 *
 * const Store = SharedToken.layer().pipe(Layer.provide(SharedRedis.layer({ url: Redacted.make("redis://127.0.0.1:6379") })))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<TokenStore, FleetError, Redis.Redis> => Layer.effect(TokenStore, make(options))

/**
 * The store on the Redis of `REDIS_URL` (`FleetConfig`) when it is set,
 * else auth's in-memory store (one process: `Session` already renews once
 * per process), with a warning unless `FLEET_STORAGE=memory`.
 *
 * @example
 * ```ts
 * import * as SharedToken from "@connected-vehicle/fleet/SharedToken"
 *
 * // REDIS_URL=redis://cache.internal:6379 node worker.ts
 * const Store = SharedToken.layerConfig()
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (options?: Options): Layer.Layer<TokenStore, FleetError> =>
  SharedRedis.layerChoose(layer(options), layerMemory, "the tokens are")

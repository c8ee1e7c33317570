/**
 * One application token for the whole fleet: a `TokenStore` of
 * `@connected-vehicle/auth` kept in Redis, with a renewal lease. When the
 * `Session` renews a token (due for renewal, or rejected by the service with
 * a 401), it does so through the store's `renewal`: the first process takes
 * the lease (a Redis key with an expiry, extended while its token request
 * runs) and fetches the new token; the others wait for it and use it. So
 * the token endpoint is asked once per renewal across all processes, not
 * once per process, and a user's refresh token (v2.0) is never sent by two
 * processes at once. The waiting is the `Session`'s background renewal:
 * requests go on with the current token while it is valid, in every process.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import { Clock, Duration, Effect, Layer, Option, Redacted, type Scope } from "effect"
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
   * When a token is due for renewal for a caller of `get` without
   * `{ peek: true }` (default 60 seconds; capped at half the token's
   * lifetime). The `Session` does not use it: it renews through `renewal`,
   * which asks the `Session` itself whether a token is due (by
   * `OAuthConfig.refreshAhead`), so the two cannot disagree.
   */
  readonly refreshAhead?: Duration.Input | undefined
  /**
   * How long the lease outlives its holder (default 10 seconds): extended
   * every third of it while the holder's renewal runs, so a renewal may
   * take longer; a holder that dies leaves it to expire, then another
   * process takes over.
   */
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

// how long Redis keeps a token of no more use in `millis`: at least 1 ms,
// at most a year and a day (an expiry Redis can hold, whatever a token says)
const maxKeep = 366 * 86_400_000
const keepFor = (millis: number): number => Number.isNaN(millis) ? maxKeep : Math.min(maxKeep, Math.max(1, Math.ceil(millis)))

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

// the lease, while it is ours: extended by `millis` (a renewal still running), or released
const extendScript = Redis.script((leaseKey: string, owner: string, millis: number) => [leaseKey, owner, millis], {
  numberOfKeys: 1,
  lua: `
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0
`
})
const releaseScript = Redis.script((leaseKey: string, owner: string) => [leaseKey, owner], {
  numberOfKeys: 1,
  lua: `
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0
`
})

/**
 * The store on the `Redis` in context. `get` with `{ peek: true }` (the
 * `Session` handing out a token that is due for renewal but still valid)
 * answers the stored token at once. `renewal` (the `Session`'s renewals)
 * hands the stored token over at once when the `Session`'s `isDue` does not
 * flag it; otherwise it takes the renewal lease, extends it every third of
 * `leaseDuration` while the renewal runs and releases it after (`set`
 * stores the new token and frees the lease in one step), or, while another
 * process holds the lease, waits for that process's token (as long as the
 * lease is held: a holder that dies leaves it to expire). `get` without
 * `peek` (another caller's read before a renewal) does the same with the
 * store's own `refreshAhead` window, keeps the lease it takes until `set`
 * or its expiry, and fails with `TokenStoreError` after twice the lease
 * duration without a new token. A Redis failure is a `TokenStoreError` too.
 * `set` stores a token with an expiry: Redis deletes it once it is of no
 * more use (when its refresh token expires, `refreshExpiresAt`, or 60 days
 * after `expiresAt` when that is unknown; without a refresh token, at
 * `expiresAt`), or after a year and a day at most. An option that is not a duration fails `make` with
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
    const extend = redis.eval(extendScript)
    const release = redis.eval(releaseScript)

    const call = <A>(key: string, what: string, effect: Effect.Effect<A, Redis.RedisError>) =>
      effect.pipe(
        redisCall(what, timeout),
        Effect.mapError((error) => new TokenStoreError({ key, reason: error.description }))
      )

    // for `get`: as `Session` decides by default, the refresh-ahead window, at most half the token's lifetime
    const due = (token: Token, now: number) => {
      const { expiresAt, issuedAt } = token
      const ahead = issuedAt === undefined ? refreshAhead : Math.min(refreshAhead, Math.max(0, expiresAt - issuedAt) / 2)
      return expiresAt - ahead <= now
    }

    const peek = (key: string) => Effect.map(call(key, "read token", redis.send<string | null>("GET", `${prefix}token:${key}`)), decode)

    // the stored token once it is not `isDue`, else with the lease taken
    // (`leased`); while another process holds the lease, waits (at most
    // `maxWait` milliseconds when given)
    const acquire = (key: string, isDue: (token: Token, now: number) => boolean, maxWait: number | undefined) =>
      Effect.gen(function*() {
        const tokenKey = `${prefix}token:${key}`
        const leaseKey = `${prefix}lease:${key}`
        const deadline = maxWait === undefined ? Infinity : (yield* Clock.currentTimeMillis) + maxWait
        while (true) {
          const [text, holder] = yield* call(key, "read token", redis.send<[string | null, string | null]>("MGET", tokenKey, leaseKey))
          const token = decode(text)
          const now = yield* Clock.currentTimeMillis
          if (Option.isSome(token) && !isDue(token.value, now)) return { token, leased: false }
          if (holder === owner) return { token, leased: true }
          if (holder === null) {
            const taken = yield* call(key, "take lease", redis.send<string | null>("SET", leaseKey, owner, "NX", "PX", String(lease)))
            // ours: read again (the previous holder may have stored the new token meanwhile)
            if (taken !== null) return { token: yield* peek(key), leased: true }
          }
          if (now >= deadline) {
            return yield* new TokenStoreError({ key, reason: `no new token after ${maxWait} ms: another process holds the renewal lease` })
          }
          yield* Effect.sleep(poll)
        }
      })

    const get = (key: string, options?: GetOptions): Effect.Effect<Option.Option<Token>, TokenStoreError> =>
      options?.peek === true ? peek(key) : Effect.map(acquire(key, due, 2 * lease), ({ token }) => token)

    // the lease of `key`, ours: extended every third of its duration until the scope closes, then released
    const keep = (key: string): Effect.Effect<void, never, Scope.Scope> => {
      const leaseKey = `${prefix}lease:${key}`
      return Effect.andThen(
        Effect.addFinalizer(() => Effect.ignore(call(key, "release lease", release(leaseKey, owner)))),
        Effect.forkScoped(Effect.forever(
          Effect.andThen(Effect.sleep(Math.max(1, Math.floor(lease / 3))), Effect.ignore(call(key, "extend lease", extend(leaseKey, owner, lease))))
        ))
      )
    }

    const renewal = <A, E, R>(
      key: string,
      isDue: (token: Token, now: number) => boolean,
      use: (current: Option.Option<Token>) => Effect.Effect<A, E, R>
    ): Effect.Effect<A, E | TokenStoreError, R> =>
      Effect.scoped(Effect.gen(function*() {
        const { leased, token } = yield* acquire(key, isDue, undefined)
        if (leased) yield* keep(key)
        return yield* use(token)
      }))

    return TokenStore.of({
      get,
      renewal,
      set: (key, token) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          call(key, "store token", set(`${prefix}token:${key}`, `${prefix}lease:${key}`, encode(token), owner, keepFor(uselessAt(token) - now)))
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

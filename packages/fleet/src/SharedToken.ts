/**
 * One application token for the whole fleet: a `TokenStore` of
 * `@connected-vehicle/auth` kept in Redis, with a renewal lease. When the
 * `Session` renews a token (due for renewal, or rejected by the service with
 * a 401), it does so through the store's `renewal`: the first process takes
 * the lease (a Redis key with an expiry, extended while its token request
 * runs) and fetches the new token; the others wait for it and use it. So
 * the token endpoint is asked once per renewal across all processes, not
 * once per process, and a user's refresh token (v2.0) is not sent by two
 * processes at once while the holder reaches Redis and its renewal ends
 * within `maxRenewal`. A holder cut off from Redis for longer than
 * `leaseDuration` (or whose renewal outlasts `maxRenewal`) loses the lease:
 * another process may then send the same refresh token (the token endpoint
 * refuses one of the two), and the first holder does not store its token
 * over one the other stored. The waiting is the `Session`'s background
 * renewal: requests go on with the current token while it is valid, in
 * every process; a call that waits is bounded by its attempt's timeout and
 * its budget (past them, a `Credentials` reason with that `timeout`).
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"
import { Clock, Context, Duration, Effect, Layer, Option, Redacted, type Scope } from "effect"
import { Redis } from "effect/persistence"
import { type GetOptions, layerMemory, type Token, TokenStore, TokenStoreError } from "@connected-vehicle/auth/TokenStore"
import { Configuration, FleetError } from "./FleetError.ts"
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
   * How long the lease outlives its holder (default 10 seconds; at least
   * three times `timeout`): extended every third of it while the holder's
   * renewal runs (for `maxRenewal` at most), so a renewal may take longer;
   * a holder that dies, hangs or cannot reach Redis leaves it to expire,
   * then another process takes over.
   */
  readonly leaseDuration?: Duration.Input | undefined
  /**
   * How long a holder extends its lease while its renewal runs (default 60
   * seconds, above the token request's own limits: the transport's 30
   * second timeout, no retry): a renewal that hangs longer lets the lease
   * expire (within `leaseDuration`), then another process takes over. A
   * waiting process gives up (`TokenStoreError`) after this plus twice
   * `leaseDuration` without a new token.
   */
  readonly maxRenewal?: Duration.Input | undefined
  /** How often a waiting process looks for the new token (default 50 milliseconds). */
  readonly pollInterval?: Duration.Input | undefined
  /** How long Redis may take to answer one command (default 2 seconds; `leaseDuration` is at least three times it). */
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

// the token (expiring in `millis`), and the lease released when it is ours:
// one atomic step. `guarded` (a renewal's token): stored only while what is
// stored is still `expected` (what the renewal found when it took the lease;
// "" for nothing): another process that took over a lost lease, a sign-in,
// or a sign-out (its removal marker) may have changed it meanwhile, and wins
// (0 answered). Nothing stored where the renewal found a token: stored
// while the lease is still ours (the token expired in Redis: a lease held
// is at most maxRenewal + leaseDuration old, so a sign-out made since the
// renewal took it would still hold its marker), not once it is lost (the
// marker of a sign-out may have expired)
const setScript = Redis.script(
  (tokenKey: string, leaseKey: string, json: string, owner: string, millis: number, guarded: string, expected: string) => [
    tokenKey,
    leaseKey,
    json,
    owner,
    millis,
    guarded,
    expected
  ],
  {
    numberOfKeys: 2,
    lua: `
local ours = redis.call("GET", KEYS[2]) == ARGV[2]
if ARGV[4] == "1" then
  local now = redis.call("GET", KEYS[1])
  if (now and now ~= ARGV[5]) or (not now and ARGV[5] ~= "" and not ours) then
    if ours then redis.call("DEL", KEYS[2]) end
    return 0
  end
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[3])
if ours then redis.call("DEL", KEYS[2]) end
return 1
`
  }
).withReturnType<number>()

// the lease, while it is ours: extended by `millis` (a renewal still running), or released
const extendScript = Redis.script((leaseKey: string, owner: string, millis: number) => [leaseKey, owner, millis], {
  numberOfKeys: 1,
  lua: `
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0
`
}).withReturnType<number>()
const releaseScript = Redis.script((leaseKey: string, owner: string) => [leaseKey, owner], {
  numberOfKeys: 1,
  lua: `
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0
`
})

/** What the store's functions share: its options in milliseconds, its Redis, its owner id. */
interface Store {
  readonly redis: Redis.Redis["Service"]
  readonly prefix: string
  readonly refreshAhead: number
  readonly lease: number
  readonly poll: number
  readonly timeout: number
  readonly maxRenewal: number
  /** This store's id as the holder of a lease. */
  readonly owner: string
}

// the renewal running in this fiber (its `use`): its store, key, and the
// stored token's text when its lease was taken (`""`: none). Only its `set`
// is guarded: a sign-in in another fiber, even while the renewal releases
// its lease, stores whatever is there
const Renewing = Context.Reference<{ readonly store: Store; readonly key: string; readonly expected: string } | undefined>(
  "@connected-vehicle/fleet/SharedToken/Renewing",
  { defaultValue: () => undefined }
)

// what `remove` leaves in place of the token: no token to a reader, and
// never the text a renewal started from (each marker is unique), so that a
// renewal running at a sign-out does not store its token over it
const removalMarker = () => JSON.stringify({ removed: randomUUID() })

/** A Redis command of `key`: a failure (or no answer within the timeout) is a `transient` `TokenStoreError`. */
const call = <A>(store: Store, key: string, what: string, effect: Effect.Effect<A, Redis.RedisError>) =>
  effect.pipe(
    redisCall(what, store.timeout),
    Effect.mapError((error) => new TokenStoreError({ key, reason: error.description, transient: true }))
  )

const read = (store: Store, key: string) => call(store, key, "read token", store.redis.send<string | null>("GET", `${store.prefix}token:${key}`))

/**
 * The stored token once it is not `isDue`, else with the lease taken
 * (`leased`; `text`: what was stored when it was taken); while another
 * process holds the lease, waits, at most `maxWait` milliseconds.
 */
const acquire = (store: Store, key: string, isDue: (token: Token, now: number) => boolean, maxWait: number) =>
  Effect.gen(function*() {
    const { lease, owner, prefix, redis } = store
    const tokenKey = `${prefix}token:${key}`
    const leaseKey = `${prefix}lease:${key}`
    const deadline = (yield* Clock.currentTimeMillis) + maxWait
    while (true) {
      const [text, holder] = yield* call(store, key, "read token", redis.send<[string | null, string | null]>("MGET", tokenKey, leaseKey))
      const token = decode(text)
      const now = yield* Clock.currentTimeMillis
      if (Option.isSome(token) && !isDue(token.value, now)) return { token, text, leased: false }
      if (holder === owner) return { token, text, leased: true }
      if (holder === null) {
        const taken = yield* call(store, key, "take lease", redis.send<string | null>("SET", leaseKey, owner, "NX", "PX", String(lease)))
        // ours: read again (the previous holder may have stored the new token meanwhile)
        if (taken !== null) {
          const text = yield* read(store, key)
          return { token: decode(text), text, leased: true }
        }
      }
      if (now >= deadline) {
        return yield* new TokenStoreError({ key, reason: `no new token after ${maxWait} ms: another process holds the renewal lease`, transient: true })
      }
      yield* Effect.sleep(store.poll)
    }
  })

/**
 * The lease of `key`, ours: extended every third of its duration until the
 * scope closes or `maxRenewal` has passed (a holder whose renewal hangs lets
 * it expire, and another process takes over), then released. An extension
 * that fails is logged; one that finds the lease lost is logged and the last.
 */
const keep = (store: Store, key: string): Effect.Effect<void, never, Scope.Scope> => {
  const leaseKey = `${store.prefix}lease:${key}`
  const extend = store.redis.eval(extendScript)
  const release = store.redis.eval(releaseScript)
  // until the lease is found lost (no longer ours: nothing left to extend)
  const extending: Effect.Effect<void> = Effect.andThen(
    Effect.sleep(Math.max(1, Math.floor(store.lease / 3))),
    Effect.matchEffect(call(store, key, "extend lease", extend(leaseKey, store.owner, store.lease)), {
      onFailure: (error) => Effect.andThen(Effect.logWarning("the renewal lease could not be extended: another process may take it over", error), extending),
      onSuccess: (extended) => extended === 1 ? extending : Effect.logWarning("the renewal lease was lost: another process may renew meanwhile")
    })
  )
  const stop = Effect.logWarning(`the renewal still runs after ${store.maxRenewal} ms (maxRenewal): its lease is no longer extended`)
  return Effect.andThen(
    Effect.addFinalizer(() => Effect.ignore(call(store, key, "release lease", release(leaseKey, store.owner)))),
    Effect.forkScoped(Effect.raceFirst(extending, Effect.andThen(Effect.sleep(store.maxRenewal), stop)).pipe(Effect.annotateLogs({ key })))
  )
}

/** `TokenStore.renewal`: `use` with the stored token, with the lease (see {@link make}). */
const renewalOf = (store: Store) =>
<A, E, R>(
  key: string,
  isDue: (token: Token, now: number) => boolean,
  use: (current: Option.Option<Token>) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | TokenStoreError, R> =>
  Effect.scoped(Effect.gen(function*() {
    // a holder extends its lease for `maxRenewal` at most, then it expires within a lease duration
    const { leased, text, token } = yield* acquire(store, key, isDue, store.maxRenewal + 2 * store.lease)
    if (!leased) return yield* use(token)
    yield* keep(store, key)
    return yield* Effect.provideService(use(token), Renewing, { store, key, expected: text ?? "" })
  }))

/** `TokenStore.set`: stored with its expiry; a renewal's token is not stored over a newer one. */
const setOf = (store: Store) => {
  const set = store.redis.eval(setScript)
  return (key: string, token: Token) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const renewing = yield* Renewing
      const expected = renewing !== undefined && renewing.store === store && renewing.key === key ? renewing.expected : undefined
      const tokenKey = `${store.prefix}token:${key}`
      const millis = keepFor(uselessAt(token) - now)
      const stored = yield* call(
        store,
        key,
        "store token",
        set(tokenKey, `${store.prefix}lease:${key}`, encode(token), store.owner, millis, expected === undefined ? "0" : "1", expected ?? "")
      )
      if (stored === 0) {
        yield* Effect.logWarning("the renewed token is not stored: the stored token changed meanwhile (another process renewed after this one's lease expired, a sign-in, or a sign-out), and is kept").pipe(
          Effect.annotateLogs({ key })
        )
      }
    })
}

/**
 * The store on the `Redis` in context. `get` with `{ peek: true }` (the
 * `Session` handing out a token that is due for renewal but still valid)
 * answers the stored token at once. `renewal` (the `Session`'s renewals)
 * hands the stored token over at once when the `Session`'s `isDue` does not
 * flag it; otherwise it takes the renewal lease, extends it every third of
 * `leaseDuration` while the renewal runs (for `maxRenewal` at most) and
 * releases it after (`set` stores the new token and frees the lease in one
 * step), or, while another process holds the lease, waits for that
 * process's token (failing with `TokenStoreError` after `maxRenewal` plus
 * twice `leaseDuration`: a holder that dies or hangs leaves its lease to
 * expire). A renewal's `set` does not store over a token another process
 * stored meanwhile (one that took over a lease this process lost, or a
 * sign-in), nor over a sign-out made since the renewal took its lease:
 * `remove` leaves a removal marker in place of the token (read as no
 * token; kept for `maxRenewal` plus twice `leaseDuration`), which the
 * renewal's store step finds changed. Where the renewal found a token and
 * nothing at all is stored, it stores its token only while its lease is
 * still its own (the token expired in Redis meanwhile: a lease is held for
 * at most `maxRenewal` plus one `leaseDuration`, so a sign-out made since
 * would still hold its marker), never after losing it (a marker may have
 * expired: the sign-out wins, its token is lost); a renewal that found
 * nothing stores over nothing. Only the `set`
 * of the renewal's own fiber (its `use`) is guarded: a sign-in in another
 * fiber of the process, even while the renewal releases its lease, stores
 * whatever is there. A Redis failure or timeout is a `transient`
 * `TokenStoreError` (retried by the call), as is giving up on another
 * process's renewal; a stored value that is not a token reads as none. `get` without
 * `peek` (another caller's read before a renewal) does the same with the
 * store's own `refreshAhead` window, keeps the lease it takes until `set`
 * or its expiry, and fails with `TokenStoreError` after twice the lease
 * duration without a new token.
 * `set` stores a token with an expiry: Redis deletes it once it is of no
 * more use (when its refresh token expires, `refreshExpiresAt`, or 60 days
 * after `expiresAt` when that is unknown; without a refresh token, at
 * `expiresAt`), or after a year and a day at most. An option that is not a
 * duration, or a `leaseDuration` under three times `timeout`, fails `make`
 * with `FleetError` `Configuration` naming it.
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
    const store: Store = {
      redis: yield* Redis.Redis,
      prefix: options?.prefix ?? "connected-vehicle:",
      refreshAhead: yield* millis("refreshAhead", options?.refreshAhead, "60 seconds", "zero allowed"),
      lease: yield* millis("leaseDuration", options?.leaseDuration, "10 seconds"),
      poll: yield* millis("pollInterval", options?.pollInterval, "50 millis"),
      timeout: yield* millis("timeout", options?.timeout, "2 seconds"),
      maxRenewal: yield* millis("maxRenewal", options?.maxRenewal, "60 seconds"),
      owner: randomUUID()
    }
    if (store.lease < 3 * store.timeout) {
      return yield* new FleetError({
        reason: new Configuration({
          description: `leaseDuration: expected at least three times timeout (${3 * store.timeout} ms), got ${store.lease} ms: an extension that takes as long as Redis may answer would let the lease expire`
        })
      })
    }
    // for `get`: as `Session` decides by default, the refresh-ahead window, at most half the token's lifetime
    const due = (token: Token, now: number) => {
      const { expiresAt, issuedAt } = token
      const ahead = issuedAt === undefined ? store.refreshAhead : Math.min(store.refreshAhead, Math.max(0, expiresAt - issuedAt) / 2)
      return expiresAt - ahead <= now
    }
    const get = (key: string, options?: GetOptions): Effect.Effect<Option.Option<Token>, TokenStoreError> =>
      options?.peek === true ? Effect.map(read(store, key), decode) : Effect.map(acquire(store, key, due, 2 * store.lease), ({ token }) => token)
    return TokenStore.of({
      get,
      renewal: renewalOf(store),
      set: setOf(store),
      // the removal marker outlives any lease a renewal may still hold (maxRenewal, then one lease
      // duration): a renewal that stores later finds nothing where it found a token, and stores nothing
      remove: (key) =>
        call(store, key, "remove token", store.redis.send("SET", `${store.prefix}token:${key}`, removalMarker(), "PX", String(store.maxRenewal + 2 * store.lease)))
          .pipe(Effect.asVoid)
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

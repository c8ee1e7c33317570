/**
 * Holds: "send nothing for this key before then", set when the service
 * answered 429 with `retry-after`, read before every request. In Redis a
 * hold is a key with an expiry (`PTTL` is what is left of it, on the Redis
 * server's clock, so the processes' clocks need not agree); in memory, an
 * instant on Effect's `Clock`. No hold is ever longer than the cap
 * (`maxHold`): a longer one is cut to it when set, and when read (one set
 * by a process with a longer cap).
 */
import { Clock, Effect } from "effect"
import { Redis } from "effect/persistence"
import { FleetError, RedisUnavailable } from "../FleetError.ts"

export interface Holds {
  /** Holds `key` for `millis` from now, unless it is already held longer. */
  readonly hold: (key: string, millis: number) => Effect.Effect<void, FleetError>
  /** Milliseconds until the last of `keys` is free (0: none is held). */
  readonly remaining: (keys: ReadonlyArray<string>) => Effect.Effect<number, FleetError>
}

export const makeMemory = (capMillis: number): Effect.Effect<Holds> => Effect.sync(() => {
  const until = new Map<string, number>()
  return {
    hold: (key, millis) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          const end = now + Math.min(millis, capMillis)
          if ((until.get(key) ?? 0) < end) until.set(key, end)
        })),
    remaining: (keys) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        let wait = 0
        for (const key of keys) {
          const end = until.get(key)
          if (end === undefined) continue
          if (end <= now) until.delete(key)
          else wait = Math.max(wait, Math.min(end - now, capMillis))
        }
        return wait
      })
  }
})

const holdScript = Redis.script((key: string, millis: number) => [key, millis], {
  numberOfKeys: 1,
  lua: `
local left = redis.call("PTTL", KEYS[1])
if left < tonumber(ARGV[1]) then
  redis.call("SET", KEYS[1], "1", "PX", ARGV[1])
end
return 1
`
})

// a hold left longer than the cap (set by a process with a longer one) is cut to it
const remainingScript = Redis.script((capMillis: number, ...keys: ReadonlyArray<string>) => [...keys, capMillis], {
  numberOfKeys: (_capMillis, ...keys) => keys.length,
  lua: `
local cap = tonumber(ARGV[1])
local wait = 0
for _, key in ipairs(KEYS) do
  local left = redis.call("PTTL", key)
  if left > cap then
    redis.call("PEXPIRE", key, cap)
    left = cap
  end
  if left > wait then wait = left end
end
return wait
`
}).withReturnType<number>()

/** A failure of Redis (or no answer within `timeout`) as `FleetError` `RedisUnavailable`. */
export const redisCall = <A>(what: string, timeoutMillis: number) => <E>(effect: Effect.Effect<A, E>) =>
  effect.pipe(
    Effect.timeoutOrElse({
      duration: timeoutMillis,
      orElse: () => Effect.fail(new FleetError({ reason: new RedisUnavailable({ description: `${what}: no answer from Redis within ${timeoutMillis} ms` }) }))
    }),
    Effect.mapError((cause) =>
      cause instanceof FleetError
        ? cause
        : new FleetError({ reason: new RedisUnavailable({ description: `${what} in Redis: ${messageOf(cause)}`, cause }) })
    )
  )

/**
 * Redis' own words: the message of the deepest `Error` down `error`'s
 * causes that has one, or a string cause; an error without a `cause` is
 * followed through its `reason` (a `RateLimiterError` says only which
 * command failed, its reason's cause what Redis answered: `READONLY`,
 * `OOM`...). At most `maxDepth` steps down (a cycle ends there too).
 */
const messageOf = (error: unknown, maxDepth = 8): string => {
  let message = error instanceof Error ? error.message : String(error)
  let current = error
  for (let depth = 0; depth < maxDepth; depth++) {
    const next = below(current)
    if (next === undefined) break
    if (!(next instanceof Error)) return typeof next === "string" && next !== "" ? next : message
    if (next.message !== "") message = next.message
    current = next
  }
  return message
}

const below = (error: unknown): unknown => {
  if (typeof error !== "object" || error === null) return undefined
  const cause = "cause" in error ? error.cause : undefined
  if (cause !== undefined && cause !== null) return cause
  const reason = "reason" in error ? error.reason : undefined
  return reason instanceof Error ? reason : undefined
}

export const makeRedis = (prefix: string, timeoutMillis: number, capMillis: number): Effect.Effect<Holds, never, Redis.Redis> =>
  Effect.map(Effect.service(Redis.Redis), (redis) => {
    const hold = redis.eval(holdScript)
    const remaining = redis.eval(remainingScript)
    const cap = Math.max(1, Math.ceil(capMillis))
    return {
      hold: (key, millis) => hold(prefix + key, Math.max(1, Math.min(cap, Math.ceil(millis)))).pipe(redisCall("hold", timeoutMillis)),
      remaining: (keys) =>
        remaining(cap, ...keys.map((key) => prefix + key)).pipe(Effect.map(Number), redisCall("read holds", timeoutMillis))
    }
  })

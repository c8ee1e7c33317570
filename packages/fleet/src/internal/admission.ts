/**
 * When a request may be sent: its keys (its vehicle, the application), a
 * slot of each from the `RateLimiter` (a key's slots are `spacing` apart,
 * so at most `limit` fall in any `window + margin`), and the holds of 429s.
 */
import { Clock, Duration, Effect } from "effect"
import type { HttpClientRequest } from "effect/http"
import type { RateLimiter } from "effect/persistence"
import { Configuration, FleetError } from "../FleetError.ts"
import type { Holds } from "./holds.ts"
import { redisCall } from "./holds.ts"
import { millis } from "./options.ts"
import { entriesOf, isMetered, vehicleOf } from "./requests.ts"

/** A limit: at most `limit` requests in any `window`. */
export interface Limit {
  readonly limit: number
  readonly window: Duration.Input
}

export interface Key {
  readonly name: string
  /** Milliseconds between two slots of the key. */
  readonly spacing: number
  /** How late after its slot a request may still be sent. */
  readonly tolerance: number
  readonly tokens: number
}

export interface Policy {
  readonly spacing: number
  readonly tolerance: number
}

export const policyOf = (
  name: string,
  limit: Limit | false | undefined,
  fallback: Limit,
  margin: Duration.Input | undefined
): Effect.Effect<Policy | undefined, FleetError> =>
  Effect.gen(function*() {
    if (limit === false) return undefined
    const { limit: count, window } = limit ?? fallback
    const windowMillis = yield* millis(`${name}.window`, window, window)
    const marginMillis = margin === undefined ? windowMillis / 5 : yield* millis("margin", margin, margin, "zero allowed")
    if (!Number.isInteger(count) || count < 1) {
      return yield* new FleetError({ reason: new Configuration({ description: `${name}.limit: expected a positive integer, got ${count}` }) })
    }
    return { spacing: (windowMillis + marginMillis) / count, tolerance: marginMillis / 2 }
  })

/** What a request waits for: a slot of each of its `keys`, and no hold on any of `holds`. */
export interface Admission {
  readonly keys: ReadonlyArray<Key>
  readonly holds: ReadonlyArray<string>
}

/**
 * The keys a request consumes from, in the order they are reserved (the
 * application's first), and the holds it respects: its vehicle's and the
 * application's, with or without a limit of our own on them (a 429 holds
 * them all the same); `undefined` when the service does not meter it.
 */
export const keysOf = (vehicle: Policy | undefined, application: Policy | undefined) =>
(request: HttpClientRequest.HttpClientRequest): Admission | undefined => {
  if (!isMetered(request)) return undefined
  const keys: Array<Key> = []
  const holds = ["application"]
  if (application !== undefined) keys.push({ name: "application", ...application, tokens: 1 })
  const id = vehicleOf(request)
  if (id !== undefined) {
    holds.push(`vehicle:${id}`)
    if (vehicle !== undefined) keys.push({ name: `vehicle:${id}`, ...vehicle, tokens: entriesOf(request) })
  }
  return { keys, holds }
}

/**
 * Waits until a request may be sent: no hold on any of its `holds`, and a
 * slot of each of its `keys`, all within their tolerance.
 */
export const make = (limiter: RateLimiter.RateLimiter, holds: Holds, timeout: number) => {
  const reserve = reserveWith(limiter, timeout)
  const admitKeys = ({ holds: names, keys }: Admission): Effect.Effect<void, FleetError> =>
    Effect.gen(function*() {
      while (true) {
        const held = yield* holds.remaining(names)
        if (held > 0) {
          yield* Effect.sleep(held)
          continue
        }
        const slots = yield* reserveInTurn(keys)
        const slept = yield* untilAllSlots(keys, slots)
        // a 429 may have arrived while this request waited for its slots
        if (!slept || (yield* holds.remaining(names)) === 0) return
      }
    })

  // the application first, the vehicle reserved just before the application's slot: under a backlog of the
  // application, a vehicle's slot reserved at once would be too early for it, and taking a later one (a whole
  // vehicle spacing on) would throw the application's slot away, again and again, every process's requests
  // wasting the application's slots until its backlog outgrew the calls' budget; a vehicle rarely has a backlog
  const reserveInTurn = (keys: ReadonlyArray<Key>) =>
    Effect.gen(function*() {
      const slots: Array<number> = []
      for (const key of keys) {
        if (slots.length > 0) {
          const wait = Math.max(...slots) - key.tolerance - (yield* Clock.currentTimeMillis)
          if (wait > 0) yield* Effect.sleep(wait)
        }
        slots.push(yield* reserve(key))
      }
      return slots
    })

  // sleeps until the latest slot; a key whose slot is further than its tolerance before it is reserved
  // again just before (at the latest slot less its tolerance), so that its new slot lands within reach
  const untilAllSlots = (keys: ReadonlyArray<Key>, slots: Array<number>) =>
    Effect.gen(function*() {
      for (let round = 0; round < 50; round++) {
        const target = Math.max(...slots)
        const late = keys.flatMap((key, i) => target - slots[i]! > key.tolerance ? [i] : [])
        if (late.length === 0) break
        const wake = target - Math.min(...late.map((i) => keys[i]!.tolerance)) - (yield* Clock.currentTimeMillis)
        if (wake > 0) yield* Effect.sleep(wake)
        const again = yield* Effect.forEach(late, (i) => reserve(keys[i]!), { concurrency: "unbounded" })
        late.forEach((i, j) => (slots[i] = again[j]!))
      }
      const wait = Math.max(...slots) - (yield* Clock.currentTimeMillis)
      if (wait > 0) yield* Effect.sleep(wait)
      return wait > 0
    })

  return admitKeys
}

// the slot of a key for this request: `tokens` of them in the middle of `2 * tokens - 1` reserved, as a local instant
const reserveWith = (limiter: RateLimiter.RateLimiter, timeout: number) => (key: Key): Effect.Effect<number, FleetError> =>
  limiter.consume({ key: key.name, algorithm: "fixed-window", onExceeded: "delay", limit: 1, window: key.spacing, tokens: 2 * key.tokens - 1 }).pipe(
    redisCall(`rate limit of ${key.name}`, timeout),
    Effect.flatMap((result) =>
      Effect.map(Clock.currentTimeMillis, (now) => now + Duration.toMillis(result.delay) - (key.tokens - 1) * key.spacing)
    )
  )


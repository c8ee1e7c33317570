/**
 * The `KeyValueStore` store's marks and its background sweep of expired
 * ones.
 *
 * @internal
 */
import { Clock, Effect, Option, Schema, type Semaphore } from "effect"
import type { KeyValueStore } from "effect/persistence"

const Mark = Schema.fromJsonString(Schema.Struct({
  state: Schema.Literals(["in-flight", "done"]),
  expiresAt: Schema.Finite,
  owner: Schema.optionalKey(Schema.String)
}))
const decodeMark = Schema.decodeUnknownOption(Mark)
export const encodeMark = Schema.encodeSync(Mark)

/** The rest of an earlier version's handled mark's key after the prefix: the end of its window (epoch milliseconds), `/`, the event's key. */
const windowed = /^(\d{1,16})\/./

export const readMark = (kv: KeyValueStore.KeyValueStore) => (key: string) =>
  Effect.map(kv.get(key), (text) => text === undefined ? undefined : Option.getOrUndefined(decodeMark(text)))

/** How many expired keys a sweep removes at once. */
const sweepConcurrency = 8

/**
 * How long after its expiry a mark is left for a sweep to remove (at most a
 * tenth of the store's TTL): past the service's retries of an event (minutes:
 * with a TTL of 40 minutes or more), so that no claim of another process
 * replaces a mark between a sweep's last read of it and its removal (the
 * backend has no compare-and-delete; the lock is one process's). An expired
 * mark claims as none whether or not it is still there.
 *
 * @internal
 */
export const sweepGraceMillis = 10 * 60_000

interface Store {
  readonly kv: KeyValueStore.KeyValueStore
  readonly prefix: string
  readonly lock: Semaphore.Semaphore
  readonly known: Set<number>
}

/**
 * Lists the backend's keys (all of them: `KeyValueStore.keys` has no
 * prefix), notes the windows (of earlier versions) under the prefix still
 * open, and gives the removal of the windows that ended and of the expired
 * marks, `sweepConcurrency` at a time, once `grace` past their expiry
 * ({@link sweepGraceMillis}). A mark is read without the lock (most are live), and read
 * again under it before its removal (a claim of this process may have
 * replaced it meanwhile; one of another process, long after the event's
 * last retry, cannot).
 */
const list = (store: Store, now: number, grace: number) =>
  Effect.map(store.kv.keys, (keys) => {
    const { kv, known, lock, prefix } = store
    const read = readMark(kv)
    const expired = (key: string) => Effect.map(read(key), (mark) => mark !== undefined && mark.expiresAt + grace <= now)
    const removals: Array<Effect.Effect<void, KeyValueStore.KeyValueStoreError>> = []
    for (const key of keys) {
      if (!key.startsWith(prefix)) continue
      const rest = key.slice(prefix.length)
      const window = windowed.exec(rest)
      if (window !== null) {
        const end = Number(window[1])
        if (end <= now) removals.push(kv.remove(key))
        else known.add(end)
      } else if (!rest.includes("/")) {
        const remove = lock.withPermit(Effect.flatMap(expired(key), (still) => still ? kv.remove(key) : Effect.void))
        removals.push(Effect.flatMap(expired(key), (was) => was ? remove : Effect.void))
      }
    }
    return Effect.forEach(removals, (remove) => remove, { concurrency: sweepConcurrency, discard: true })
  })

/** Runs a sweep's work in the background: in the layer's scope, or detached. */
export type Background = (sweep: Effect.Effect<void>) => Effect.Effect<unknown>

/**
 * The sweeps of a store, at most one per `width` milliseconds and never two
 * at once. `first` lists the backend (so the windows of earlier versions'
 * marks, of other options too, are read from the first claim on) and removes
 * the expired keys in the background; `maybe`, run by every claim, starts a
 * whole sweep in the background when one is due: a claim never waits for it.
 * Best effort: a failure is logged.
 */
export const sweeper = (store: Store, width: number, background: Background) => {
  let nextSweep = 0
  let running = false
  const begin = (now: number) => {
    nextSweep = now + width
    running = true
  }
  const finish = <E>(work: Effect.Effect<void, E>) =>
    work.pipe(
      Effect.ignore({ log: "Warn", message: "The seen-events store could not remove expired marks" }),
      Effect.ensuring(Effect.sync(() => void (running = false)))
    )
  const first = Effect.flatMap(Clock.currentTimeMillis, (now) => {
    begin(now)
    return list(store, now, Math.min(sweepGraceMillis, width / 5)).pipe(
      Effect.flatMap((removal) => background(finish(removal))),
      Effect.catchCause((cause) => finish(Effect.failCause(cause)))
    )
  })
  const maybe = Effect.flatMap(Clock.currentTimeMillis, (now) => {
    if (running || now < nextSweep) return Effect.void
    begin(now)
    return background(finish(Effect.flatten(list(store, now, Math.min(sweepGraceMillis, width / 5)))))
  })
  return { first, maybe }
}

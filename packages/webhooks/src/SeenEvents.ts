/**
 * The idempotency store of a receiver: which `eventId`s were handled (the
 * service delivers at least once and keeps `eventId` across retries), and
 * which are being handled right now (so two concurrent deliveries of one
 * event never both run the handler).
 *
 * An event is *claimed* before its handler runs, *completed* after the handler
 * succeeded (then it is a duplicate for `ttl`), and *released* when the
 * handler failed (so the service's retry runs it again). A claim names its
 * *owner* (the receiver gives each delivery its own), and a release only
 * forgets the in-flight mark of the same owner: a handler that outlived its
 * mark (the `KeyValueStore` store's `inFlightTimeout`) and then fails leaves
 * the mark of the delivery that claimed the event after it.
 *
 * @since 0.1.0
 */
import { Clock, Context, Duration, Effect, Layer, Schema, Semaphore } from "effect"
import { KeyValueStore } from "effect/persistence"
import { createHash } from "node:crypto"
import { type Background, encodeMark, readMark, sweeper } from "./internal/marks.ts"
import { count, maxStoreMillis, millis } from "./internal/options.ts"

/**
 * What {@link SeenEventsStore.claim} found: `claimed` (run the handler),
 * `duplicate` (handled before, within the TTL) or `in-flight` (another
 * delivery of the same event is being handled).
 *
 * @example
 * ```ts
 * import type { Claim } from "@connected-vehicle/webhooks/SeenEvents"
 *
 * const runHandler = (claim: Claim): boolean => claim === "claimed"
 * ```
 * @category models
 * @since 0.1.0
 */
export type Claim = "claimed" | "duplicate" | "in-flight"

/**
 * The store failed (a persistent store's backend is unreachable, for one).
 *
 * @example
 * ```ts
 * import type { SeenEventsError } from "@connected-vehicle/webhooks/SeenEvents"
 *
 * const explain = (e: SeenEventsError) => `${e.operation} ${e.eventId}`
 * ```
 * @category errors
 * @since 0.1.0
 */
export class SeenEventsError extends Schema.TaggedError<SeenEventsError>()("SeenEventsError", {
  operation: Schema.Literals(["claim", "complete", "release"]),
  eventId: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {
  override get message() {
    return `The seen-events store failed to ${this.operation} event ${this.eventId}`
  }
}

/**
 * The operations of a seen-events store.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SeenEvents } from "@connected-vehicle/webhooks/SeenEvents"
 *
 * const handleOnce = (eventId: string, handler: Effect.Effect<void>) =>
 *   Effect.gen(function*() {
 *     const store = yield* SeenEvents
 *     const owner = crypto.randomUUID()
 *     if ((yield* store.claim(eventId, owner)) !== "claimed") return
 *     yield* handler.pipe(Effect.onExit((exit) => exit._tag === "Success" ? store.complete(eventId, owner) : store.release(eventId, owner)))
 *   })
 * ```
 * @category models
 * @since 0.1.0
 */
export interface SeenEventsStore {
  /**
   * Marks the event in flight for `owner` unless it is in flight or was
   * handled already. `owner` (since 0.2.0) identifies the claimant to
   * {@link SeenEventsStore.release}; without one, the claimant is anonymous.
   */
  readonly claim: (eventId: string, owner?: string) => Effect.Effect<Claim, SeenEventsError>
  /**
   * The handler succeeded: the event is a duplicate from now on (for the
   * TTL), whoever holds its in-flight mark (it was handled).
   */
  readonly complete: (eventId: string, owner?: string) => Effect.Effect<void, SeenEventsError>
  /**
   * The handler failed: forget the claim so a retry runs the handler again.
   * With `owner`, the in-flight mark of that owner, or an anonymous one (a
   * claim made without an owner: a wrapper written for the previous
   * interface); without it (a caller written for the previous interface),
   * any in-flight mark, as before.
   */
  readonly release: (eventId: string, owner?: string) => Effect.Effect<void, SeenEventsError>
}

/**
 * The seen-events store a receiver uses.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SeenEvents } from "@connected-vehicle/webhooks/SeenEvents"
 *
 * const claim = (eventId: string) =>
 *   Effect.gen(function*() {
 *     const store = yield* SeenEvents
 *     return yield* store.claim(eventId)
 *   })
 * ```
 * @category services
 * @since 0.1.0
 */
export class SeenEvents extends Context.Service<SeenEvents, SeenEventsStore>()(
  "@connected-vehicle/webhooks/SeenEvents"
) {}

/**
 * How long a handled `eventId` is remembered by default: 24 hours (the
 * service's retries end about 3 minutes after the first attempt).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { defaultTtl } from "@connected-vehicle/webhooks/SeenEvents"
 *
 * Duration.toHours(defaultTtl) // 24
 * ```
 * @category constants
 * @since 0.1.0
 */
export const defaultTtl: Duration.Duration = Duration.hours(24)

/**
 * @example
 * ```ts
 * import { layerMemory } from "@connected-vehicle/webhooks/SeenEvents"
 *
 * const SeenEventsLive = layerMemory({ ttl: "12 hours", maxEntries: 10_000 })
 * ```
 * @category models
 * @since 0.1.0
 */
export interface MemoryOptions {
  /** How long a handled event stays a duplicate (default {@link defaultTtl}): a positive duration of at most 100 years (36500 days). */
  readonly ttl?: Duration.Input | undefined
  /**
   * At most this many handled events are remembered, the oldest forgotten
   * first (default 100,000): a finite number of at least 1 (a fraction is
   * rounded down).
   */
  readonly maxEntries?: number | undefined
}

type MemoryEntry =
  | { readonly inFlight: true; readonly owner: string | undefined }
  | { readonly inFlight: false; readonly expiresAt: number }

/**
 * An in-memory store (per process) on Effect's `Clock`: expired entries are
 * dropped as new events arrive. Throws an `InvalidArgument` naming the option
 * when `ttl` or `maxEntries` is given but is not what it means (`NaN`, zero,
 * `Infinity`, not a duration, over 100 years), when called.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { makeMemory } from "@connected-vehicle/webhooks/SeenEvents"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* makeMemory({ ttl: "1 hour" })
 *   yield* store.claim("evt_1") // "claimed"
 * })
 * ```
 * @category constructors
 * @since 0.1.0
 */
export const makeMemory = (options?: MemoryOptions): Effect.Effect<SeenEventsStore> => {
  const ttl = millis("ttl", options?.ttl, defaultTtl, maxStoreMillis)
  const maxEntries = count("maxEntries", options?.maxEntries, 100_000)
  return Effect.sync(() => {
    // Handled entries are (re)inserted when completed, so the map's order is
    // their expiry order: pruning stops at the first live one.
    const entries = new Map<string, MemoryEntry>()
    let handled = 0
    const prune = (now: number) => {
      for (const [eventId, entry] of entries) {
        if (entry.inFlight) continue
        if (entry.expiresAt > now && handled <= maxEntries) break
        entries.delete(eventId)
        handled--
      }
    }
    const forget = (eventId: string) => {
      const entry = entries.get(eventId)
      if (entry !== undefined) {
        entries.delete(eventId)
        if (!entry.inFlight) handled--
      }
    }
    return SeenEvents.of({
      claim: (eventId, owner) =>
        Effect.map(Clock.currentTimeMillis, (now): Claim => {
          prune(now)
          const entry = entries.get(eventId)
          if (entry !== undefined) {
            if (entry.inFlight) return "in-flight"
            if (entry.expiresAt > now) return "duplicate"
            forget(eventId)
          }
          entries.set(eventId, { inFlight: true, owner })
          return "claimed"
        }),
      complete: (eventId) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          forget(eventId)
          entries.set(eventId, { inFlight: false, expiresAt: now + ttl })
          handled++
          prune(now)
        }),
      release: (eventId, owner) =>
        Effect.sync(() => {
          const entry = entries.get(eventId)
          if (entry?.inFlight === true && (owner === undefined || entry.owner === undefined || entry.owner === owner)) entries.delete(eventId)
        })
    })
  })
}

/**
 * The in-memory store as a layer.
 *
 * @example
 * ```ts
 * import { layerMemory } from "@connected-vehicle/webhooks/SeenEvents"
 *
 * const SeenEventsLive = layerMemory({ ttl: "12 hours" })
 * ```
 * @category layers
 * @since 0.1.0
 */
export const layerMemory = (options?: MemoryOptions): Layer.Layer<SeenEvents> =>
  Layer.effect(SeenEvents, makeMemory(options))

/**
 * @example
 * ```ts
 * import { layerKeyValueStore } from "@connected-vehicle/webhooks/SeenEvents"
 *
 * const SeenEventsLive = layerKeyValueStore({ ttl: "24 hours", inFlightTimeout: "5 minutes", prefix: "seen/" })
 * ```
 * @category models
 * @since 0.1.0
 */
export interface KeyValueStoreOptions {
  /** How long a handled event stays a duplicate (default {@link defaultTtl}): a positive duration of at most 100 years (36500 days). */
  readonly ttl?: Duration.Input | undefined
  /**
   * How long an in-flight mark holds when it is never completed nor released
   * (the process died while handling): default 60 seconds, so the service's
   * next retry can run the handler. A handler running longer than this can
   * run twice (a retry after the mark expired runs it again meanwhile): keep
   * it above the handler's longest run. A positive duration of at most 100
   * years (36500 days).
   */
  readonly inFlightTimeout?: Duration.Input | undefined
  /**
   * Prefix of the store's keys (default `"webhooks/seen/"`): an event's mark
   * (in flight or handled) is kept under the prefix and the event's
   * {@link keyOf} (at most 128 characters). The keys under the prefix belong
   * to the store (expired ones are removed). A file system store makes a key
   * a file name (URI-encoded, at most 255 bytes): keep the prefix short
   * there.
   */
  readonly prefix?: string | undefined
}

/**
 * Ids kept as they are: short, of characters a file name or URI keeps as
 * they are, and not dots only (`.` and `..` name no file).
 */
const plainId = /^(?!\.+$)[A-Za-z0-9_.~-]{1,128}$/

/**
 * The part of a `KeyValueStore` key that names an event: the `eventId`
 * itself when it is at most 128 characters of `A-Z a-z 0-9 _ . ~ -`, not
 * dots only (the service's ids, UUIDs, are), otherwise `sha256:` and the 64
 * lowercase hex digits of the SHA-256 of its UTF-8 bytes. So every `eventId`
 * a receiver accepts (up to 256 characters, any text) fits every backend,
 * the file system's 255-byte file names included (with any prefix, the
 * empty one too: `.` and `..` are hashed), and a hashed key (with its `:`)
 * is never a plain id.
 *
 * @example
 * ```ts
 * import { keyOf } from "@connected-vehicle/webhooks/SeenEvents"
 *
 * keyOf("0f8fad5b-d9cb-469f-a165-70867728950e") // "0f8fad5b-d9cb-469f-a165-70867728950e"
 * keyOf("€".repeat(30)) // "sha256:" followed by 64 hex digits
 * keyOf("..") // "sha256:" followed by 64 hex digits
 * ```
 * @category utils
 * @since 0.2.0
 */
export const keyOf = (eventId: string): string =>
  plainId.test(eventId) ? eventId : `sha256:${createHash("sha256").update(eventId, "utf8").digest("hex")}`


/**
 * A store persisted in Effect's `KeyValueStore` (a file system, SQL or any
 * other backend of `effect/persistence`), so duplicates are recognised
 * across restarts and by every process on the backend. An event has one
 * entry, the prefix and {@link keyOf} the `eventId`: its in-flight mark
 * while it is handled, then its handled mark, which holds when it expires
 * (the `ttl` of the store that completed it). So an event handled by one
 * process is a duplicate for every process on the backend, whatever their
 * own `ttl` (a deploy that changes it), until that `ttl` passed. A sweep
 * lists every key of the backend (`KeyValueStore.keys` has no prefix, so its
 * cost grows with everything the backend holds: give the store a backend or
 * namespace of its own), reads the marks under the prefix and removes the
 * ones expired a grace ago (a tenth of the TTL, at most 10 minutes: so that
 * no other process's claim of an event it retries lands between a sweep's
 * read and its removal; with a TTL of 40 minutes or more, the grace outlasts
 * the service's retries), 8 at a time, so the backend keeps the events of
 * about the last TTL and a half and that grace (the longest of the stores on
 * it; the keys under the prefix are the store's). Building the store waits for one
 * listing (its reads and removals run in the background); after that, at
 * most once per half TTL a claim starts a sweep in the background, never two
 * at once, and no claim waits for one. This constructor runs the background
 * work detached (it ends after one sweep; a failure is logged);
 * {@link layerKeyValueStore} runs it in the layer's scope. Handled marks
 * written by earlier versions are still read: under the prefix and
 * {@link keyOf}, and under the prefix, the end of a time window (epoch
 * milliseconds), `/` and {@link keyOf} (a claim reads the windows of its own
 * TTL and those a sweep found, about three keys); a sweep removes them once
 * expired. Claims are atomic within one store instance: an adapter given a
 * layer builds its own, so adapters sharing a backend share one built store
 * (`Layer.succeed`); processes sharing a backend may both run the handler of
 * an event delivered to each at the same instant. Throws an
 * `InvalidArgument` naming the option when `ttl` or `inFlightTimeout` is
 * given but is not a positive duration of at most 100 years (36500 days),
 * when called.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { KeyValueStore } from "effect/persistence"
 * import { makeKeyValueStore } from "@connected-vehicle/webhooks/SeenEvents"
 *
 * const store = makeKeyValueStore({ ttl: "24 hours" }).pipe(Effect.provide(KeyValueStore.layerMemory))
 * ```
 * @category constructors
 * @since 0.1.0
 */
export const makeKeyValueStore = (
  options?: KeyValueStoreOptions
): Effect.Effect<SeenEventsStore, never, KeyValueStore.KeyValueStore> => keyValueStore(options)((run) => Effect.forkDetach(run))

/** Checks the options when called; the store, given where its sweeps run. */
const keyValueStore = (options: KeyValueStoreOptions | undefined) => {
  const ttl = millis("ttl", options?.ttl, defaultTtl, maxStoreMillis)
  const inFlightTimeout = millis("inFlightTimeout", options?.inFlightTimeout, Duration.seconds(60), maxStoreMillis)
  const prefix = options?.prefix ?? "webhooks/seen/"
  const width = Math.max(1, Math.ceil(ttl / 2))
  return (background: Background): Effect.Effect<SeenEventsStore, never, KeyValueStore.KeyValueStore> =>
    Effect.gen(function*() {
      const kv = yield* KeyValueStore.KeyValueStore
      const lock = Semaphore.makeUnsafe(1)
      // the windows of earlier versions' handled marks found by a sweep (of
      // other options too), read until they end
      const known = new Set<number>()
      const failed = (operation: SeenEventsError["operation"], eventId: string) => (cause: unknown) =>
        new SeenEventsError({ operation, eventId, cause })
      const read = readMark(kv)
      const handledBefore = windowedMarks(read, prefix, ttl, width, known)
      const sweeps = sweeper({ kv, prefix, lock, known }, width, background)
      yield* sweeps.first
      const claim = (eventId: string, owner: string | undefined) =>
        Effect.gen(function*() {
          const key = prefix + keyOf(eventId)
          const now = yield* Clock.currentTimeMillis
          const mark = yield* read(key)
          const live = mark !== undefined && mark.expiresAt > now
          if (live && mark.state === "done") return "duplicate" as const
          if (yield* handledBefore(eventId, now)) return "duplicate" as const
          if (live) return "in-flight" as const
          const expiresAt = now + inFlightTimeout
          yield* kv.set(key, encodeMark(owner === undefined ? { state: "in-flight", expiresAt } : { state: "in-flight", expiresAt, owner }))
          return "claimed" as const
        })
      return SeenEvents.of({
        claim: (eventId, owner) =>
          Effect.andThen(sweeps.maybe, lock.withPermit(claim(eventId, owner))).pipe(Effect.mapError(failed("claim", eventId))),
        complete: (eventId) =>
          lock.withPermit(Effect.gen(function*() {
            const expiresAt = (yield* Clock.currentTimeMillis) + ttl
            yield* kv.set(prefix + keyOf(eventId), encodeMark({ state: "done", expiresAt }))
          })).pipe(Effect.mapError(failed("complete", eventId))),
        release: (eventId, owner) => {
          const key = prefix + keyOf(eventId)
          return lock.withPermit(Effect.gen(function*() {
            const mark = yield* read(key)
            if (mark?.state === "in-flight" && (owner === undefined || mark.owner === undefined || mark.owner === owner)) yield* kv.remove(key)
          })).pipe(Effect.mapError(failed("release", eventId)))
        }
      })
    })
}

/**
 * Whether an earlier version's handled mark of the event, in a time window
 * of half its TTL, holds at `now`: those of this TTL's windows still open
 * (another process of an earlier version may be writing them) and of the
 * windows a sweep found.
 */
const windowedMarks = (read: ReturnType<typeof readMark>, prefix: string, ttl: number, width: number, known: Set<number>) => {
  /** The end of the window holding marks that expire at `expiresAt` (after it). */
  const endOf = (expiresAt: number) => (Math.floor(expiresAt / width) + 1) * width
  const windowsAt = (now: number) => {
    const ends = new Set<number>()
    for (let end = endOf(now); end <= endOf(now + ttl); end += width) ends.add(end)
    for (const end of known) end > now ? ends.add(end) : known.delete(end)
    return ends
  }
  return (eventId: string, now: number) =>
    Effect.gen(function*() {
      for (const end of windowsAt(now)) {
        const mark = yield* read(`${prefix}${end}/${keyOf(eventId)}`)
        if (mark?.state === "done" && mark.expiresAt > now) return true
      }
      return false
    })
}

/**
 * The `KeyValueStore`-backed store as a layer: {@link makeKeyValueStore},
 * whose background sweeps run in the layer's scope (one still running when
 * the layer is released is interrupted).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { KeyValueStore } from "effect/persistence"
 * import { layerKeyValueStore } from "@connected-vehicle/webhooks/SeenEvents"
 *
 * const SeenEventsLive = layerKeyValueStore().pipe(Layer.provide(KeyValueStore.layerMemory))
 * ```
 * @category layers
 * @since 0.1.0
 */
export const layerKeyValueStore = (
  options?: KeyValueStoreOptions
): Layer.Layer<SeenEvents, never, KeyValueStore.KeyValueStore> => {
  const make = keyValueStore(options)
  return Layer.effect(SeenEvents, Effect.flatMap(Effect.scope, (scope) => make((run) => Effect.forkIn(run, scope))))
}

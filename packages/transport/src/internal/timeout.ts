/**
 * An attempt's timeout: the attempt in a fiber of its own, its deadline kept
 * with those of every other attempt in flight on the same `Clock`, and one
 * fiber sleeping on that `Clock` until the earliest of them.
 *
 * `Effect.timeoutOrElse` races the effect against a sleeping fiber of its own
 * and leaves that fiber to be interrupted, and waited for, when the calling
 * fiber ends. A fiber and a timer per attempt cost about 0.05x of a raw
 * undici request on a loopback call (`docs/upstream.md`); here an attempt
 * costs its fiber and an entry in a heap. The sleeping fiber is started when
 * a deadline comes before the one it sleeps until (or none sleeps), and
 * stops when it finds no deadline left, or once no attempt was in flight for
 * `idleMillis` of real time (an unreferenced timer: it never keeps an idle
 * process alive longer than that).
 * Unlike `Effect.timeoutOrElse`, an attempt that ends at the very instant of
 * its limit (a tie, on `TestClock`) times out when the shared sleep was
 * registered before the attempt's own.
 *
 * @internal
 */
import { Clock, Duration, Effect, Fiber } from "effect"
import type { Context } from "effect"

/** A deadline in flight: `fire` until it fired or its attempt ended. */
interface Entry {
  readonly deadline: number
  fire: (() => void) | undefined
}

/** `f` after the current turn of the event loop (cleanup, not timing: no `Clock`). */
const later: (f: () => void) => void = typeof globalThis.setImmediate === "function"
  ? (f) => void globalThis.setImmediate(f)
  : (f) => void globalThis.setTimeout(f, 0)

/**
 * How long the sleeper is kept once no attempt is in flight, in real
 * milliseconds from the last attempt's end: calls that come in a burst, with
 * other work between them, share it rather than stop and start it again
 * (which cost tens of microseconds per call of such a workload:
 * `docs/upstream.md`). The wait is an unreferenced timer: an idle process
 * still exits, at most this long after its last attempt.
 */
let idleMillis = 20

/**
 * Sets how long the sleeper is kept once idle (tests); returns the former value.
 *
 * @internal
 */
export const setIdleMillis = (millis: number): number => {
  const former = idleMillis
  idleMillis = millis
  return former
}

/** Real milliseconds, for the idle wait only (cleanup, not timing: no `Clock`). */
const realNow: () => number = typeof globalThis.performance?.now === "function" ? () => globalThis.performance.now() : Date.now

/** `f` after `millis` of real time, without keeping the process alive. */
const after = (millis: number, f: () => void): void => {
  const timer: unknown = globalThis.setTimeout(f, millis)
  if (typeof timer === "object" && timer !== null && "unref" in timer && typeof timer.unref === "function") timer.unref()
}

/**
 * The deadlines of the attempts in flight on one `Clock`, and the fiber
 * sleeping until the earliest. Deadlines are instants of the `Clock`'s time
 * (`currentTimeMillisUnsafe`), as the call's budget is.
 */
class Deadlines {
  private heap: Array<Entry> = []
  /** Entries in the heap still to fire. */
  private live = 0
  private sleeper: Fiber.Fiber<void> | undefined = undefined
  /** The deadline the sleeper sleeps until (`Infinity`: none sleeps). */
  private wakeAt = Infinity
  /** Bumped whenever a sleeper is replaced or stopped: an older one ends at its next step. */
  private generation = 0
  private firing = false
  /** An idle check is pending; `idleSince`: when the last attempt in flight ended (real time). */
  private idleCheck = false
  private idleSince = 0

  private readonly clock: Clock.Clock

  constructor(clock: Clock.Clock) {
    this.clock = clock
  }

  add(deadline: number, fire: () => void, context: Context.Context<never>): Entry {
    const entry: Entry = { deadline, fire }
    push(this.heap, entry)
    this.live++
    // while deadlines fire, the sleeper picks the next one itself
    if (!this.firing && deadline < this.wakeAt) this.arm(context)
    return entry
  }

  /** Whether `entry` was still to fire (it no longer is). */
  cancel(entry: Entry): boolean {
    if (entry.fire === undefined) return false
    entry.fire = undefined
    this.live--
    if (this.heap.length >= 64 && this.heap.length > 4 * this.live) this.heap = heapOf(this.heap.filter((e) => e.fire !== undefined))
    if (this.live === 0 && this.sleeper !== undefined) {
      // the next attempt usually comes soon (a loop or a burst of calls):
      // the sleeper is kept for it rather than stopped and started again
      this.idleSince = realNow()
      if (!this.idleCheck) {
        this.idleCheck = true
        this.stopWhenIdle(idleMillis)
      }
    }
    return true
  }

  /** Stops the sleeper once no attempt was in flight for `idleMillis` (counted from the last one's end). */
  private stopWhenIdle(wait: number) {
    after(wait, () => {
      if (this.live !== 0 || this.sleeper === undefined) {
        // in use again (its next idle moment checks anew), or already ended
        this.idleCheck = false
        return
      }
      const left = this.idleSince + idleMillis - realNow()
      if (left > 0) return this.stopWhenIdle(left)
      this.idleCheck = false
      this.stop()
    })
  }

  private stop() {
    this.generation++
    this.sleeper?.interruptUnsafe()
    this.sleeper = undefined
    this.wakeAt = Infinity
    this.heap = []
  }

  private arm(context: Context.Context<never>) {
    if (!Number.isFinite(this.heap[0]!.deadline)) return
    const generation = ++this.generation
    this.sleeper?.interruptUnsafe()
    this.sleeper = undefined
    const sleeper = Effect.runForkWith(context)(this.loop(generation))
    if (generation !== this.generation) return
    if (sleeper.pollUnsafe() !== undefined) {
      // over at once: no deadline left, or a `Clock` whose sleep failed
      this.wakeAt = Infinity
      return
    }
    this.sleeper = sleeper
    // one that ends otherwise than by the loop (a `Clock` whose sleep fails)
    // lets the next deadline start another (the deadlines in flight wait for
    // it: such a `Clock` is broken)
    sleeper.addObserver(() => {
      if (this.sleeper !== sleeper) return
      this.sleeper = undefined
      this.wakeAt = Infinity
    })
  }

  /** Fires every deadline reached, then sleeps until the next one, if any. */
  private loop(generation: number): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (generation !== this.generation) return Effect.void
      const thrown = this.fireDue(this.clock.currentTimeMillisUnsafe())
      // what a caller's code threw once resumed surfaces as it would have
      // from a timer of its own, and the other deadlines keep their sleeper
      for (const error of thrown) later(() => { throw error })
      if (generation !== this.generation) return Effect.void
      const next = this.heap[0]
      if (next === undefined || !Number.isFinite(next.deadline)) {
        this.sleeper = undefined
        this.wakeAt = Infinity
        return Effect.void
      }
      this.wakeAt = next.deadline
      // the time again: the callers resumed above ran in this loop
      const left = next.deadline - this.clock.currentTimeMillisUnsafe()
      return Effect.andThen(this.clock.sleep(Duration.millis(Math.max(0, left))), this.loop(generation))
    })
  }

  /** Fires the deadlines reached at `now`; what their callers threw. */
  private fireDue(now: number): Array<unknown> {
    const thrown: Array<unknown> = []
    this.firing = true
    try {
      // `this.heap`, not a copy: a deadline's attempt may end others (and compact it)
      while (this.heap.length > 0 && (this.heap[0]!.fire === undefined || this.heap[0]!.deadline <= now)) {
        const entry = pop(this.heap)
        const fire = entry.fire
        if (fire === undefined) continue
        entry.fire = undefined
        this.live--
        try {
          fire()
        } catch (error) {
          thrown.push(error)
        }
      }
    } finally {
      this.firing = false
    }
    return thrown
  }
}

const byClock = new WeakMap<Clock.Clock, Deadlines>()

const deadlinesOf = (clock: Clock.Clock): Deadlines => {
  let deadlines = byClock.get(clock)
  if (deadlines === undefined) byClock.set(clock, deadlines = new Deadlines(clock))
  return deadlines
}

/**
 * `self`, or `onTimeout()` when `self` has not ended within `millis` by the
 * calling fiber's `Clock`. `self` is interrupted then, and when the caller is
 * interrupted; its finalizers have run before either is over.
 *
 * @internal
 */
export const timeoutOrElse = <A, E, A2, E2>(
  self: Effect.Effect<A, E>,
  millis: number,
  onTimeout: () => Effect.Effect<A2, E2>
): Effect.Effect<A | A2, E | E2> => Effect.withFiber((parent) => timeoutIn(parent, parent.getRef(Clock.Clock), self, millis, onTimeout))

/**
 * {@link timeoutOrElse} run by `parent`, whose `Clock` is `clock` (for a
 * caller that has them at hand); `self` runs with `context` (by default the
 * parent's), and `onInterrupted` runs once `self` is over when the caller is
 * interrupted (as `onTimeout` does when the limit is reached; a caller
 * interrupted while `onTimeout` runs has both run).
 *
 * @internal
 */
export const timeoutIn = <A, E, A2, E2>(
  parent: Fiber.Fiber<unknown, unknown>,
  clock: Clock.Clock,
  self: Effect.Effect<A, E>,
  millis: number,
  onTimeout: () => Effect.Effect<A2, E2>,
  context: Context.Context<never> = parent.context,
  onInterrupted?: () => Effect.Effect<void>
): Effect.Effect<A | A2, E | E2> =>
  Effect.callback<A | A2, E | E2>((resume) => {
    const work = Effect.runForkWith(context)(self)
    // over at once (an invalid request, say): no deadline
    const exit = work.pollUnsafe()
    if (exit !== undefined) return resume(exit)
    const deadlines = deadlinesOf(clock)
    // a limit that is not a number is none (`NaN` would hold the heap's top)
    const deadline = clock.currentTimeMillisUnsafe() + (Number.isNaN(millis) ? Infinity : Math.max(0, millis))
    const entry = deadlines.add(deadline, () => {
      work.interruptUnsafe(parent.id)
      resume(Effect.andThen(Fiber.await(work), Effect.suspend(onTimeout)))
    }, parent.context)
    work.addObserver((exit) => {
      if (deadlines.cancel(entry)) resume(exit)
    })
    return Effect.suspend(() => {
      deadlines.cancel(entry)
      work.interruptUnsafe(parent.id)
      return onInterrupted === undefined ? Fiber.await(work) : Effect.andThen(Fiber.await(work), Effect.suspend(onInterrupted))
    })
  })

// a binary min-heap of entries by deadline

const less = (heap: Array<Entry>, i: number, j: number) => heap[i]!.deadline < heap[j]!.deadline

const swap = (heap: Array<Entry>, i: number, j: number) => {
  const t = heap[i]!
  heap[i] = heap[j]!
  heap[j] = t
}

const up = (heap: Array<Entry>, i: number) => {
  while (i > 0) {
    const parent = (i - 1) >> 1
    if (!less(heap, i, parent)) return
    swap(heap, i, parent)
    i = parent
  }
}

const down = (heap: Array<Entry>, i: number) => {
  for (;;) {
    const l = 2 * i + 1
    const r = l + 1
    let m = i
    if (l < heap.length && less(heap, l, m)) m = l
    if (r < heap.length && less(heap, r, m)) m = r
    if (m === i) return
    swap(heap, i, m)
    i = m
  }
}

const push = (heap: Array<Entry>, entry: Entry) => {
  heap.push(entry)
  up(heap, heap.length - 1)
}

const pop = (heap: Array<Entry>): Entry => {
  const top = heap[0]!
  const last = heap.pop()!
  if (heap.length > 0) {
    heap[0] = last
    down(heap, 0)
  }
  return top
}

const heapOf = (entries: Array<Entry>): Array<Entry> => {
  for (let i = (entries.length >> 1) - 1; i >= 0; i--) down(entries, i)
  return entries
}

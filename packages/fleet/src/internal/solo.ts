/**
 * Running a suspect alone: the workers of one queue in this process take
 * events through a gate. A suspect (an event whose previous attempt had no
 * outcome: it may be what crashed its process) runs with no other handler
 * of theirs running: the gate closes (no loop takes a new event), the loops
 * waiting for one stop waiting (an event claimed meanwhile is released,
 * uncounted), the handlers running end, then the suspect runs; the gate
 * opens when it ends. A second suspect claimed meanwhile is released
 * (uncounted) and taken again later, alone in its turn. So when a suspect
 * kills its process, it dies alone: no event beside it loses an attempt.
 *
 * @internal
 */
import { Effect, Exit, Fiber } from "effect"
import type { Service as EventQueue } from "../EventQueue.ts"

/** One take through the gate: whether its event was claimed (`entered`), and whether it stepped aside for a suspect. */
export interface Ticket {
  entered: boolean
  aside: boolean
}

interface Waiting {
  readonly ticket: Ticket
  readonly fiber: Fiber.Fiber<unknown, unknown>
}

/** @internal */
export class Gate {
  /** A suspect holds the gate (waiting for the handlers running to end, or running). */
  soloing = false
  /** Takes whose event was claimed and not yet settled by the store. */
  entered = 0
  /** Takes waiting for an event. */
  readonly waiting = new Set<Waiting>()
  private readonly wakers = new Set<() => void>()

  notify(): void {
    for (const wake of [...this.wakers]) wake()
  }

  /** Waits until `ready` holds (checked now and on each change). */
  until(ready: () => boolean): Effect.Effect<void> {
    return Effect.callback<void>((resume) => {
      const check = () => {
        if (!ready()) return
        this.wakers.delete(check)
        resume(Effect.void)
      }
      this.wakers.add(check)
      check()
      return Effect.sync(() => void this.wakers.delete(check))
    })
  }
}

const gates = new WeakMap<EventQueue, Gate>()

/** The gate of `queue`'s workers in this process. @internal */
export const gateOf = (queue: EventQueue): Gate => {
  let gate = gates.get(queue)
  if (gate === undefined) gates.set(queue, gate = new Gate())
  return gate
}

/**
 * One take through `gate`: waits while a suspect holds it, then runs
 * `take` in a fiber of its own (`enter` must run first thing once an event
 * is claimed). Answers the take's exit, or `undefined` when it stepped aside
 * for a suspect (its event, if any, released uncounted). Interrupted, it
 * interrupts the take and waits for it (the store releases the event).
 *
 * @internal
 */
export const gatedTake = <A, E, R>(
  gate: Gate,
  take: (enter: Effect.Effect<void>, ticket: Ticket) => Effect.Effect<A, E, R>
): Effect.Effect<Exit.Exit<A, E> | undefined, never, R> =>
  Effect.gen(function*() {
    yield* gate.until(() => !gate.soloing)
    const ticket: Ticket = { entered: false, aside: false }
    let waiting: Waiting | undefined
    const enter = Effect.sync(() => {
      ticket.entered = true
      gate.entered++
      if (waiting !== undefined) gate.waiting.delete(waiting)
    })
    const fiber = yield* Effect.forkChild(take(enter, ticket))
    if (!ticket.entered) gate.waiting.add(waiting = { ticket, fiber })
    const exit = yield* Fiber.await(fiber).pipe(
      Effect.onInterrupt(() => Fiber.interrupt(fiber)),
      Effect.ensuring(Effect.sync(() => {
        if (waiting !== undefined) gate.waiting.delete(waiting)
        if (ticket.entered) gate.entered--
        gate.notify()
      }))
    )
    return ticket.aside && Exit.isFailure(exit) ? undefined : exit
  })

/**
 * Runs `run` (a suspect's attempt, its event claimed by the take of
 * `ticket`) alone among the takes of `gate`: see the module. When another
 * suspect holds the gate, steps aside instead (an interruption: the store
 * releases the event uncounted).
 *
 * @internal
 */
export const solo = <A, E, R>(gate: Gate, ticket: Ticket, run: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    if (gate.soloing) {
      ticket.aside = true
      return Effect.interrupt
    }
    gate.soloing = true
    const waiting = [...gate.waiting]
    gate.waiting.clear()
    for (const { ticket } of waiting) ticket.aside = true
    return Effect.forEach(waiting, ({ fiber }) => Fiber.interrupt(fiber), { concurrency: "unbounded", discard: true }).pipe(
      Effect.andThen(gate.until(() => gate.entered <= 1)),
      Effect.andThen(run),
      Effect.ensuring(Effect.sync(() => {
        gate.soloing = false
        gate.notify()
      }))
    )
  })

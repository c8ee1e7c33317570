/**
 * A poison event: its handler crashes the worker process, taking the events
 * running beside it down too. On the project's real Postgres, with the
 * worker in a child process (`processes/poison-worker.ts`) started again
 * after each crash, as a supervisor would: only the poison event becomes a
 * dead letter; the events that died beside it run alone in their turn and
 * are handled.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted, Schema } from "effect"
import { DeadLetters } from "@connected-vehicle/fleet/DeadLetters"
import { EventQueue, QueuedEvent } from "@connected-vehicle/fleet/EventQueue"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import { start } from "./children.ts"
import { stateEvent } from "./fixtures.ts"
import { freshDatabase, query } from "./utils.ts"

/** Runs one worker process until it exits or `done` holds (checked every 200 ms); answers its output and whether it exited. */
const cycle = (url: Redacted.Redacted<string>, done: Effect.Effect<boolean>, n: number) =>
  Effect.scoped(Effect.gen(function*() {
    const child = yield* start(`worker ${n}`, "poison-worker", { DATABASE_URL: Redacted.value(url), MAX_ATTEMPTS: "2", POISON: "p_1" })
    const exited = () => child.process.exitCode !== null || child.process.signalCode !== null
    while (!exited() && !(yield* done)) yield* Effect.sleep("200 millis")
    return exited()
  }))

describe("a poison event on Postgres", () => {
  it.live("a handler crashing its process: only its event is a dead letter (it died alone); the events beside it are handled", () =>
    Effect.gen(function*() {
      const url = freshDatabase("poison")
      const services = yield* Layer.build(Ingestion.layerPostgres({ url, maxConnections: 2, maxAttempts: 2 }))
      const queue = Context.get(services, EventQueue)
      for (const id of ["p_1", "p_2", "p_3"]) yield* queue.offer(Schema.decodeUnknownSync(QueuedEvent)(stateEvent(id)))
      const states = query<{ id: string; state: string }>(url, "SELECT id, state FROM effect_queue ORDER BY id")
      const done = Effect.map(states, (rows) => rows.every((row) => row.state !== "pending"))
      let crashes = 0
      for (let n = 1; n <= 10 && !(yield* done); n++) {
        if (yield* cycle(url, done, n)) crashes++
      }
      assert.deepStrictEqual(yield* states, [{ id: "p_1", state: "completed" }, { id: "p_2", state: "completed" }, { id: "p_3", state: "completed" }])
      const letters = yield* Context.get(services, DeadLetters).list()
      assert.deepStrictEqual(letters.map((letter) => letter.eventId), ["p_1"])
      assert.include(letters[0]!.cause, "no outcome, alone")
      assert.include(letters[0]!.cause, "2 of its attempts ended so")
      // the crash beside the others did not count: one beside, two alone
      assert.strictEqual(letters[0]!.attempts, 3)
      assert.strictEqual(crashes, 3)
      // the marks of the finished events are gone
      assert.deepStrictEqual(yield* query(url, "SELECT id FROM fleet_attempts"), [])
    }).pipe(Effect.scoped), 120_000)
})

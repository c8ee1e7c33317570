/**
 * Durable ingestion on the project's real Postgres (see `globalSetup.ts`),
 * over real loopback HTTP: each test has a database of its own. The tests
 * marked `concurrent` (mostly waiting: for a killed worker's lock to expire,
 * for the retention to pass) run at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeHttpServer } from "@effect/platform-node"
import { spawn } from "node:child_process"
import { createServer } from "node:http"
import { join } from "node:path"
import { Context, Deferred, Effect, Fiber, Layer, Option, Redacted, Ref, Schedule, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "@connected-vehicle/fleet/Database"
import { DeadLetters } from "@connected-vehicle/fleet/DeadLetters"
import * as DurableReceiver from "@connected-vehicle/fleet/DurableReceiver"
import * as Ingestion from "@connected-vehicle/fleet/Ingestion"
import { EventQueue, QueuedEvent } from "@connected-vehicle/fleet/EventQueue"
import * as Worker from "@connected-vehicle/fleet/Worker"
import { delivery, post, secret, stateEvent } from "./fixtures.ts"
import { freezableProxy } from "./proxy.ts"
import { freshDatabase } from "./utils.ts"

const fast = { pollInterval: "100 millis", lockRefreshInterval: "500 millis", lockExpiration: "2 seconds" } as const

/** Runs alongside the adjacent tests marked so (see above). */
const concurrent = true

/** One instance of a deployment: its own pool and ingestion services, built into the test's scope. */
const instance = (url: Redacted.Redacted<string>, options?: Ingestion.SqlOptions) =>
  Layer.build(Ingestion.layerPostgres({ ...fast, ...options, url, maxConnections: 4 }))

/** A receiver of `instance` on 127.0.0.1 (a free port): its URL. */
const serve = (url: Redacted.Redacted<string>) =>
  Effect.gen(function*() {
    const services = yield* instance(url)
    const receiver = yield* Effect.provideContext(DurableReceiver.make({ secret }), services)
    const server = yield* NodeHttpServer.make(() => createServer(), { port: 0, host: "127.0.0.1", gracefulShutdownTimeout: 0 })
    yield* server.serve(receiver.httpEffect)
    return `http://127.0.0.1:${server.address._tag === "UnixPathAddress" ? 0 : server.address.port}/webhooks`
  })

/** Rows of a query on `url`, through a short-lived client. */
const query = <A extends object>(url: Redacted.Redacted<string>, text: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(text)).pipe(
    Effect.provide(Database.layer({ url, maxConnections: 1 })),
    Effect.orDie
  )

const eventually = <E, R>(check: Effect.Effect<boolean, E, R>, timeoutMs = 15_000) =>
  check.pipe(Effect.repeat({ until: (ok) => ok, schedule: Schedule.spaced("50 millis") }), Effect.timeout(timeoutMs), Effect.asVoid)

describe("ingestion on Postgres", () => {
  it.live("the same event posted to two receivers, several times, is answered 200 and stored once", () =>
    Effect.gen(function*() {
      const url = freshDatabase("dedup")
      const [a, b] = yield* Effect.all([serve(url), serve(url)], { concurrency: 2 })
      const answers = yield* Effect.promise(() =>
        Promise.all([a, b, a, b].map((target) => post(target, stateEvent("evt_dup"))).concat(post(b, stateEvent("evt_other"))))
      )
      assert.deepStrictEqual(answers.map((answer) => answer.status), [200, 200, 200, 200, 200])
      const rows = yield* query<{ id: string; n: string }>(url, "SELECT id, count(*) AS n FROM effect_queue GROUP BY id ORDER BY id")
      assert.deepStrictEqual(rows.map((row) => [row.id, Number(row.n)]), [["evt_dup", 1], ["evt_other", 1]])

      // nothing acknowledged that is not stored: without the queue's table, a delivery is answered 500 (the service retries)
      yield* query(url, "DROP TABLE effect_queue")
      const refused = yield* Effect.promise(() => post(a, stateEvent("evt_lost")))
      assert.strictEqual(refused.status, 500)
    }).pipe(Effect.scoped), 60_000)

  it.live("a failing handler is retried with backoff, dead-lettered with its cause, listed and replayed by another instance", () =>
    Effect.gen(function*() {
      const url = freshDatabase("dead")
      const receiverUrl = yield* serve(url)
      const runs = yield* Ref.make<ReadonlyArray<number>>([])
      const healthy = yield* Ref.make(false)
      const handled = yield* Deferred.make<string>()
      const worker = yield* instance(url, { maxAttempts: 2, retrySchedule: Schedule.spaced("1 millis") })
      yield* Effect.forkScoped(Effect.provideContext(
        Worker.run({
          handler: (event, taken) =>
            Effect.gen(function*() {
              yield* Ref.update(runs, (all) => [...all, taken.attempts])
              if (yield* Ref.get(healthy)) return yield* Deferred.succeed(handled, event.eventId)
              return yield* Effect.fail(new Error(`vehicle registry unavailable for ${event.eventType === "VEHICLE_STATE" ? event.vehicleId : "?"}`))
            })
        }),
        worker
      ))
      assert.strictEqual((yield* Effect.promise(() => post(receiverUrl, stateEvent("evt_poison", "veh_9")))).status, 200)

      const other = yield* instance(url)
      const letters = Effect.flatMap(Effect.provideContext(DeadLetters, other), (store) => store.list())
      yield* eventually(Effect.map(letters, (list) => list.length === 1))
      const [letter] = yield* letters
      assert.strictEqual(letter!.eventId, "evt_poison")
      assert.strictEqual(letter!.event.eventType, "VEHICLE_STATE")
      assert.strictEqual(letter!.attempts, 2)
      assert.include(letter!.cause, "vehicle registry unavailable for veh_9")
      assert.deepStrictEqual(yield* Ref.get(runs), [1, 2])

      yield* Ref.set(healthy, true)
      const id = yield* Effect.provideContext(Ingestion.replay("evt_poison"), other)
      assert.strictEqual(id, "evt_poison:replay:1")
      assert.strictEqual(yield* Deferred.await(handled).pipe(Effect.timeout("10 seconds")), "evt_poison")
      assert.deepStrictEqual(yield* letters, [])
      const rows = yield* query<{ status: string; replays: number }>(url, "SELECT status, replays FROM fleet_dead_letters")
      assert.deepStrictEqual(rows.map((row) => [row.status, Number(row.replays)]), [["replayed", 1]])
    }).pipe(Effect.scoped), 60_000)

  it.live("an eventId of 256 characters (the longest a receiver takes) is stored once, handled with its id, dead-lettered and replayed", () =>
    Effect.gen(function*() {
      const url = freshDatabase("longid")
      const receiverUrl = yield* serve(url)
      const eventId = `evt_${"é".repeat(100)}${"x".repeat(152)}`
      assert.strictEqual(eventId.length, 256)
      const answers = yield* Effect.promise(() => Promise.all([post(receiverUrl, stateEvent(eventId)), post(receiverUrl, stateEvent(eventId))]))
      assert.deepStrictEqual(answers.map((answer) => answer.status), [200, 200])
      const rows = yield* query<{ id: string }>(url, "SELECT id FROM effect_queue")
      assert.deepStrictEqual(rows.map((row) => row.id.startsWith("sha256:") && row.id.length === 71), [true])
      const healthy = yield* Ref.make(false)
      const handled = yield* Deferred.make<string>()
      const worker = yield* instance(url, { maxAttempts: 1 })
      yield* Effect.forkScoped(Effect.provideContext(
        Worker.run({
          handler: (event) =>
            Effect.flatMap(Ref.get(healthy), (ok) => ok ? Deferred.succeed(handled, event.eventId) : Effect.fail(new Error("not yet")))
        }),
        worker
      ))
      const letters = Effect.flatMap(Effect.provideContext(DeadLetters, worker), (store) => store.list())
      yield* eventually(Effect.map(letters, (list) => list.length === 1))
      assert.strictEqual((yield* letters)[0]!.eventId, eventId)
      yield* Ref.set(healthy, true)
      const id = yield* Effect.provideContext(Ingestion.replay(eventId), worker)
      assert.match(id, /^sha256:[0-9a-f]{64}$/)
      assert.strictEqual(yield* Deferred.await(handled).pipe(Effect.timeout("10 seconds")), eventId)
    }).pipe(Effect.scoped), 60_000)

  it.live("an event whose worker process was killed mid-handler is taken again by another worker after the lock expires", () =>
    Effect.gen(function*() {
      const { url } = yield* takenByKilledWorker("evt_crash")
      const again = yield* Deferred.make<number>()
      const survivor = yield* instance(url)
      yield* Effect.forkScoped(Effect.provideContext(
        Worker.run({ handler: (_event, taken) => Deferred.succeed(again, taken.attempts) }),
        survivor
      ))
      assert.strictEqual(yield* Deferred.await(again).pipe(Effect.timeout("15 seconds")), 2)
    }).pipe(Effect.scoped), { timeout: 60_000, concurrent })

  it.live("a worker process stopped with SIGTERM mid-handler: the handler interrupted, the event released uncounted and taken again at once, completed once", () =>
    Effect.gen(function*() {
      const { output, url } = yield* takenByKilledWorker("evt_term", "SIGTERM")
      assert.include(output, "interrupted evt_term")
      // released by the stopping worker (not left to its lock's expiry): unlocked, its attempt not counted
      const [row] = yield* query<{ state: string; attempts: number; acquired_by: string | null }>(
        url,
        "SELECT state, attempts, acquired_by FROM effect_queue WHERE id = 'evt_term'"
      )
      assert.deepStrictEqual({ ...row, attempts: Number(row!.attempts) }, { state: "pending", attempts: 0, acquired_by: null })
      const runs = yield* Ref.make<ReadonlyArray<number>>([])
      const survivor = yield* instance(url)
      yield* Effect.forkScoped(Effect.provideContext(Worker.run({ handler: (_event, taken) => Ref.update(runs, (all) => [...all, taken.attempts]) }), survivor))
      const state = query<{ state: string }>(url, "SELECT state FROM effect_queue WHERE id = 'evt_term'")
      yield* eventually(Effect.map(state, (rows) => rows[0]?.state === "completed"), 5_000)
      yield* Effect.sleep("500 millis")
      assert.deepStrictEqual(yield* Ref.get(runs), [1])
    }).pipe(Effect.scoped), { timeout: 60_000, concurrent })

  it.live("an event whose last attempt had no outcome (its worker died) runs again alone; that attempt did not count (maxAttempts 1)", () =>
    Effect.gen(function*() {
      const { url } = yield* takenByKilledWorker("evt_crash_loop")
      const runs = yield* Ref.make<ReadonlyArray<number | string>>([])
      const survivor = yield* instance(url, { maxAttempts: 1 })
      const marks = query<{ attempt: number; mark: string }>(url, "SELECT attempt, mark FROM fleet_attempts")
      yield* Effect.forkScoped(Effect.provideContext(
        Worker.run({
          handler: (_event, taken) =>
            Effect.andThen(marks, (rows) => Ref.update(runs, (all) => [...all, taken.attempts, ...rows.map((row) => `${row.attempt} ${row.mark}`)]))
        }),
        survivor
      ))
      const state = query<{ state: string }>(url, "SELECT state FROM effect_queue WHERE id = 'evt_crash_loop'")
      yield* eventually(Effect.map(state, (rows) => rows[0]?.state === "completed"))
      // marked alone before its run; the marks removed once it was handled
      assert.deepStrictEqual(yield* Ref.get(runs), [2, "2 alone"])
      assert.deepStrictEqual(yield* marks, [])
      assert.deepStrictEqual(yield* Effect.flatMap(Effect.provideContext(DeadLetters, survivor), (store) => store.list()), [])
    }).pipe(Effect.scoped), { timeout: 60_000, concurrent })

  it.live("the marks of past attempts unreadable: a retried event runs with every take counted, to its dead letter; a fresh event behind it is handled", () =>
    Effect.gen(function*() {
      const url = freshDatabase("marks_unread")
      const worker = yield* instance(url, { maxAttempts: 2, retrySchedule: Schedule.spaced("100 millis") })
      // the marks' table gone (the store failing for them), from before the first run
      yield* query(url, "ALTER TABLE fleet_attempts RENAME TO fleet_attempts_away")
      const runs = yield* Ref.make<ReadonlyArray<string>>([])
      yield* Effect.forkScoped(Effect.provideContext(
        Worker.run({
          handler: (event) =>
            Effect.andThen(
              Ref.update(runs, (all) => [...all, event.eventId]),
              event.eventId === "evt_bad" ? Effect.fail(new Error("registry down")) : Effect.void
            )
        }),
        worker
      ))
      const queue = Context.get(worker, EventQueue)
      yield* queue.offer(Schema.decodeUnknownSync(QueuedEvent)(stateEvent("evt_bad")))
      yield* eventually(Effect.map(Ref.get(runs), (all) => all.length >= 1))
      yield* queue.offer(Schema.decodeUnknownSync(QueuedEvent)(stateEvent("evt_fresh")))
      const letters = Effect.flatMap(Effect.provideContext(DeadLetters, worker), (store) => store.list())
      yield* eventually(Effect.map(letters, (list) => list.length === 1))
      yield* eventually(Effect.map(Ref.get(runs), (all) => all.includes("evt_fresh")))
      const [letter] = yield* letters
      assert.strictEqual(letter!.eventId, "evt_bad")
      assert.include(letter!.cause, "registry down")
      // its two runs (maxAttempts), no more: every take counted while the marks could not be read
      assert.deepStrictEqual((yield* Ref.get(runs)).filter((id) => id === "evt_bad"), ["evt_bad", "evt_bad"])
      const rows = yield* query<{ id: string; state: string }>(url, "SELECT id, state FROM effect_queue ORDER BY id")
      assert.deepStrictEqual(rows.map((row) => [row.id, row.state]), [["evt_bad", "completed"], ["evt_fresh", "completed"]])
    }).pipe(Effect.scoped), { timeout: 60_000, concurrent })

  it.live("a completed event is removed once the retention passed (its id is new again); pending and failed ones are kept", () =>
    Effect.gen(function*() {
      const url = freshDatabase("retention")
      const states = query<{ id: string; state: string }>(url, "SELECT id, state FROM effect_queue ORDER BY id").pipe(
        Effect.map((rows) => Object.fromEntries(rows.map((row) => [row.id, row.state])))
      )
      // one store attempt (maxAttempts 1, and the store's slack of 2): evt_fail ends `failed` after 3 takes
      const queueOf = (options: Ingestion.SqlOptions) => Effect.map(instance(url, options), Context.get(EventQueue))
      const queue = yield* queueOf({ retention: "3 seconds", maxAttempts: 1, retrySchedule: Schedule.spaced("1 millis") })
      const held = yield* queueOf({ name: "held" })
      const event = (id: string) => Schema.decodeUnknownSync(QueuedEvent)(stateEvent(id))
      yield* Effect.all([queue.offer(event("evt_done")), queue.offer(event("evt_fail")), held.offer(event("evt_pending"))])
      yield* Effect.forkScoped(Effect.forever(Effect.ignore(
        queue.take((event) => event.eventId === "evt_fail" ? Effect.fail(new Error("refused")) : Effect.void)
      )))
      yield* eventually(Effect.map(states, (all) => all["evt_done"] === "completed"))
      const completedAt = Date.now()
      // within the retention the same id is stored once: offered again, the completed row stays as it is
      yield* queue.offer(event("evt_done"))
      assert.strictEqual((yield* states)["evt_done"], "completed")
      yield* eventually(Effect.map(states, (all) => all["evt_fail"] === "failed" && !("evt_done" in all)), 20_000)
      assert.isAtLeast(Date.now() - completedAt, 2_000)
      assert.deepStrictEqual(yield* states, { evt_fail: "failed", evt_pending: "pending" })

      // however old, a pending or failed event is kept (the cleanup runs every second here)
      yield* query(url, "UPDATE effect_queue SET updated_at = now() - interval '1 day', created_at = now() - interval '1 day'")
      yield* Effect.sleep("2500 millis")
      assert.deepStrictEqual(yield* states, { evt_fail: "failed", evt_pending: "pending" })

      // after the retention the id is new: offered again, it is stored (and taken) again
      yield* queue.offer(event("evt_done"))
      yield* eventually(Effect.map(states, (all) => all["evt_done"] === "completed"))
    }).pipe(Effect.scoped), { timeout: 60_000, concurrent })
  it.live("two instances: a handler ending in an interruption of its own is retried, then dead-lettered; both instances' workers go on", () =>
    Effect.gen(function*() {
      const url = freshDatabase("interrupted")
      const options = { maxAttempts: 3, retrySchedule: Schedule.spaced("1 millis") } as const
      const [one, two] = yield* Effect.all([instance(url, options), instance(url, options)])
      const handled = yield* Ref.make<ReadonlyArray<string>>([])
      const handler = (event: { readonly eventId: string }) =>
        event.eventId === "evt_poison"
          ? Effect.flatMap(Effect.forkChild(Effect.never), (child) => Effect.andThen(Fiber.interrupt(child), Fiber.join(child)))
          : Ref.update(handled, (ids) => [...ids, event.eventId])
      const workers = yield* Effect.forEach([one, two], (services) =>
        Effect.forkScoped(Effect.provideContext(Worker.run({ handler, concurrency: 2 }), services)))
      const queue = yield* Effect.provideContext(EventQueue, one)
      yield* queue.offer(Schema.decodeUnknownSync(QueuedEvent)(stateEvent("evt_poison")))
      const letters = Effect.flatMap(Effect.provideContext(DeadLetters, two), (store) => store.list())
      yield* eventually(Effect.map(letters, (list) => list.length === 1))
      const [letter] = yield* letters
      assert.strictEqual(letter!.attempts, 3)
      assert.include(letter!.cause, "the handler was interrupted")
      for (let i = 0; i < 6; i++) yield* queue.offer(Schema.decodeUnknownSync(QueuedEvent)(stateEvent(`evt_${i}`)))
      yield* eventually(Effect.map(Ref.get(handled), (ids) => ids.length === 6))
      assert.deepStrictEqual([...(yield* Ref.get(handled))].sort(), ["evt_0", "evt_1", "evt_2", "evt_3", "evt_4", "evt_5"])
      assert.deepStrictEqual(workers.map((worker) => worker.pollUnsafe()), [undefined, undefined])
    }).pipe(Effect.scoped), 60_000)

  it.live("a worker interrupted mid-handler releases its event at once: another instance takes it as attempt 1", () =>
    Effect.gen(function*() {
      const url = freshDatabase("released")
      const [one, two] = yield* Effect.all([instance(url, { lockExpiration: "1 minute" }), instance(url)])
      const started = yield* Deferred.make<void>()
      const first = yield* Effect.forkChild(Effect.provideContext(
        Worker.run({ handler: () => Effect.andThen(Deferred.succeed(started, undefined), Effect.never) }),
        one
      ))
      yield* Effect.provideContext(Effect.flatMap(EventQueue, (queue) => queue.offer(Schema.decodeUnknownSync(QueuedEvent)(stateEvent("evt_slow")))), one)
      yield* Deferred.await(started).pipe(Effect.timeout("15 seconds"))
      yield* Fiber.interrupt(first)
      const again = yield* Deferred.make<number>()
      yield* Effect.forkScoped(Effect.provideContext(Worker.run({ handler: (_event, taken) => Deferred.succeed(again, taken.attempts) }), two))
      assert.strictEqual(yield* Deferred.await(again).pipe(Effect.timeout("15 seconds")), 1)
      assert.deepStrictEqual(yield* Effect.flatMap(Effect.provideContext(DeadLetters, two), (store) => store.list()), [])
    }).pipe(Effect.scoped), 60_000)

  it.live("Postgres stalls (the connection open, no answer): the receiver answers 500 within offerTimeout; 200 again once it answers", () =>
    Effect.gen(function*() {
      const url = new URL(Redacted.value(freshDatabase("stall")))
      const proxy = yield* freezableProxy(Number(url.port))
      url.port = String(proxy.port)
      const services = yield* Layer.build(Ingestion.layerPostgres({ url: Redacted.make(url.toString()), maxConnections: 2 }))
      const receiver = yield* Effect.provideContext(DurableReceiver.make({ secret, offerTimeout: "1 second" }), services)
      assert.strictEqual((yield* receiver.receive(delivery(stateEvent("evt_1")))).status, 200)
      proxy.freeze()
      const started = Date.now()
      const reply = yield* Effect.timeoutOption(receiver.receive(delivery(stateEvent("evt_2"))), "10 seconds")
      assert.strictEqual(Option.getOrUndefined(reply)?.status, 500)
      assert.isBelow(Date.now() - started, 3_000)
      proxy.thaw()
      yield* eventually(Effect.map(receiver.receive(delivery(stateEvent("evt_3"))), (r) => r.status === 200), 20_000)
    }).pipe(Effect.scoped), 60_000)

  it.effect("an offerTimeout that is not a positive duration is a Configuration error naming it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(DurableReceiver.make({ secret, offerTimeout: "soon" as never }))
      assert.strictEqual(error.reason._tag, "Configuration")
      assert.include(error.message, "offerTimeout")
    }).pipe(Effect.provide(Ingestion.layerMemory())))

  it.live("an eventId holding a NUL (no Postgres text keeps it) is refused with 400 MalformedEvent, on Postgres as in memory; never queued", () =>
    Effect.gen(function*() {
      const url = freshDatabase("nul")
      const stores = [["postgres", yield* instance(url)], ["memory", yield* Layer.build(Ingestion.layerMemory())]] as const
      for (const [label, services] of stores) {
        const receiver = yield* Effect.provideContext(DurableReceiver.make({ secret }), services)
        for (let i = 0; i < 2; i++) {
          const reply = yield* receiver.receive(delivery(stateEvent("evt_\u0000nul")))
          assert.strictEqual(reply.status, 400, `${label}: ${reply.body}`)
          assert.strictEqual(reply.error?._tag, "MalformedEvent")
        }
        // a NUL in another string of the event is kept (its JSON escapes it)
        const value = stateEvent("evt_nul_value")
        ;(value.data.vehicle as { make: string }).make = "REN\u0000AULT"
        assert.strictEqual((yield* receiver.receive(delivery(value))).status, 200, label)
      }
      const rows = yield* query<{ id: string }>(url, "SELECT id FROM effect_queue ORDER BY id")
      assert.deepStrictEqual(rows.map((row) => row.id), ["evt_nul_value"])
    }).pipe(Effect.scoped), 60_000)

  it.live("a handler failure whose text holds a NUL (no Postgres text keeps it) is retried, then a listed, replayable dead letter, the NUL escaped", () =>
    Effect.gen(function*() {
      const url = freshDatabase("nulcause")
      const services = yield* instance(url, { maxAttempts: 2, retrySchedule: Schedule.spaced("100 millis") })
      const receiver = yield* Effect.provideContext(DurableReceiver.make({ secret }), services)
      assert.strictEqual((yield* receiver.receive(delivery(stateEvent("evt_nul_cause", "veh_\u0000x")))).status, 200)
      const runs = yield* Ref.make(0)
      yield* Effect.forkScoped(Effect.provideContext(
        Worker.run({
          handler: (event) =>
            Effect.andThen(Ref.update(runs, (n) => n + 1), Effect.fail(new Error(`unknown vehicle ${(event as { vehicleId: string }).vehicleId}`)))
        }),
        services
      ))
      const letters = Context.get(services, DeadLetters)
      yield* eventually(Effect.map(letters.list(), (list) => list.length === 1))
      const [letter] = yield* letters.list()
      assert.strictEqual(letter!.attempts, 2)
      assert.include(letter!.cause, "unknown vehicle veh_\\u0000x")
      assert.strictEqual(yield* Ref.get(runs), 2)
      assert.deepStrictEqual(yield* query(url, "SELECT state FROM effect_queue"), [{ state: "completed" }])
      assert.strictEqual(yield* Effect.provideContext(Ingestion.replay("evt_nul_cause"), services), "evt_nul_cause:replay:1")
      yield* eventually(Effect.map(Ref.get(runs), (n) => n === 3))
    }).pipe(Effect.scoped), 60_000)
})

/**
 * A fresh database whose event `eventId` was taken (attempt 1) by a worker
 * process that was then killed with SIGKILL mid-handler (or stopped with
 * `signal`); answers it and the child's output after the signal.
 */
const takenByKilledWorker = (eventId: string, signal: "SIGKILL" | "SIGTERM" = "SIGKILL") =>
  Effect.gen(function*() {
    const url = freshDatabase("crash")
    const receiverUrl = yield* serve(url)
    assert.strictEqual((yield* Effect.promise(() => post(receiverUrl, stateEvent(eventId)))).status, 200)
    const child = spawn(process.execPath, [join(import.meta.dirname, "processes", "hanging-worker.ts")], {
      env: { ...process.env, DATABASE_URL: Redacted.value(url) },
      stdio: ["ignore", "pipe", "pipe"]
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
    let output = ""
    child.stderr.on("data", (chunk) => (output += chunk))
    const exited = Effect.callback<number | null>((resume) => {
      if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.succeed(child.exitCode))
      child.once("exit", (code) => resume(Effect.succeed(code)))
    })
    const taken = yield* Effect.callback<string>((resume) => {
      child.stdout.on("data", (chunk) => {
        output += chunk
        if (output.includes("taken")) resume(Effect.succeed(output.trim()))
      })
      child.once("exit", (code) => resume(Effect.succeed(`exited ${code}: ${output}`)))
    }).pipe(Effect.timeout("20 seconds"))
    assert.strictEqual(taken, `taken ${eventId} 1`)
    output = ""
    child.kill(signal)
    yield* exited.pipe(Effect.timeout("10 seconds"))
    return { url, output: output.trim() }
  })

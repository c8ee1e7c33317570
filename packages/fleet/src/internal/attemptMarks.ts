/**
 * What the queue's store does not say about an event's past attempts: which
 * ended with an outcome (the handler failed: `failed`) and which ran alone
 * in their worker (`alone`), by attempt number. An attempt with neither mark
 * before the current one had no outcome: its worker died (or lost its lock)
 * before the handler ended. Only retries read the marks, only failures and
 * lone runs write them, and they are removed when the event finishes: an
 * event handled at its first attempt costs nothing here.
 *
 * In memory (one process: the embedded queue) or in a SQL table shared by
 * every worker of a deployment (`Ingestion.layerSql` registers it for its
 * queue).
 *
 * @internal
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { Service as EventQueue } from "../EventQueue.ts"
import { FleetError, QueueUnavailable } from "../FleetError.ts"
import { createTable } from "./sqlTable.ts"

/** The marks of one event's past attempts. */
export interface History {
  readonly failed: ReadonlySet<number>
  readonly alone: ReadonlySet<number>
}

/** The marks of one queue's events, by queue id. */
export interface Marks {
  readonly read: (id: string) => Effect.Effect<History, FleetError>
  readonly mark: (id: string, attempt: number, mark: "failed" | "alone") => Effect.Effect<void, FleetError>
  readonly clear: (id: string) => Effect.Effect<void, FleetError>
}

const empty: History = { failed: new Set(), alone: new Set() }

/** @internal */
export const makeMemoryMarks = (): Marks => {
  const marks = new Map<string, { readonly failed: Set<number>; readonly alone: Set<number> }>()
  return {
    read: (id) => Effect.sync(() => marks.get(id) ?? empty),
    mark: (id, attempt, mark) =>
      Effect.sync(() => {
        let entry = marks.get(id)
        if (entry === undefined) marks.set(id, entry = { failed: new Set(), alone: new Set() })
        entry[mark].add(attempt)
      }),
    clear: (id) => Effect.sync(() => void marks.delete(id))
  }
}

const storeError = (operation: string) => (cause: unknown) =>
  new FleetError({
    reason: new QueueUnavailable({
      description: `the event queue failed to ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause
    })
  })

/**
 * The marks of the queue `name` in the SQL table `table` (Postgres), created
 * if missing: `queue_name`, `id`, `attempt`, `mark`, `marked_at`.
 *
 * @internal
 */
export const makeSqlMarks = (table: string, name: string): Effect.Effect<Marks, FleetError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient.SqlClient).withoutTransforms()
    const t = sql(table)
    yield* createTable(
      sql,
      table,
      sql`queue_name TEXT NOT NULL,
        id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        mark TEXT NOT NULL,
        marked_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (queue_name, id, attempt, mark)`
    ).pipe(Effect.mapError(storeError(`create table ${table}`)))
    return {
      read: (id) =>
        sql<{ readonly attempt: number; readonly mark: string }>`SELECT attempt, mark FROM ${t} WHERE queue_name = ${name} AND id = ${id}`.pipe(
          Effect.mapError(storeError(`read the attempts of ${id}`)),
          Effect.map((rows) => {
            const failed = new Set<number>()
            const alone = new Set<number>()
            for (const row of rows) (row.mark === "failed" ? failed : alone).add(Number(row.attempt))
            return { failed, alone }
          })
        ),
      mark: (id, attempt, mark) =>
        sql`INSERT INTO ${t} (queue_name, id, attempt, mark) VALUES (${name}, ${id}, ${attempt}, ${mark}) ON CONFLICT DO NOTHING`.pipe(
          Effect.mapError(storeError(`mark attempt ${attempt} of ${id} ${mark}`)),
          Effect.asVoid
        ),
      clear: (id) =>
        sql`DELETE FROM ${t} WHERE queue_name = ${name} AND id = ${id}`.pipe(
          Effect.mapError(storeError(`clear the attempts of ${id}`)),
          Effect.asVoid
        )
    }
  })

const registered = new WeakMap<EventQueue, Marks>()

/** Uses `marks` for the events of `queue` (the queue's store is shared: so must its marks be). @internal */
export const register = (queue: EventQueue, marks: Marks): void => void registered.set(queue, marks)

/** The marks of `queue`: those registered for it, else in this process's memory. @internal */
export const marksOf = (queue: EventQueue): Marks => {
  let marks = registered.get(queue)
  if (marks === undefined) registered.set(queue, marks = makeMemoryMarks())
  return marks
}

/**
 * Attempts before `attempts` read from `history`: those that failed, those
 * with no outcome while they ran alone (`aloneDeaths`) or beside other
 * events; and whether the last one had an outcome.
 *
 * @internal
 */
export const review = (history: History, attempts: number) => {
  let failures = 0
  let aloneDeaths = 0
  for (let k = 1; k < attempts; k++) {
    if (history.failed.has(k)) failures++
    else if (history.alone.has(k)) aloneDeaths++
  }
  const last = attempts - 1
  return {
    failures,
    aloneDeaths,
    /** The attempts that count toward `maxAttempts`: failures, and lone runs with no outcome. */
    counted: failures + aloneDeaths,
    lastHadOutcome: last < 1 || history.failed.has(last)
  }
}

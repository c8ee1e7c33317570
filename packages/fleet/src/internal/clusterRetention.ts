/**
 * The retention of `effect/cluster`'s messages on Postgres: the requests
 * processed (their exit stored as a reply) and older than the retention are
 * deleted, with their replies and the other messages about them
 * (interrupts, acknowledgements). `effect/cluster` 4.1 has no cleanup of
 * its own.
 *
 * The tables and columns used here are those `SqlMessageStorage` creates
 * (its migrations `0001` to `0003`, default prefix `cluster`), which are
 * not a public contract of `effect`: every statement on them is in this
 * module, and `test/ClusterRetention.test.ts` fails when they change.
 *
 * What is deleted, and why it is safe:
 *
 * - `kind = 0`: a request (`1`: an acknowledgement of a streamed chunk,
 *   `2`: an interrupt; these carry the `request_id` of their request and go
 *   with it);
 * - `processed`: set, in one transaction with the reply of kind `0` (the
 *   exit), when the entity finished the request; an unprocessed request is
 *   never deleted, however old (it is still to be delivered);
 * - `id` older than the cutoff: a request's id is a `Snowflake` made when
 *   it was sent, compared with `Snowflake.make` of the cutoff (public API);
 * - `deliver_at` (a request sent for later, as `Poll`) before the cutoff
 *   too: a request whose primary key (`message_id`) is stored once is
 *   forgotten only a retention after it was due, so it is not sent again
 *   under the same key meanwhile.
 */
import { Clock, Effect, type Scope } from "effect"
import { MachineId, Snowflake } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { Cluster, FleetError } from "../FleetError.ts"
import { forkCleanup } from "./retention.ts"

/** The messages' table of `SqlMessageStorage.layer` (prefix `cluster`), which `NodeClusterSocket.layer` uses. */
export const messagesTable = "cluster_messages"

/** The replies' table of `SqlMessageStorage.layer`. */
export const repliesTable = "cluster_replies"

/** Requests deleted per statement (with their replies): short transactions, however large the backlog. */
export const batchSize = 10_000

const clusterError = (cause: unknown) =>
  new FleetError({
    reason: new Cluster({
      description: `the cleanup of the cluster's processed messages failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause
    })
  })

/**
 * One batch: up to `limit` processed requests sent and answered before
 * `cutoff` (epoch milliseconds: the request's id and its final reply's id,
 * `last_reply_id`, are `Snowflake`s made when each was written), deleted
 * with every message and reply of theirs; rows another runner's cleanup
 * holds are skipped. The number of requests deleted. A request answered
 * recently stays a retention after its answer, whenever it was sent (its
 * sender may read the reply from storage).
 */
const deleteBatch = (sql: SqlClient.SqlClient, cutoff: number, limit: number) => {
  const messages = sql(messagesTable)
  const replies = sql(repliesTable)
  const before = String(Snowflake.make({ timestamp: cutoff, machineId: MachineId.make(0), sequence: 0 }))
  return Effect.map(
    sql<{ readonly n: string }>`WITH batch AS (
        SELECT id FROM ${messages}
        WHERE kind = 0 AND processed AND id < ${before}::bigint AND last_reply_id < ${before}::bigint
          AND (deliver_at IS NULL OR deliver_at < ${cutoff}::bigint)
        ORDER BY id LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ), replies AS (
        DELETE FROM ${replies} WHERE request_id IN (SELECT id FROM batch)
      ), messages AS (
        DELETE FROM ${messages} WHERE request_id IN (SELECT id FROM batch)
      )
      SELECT count(*) AS n FROM batch`,
    (rows) => Number(rows[0]?.n ?? 0)
  )
}

/**
 * Deletes the requests processed, sent and answered more than `retention`
 * milliseconds ago (by the `Clock`), with their replies, a batch at a
 * time: the number of requests deleted.
 */
export const prune = (retention: number, limit = batchSize): Effect.Effect<number, FleetError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient.SqlClient).withoutTransforms()
    const cutoff = Math.floor((yield* Clock.currentTimeMillis) - retention)
    let deleted = 0
    while (true) {
      const batch = yield* deleteBatch(sql, cutoff, limit)
      deleted += batch
      if (batch < limit) return deleted
    }
  }).pipe(Effect.mapError(clusterError))

/** {@link prune} now and every quarter of the retention, in a fiber of the scope (none for an infinite retention). */
export const fork = (retention: number): Effect.Effect<void, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    forkCleanup(retention, messagesTable, Effect.provideService(prune(retention), SqlClient.SqlClient, sql)))

/**
 * The fleet benchmark (issue 23, item 8). Postgres (Debian's, started here by
 * `PostgresServer` of `@connected-vehicle/testing`) and every server run in
 * their own processes; this process is the load generator.
 *
 * 1. ingestion: the fleet's `DurableReceiver` on Postgres (`receiver.ts`)
 *    against the limit, a bare `node:http` server that runs one
 *    `INSERT … ON CONFLICT DO NOTHING` per delivery into a copy of the same
 *    table (`rawInsert.ts`), both with a pool of `BENCH_POOL` connections,
 *    both posted the same signed deliveries (a share `BENCH_DUPLICATES`
 *    repeated) by raw undici at each of `BENCH_CONCURRENCY` in-flight
 *    requests, in rounds whose order alternates so machine noise hits both;
 *    deliveries acknowledged per second (median over rounds), ack latency
 *    p50/p99 (all rounds), the server process's CPU per delivery, and the
 *    ratios of the receiver to the limit.
 * 2. workers: a queue of `BENCH_EVENTS` stored events (a copy of one
 *    database for every run), drained by `Worker.run` with a handler that
 *    does nothing, in 1 process and in 3 processes of
 *    `BENCH_WORKER_CONCURRENCY` take loops each (and in 1 process with as
 *    many loops as the 3 together); events completed per second.
 * 3. apply: a queue of `BENCH_APPLY_EVENTS` stored events (one per vehicle)
 *    applied by the vehicle entities (`Worker.run` → `VehicleEntity.handler`
 *    → the entity's `Apply` → `FleetState` on Postgres) with 1 and with 3
 *    runner processes of `BENCH_RUNNER_CONCURRENCY` take loops each; events
 *    applied per second and runner CPU per event.
 * 4. poll: the simulator and Redis in processes of their own; one runner
 *    whose entities poll `BENCH_POLL_VEHICLES` vehicles every
 *    `BENCH_POLL_INTERVAL_MS` through the SDK under the shared limits and
 *    token on Redis, against a raw undici loop of the same requests;
 *    requests per second and CPU seconds per 1,000 requests, each measured
 *    for `BENCH_POLL_SECONDS`.
 *
 * Run: `pnpm --filter @connected-vehicle/fleet bench`. `BENCH_DELIVERIES`
 * (2000), `BENCH_ROUNDS` (3), `BENCH_EVENTS` (5000), `BENCH_WORKER_ROUNDS`
 * (3), `BENCH_APPLY_EVENTS` (2000), `BENCH_APPLY_ROUNDS` (1),
 * `BENCH_POLL_VEHICLES` (1000), `BENCH_POLL_SECONDS` (15) and
 * `BENCH_PHASES` (`ingest,workers,apply,poll`) size it.
 */
import { execFileSync } from "node:child_process"
import { availableParallelism, loadavg } from "node:os"
import * as PostgresServer from "@connected-vehicle/testing/PostgresServer"
import { applyPhase } from "./apply.ts"
import { ingestPhase } from "./ingest.ts"
import { pollPhase } from "./poll.ts"
import { killChildren, PHASES } from "./utils.ts"
import { workersPhase } from "./workers.ts"

const load = () => loadavg().map((n) => n.toFixed(2)).join(" ")

const main = async () => {
  const started = performance.now()
  const postgres = execFileSync("psql", ["--version"], { encoding: "utf8" }).trim()
  console.log(`node ${process.version}, ${availableParallelism()} cores, ${postgres}, load average ${load()}`)
  const server = await PostgresServer.start()
  try {
    if (PHASES.has("ingest")) await ingestPhase(server)
    if (PHASES.has("workers")) await workersPhase(server)
    if (PHASES.has("apply")) await applyPhase(server)
    if (PHASES.has("poll")) await pollPhase(server)
  } finally {
    killChildren()
    await server.stop()
  }
  console.log(`\nload average ${load()}; total ${((performance.now() - started) / 1000).toFixed(1)} s`)
  process.exit(0) // the bench's own SQL clients and HTTP pools may still hold the event loop
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    killChildren()
    process.exit(130)
  })
}

main().catch((error) => {
  killChildren()
  console.error(error)
  process.exit(1)
})

/**
 * Phase 3: events applied per second by the vehicle entities, with 1 and
 * with 3 runner processes (`runner.ts`: a cluster runner whose workers send
 * each event to its vehicle's entity, which writes the state tables).
 */
import { admin } from "./admin.ts"
import type { Server } from "./ingest.ts"
import { APPLY_EVENTS, APPLY_ROUNDS, freePort, median, POOL, RUNNER_CONCURRENCY, startChild } from "./utils.ts"
import { copy, fill, timeUntil } from "./workers.ts"

interface Layout {
  readonly runners: number
  readonly concurrency: number
  readonly rates: Array<number>
  readonly cpu: Array<number>
  readonly shards: Array<string>
}

/** One run: a copy of the queue applied by `layout`'s runners; events per second, and runner CPU per event. */
const run = async (server: Server, root: Awaited<ReturnType<typeof admin>>, layout: Layout, name: string, events: number) => {
  const url = await copy(server, root, name, "apply_template")
  const runners = await Promise.all(Array.from({ length: layout.runners }, async () =>
    startChild("runner.ts", {
      DATABASE_URL: url,
      BENCH_POOL: String(POOL),
      BENCH_RUNNER_PORT: String(await freePort()),
      BENCH_RUNNER_CONCURRENCY: String(layout.concurrency)
    })))
  layout.shards.push(runners.map((runner) => runner.ready).join("+"))
  await timeUntil(url, runners, { table: "fleet_applied_events", where: "TRUE", events }, layout)
}

/** Runs the phase and prints its table. */
export const applyPhase = async (server: Server) => {
  const events = await fill(server, "apply_template", APPLY_EVENTS)
  const root = await admin(server.url)
  const layouts: ReadonlyArray<Layout> = [
    { runners: 1, concurrency: RUNNER_CONCURRENCY, rates: [], cpu: [], shards: [] },
    { runners: 3, concurrency: RUNNER_CONCURRENCY, rates: [], cpu: [], shards: [] }
  ]
  let runs = 0
  for (let round = 0; round < APPLY_ROUNDS; round++) {
    for (const layout of round % 2 === 0 ? layouts : [...layouts].reverse()) {
      await run(server, root, layout, `apply_${++runs}`, events)
    }
  }
  await root.close()
  console.log(
    `\napply: ${events} stored events (one per vehicle) applied by vehicle entities (Worker.run → VehicleEntity.handler → Apply → FleetState), ` +
      `runner processes of ${RUNNER_CONCURRENCY} take loops, pools of ${POOL}; medians over ${APPLY_ROUNDS} run(s)`
  )
  console.log(`  ${"".padEnd(30)}${"events/s".padStart(11)}${"CPU µs/event".padStart(14)}   shards held`)
  const base = median(layouts[0]!.rates)
  for (const layout of layouts) {
    const label = `${layout.runners} runner${layout.runners > 1 ? "s" : ""} × ${layout.concurrency} take loops`
    const rate = median(layout.rates)
    console.log(
      `  ${label.padEnd(30)}${rate.toFixed(0).padStart(11)}${(median(layout.cpu) * 1e6).toFixed(0).padStart(14)}   ${
        (rate / base).toFixed(2)
      }x  ${layout.shards.join(", ")}`
    )
  }
}

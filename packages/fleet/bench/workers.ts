/**
 * Phase 2: events applied per second by `Worker.run` (a handler that does
 * nothing) on Postgres, with 1 and with 3 worker processes.
 */
import { Redacted } from "effect"
import { admin, count } from "./admin.ts"
import type { Server } from "./ingest.ts"
import { type Child, cpuSeconds, deliveries, drive, EVENTS, median, POOL, secret, startChild, stopChild, WORKER_CONCURRENCY, WORKER_ROUNDS } from "./utils.ts"

interface Layout {
  readonly processes: number
  readonly concurrency: number
  readonly rates: Array<number>
  readonly cpu: Array<number>
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A queue of `events` stored events in database `template`, filled through the receiver; answers how many. */
export const fill = async (server: Server, template: string, wanted: number) => {
  const url = await server.createDatabase(template)
  const receiver = await startChild("receiver.ts", { DATABASE_URL: url, WEBHOOK_SECRET: Redacted.value(secret), BENCH_POOL: String(POOL) })
  await drive(receiver.ready, deliveries(template, wanted, 1, 0), 32)
  await stopChild(receiver)
  const db = await admin(url)
  const stored = await count(db, "effect_queue")
  await db.close()
  return stored
}

/** A fresh copy of `template` (retried while the receiver's connections close); answers its URL. */
export const copy = async (server: Server, root: Awaited<ReturnType<typeof admin>>, name: string, template: string) => {
  for (let attempt = 0; ; attempt++) {
    try {
      await root.query(`CREATE DATABASE "${name}" TEMPLATE ${template}`)
      return server.url.replace(/\/postgres$/, `/${name}`)
    } catch (error) {
      if (attempt >= 50) throw error
      await sleep(100)
    }
  }
}

/**
 * Starts `children` (a line on stdin), waits until `table` of `url` has
 * `events` rows `where`; records events per second, and the children's CPU
 * per event, in `into`.
 */
export const timeUntil = async (
  url: string,
  children: ReadonlyArray<Child>,
  query: { readonly table: string; readonly where: string; readonly events: number },
  into: { readonly rates: Array<number>; readonly cpu: Array<number> }
) => {
  const { events, table, where } = query
  const db = await admin(url)
  const before = children.map((child) => cpuSeconds(child.child.pid))
  const start = performance.now()
  for (const child of children) child.child.stdin!.write("go\n")
  const deadline = start + 300_000
  while (await count(db, table, where) < events) {
    if (performance.now() > deadline) throw new Error(`${url}: ${events} rows of ${table} not reached in 300 s`)
    await sleep(20)
  }
  const seconds = (performance.now() - start) / 1000
  const cpu = children.reduce((total, child, i) => total + cpuSeconds(child.child.pid) - before[i]!, 0)
  await Promise.all(children.map(stopChild))
  await db.close()
  into.rates.push(events / seconds)
  into.cpu.push(cpu / events)
}

/** One run: a copy of the queue drained by `layout`; events per second, and worker CPU per event. */
const drain = async (server: Server, root: Awaited<ReturnType<typeof admin>>, layout: Layout, name: string, events: number) => {
  const url = await copy(server, root, name, "work_template")
  const env = { DATABASE_URL: url, BENCH_POOL: String(POOL), BENCH_WORKER_CONCURRENCY: String(layout.concurrency) }
  const workers = await Promise.all(Array.from({ length: layout.processes }, () => startChild("worker.ts", env)))
  await timeUntil(url, workers, { table: "effect_queue", where: "state = 'completed'", events }, layout)
}

/** Runs the phase and prints its table. */
export const workersPhase = async (server: Server) => {
  const events = await fill(server, "work_template", EVENTS)
  const root = await admin(server.url)
  const layouts: ReadonlyArray<Layout> = [
    { processes: 1, concurrency: WORKER_CONCURRENCY, rates: [], cpu: [] },
    { processes: 3, concurrency: WORKER_CONCURRENCY, rates: [], cpu: [] },
    { processes: 1, concurrency: 3 * WORKER_CONCURRENCY, rates: [], cpu: [] }
  ]
  let runs = 0
  for (let round = 0; round < WORKER_ROUNDS; round++) {
    for (const layout of round % 2 === 0 ? layouts : [...layouts].reverse()) {
      await drain(server, root, layout, `work_${++runs}`, events)
    }
  }
  await root.close()
  console.log(`\nworkers: ${events} stored events drained by Worker.run (a handler that does nothing), pools of ${POOL}; medians over ${WORKER_ROUNDS} runs`)
  console.log(`  ${"".padEnd(34)}${"events/s".padStart(11)}${"CPU µs/event".padStart(14)}`)
  const base = median(layouts[0]!.rates)
  for (const layout of layouts) {
    const label = `${layout.processes} process${layout.processes > 1 ? "es" : ""} × ${layout.concurrency} take loops`
    const rate = median(layout.rates)
    console.log(`  ${label.padEnd(34)}${rate.toFixed(0).padStart(11)}${(median(layout.cpu) * 1e6).toFixed(0).padStart(14)}   ${(rate / base).toFixed(2)}x`)
  }
}

/**
 * Phase 1: deliveries acknowledged per second and ack latency, the fleet's
 * `DurableReceiver` on Postgres against a raw `INSERT … ON CONFLICT DO
 * NOTHING` behind a bare `node:http` server, side by side.
 */
import type * as PostgresServer from "@connected-vehicle/testing/PostgresServer"
import { Redacted } from "effect"
import { admin, count } from "./admin.ts"
import {
  type Child,
  CONCURRENCY,
  cpuSeconds,
  deliveries,
  DELIVERIES,
  drive,
  DUPLICATES,
  median,
  POOL,
  quantile,
  ROUNDS,
  secret,
  startChild,
  stopChild
} from "./utils.ts"

/** The running Postgres of the bench. */
export type Server = Awaited<ReturnType<typeof PostgresServer.start>>

interface Side {
  readonly name: string
  readonly server: Child
  readonly rates: Array<number>
  readonly latencies: Array<number>
  readonly cpu: Array<number>
}

const side = (name: string, server: Child): Side => ({ name, server, rates: [], latencies: [], cpu: [] })

/** One load run on one side: acks per second, latencies, and the server's CPU per delivery. */
const measure = async (target: Side, list: ReturnType<typeof deliveries>, concurrency: number) => {
  const before = cpuSeconds(target.server.child.pid)
  const load = await drive(target.server.ready, list, concurrency)
  target.cpu.push((cpuSeconds(target.server.child.pid) - before) / list.length)
  target.rates.push(list.length / load.seconds)
  target.latencies.push(...load.latencies)
}

const row = (cells: ReadonlyArray<string>) =>
  console.log(`  ${cells[0]!.padEnd(26)}${cells.slice(1).map((cell) => cell.padStart(11)).join("")}`)

/** Runs the phase and prints its table. */
export const ingestPhase = async (server: Server) => {
  const url = await server.createDatabase("ingest")
  const env = { DATABASE_URL: url, WEBHOOK_SECRET: Redacted.value(secret), BENCH_POOL: String(POOL) }
  const durable = await startChild("receiver.ts", env)
  const db = await admin(url)
  // the limit writes to a copy of the queue's table: the same columns, the same indexes
  await db.query("CREATE TABLE raw_events (LIKE effect_queue INCLUDING ALL)")
  const raw = await startChild("rawInsert.ts", env)
  const bytes = deliveries("x", 1)[0]!.body.length
  console.log(
    `\ningestion: ${DELIVERIES} signed deliveries of ${bytes} bytes per round and side, ${Math.round(DUPLICATES * 100)}% duplicates,` +
      ` ${ROUNDS} alternating rounds per concurrency, pools of ${POOL} connections; medians over rounds`
  )
  row(["", "acks/s", "p50 ms", "p99 ms", "CPU µs/ack"])
  const sent = new Set<string>()
  const warm = deliveries("warm", 300)
  for (const target of [durable, raw]) await drive(target.ready, warm, 16)
  for (const concurrency of CONCURRENCY) {
    const sides = [side("DurableReceiver", durable), side("raw INSERT (node:http)", raw)]
    for (let round = 0; round < ROUNDS; round++) {
      const list = deliveries(`c${concurrency}r${round}`, DELIVERIES, concurrency * 100 + round + 1)
      for (const delivery of list) sent.add(delivery.eventId)
      for (const target of round % 2 === 0 ? sides : [...sides].reverse()) await measure(target, list, concurrency)
    }
    const figures = sides.map((s) => ({
      rate: median(s.rates),
      p50: quantile(s.latencies, 0.5),
      p99: quantile(s.latencies, 0.99),
      cpu: median(s.cpu) * 1e6
    }))
    console.log(`  concurrency ${concurrency}`)
    sides.forEach((s, i) => {
      const f = figures[i]!
      row([`  ${s.name}`, f.rate.toFixed(0), f.p50.toFixed(2), f.p99.toFixed(2), f.cpu.toFixed(0)])
    })
    const [d, r] = figures as [typeof figures[0], typeof figures[0]]
    row(["  receiver / limit", `${(d.rate / r.rate).toFixed(2)}x`, `${(d.p50 / r.p50).toFixed(2)}x`, `${(d.p99 / r.p99).toFixed(2)}x`, `${(d.cpu / r.cpu).toFixed(2)}x`])
  }
  // every event stored once on each side, whatever its duplicates
  const stored = await count(db, "effect_queue", "id NOT LIKE 'warm%'")
  const limit = await count(db, "raw_events", "id NOT LIKE 'warm%'")
  console.log(`  stored once: ${sent.size} distinct events sent; queue rows ${stored}, raw rows ${limit}` +
    (stored === sent.size && limit === sent.size ? " (ok)" : " (MISMATCH)"))
  await db.close()
  await Promise.all([stopChild(durable), stopChild(raw)])
}

/**
 * What the phases of `run.ts` share: settings (environment variables),
 * statistics, child processes (and their CPU time), signed deliveries and the
 * undici load generator.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { Redacted } from "effect"
import { Pool } from "undici"
import { Signature } from "@connected-vehicle/webhooks"

const int = (name: string, fallback: number) => Number(process.env[name] ?? fallback)

/** Deliveries per round and side in the ingestion phase. */
export const DELIVERIES = int("BENCH_DELIVERIES", 2000)
/** Rounds per concurrency level (each round runs both sides, in alternating order). */
export const ROUNDS = int("BENCH_ROUNDS", 3)
/** Share of deliveries that repeat an earlier delivery of the round. */
export const DUPLICATES = Number(process.env["BENCH_DUPLICATES"] ?? 0.1)
/** In-flight requests of the load generator. */
export const CONCURRENCY = (process.env["BENCH_CONCURRENCY"] ?? "16,64").split(",").map(Number)
/** Connections in each server process's pool. */
export const POOL = int("BENCH_POOL", 10)
/** Events in the queue at the start of each worker run. */
export const EVENTS = int("BENCH_EVENTS", 5000)
/** Take loops per worker process. */
export const WORKER_CONCURRENCY = int("BENCH_WORKER_CONCURRENCY", 8)
/** Worker runs per layout. */
export const WORKER_ROUNDS = int("BENCH_WORKER_ROUNDS", 3)
/** Events in the queue at the start of each runner run (applied by vehicle entities). */
export const APPLY_EVENTS = int("BENCH_APPLY_EVENTS", 2000)
/** Take loops per runner process. */
export const RUNNER_CONCURRENCY = int("BENCH_RUNNER_CONCURRENCY", 32)
/** Runner runs per layout. */
export const APPLY_ROUNDS = int("BENCH_APPLY_ROUNDS", 1)
/** Vehicles the polling phase keeps. */
export const POLL_VEHICLES = int("BENCH_POLL_VEHICLES", 1000)
/** Seconds each side of the polling phase is measured. */
export const POLL_SECONDS = int("BENCH_POLL_SECONDS", 15)
/** Which phases run: `ingest`, `workers`, `apply`, `poll`. */
export const PHASES = new Set((process.env["BENCH_PHASES"] ?? "ingest,workers,apply,poll").split(",").map((phase) => phase.trim()))

/** The webhook secret the deliveries are signed with (and the receiver verifies). */
export const secret = Redacted.make("bench-management-token-fleet")

/** The `q` quantile of `xs` (linear interpolation). */
export const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  const i = (s.length - 1) * q
  const lo = Math.floor(i)
  const hi = Math.ceil(i)
  return s[lo]! + (s[hi]! - s[lo]!) * (i - lo)
}
/** The median of `xs`. */
export const median = (xs: ReadonlyArray<number>) => quantile(xs, 0.5)

/** CPU seconds (user + system) a process has used so far, from `/proc/<pid>/stat` (0 when unavailable). */
export const cpuSeconds = (pid: number | undefined): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/** A bench child process and the text after `ready` on its first such line. */
export interface Child {
  readonly child: ChildProcess
  readonly ready: string
}

const children = new Set<ChildProcess>()

/** Kills every child still running (on exit, and on SIGINT / SIGTERM). */
export const killChildren = () => {
  for (const child of children) child.kill("SIGKILL")
  children.clear()
}

/** Starts `bench/<script>` with node in its own process; resolves once it printed `ready`. */
export const startChild = (script: string, env: Record<string, string>): Promise<Child> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, script)], {
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "inherit"]
    })
    children.add(child)
    child.once("exit", (code) => {
      children.delete(child)
      reject(new Error(`${script} exited (${code})`))
    })
    let out = ""
    child.stdout!.setEncoding("utf8")
    child.stdout!.on("data", (chunk: string) => {
      out += chunk
      const ready = /^ready ?(.*)\n/m.exec(out) // a whole line: a long one comes in several chunks
      if (ready !== null) {
        child.stdout!.removeAllListeners("data")
        child.stdout!.resume()
        resolve({ child, ready: ready[1]!.trim() })
      }
    })
  })

/** The next line of a child's output matching `pattern` (its match), after `ready`. */
export const nextLine = ({ child }: Child, pattern: RegExp): Promise<RegExpExecArray> =>
  new Promise((resolve, reject) => {
    let out = ""
    const onExit = (code: number | null, signal: string | null) =>
      reject(new Error(`the child exited (${signal ?? code}) before a line matching ${pattern}`))
    const onData = (chunk: string) => {
      out += chunk
      const match = pattern.exec(out)
      if (match !== null) {
        child.stdout!.off("data", onData)
        child.off("exit", onExit)
        resolve(match)
      }
    }
    child.stdout!.on("data", onData)
    child.once("exit", onExit)
  })

/** A free TCP port on 127.0.0.1. */
export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

/** Stops a child and waits for its exit. */
export const stopChild = ({ child }: Child): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.removeAllListeners("exit").once("exit", () => resolve())
    children.delete(child)
    child.kill("SIGKILL")
  })

/** A VEHICLE_STATE event of three signals, as the service delivers it. */
export const stateEvent = (eventId: string, vehicleId: string) => {
  const at = "2026-11-26T10:00:00.000Z"
  const signal = (code: string, name: string, group: string, body: unknown) => ({
    code,
    name,
    group,
    body,
    meta: { oemUpdatedAt: at, fetchedAt: at }
  })
  return {
    eventId,
    eventType: "VEHICLE_STATE",
    vehicleId,
    data: {
      user: { id: "usr_1" },
      vehicle: { id: vehicleId, make: "RENAULT", model: "Zoé", year: 2022 },
      triggers: [{ code: "tractionbattery-stateofcharge", name: "StateOfCharge", group: "TractionBattery" }],
      signals: [
        signal("tractionbattery-stateofcharge", "StateOfCharge", "TractionBattery", { unit: "percent", value: 81 }),
        signal("odometer-traveleddistance", "TraveledDistance", "Odometer", { unit: "km", value: 48213.4 }),
        signal("location-preciselocation", "PreciseLocation", "Location", { latitude: 48.8566, longitude: 2.3522 })
      ]
    },
    meta: { version: "4.0", webhookId: "wh_1", webhookName: "Fleet", deliveryId: `dlv_${eventId}`, deliveredAt: 1795687200000, signalCount: 3, mode: "LIVE" }
  }
}

/** A signed delivery: its body and `SC-Signature`. */
export interface Delivery {
  readonly eventId: string
  readonly body: string
  readonly signature: string
}

/**
 * `count` signed deliveries of events `<prefix>_<i>`, of which a share
 * `duplicates` (default `BENCH_DUPLICATES`) repeats an earlier delivery (the
 * same body), at seeded positions: both sides of a round get the same list.
 */
export const deliveries = (prefix: string, count: number, seed = 1, duplicates = DUPLICATES): ReadonlyArray<Delivery> => {
  let state = seed
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648
    return state / 2_147_483_648
  }
  const all: Array<Delivery> = []
  for (let i = 0; i < count; i++) {
    if (all.length > 0 && random() < duplicates) {
      all.push(all[Math.floor(random() * all.length)]!)
      continue
    }
    const eventId = `${prefix}_${i}`
    const body = JSON.stringify(stateEvent(eventId, `veh_${i % 2000}`))
    all.push({ eventId, body, signature: Signature.sign(body, secret) })
  }
  return all
}

/** What one load run measured. */
export interface Load {
  readonly seconds: number
  readonly latencies: ReadonlyArray<number>
}

/**
 * Posts every delivery to `url` with raw undici (`Pool.request`, one
 * connection per in-flight request), `concurrency` at a time; every answer
 * must be 200.
 */
export const drive = async (url: string, list: ReadonlyArray<Delivery>, concurrency: number): Promise<Load> => {
  const target = new URL(url)
  const pool = new Pool(target.origin, { connections: concurrency, pipelining: 1 })
  const latencies: Array<number> = []
  let next = 0
  const loop = async () => {
    while (next < list.length) {
      const delivery = list[next++]!
      const start = performance.now()
      const response = await pool.request({
        path: target.pathname,
        method: "POST",
        headers: { "content-type": "application/json", "sc-signature": delivery.signature },
        body: delivery.body
      })
      const text = await response.body.text()
      if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${text}`)
      latencies.push(performance.now() - start)
    }
  }
  const start = performance.now()
  await Promise.all(Array.from({ length: concurrency }, loop))
  const seconds = (performance.now() - start) / 1000
  await pool.close()
  return { seconds, latencies }
}

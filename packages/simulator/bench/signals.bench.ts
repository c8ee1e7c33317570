/**
 * The simulator against a bare `node:http` server, each in its own process,
 * with the load from this (third) process: autocannon, 10 connections,
 * `--seconds` (default 5) per run after a warm-up of each.
 *
 * Two reads: the v3 signals list (`GET /v3/vehicles/{id}/signals`, an
 * application token and `sc-user-id`) and the legacy odometer
 * (`GET /v2.0/vehicles/{id}/odometer`, a user token from the consent flow).
 * The bare server (`bench/bare.ts`) answers the same path with the status,
 * headers and body the simulator sent for it, captured first. The two targets
 * run alternately (which goes first alternates too) for `--rounds` rounds
 * (default 3), so both see the same state of the machine.
 *
 * Reported for each: the median of the rounds' req/s, the medians of their
 * p50 and p99 latency (autocannon's whole milliseconds), the ratio
 * simulator / bare, and met / not met against the targets: throughput at
 * least 0.5x the bare server's, p99 at most 2x the bare server's.
 *
 *   node bench/signals.bench.ts [--rounds 3 --seconds 5 --warmup 2]
 */
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { request } from "node:http"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"

interface AutocannonResult {
  readonly requests: { readonly average: number; readonly total: number }
  readonly latency: { readonly p50: number; readonly p99: number }
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
}

const autocannon = createRequire(import.meta.url)("autocannon") as (options: {
  readonly url: string
  readonly connections: number
  readonly duration: number
  readonly headers: Record<string, string>
}) => Promise<AutocannonResult>

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const ROUNDS = arg("rounds", 3)
const SECONDS = arg("seconds", 5)
const WARMUP = arg("warmup", 2)
const CONNECTIONS = 10
const THROUGHPUT_TARGET = 0.5
const P99_TARGET = 2

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

const children: Array<ChildProcess> = []
const pids = new Map<string, number>()

/** CPU time (user + system) of a process so far, in milliseconds; NaN where `/proc` is not there. */
const cpuMillis = (pid: number | undefined) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
  } catch {
    return Number.NaN
  }
}
const CLOCK_TICKS = 100

/** Starts `node <args>` in the package folder and resolves with the URL it prints. */
const start = (args: ReadonlyArray<string>) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: new URL("..", import.meta.url), stdio: ["ignore", "pipe", "inherit"] })
    children.push(child)
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening on (http:\/\/\S+)/.exec(out)
      if (match !== null) {
        pids.set(match[1]!, child.pid!)
        resolve(match[1]!)
      }
    })
    child.on("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}: ${out}`)))
  })

interface Reply {
  readonly status: number
  readonly rawHeaders: ReadonlyArray<string>
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

const send = (origin: string, method: string, path: string, headers: Record<string, string>, body?: string) =>
  new Promise<Reply>((resolve, reject) => {
    const url = new URL(origin)
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          rawHeaders: res.rawHeaders,
          headers: res.headers,
          body: Buffer.concat(chunks).toString()
        }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(body)
  })

const expect200 = (reply: Reply, what: string) => {
  if (reply.status !== 200 && reply.status !== 302) throw new Error(`${what}: ${reply.status} ${reply.body}`)
  return reply
}

/** The headers a bare server sends for a captured reply: all but those Node adds itself. */
const replayable = (raw: ReadonlyArray<string>) => {
  const out: Array<string> = []
  for (let i = 0; i < raw.length; i += 2) {
    if (!/^(date|connection|keep-alive)$/i.test(raw[i]!)) out.push(raw[i]!, raw[i + 1]!)
  }
  return out
}

interface Figures {
  readonly rps: Array<number>
  readonly p50: Array<number>
  readonly p99: Array<number>
  /** Server CPU (user + system) per request, in microseconds. */
  readonly cpu: Array<number>
}

const run = async (origin: string, path: string, headers: Record<string, string>, seconds: number) => {
  const pid = pids.get(origin)
  const cpuBefore = cpuMillis(pid)
  const result = await autocannon({ url: origin + path, connections: CONNECTIONS, duration: seconds, headers })
  const cpu = ((cpuMillis(pid) - cpuBefore) * 1000) / result.requests.total
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`)
  }
  return { ...result, cpu }
}

const main = async () => {
  const started = performance.now()
  const sim = await start(["src/bin.ts", "--port", "0"])
  const basic = "Basic " + Buffer.from("demo-client-id:demo-client-secret").toString("base64")
  // the token endpoint requires a User-Agent (section 4.6), which node:http does not send by itself
  const form = { authorization: basic, "content-type": "application/x-www-form-urlencoded", "user-agent": "signals-bench" }
  const app = JSON.parse(expect200(await send(sim, "POST", "/oauth/token", form, "grant_type=client_credentials"), "token").body)
    .access_token as string
  const connection = JSON.parse(
    expect200(await send(sim, "GET", "/v3/connections?pageSize=1", { authorization: `Bearer ${app}` }), "connections").body
  ).data[0]
  const vehicleId = connection.relationships.vehicle.data.id as string
  const userId = connection.attributes.user.id as string
  const redirect = "http://127.0.0.1:9/callback"
  const consent = expect200(
    await send(
      sim,
      "GET",
      `/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: "demo-client-id", redirect_uri: redirect, login_hint: userId })}`,
      {}
    ),
    "authorize"
  )
  const code = new URL(String(consent.headers["location"])).searchParams.get("code")!
  const user = JSON.parse(
    expect200(
      await send(sim, "POST", "/oauth/token", form, new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirect }).toString()),
      "code exchange"
    ).body
  ).access_token as string

  const reads = [
    {
      name: "signals list",
      path: `/v3/vehicles/${vehicleId}/signals`,
      headers: { authorization: `Bearer ${app}`, "sc-user-id": userId }
    },
    { name: "legacy odometer", path: `/v2.0/vehicles/${vehicleId}/odometer`, headers: { authorization: `Bearer ${user}` } }
  ]
  const captured = []
  for (const read of reads) {
    const reply = expect200(await send(sim, "GET", read.path, read.headers), read.name)
    captured.push({ path: read.path, status: reply.status, headers: replayable(reply.rawHeaders), body: reply.body })
  }
  const dir = mkdtempSync(join(tmpdir(), "simulator-bench-"))
  const file = join(dir, "responses.json")
  writeFileSync(file, JSON.stringify(captured))
  const bare = await start(["bench/bare.ts", file])

  console.log(
    `simulator (node src/bin.ts) vs bare node:http, each in its own process; autocannon from this one: ` +
      `${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each, alternating, after ${WARMUP} s of warm-up`
  )
  let allMet = true
  for (const [i, read] of reads.entries()) {
    const targets = { simulator: sim, bare }
    const figures: Record<keyof typeof targets, Figures> = {
      simulator: { rps: [], p50: [], p99: [], cpu: [] },
      bare: { rps: [], p50: [], p99: [], cpu: [] }
    }
    for (const target of Object.values(targets)) await run(target, read.path, read.headers, WARMUP)
    for (let round = 0; round < ROUNDS; round++) {
      const order: Array<keyof typeof targets> = round % 2 === 0 ? ["simulator", "bare"] : ["bare", "simulator"]
      for (const name of order) {
        const result = await run(targets[name], read.path, read.headers, SECONDS)
        figures[name].cpu.push(result.cpu)
        figures[name].rps.push(result.requests.average)
        figures[name].p50.push(result.latency.p50)
        figures[name].p99.push(result.latency.p99)
      }
    }
    const summary = (f: Figures) => ({ rps: median(f.rps), p50: median(f.p50), p99: median(f.p99), cpu: median(f.cpu) })
    const s = summary(figures.simulator)
    const b = summary(figures.bare)
    const throughput = s.rps / b.rps
    // autocannon records whole milliseconds: 0 ms counts as 1 ms (its resolution)
    const p99 = Math.max(s.p99, 1) / Math.max(b.p99, 1)
    const row = (name: string, f: typeof s, rounds: Figures) =>
      `  ${name.padEnd(10)} ${f.rps.toFixed(0).padStart(7)} req/s   p50 ${f.p50.toFixed(0).padStart(3)} ms   p99 ${
        f.p99.toFixed(0).padStart(3)
      } ms   server CPU ${f.cpu.toFixed(0).padStart(4)} µs/req   (rounds: ${rounds.rps.map((x) => x.toFixed(0)).join(", ")} req/s)`
    console.log(`${read.name} (GET ${read.path.replace(vehicleId, "{id}")}, ${captured[i]!.body.length} bytes)`)
    console.log(row("simulator", s, figures.simulator))
    console.log(row("bare", b, figures.bare))
    const throughputMet = throughput >= THROUGHPUT_TARGET
    const p99Met = p99 <= P99_TARGET
    allMet &&= throughputMet && p99Met
    console.log(
      `  simulator/bare: throughput ${throughput.toFixed(2)}x (target >= ${THROUGHPUT_TARGET}x: ${throughputMet ? "met" : "NOT MET"}), ` +
        `p99 ${p99.toFixed(2)}x (target <= ${P99_TARGET}x: ${p99Met ? "met" : "NOT MET"}), server CPU per request ${(s.cpu / b.cpu).toFixed(2)}x`
    )
  }
  console.log(`all targets ${allMet ? "met" : "NOT MET"}; ${((performance.now() - started) / 1000).toFixed(0)} s`)
  rmSync(dir, { recursive: true, force: true })
}

const stop = () => {
  for (const child of children) {
    child.removeAllListeners("exit")
    child.kill()
  }
}

main().then(() => {
  stop()
  process.exit(0)
}, (error) => {
  stop()
  console.error(error)
  process.exit(1)
})

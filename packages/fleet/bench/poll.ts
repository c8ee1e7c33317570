/**
 * Phase 4: polling throughput per core under the shared rate limiter. The
 * simulator (`simulator.ts`) and Redis (`RedisServer`) in processes of their
 * own; one runner process (`poller.ts`) whose vehicle entities poll every
 * vehicle every `BENCH_POLL_INTERVAL_MS` through the SDK with the limits and
 * the token on Redis (more demand than one core serves: the rate is the
 * runner's), against the limit, raw undici sending the same requests
 * (`rawPoll.ts`). Requests per second, and CPU seconds per 1,000 requests of
 * the client process and of the simulator.
 */
import * as RedisServer from "@connected-vehicle/testing/RedisServer"
import type { Server } from "./ingest.ts"
import { type Child, cpuSeconds, freePort, nextLine, POLL_SECONDS, POLL_VEHICLES, POOL, startChild, stopChild } from "./utils.ts"
import { sleep } from "./workers.ts"

interface Figures {
  readonly polls: number
  readonly rate: number
  readonly clientCpu: number
  readonly simCpu: number
}

const interval = Number(process.env["BENCH_POLL_INTERVAL_MS"] ?? 1000)

/** The simulator's count of the application's requests: accepted, answered 429. */
const usage = async (sim: Child) => {
  const line = nextLine(sim, /usage (\d+) (\d+)\n/)
  sim.child.stdin!.write("usage\n")
  const [, accepted, limited] = await line
  return { accepted: Number(accepted), limited: Number(limited) }
}

/** CPU seconds of `pids` while `during` runs. */
const cpuWhile = async <A>(pids: ReadonlyArray<number | undefined>, during: () => Promise<A>) => {
  const before = pids.map(cpuSeconds)
  const result = await during()
  return { result, cpu: pids.map((pid, i) => cpuSeconds(pid) - before[i]!) }
}

/** Runs the phase and prints its table. */
export const pollPhase = async (server: Server) => {
  const redis = await RedisServer.start()
  const sim = await startChild("simulator.ts", { BENCH_POLL_VEHICLES: String(POLL_VEHICLES) })
  const { clientId, clientSecret, targets, url: simUrl } = JSON.parse(sim.ready)
  const env = { SIM_URL: simUrl, CLIENT_ID: clientId, CLIENT_SECRET: clientSecret, TARGETS: JSON.stringify(targets) }
  try {
    // the limit: raw undici, the same requests
    const raw = await startChild("rawPoll.ts", { ...env, BENCH_POLL_SECONDS: String(POLL_SECONDS) })
    const done = nextLine(raw, /done (\d+) ([\d.]+)/)
    const measuredRaw = await cpuWhile([raw.child.pid, sim.child.pid], async () => {
      raw.child.stdin!.write("go\n")
      return done
    })
    const requests = Number(measuredRaw.result[1])
    const limit: Figures = {
      polls: requests / Number(measuredRaw.result[2]),
      rate: requests / Number(measuredRaw.result[2]),
      clientCpu: (measuredRaw.cpu[0]! / requests) * 1000,
      simCpu: (measuredRaw.cpu[1]! / requests) * 1000
    }
    await stopChild(raw)

    // the fleet: vehicle entities polling through the SDK, the shared limits and token on Redis
    const url = await server.createDatabase("poll")
    const poller = await startChild("poller.ts", {
      ...env,
      DATABASE_URL: url,
      REDIS_URL: redis.url,
      BENCH_POOL: String(POOL),
      BENCH_RUNNER_PORT: String(await freePort()),
      BENCH_POLL_INTERVAL_MS: String(interval)
    })
    const tracked = nextLine(poller, /tracked/)
    poller.child.stdin!.write("go\n")
    await tracked
    await sleep(3000) // warm up: every entity started, the first polls done
    const polls = async () => {
      const line = nextLine(poller, /polls (\d+)\n/)
      poller.child.stdin!.write("polls\n")
      return Number((await line)[1])
    }
    const measured = await cpuWhile([poller.child.pid, sim.child.pid], async () => {
      const [first, served] = [await polls(), await usage(sim)]
      const start = performance.now()
      await sleep(POLL_SECONDS * 1000)
      const [last, now] = [await polls(), await usage(sim)]
      return {
        polls: last - first,
        requests: now.accepted - served.accepted,
        limited: now.limited - served.limited,
        seconds: (performance.now() - start) / 1000
      }
    })
    const { limited, requests: sent, seconds } = measured.result
    const fleet: Figures = {
      polls: measured.result.polls / seconds,
      rate: sent / seconds,
      clientCpu: (measured.cpu[0]! / sent) * 1000,
      simCpu: (measured.cpu[1]! / sent) * 1000
    }
    await stopChild(poller)

    console.log(
      `\npolling: ${targets.length} vehicles, each polled every ${interval} ms by its entity (demand ${Math.round(targets.length * 1000 / interval)}/s), ` +
        `measured over ${POLL_SECONDS} s; the simulator and Redis in processes of their own; ` +
        `entities: ${fleet.polls.toFixed(0)} polls/s, ${limited} requests answered 429`
    )
    const row = (cells: ReadonlyArray<string>) => console.log(`  ${cells[0]!.padEnd(40)}${cells.slice(1).map((c) => c.padStart(14)).join("")}`)
    row(["", "requests/s", "client CPU-s", "sim CPU-s", "req/CPU-s"])
    row(["", "", "per 1,000", "per 1,000", "of client"])
    for (const [label, f] of [["vehicle entities, 1 runner (SDK, Redis)", fleet], ["raw undici loop (16 in flight)", limit]] as const) {
      row([label, f.rate.toFixed(0), f.clientCpu.toFixed(2), f.simCpu.toFixed(2), (1000 / f.clientCpu).toFixed(0)])
    }
    row(["entities / raw", `${(fleet.rate / limit.rate).toFixed(2)}x`, `${(fleet.clientCpu / limit.clientCpu).toFixed(2)}x`, "", ""])
  } finally {
    await stopChild(sim)
    await redis.stop()
  }
}

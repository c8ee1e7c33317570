/**
 * Requests per second of the signals list (first page, 10 signals) against a
 * bare `node:http` server that sends the same bytes. Both listen on loopback
 * in this process and are driven by the same keep-alive client. Rounds
 * interleave (which server goes first alternates); the report gives each
 * side's median, the ratio of the medians and the median of the per-round
 * ratios (a round's two runs are adjacent in time, so that one is the least
 * sensitive to other work on the machine).
 *
 *   pnpm --filter @connected-vehicle/simulator bench [-- --rounds 7 --seconds 1 --concurrency 16]
 */
import { Context, Effect, Layer } from "effect"
import { Agent, createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { layer, Simulator } from "../src/Simulator.ts"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const ROUNDS = arg("rounds", 7)
const SECONDS = arg("seconds", 1)
const CONCURRENCY = arg("concurrency", 16)

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

const get = (agent: Agent, port: number, path: string, headers: Record<string, string>) =>
  new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
    const req = request({ agent, host: "127.0.0.1", port, path, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end()
  })

/** Requests completed per second by CONCURRENCY loops for SECONDS. */
const load = async (port: number, path: string, headers: Record<string, string>) => {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
  const end = performance.now() + SECONDS * 1000
  let done = 0
  const loop = async () => {
    while (performance.now() < end) {
      const reply = await get(agent, port, path, headers)
      if (reply.status !== 200) throw new Error(`status ${reply.status}`)
      done++
    }
  }
  const start = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, loop))
  const rps = done / ((performance.now() - start) / 1000)
  agent.destroy()
  return rps
}

const main = Effect.gen(function*() {
  const context = yield* Layer.build(layer())
  const sim = Context.get(context, Simulator)
  const port = Number(new URL(sim.url).port)
  const basic = "Basic " + Buffer.from(`${sim.clientId}:demo-client-secret`).toString("base64")
  const token = yield* Effect.promise(async () => {
    const r = await fetch(`${sim.url}/oauth/token`, {
      method: "POST",
      headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials"
    })
    return ((await r.json()) as { access_token: string }).access_token
  })
  const vehicleId = sim.data.vehicleIds[0]!
  const headers = { authorization: `Bearer ${token}`, "sc-user-id": sim.data.connectionOf(vehicleId)!.userId }
  const path = `/v3/vehicles/${vehicleId}/signals`
  const sample = yield* Effect.promise(() => get(new Agent(), port, path, headers))
  const bytes = sample.body

  const bare = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": bytes.length })
    res.end(bytes)
  })
  yield* Effect.promise(() => new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve)))
  const barePort = (bare.address() as AddressInfo).port

  // warm up both
  yield* Effect.promise(() => load(port, path, headers))
  yield* Effect.promise(() => load(barePort, path, headers))
  const simulator: Array<number> = []
  const baseline: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      simulator.push(yield* Effect.promise(() => load(port, path, headers)))
      baseline.push(yield* Effect.promise(() => load(barePort, path, headers)))
    } else {
      baseline.push(yield* Effect.promise(() => load(barePort, path, headers)))
      simulator.push(yield* Effect.promise(() => load(port, path, headers)))
    }
  }
  bare.close()
  yield* sim.resetLog
  const s = median(simulator)
  const b = median(baseline)
  console.log(`signals list, ${bytes.length} bytes, ${CONCURRENCY} keep-alive connections, ${ROUNDS} rounds of ${SECONDS}s`)
  console.log(`simulator: median ${s.toFixed(0)} req/s  (rounds: ${simulator.map((x) => x.toFixed(0)).join(", ")})`)
  console.log(`bare node:http: median ${b.toFixed(0)} req/s  (rounds: ${baseline.map((x) => x.toFixed(0)).join(", ")})`)
  console.log(`ratio of medians simulator/bare: ${(s / b).toFixed(3)}`)
  console.log(`median of round ratios: ${median(simulator.map((x, i) => x / baseline[i]!)).toFixed(3)}`)
}).pipe(Effect.scoped)

Effect.runPromise(main).then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})

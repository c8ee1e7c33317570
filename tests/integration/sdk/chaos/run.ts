/**
 * A chaos run: the SDK's v3 reads through the fault proxy (`proxy.ts`) in
 * front of the simulator (its own process), many calls at once with per-call
 * timeouts and retries, some interrupted at a random moment, on each HTTP
 * client in turn with the same seed; every call's end checked (a typed error
 * or success within its budget, no defect, no secret), then the connections
 * left open and the outcomes compared between clients.
 *
 *   node tests/integration/sdk/chaos/run.ts [seed] [calls]
 */
import { Cause, Effect, Exit, Layer, Logger, ManagedRuntime, Redacted, Stream } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Agent } from "undici"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import { Signals } from "@connected-vehicle/v3/Signals"
import { Connections } from "@connected-vehicle/v3/Connections"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import * as Client from "@connected-vehicle/sdk/Client"
import * as ClientError from "@connected-vehicle/sdk/ClientError"
import { startSimulator } from "../bench/simulator.ts"
import { startProxy } from "./proxy.ts"

const seed = Number(process.argv[2] ?? Date.now() % 1_000_000)
const calls = Number(process.argv[3] ?? 300)
const only = process.argv[4]
console.log(`chaos seed=${seed} calls=${calls}`)

const problems: Array<string> = []
process.on("unhandledRejection", (e) => problems.push(`unhandledRejection: ${String(e)}`))
process.on("uncaughtException", (e) => problems.push(`uncaughtException: ${String(e)}`))

const mulberry = (a: number) => () => {
  a |= 0
  a = (a + 0x6d2b79f5) | 0
  let t = Math.imul(a ^ (a >>> 15), 1 | a)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const sim = await startSimulator(40)
const clientSecret = sim.clientSecret

interface Kind {
  readonly name: string
  readonly httpSpans: boolean
  readonly client: (agent: Agent) => Layer.Layer<HttpClient.HttpClient>
}
const kinds: Array<Kind> = ([
  { name: "undici", httpSpans: false, client: (agent: Agent) => Layer.succeed(HttpClient.HttpClient, UndiciHttpClient.make(agent)) },
  { name: "undici+spans", httpSpans: true, client: (agent: Agent) => Layer.succeed(HttpClient.HttpClient, UndiciHttpClient.make(agent)) },
  { name: "layerUndici", httpSpans: false, client: (agent: Agent) => Layer.provide(NodeHttpClient.layerUndiciNoDispatcher, Layer.succeed(NodeHttpClient.Dispatcher, agent)) },
  { name: "fetch", httpSpans: false, client: () => FetchHttpClient.layer }
] satisfies Array<Kind>).filter((k) => only === undefined || only.split(",").includes(k.name))

const outcomes = new Map<string, Array<string>>()
const logLines: Array<string> = []

for (const kind of kinds) {
  const proxy = await startProxy({ upstream: sim.url, seed })
  const agent = new Agent({ connections: 64 })
  const layer = ConnectedVehicle.layer({
    transport: {
      roots: TransportConfig.rootsFromOrigin(proxy.origin),
      timeout: "1 second",
      retry: { maxElapsed: "3 seconds", initialDelay: "20 millis", maxDelay: "300 millis" },
      httpSpans: kind.httpSpans,
      logLevel: "Debug"
    },
    oauth: { clientId: sim.clientId, clientSecret: Redacted.make(clientSecret) },
    httpClient: kind.client(agent)
  }).pipe(Layer.merge(Logger.layer([Logger.make((o) => { logLines.push(`${String(o.message)} ${JSON.stringify(o.message)}`) })])))
  const runtime = ManagedRuntime.make(layer)
  const targets = await runtime.runPromise(Effect.gen(function*() {
    const page = yield* (yield* Connections).list({ pageSize: 20 })
    return page.data.map((c) => ({ vehicleId: c.relationships.vehicle.data.id, userId: c.attributes.user.id }))
  }))
  proxy.enabled = true
  const results: Array<string> = []
  const started = performance.now()
  const one = (i: number) => {
    // each call's own draws, whatever the order calls start in
    const rng = mulberry(seed * 100_003 + i)
    const target = targets[Math.floor(rng() * targets.length)]!
    const timeout = 100 + Math.floor(rng() * 1200)
    const maxRetries = Math.floor(rng() * 4)
    const interruptAt = rng() < 0.25 ? Math.floor(rng() * 1500) : undefined
    const op = rng()
    const effect = Effect.gen(function*() {
      const signals = yield* Signals
      const options = { timeout: `${timeout} millis`, maxRetries } as const
      if (op < 0.55) return yield* signals.list({ ...target, page: i + 1, pageSize: 1 + (i % 7) }, options)
      if (op < 0.8) return yield* signals.get({ ...target, code: ["odometer-traveleddistance", "location-preciselocation", "wheel-tirepressures"][i % 3]! }, options)
      if (op < 0.9) return yield* Stream.runCollect(Stream.take(signals.stream({ ...target, pageSize: 1 + (i % 3) }, options), 1 + (i % 5)))
      return yield* Stream.runCollect(Stream.take((yield* Connections).stream({ pageSize: 1 + (i % 4) }, options), 2 + (i % 6)))
    })
    const t0 = performance.now()
    const guarded = interruptAt === undefined ? Effect.map(effect, () => "ok") : Effect.map(Effect.timeoutOption(effect, `${interruptAt} millis`), (o) => o._tag === "None" ? "interrupted" : "ok")
    return runtime.runPromiseExit(guarded).then((exit) => {
      const took = performance.now() - t0
      let outcome: string
      if (Exit.isSuccess(exit)) outcome = exit.value
      else {
        const error = Cause.findErrorOption(exit.cause)
        if (error._tag === "None") {
          outcome = `DEFECT ${Cause.pretty(exit.cause).slice(0, 400)}`
          problems.push(`[${kind.name}] call ${i}: ${outcome}`)
        } else {
          const e = error.value as { _tag: string; reason?: { _tag: string; description?: string }; message: string }
          outcome = e._tag === "ConnectedVehicleError" ? `${e.reason?._tag}` : e._tag
          if (e._tag === "InvalidArgument" && problems.length < 3) problems.push(`[${kind.name}] call ${i}: ${e.message}`)
          if (e._tag !== "ConnectedVehicleError" && e._tag !== "InvalidArgument") problems.push(`[${kind.name}] call ${i}: untyped ${e._tag}`)
          const text = `${String(e)} ${e.message} ${JSON.stringify(e)}`
          for (const secret of [clientSecret, ...proxy.secrets]) if (secret && text.includes(secret)) problems.push(`[${kind.name}] call ${i}: secret in error ${outcome}`)
          if (outcome === "Connection" || outcome === "InvalidResponse" || outcome === "MalformedBody") outcome += `:${e.reason?.description?.slice(0, 60)}`
        }
      }
      // the budget: 3 s of retries, plus the token call's own and a margin
      if (took > 3_000 + 1_500) problems.push(`[${kind.name}] call ${i}: ${Math.round(took)} ms (${outcome})`)
      results[i] = outcome
    })
  }
  const concurrency = 32
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < calls) await one(next++)
  }))
  const elapsed = performance.now() - started
  await new Promise((r) => setTimeout(r, 600))
  const stats = Object.values(agent.stats)[0] as { connected?: number; pending?: number; running?: number; queued?: number } | undefined
  const summary = new Map<string, number>()
  for (const r of results) {
    const k = r.split(":")[0]!
    summary.set(k, (summary.get(k) ?? 0) + 1)
  }
  console.log(`[${kind.name}] ${calls} calls in ${Math.round(elapsed)} ms; outcomes ${JSON.stringify(Object.fromEntries(summary))}`)
  console.log(`[${kind.name}] faults ${JSON.stringify(Object.fromEntries(proxy.counts))}`)
  console.log(`[${kind.name}] after: proxy sockets open ${proxy.open()}, stalled still open ${proxy.stalledOpen()}, agent ${JSON.stringify(stats)}`)
  for (const e of proxy.early) problems.push(`[${kind.name}] Retry-After not honoured: ${e}`)
  if (proxy.stalledOpen() > 0) problems.push(`[${kind.name}] ${proxy.stalledOpen()} stalled exchanges still open after every call ended: ${proxy.stalledWhat().join(", ")}`)
  if (stats && ((stats.pending ?? 0) > 0 || (stats.running ?? 0) > 0)) problems.push(`[${kind.name}] agent not idle: ${JSON.stringify(stats)}`)
  for (const line of logLines) for (const secret of [clientSecret, ...proxy.secrets]) if (secret && line.includes(secret)) problems.push(`[${kind.name}] secret in a log line`)
  logLines.length = 0
  outcomes.set(kind.name, results)
  await runtime.dispose()
  await agent.destroy().catch(() => {})
  await proxy.close()
}

// the Promise client: the same calls, with AbortSignals fired at random moments
if (only === undefined || only.split(",").includes("promise")) {
  const proxy = await startProxy({ upstream: sim.url, seed })
  const client = Client.createClient({
    clientId: sim.clientId,
    clientSecret,
    origin: proxy.origin,
    timeout: "1 second",
    maxRetries: 2,
    transport: { retry: { maxElapsed: "3 seconds", initialDelay: "20 millis", maxDelay: "300 millis" } },
    logLevel: "debug",
    logger: (entry) => void logLines.push(JSON.stringify(entry))
  })
  const page = await client.v3.connections.list({ pageSize: 20 })
  const targets = page.data.map((c) => ({ vehicleId: c.relationships.vehicle.data.id, userId: c.attributes.user.id }))
  proxy.enabled = true
  const summary = new Map<string, number>()
  let next = 0
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < calls) {
      const i = next++
      const rng = mulberry(seed * 100_003 + i)
      const target = targets[Math.floor(rng() * targets.length)]!
      const timeout = 100 + Math.floor(rng() * 1200)
      const maxRetries = Math.floor(rng() * 4)
      const abortAt = rng() < 0.25 ? Math.floor(rng() * 1500) : undefined
      const op = rng()
      const controller = new AbortController()
      const timer = abortAt === undefined ? undefined : setTimeout(() => controller.abort(), abortAt)
      const options = { timeout: `${timeout} millis` as const, maxRetries, signal: controller.signal }
      const t0 = performance.now()
      let outcome = "ok"
      try {
        if (op < 0.7) await client.v3.signals.list({ ...target, page: i + 1, pageSize: 1 + (i % 7) }, options)
        else await client.v3.signals.get({ ...target, code: ["odometer-traveleddistance", "location-preciselocation", "wheel-tirepressures"][i % 3]! }, options)
      } catch (error) {
        if (!(error instanceof ClientError.ConnectedVehicleError)) {
          problems.push(`[promise] call ${i}: not a client error: ${String(error)}`)
          outcome = "untyped"
        } else {
          outcome = error.constructor.name
          if (outcome === "ConnectedVehicleError" || outcome === "UnrecognizedError") problems.push(`[promise] call ${i}: ${outcome} ${error.message}`)
          const text = `${String(error)} ${error.message} ${JSON.stringify(error)} ${(error as Error).stack}`
          for (const secret of [clientSecret, ...proxy.secrets]) if (secret && text.includes(secret)) problems.push(`[promise] call ${i}: secret in ${outcome}`)
        }
      }
      clearTimeout(timer)
      const took = performance.now() - t0
      if (took > 3_000 + 1_500) problems.push(`[promise] call ${i}: ${Math.round(took)} ms (${outcome})`)
      summary.set(outcome, (summary.get(outcome) ?? 0) + 1)
    }
  }))
  console.log(`[promise] ${calls} calls; outcomes ${JSON.stringify(Object.fromEntries(summary))}`)
  await new Promise((r) => setTimeout(r, 600))
  console.log(`[promise] after: proxy sockets open ${proxy.open()}, stalled still open ${proxy.stalledOpen()}`)
  if (proxy.stalledOpen() > 0) problems.push(`[promise] ${proxy.stalledOpen()} stalled exchanges still open after every call ended`)
  for (const e of proxy.early) problems.push(`[promise] Retry-After not honoured: ${e}`)
  for (const line of logLines) for (const secret of [clientSecret, ...proxy.secrets]) if (secret && line.includes(secret)) problems.push(`[promise] secret in a log line`)
  logLines.length = 0
  await client.close()
  await proxy.close()
}

// the same fault sequence on each client: differences
const names = [...outcomes.keys()]
const norm = (s: string) => s === "interrupted" ? "interrupted" : s.split(":")[0]!
for (let i = 0; i < calls; i++) {
  const row = names.map((n) => norm(outcomes.get(n)![i]!))
  if (new Set(row).size > 1) console.log(`diff call ${i}: ${names.map((n) => `${n}=${outcomes.get(n)![i]}`).join(" | ")}`)
  void row
}
console.log(`problems (${problems.length}):`)
for (const p of problems.slice(0, 60)) console.log(`  ${p}`)
sim.child.kill()
const heap = process.memoryUsage().heapUsed
console.log(`heap ${Math.round(heap / 1e6)} MB`)
setTimeout(() => {
  console.log("still alive 3 s after the end: handles", (process as unknown as { _getActiveHandles: () => Array<unknown> })._getActiveHandles().map((h) => (h as object).constructor.name))
}, 3_000).unref()

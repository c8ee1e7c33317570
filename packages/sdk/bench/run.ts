/**
 * The SDK benchmark of issue 5, in one process, on 127.0.0.1:
 *
 * 1. latency: against ONE simulator, interleaved rounds of `signals.get` and
 *    of a legacy odometer read, each with raw `fetch` and through the SDK
 *    (`ConnectedVehicle` layers with the default HTTP client,
 *    `Transport.layerHttpClient`, i.e. undici on Node, and on
 *    `FetchHttpClient`); medians and ratios to raw `fetch` (target: at most
 *    1.10x);
 * 2. streaming: 10,000 then 100,000 connections through `Connections.stream`
 *    (simulator sized to 100,000 connections): time, items/s, peak RSS growth
 *    and retained heap after a full GC, with the 100k / 10k ratios.
 *
 * Run: `pnpm --filter @connected-vehicle/sdk bench` (node --expose-gc).
 * `BENCH_ROUNDS` (default 3000) and `BENCH_WARMUP` (default 300) tune phase 1.
 */
import { availableParallelism } from "node:os"
import { Context, Effect, Layer, Option, Redacted, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { Connections } from "@connected-vehicle/v3/Connections"
import { Signals } from "@connected-vehicle/v3/Signals"
import * as ConnectedVehicle from "../src/ConnectedVehicle.ts"

const WARMUP = Number(process.env["BENCH_WARMUP"] ?? 300)
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3000)
const TARGET = 1.1

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const signed = (bytes: number) => `${bytes < 0 ? "-" : "+"}${(Math.abs(bytes) / 1024 / 1024).toFixed(2)} MB`
const gc = () => globalThis.gc?.()

// ---------------------------------------------------------------------------
// Phase 1: latency
// ---------------------------------------------------------------------------

type Case = { readonly name: string; readonly raw: Effect.Effect<unknown>; readonly sdk: Record<string, Effect.Effect<unknown, unknown>> }

/** Runs every variant of every case once per round, in a rotating order; returns the timings per variant. */
const interleave = (cases: ReadonlyArray<Case>) =>
  Effect.gen(function*() {
    const all = cases.flatMap((c) => [[`${c.name}|raw fetch`, c.raw] as const, ...Object.entries(c.sdk).map(([k, e]) => [`${c.name}|${k}`, e] as const)])
    const times = new Map(all.map(([key]) => [key, [] as Array<number>]))
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      for (let j = 0; j < all.length; j++) {
        const [key, effect] = all[(i + j) % all.length]!
        const start = performance.now()
        yield* effect
        if (i >= WARMUP) times.get(key)!.push(performance.now() - start)
      }
    }
    return times
  })

const latency = Effect.gen(function*() {
  // the simulator on 127.0.0.1 and the SDK with its default HTTP client, with the busiest user signed in
  const undici = yield* Layer.build(ConnectedVehicle.layerSimulator({ loopback: true }))
  const sim = Context.get(undici, Simulator.Simulator)
  const store = Context.get(undici, TokenStore.TokenStore)
  // the same SDK on fetch, against the same simulator and the same tokens
  const viaFetch = yield* Layer.build(ConnectedVehicle.layerWith(
    TransportConfig.layerOrigin(sim.url),
    OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret }),
    { httpClient: FetchHttpClient.layer, tokenStore: Layer.succeed(TokenStore.TokenStore, store) }
  ))

  const signalVehicle = sim.data.vehicleIds[0]!
  const signalTarget = {
    vehicleId: signalVehicle,
    userId: sim.data.connectionOf(signalVehicle)!.userId,
    code: sim.data.vehicle(signalVehicle)!.signalCodes[0]!
  }
  const legacyVehicle = sim.data.vehiclesOf(ConnectedVehicle.busiestUser(sim.data))[0]!
  const sdk = (context: Context.Context<ConnectedVehicle.Services>) => ({
    signal: Context.get(context, Signals).get(signalTarget),
    odometer: Context.get(context, Vehicles).odometer(legacyVehicle)
  })
  const onUndici = sdk(undici)
  const onFetch = sdk(viaFetch)
  yield* onUndici.signal // the application token is fetched on first use
  const bearer = (key: string) =>
    Effect.map(store.get(key), (token) => `Bearer ${Redacted.value(Option.getOrThrow(token).accessToken)}`)

  const rawFetch = (url: string, headers: Record<string, string>) =>
    Effect.promise(async () => {
      const response = await fetch(url, { headers })
      if (response.status !== 200) throw new Error(`raw fetch ${url}: ${response.status}`)
      return { body: await response.json(), dataAge: response.headers.get("sc-data-age") }
    })
  const cases: ReadonlyArray<Case> = [{
    name: "signals.get",
    raw: rawFetch(`${sim.url}/v3/vehicles/${signalTarget.vehicleId}/signals/${signalTarget.code}`, {
      authorization: yield* bearer("application"),
      "sc-user-id": signalTarget.userId,
      accept: "application/json"
    }),
    sdk: { "SDK, default client (undici)": onUndici.signal, "SDK (FetchHttpClient)": onFetch.signal }
  }, {
    name: "legacy odometer",
    raw: rawFetch(`${sim.url}/v2.0/vehicles/${legacyVehicle}/odometer`, {
      authorization: yield* bearer("user"),
      "sc-unit-system": "metric",
      accept: "application/json"
    }),
    sdk: { "SDK, default client (undici)": onUndici.odometer, "SDK (FetchHttpClient)": onFetch.odometer }
  }]

  const started = performance.now()
  const times = yield* interleave(cases)
  const variants = cases.length * 3
  console.log(
    `latency: ${ROUNDS} interleaved rounds (after ${WARMUP} warm-up) of ${variants} requests, one simulator on ${sim.url}, ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s`
  )
  for (const c of cases) {
    const base = median(times.get(`${c.name}|raw fetch`)!)
    console.log(`  ${c.name}`)
    console.log(`    ${"raw fetch".padEnd(34)} ${base.toFixed(3)} ms`)
    for (const key of Object.keys(c.sdk)) {
      const m = median(times.get(`${c.name}|${key}`)!)
      const ratio = m / base
      console.log(
        `    ${key.padEnd(34)} ${m.toFixed(3)} ms  ${ratio.toFixed(3)}x raw fetch  ` +
          `(target <= ${TARGET.toFixed(2)}x: ${ratio <= TARGET ? "met" : "NOT met"})`
      )
    }
  }
}).pipe(Effect.scoped)

// ---------------------------------------------------------------------------
// Phase 2: streaming
// ---------------------------------------------------------------------------

const SAMPLE_EVERY = 2_500

interface StreamResult {
  readonly count: number
  readonly seconds: number
  readonly peakRss: number
  readonly peakRssGrowth: number
  readonly retainedHeap: number
  readonly heapAfterGc: number
}

/**
 * Streams `count` connections. Peak RSS is sampled every 5 ms; the heap is
 * measured after a full GC every {@link SAMPLE_EVERY} items (the largest value
 * is kept, with its growth over the start); the time excludes those GCs.
 */
const streaming = (count: number, quiet = false) =>
  Effect.gen(function*() {
    const connections = yield* Connections
    // settle first: finalizers and garbage of the previous phase would show as a negative growth
    for (let i = 0; i < 3; i++) {
      gc()
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
    }
    const before = process.memoryUsage()
    let peakRss = before.rss
    let heapAfterGc = 0
    let gcMillis = 0
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss)
    }, 5)
    let seen = 0
    const start = performance.now()
    yield* connections.stream().pipe(
      Stream.take(count),
      Stream.runForEach(() =>
        Effect.sync(() => {
          seen++
          if (seen % SAMPLE_EVERY === 0) {
            const t = performance.now()
            peakRss = Math.max(peakRss, process.memoryUsage().rss)
            gc()
            heapAfterGc = Math.max(heapAfterGc, process.memoryUsage().heapUsed)
            gcMillis += performance.now() - t
          }
        })
      )
    )
    const seconds = (performance.now() - start - gcMillis) / 1000
    clearInterval(sampler)
    if (seen !== count) return yield* Effect.die(`streamed ${seen} connections, expected ${count}`)
    const retainedHeap = heapAfterGc - before.heapUsed
    const result: StreamResult = { count, seconds, peakRss, peakRssGrowth: peakRss - before.rss, retainedHeap, heapAfterGc }
    if (quiet) return result
    console.log(
      `  ${String(count).padStart(7)} connections: ${seconds.toFixed(2)} s, ${Math.round(count / seconds)} items/s, ` +
        `peak RSS ${mb(peakRss)} (+${mb(result.peakRssGrowth)}), heap after GC ${mb(heapAfterGc)} (${signed(retainedHeap)})`
    )
    return result
  })

const streamingPhase = Effect.gen(function*() {
  const rss = process.memoryUsage().rss
  const context = yield* Layer.build(ConnectedVehicle.layerSimulator({
    loopback: true,
    signIn: false,
    simulator: { vehicles: 100_000, connections: 100_000, users: 5_000 }
  }))
  const sim = Context.get(context, Simulator.Simulator)
  console.log(
    `streaming Connections.stream (pages of 100, SDK on its default client, undici), simulator with ` +
      `${sim.data.connectionCount} connections on ${sim.url} (+${mb(process.memoryUsage().rss - rss)} RSS):`
  )
  const run = (count: number, quiet?: boolean) =>
    Effect.gen(function*() {
      yield* sim.resetLog
      const result = yield* streaming(count, quiet).pipe(Effect.provideContext(context))
      if (quiet !== true) console.log(`           (the in-process simulator's request log now holds ${(yield* sim.requests).length} entries, in that heap)`)
      return result
    })
  yield* run(1_000, true) // warm-up: JIT, connection pool
  const small = yield* run(10_000)
  const large = yield* run(100_000)
  const ratio = (a: number, b: number) => b <= 0 ? "n/a (10k: nothing measurable)" : `${(a / b).toFixed(2)}x`
  console.log(
    `  100k / 10k (10x the items): time ${ratio(large.seconds, small.seconds)}, peak RSS ${ratio(large.peakRss, small.peakRss)}, ` +
      `peak RSS growth ${ratio(large.peakRssGrowth, small.peakRssGrowth)}, heap after GC ${ratio(large.heapAfterGc, small.heapAfterGc)}, ` +
      `retained heap growth ${ratio(large.retainedHeap, small.retainedHeap)}`
  )
}).pipe(Effect.scoped)

const program = Effect.gen(function*() {
  console.log(`node ${process.version}, ${process.platform}/${process.arch}, ${availableParallelism()} cores`)
  if (globalThis.gc === undefined) console.log("(run node with --expose-gc for the retained-heap figures)")
  yield* latency
  yield* streamingPhase
})

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exitCode = 1
})

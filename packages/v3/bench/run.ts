/**
 * Benchmarks of the v3 client against the simulator on 127.0.0.1, in one run:
 *
 * 1. median latency of `signals.get` through the SDK vs the same request with
 *    raw `fetch` (same simulator, same token, interleaved), as a ratio;
 * 2. streaming 10,000 and 100,000 connections with `connections.stream`:
 *    total time and peak RSS / heap growth, to show memory stays flat.
 *
 * Run: `pnpm --filter @connected-vehicle/v3 bench` (or `pnpm exec node packages/v3/bench/run.ts`).
 */
import { Context, Effect, Layer, Redacted, Stream } from "effect"
import { NodeHttpClient } from "@effect/platform-node"
import { FetchHttpClient } from "effect/http"
import type { HttpClient } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { Connections } from "../src/Connections.ts"
import { Signals } from "../src/Signals.ts"
import * as V3 from "../src/V3.ts"

const WARMUP = 500
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3000)

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}
const ms = (x: number) => `${x.toFixed(3)} ms`
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`

/** Interleaved medians of `raw` and each SDK variant, printed with their ratios. */
const compare = (name: string, raw: Effect.Effect<unknown>, variants: Record<string, Effect.Effect<unknown, unknown>>) =>
  Effect.gen(function*() {
    const all: Record<string, Effect.Effect<unknown, unknown>> = { "raw fetch": raw, ...variants }
    const keys = Object.keys(all)
    const times: Record<string, Array<number>> = Object.fromEntries(keys.map((k) => [k, []]))
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      // rotate the order every round
      for (let j = 0; j < keys.length; j++) {
        const key = keys[(i + j) % keys.length]!
        const start = performance.now()
        yield* all[key]!
        if (i >= WARMUP) times[key]!.push(performance.now() - start)
      }
    }
    const base = median(times["raw fetch"]!)
    console.log(`${name} (${ROUNDS} interleaved rounds, medians):`)
    for (const key of keys) {
      const m = median(times[key]!)
      console.log(`  ${key.padEnd(34)} ${ms(m)}  ${(m / base).toFixed(3)}x raw fetch`)
    }
  })

const sdkOn = (http: Layer.Layer<HttpClient.HttpClient>) => Layer.unwrap(Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const TransportLive = Transport.layer.pipe(
    Layer.provide([TransportConfig.layerOrigin(sim.url), http])
  )
  const CredentialsLive = Session.layerApplication().pipe(
    Layer.provide([
      TokenStore.layerMemory,
      OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret }),
      TransportLive
    ])
  )
  return V3.layer().pipe(Layer.provideMerge(Layer.mergeAll(TransportLive, CredentialsLive)))
}))

/** `signals.get` through the SDK on the given HttpClient layers vs raw `fetch`, interleaved. */
const latency = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const vehicleId = sim.data.vehicleIds[0]!
  const userId = sim.data.connectionOf(vehicleId)!.userId
  const code = sim.data.vehicle(vehicleId)!.signalCodes[0]!
  const sdkWith = (http: Layer.Layer<HttpClient.HttpClient>) =>
    Effect.gen(function*() {
      const context = yield* Layer.build(sdkOn(http))
      const signals = Context.get(context, Signals)
      const token = yield* Context.get(context, Credentials).token
      return { call: signals.get({ vehicleId, userId, code }), token }
    })
  const viaFetch = yield* sdkWith(FetchHttpClient.layer)
  const viaUndici = yield* sdkWith(NodeHttpClient.layerUndici)
  const url = `${sim.url}/v3/vehicles/${vehicleId}/signals/${code}`
  const headers = { authorization: `Bearer ${Redacted.value(viaFetch.token)}`, "sc-user-id": userId, accept: "application/json" }
  const raw = Effect.promise(async () => {
    const response = await fetch(url, { headers })
    if (response.status !== 200) throw new Error(`raw fetch: ${response.status}`)
    return response.json()
  })
  yield* compare("signals.get", raw, { "SDK (FetchHttpClient)": viaFetch.call, "SDK (NodeHttpClient.layerUndici)": viaUndici.call })
}).pipe(Effect.scoped)

/** Streams `count` connections; retained heap (after a full GC) every 10,000 items, and peak RSS. */
const streaming = (count: number) =>
  Effect.gen(function*() {
    const connections = yield* Connections
    const gc = globalThis.gc ?? (() => undefined)
    gc()
    const before = process.memoryUsage()
    let peakRss = before.rss
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss)
    }, 5)
    const retained: Array<string> = []
    let seen = 0
    const start = performance.now()
    yield* connections.stream({ pageSize: 100 }).pipe(
      Stream.take(count),
      Stream.runForEach(() =>
        Effect.sync(() => {
          seen++
          if (seen % 10_000 === 0 && globalThis.gc !== undefined) {
            gc()
            retained.push(mb(process.memoryUsage().heapUsed - before.heapUsed))
          }
        })
      )
    )
    const elapsed = performance.now() - start
    clearInterval(sampler)
    if (seen !== count) throw new Error(`streamed ${seen}, expected ${count}`)
    console.log(
      `stream ${String(count).padStart(7)} connections: ${(elapsed / 1000).toFixed(2)} s, ` +
        `peak RSS ${mb(peakRss)} (+${mb(peakRss - before.rss)} over the start of the run)`
    )
    if (retained.length > 0) console.log(`  retained heap growth after GC, every 10,000 items: ${retained.join(", ")}`)
  })

const program = Effect.gen(function*() {
  if (globalThis.gc === undefined) console.log("(run node with --expose-gc for the retained-heap figures)")
  yield* latency.pipe(Effect.provide(Simulator.layer({ port: 0 })))
  yield* Effect.gen(function*() {
    yield* streaming(10_000)
    yield* streaming(100_000)
  }).pipe(
    Effect.provide(sdkOn(FetchHttpClient.layer)),
    Effect.provide(Simulator.layer({ port: 0, vehicles: 100_000, connections: 100_000, users: 5_000 }))
  )
})

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exitCode = 1
})

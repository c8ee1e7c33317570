/**
 * Calls per second at concurrency 1,000 (issue 22 item 7): rounds of 1,000
 * concurrent `signals.get` over 200 vehicles, the simulator in its own
 * process, for raw undici `request()` (its global dispatcher, no connection
 * limit) and the SDK's default layer (`UndiciHttpClient`, 64 connections per
 * origin), and the SDK with 1,000 connections. Medians of the rounds.
 *
 *   node sdk/bench/concurrency.ts   (from tests/integration)
 */
import { Effect, ManagedRuntime, Redacted } from "effect"
import { request } from "undici"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { Connections } from "@connected-vehicle/v3/Connections"
import { Signals } from "@connected-vehicle/v3/Signals"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import { startSimulator } from "./simulator.ts"

const CONCURRENCY = Number(process.env["BENCH_CONCURRENCY"] ?? 1000)
const ROUNDS = Number(process.env["BENCH_CONCURRENCY_ROUNDS"] ?? 5)
const sim = await startSimulator(200)
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

try {
  const roots = TransportConfig.rootsFromOrigin(sim.url)
  const oauth = { clientId: sim.clientId, clientSecret: Redacted.make(sim.clientSecret) }
  const runtimeOf = (connections: number | undefined) =>
    ManagedRuntime.make(ConnectedVehicle.layer({
      transport: { roots },
      oauth,
      ...(connections === undefined ? {} : { httpClient: UndiciHttpClient.layer({ connections }) })
    }))
  const defaults = runtimeOf(undefined)
  const wide = runtimeOf(CONCURRENCY)
  const targets = await defaults.runPromise(Effect.flatMap(Effect.service(Connections), (c) =>
    Effect.map(c.list({ pageSize: 100 }), (page) => page.data.map((d) => ({ vehicleId: d.relationships.vehicle.data.id, userId: d.attributes.user.id })))))
  const code = "odometer-traveleddistance"
  const bearer = await (await request(`${sim.url}/oauth/token`, {
    method: "POST",
    // the token endpoint requires a User-Agent (section 4.6), which undici's request() does not send by itself
    headers: {
      authorization: `Basic ${Buffer.from(`${sim.clientId}:${sim.clientSecret}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
      "user-agent": "concurrency-bench"
    },
    body: "grant_type=client_credentials"
  })).body.json() as { readonly access_token: string }
  const raw = (i: number) => {
    const t = targets[i % targets.length]!
    return request(`${sim.url}/v3/vehicles/${t.vehicleId}/signals/${code}`, {
      headers: { authorization: `Bearer ${bearer.access_token}`, "sc-user-id": t.userId, accept: "application/json" }
    }).then(async (r) => {
      const body = await r.body.json()
      // a baseline of refusals would measure nothing
      if (r.statusCode !== 200) throw new Error(`raw undici: ${r.statusCode} ${JSON.stringify(body)}`)
      return body
    })
  }
  const sdk = (runtime: typeof defaults) => (i: number) =>
    runtime.runPromise(Effect.flatMap(Effect.service(Signals), (s) => s.get({ ...targets[i % targets.length]!, code })))
  const variants: Array<readonly [string, (i: number) => Promise<unknown>]> = [
    ["raw undici request() (no connection limit)", raw],
    ["SDK default (64 connections per origin)", sdk(defaults)],
    [`SDK, UndiciHttpClient.layer({ connections: ${CONCURRENCY} })`, sdk(wide)]
  ]
  const rates = variants.map(() => [] as Array<number>)
  for (let round = 0; round <= ROUNDS; round++) {
    for (let k = 0; k < variants.length; k++) {
      const start = performance.now()
      await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => variants[k]![1](i)))
      const seconds = (performance.now() - start) / 1000
      if (round > 0) rates[k]!.push(CONCURRENCY / seconds)
    }
  }
  console.log(`\nconcurrency: ${ROUNDS} rounds of ${CONCURRENCY} concurrent signals.get (after one warm-up round), simulator in its own process`)
  const base = median(rates[0]!)
  variants.forEach(([name], k) => {
    const m = median(rates[k]!)
    console.log(`  ${name.padEnd(52)} ${m.toFixed(0).padStart(6)} calls/s  ${(m / base).toFixed(3)}x`)
  })
  await defaults.dispose()
  await wide.dispose()
} finally {
  sim.child.kill()
}
process.exit()

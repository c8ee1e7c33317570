/**
 * Where each call's time goes, against raw undici: every variant's requests
 * go through an undici `Agent` that notes when the request is dispatched,
 * when its response head arrives and when its body ends, so each call splits
 * into `pre` (the client's work before the request is sent), `wire` (the
 * simulator, in its own process, and the network), `body` (head to end) and
 * `post` (the client's work after the body: decode, result, promise). The
 * variants (raw undici, the SDK, the Promise client, each on the legacy
 * odometer and `signals.get`, and raw `fetch` as other work between them)
 * are interleaved in a seeded shuffled order, as in `run.ts`; medians in µs.
 *
 *   node --expose-gc sdk/bench/phases.ts [rounds]
 */
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { HttpClient } from "effect/http"
import { Agent, request } from "undici"
import type { Dispatcher } from "undici"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { Connections } from "@connected-vehicle/v3/Connections"
import { Signals } from "@connected-vehicle/v3/Signals"
import { createClient } from "@connected-vehicle/sdk/Client"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import { startSimulator } from "./simulator.ts"
import { consentCode, fetchJson, median, redirectUri, seeded, shuffle } from "./utils.ts"

const ROUNDS = Number(process.argv[2] ?? 2000)
const WARMUP = 300

/** When the last request was dispatched, its head arrived and its body ended. */
const marks = { dispatch: 0, head: 0, end: 0 }

/** An `Agent` that notes the moments of each exchange (one at a time: the variants run one after another). */
class Marking extends Agent {
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    marks.dispatch = performance.now()
    const noted: Dispatcher.DispatchHandler = Object.create(handler)
    noted.onResponseStart = (controller, status, headers, message) => {
      marks.head = performance.now()
      return handler.onResponseStart?.(controller, status, headers, message)
    }
    noted.onResponseEnd = (controller, trailers) => {
      marks.end = performance.now()
      return handler.onResponseEnd?.(controller, trailers)
    }
    return super.dispatch(options, noted)
  }
}

const sim = await startSimulator(1000)
try {
  const rawAgent = new Marking()
  const sdkAgent = new Marking({ connections: UndiciHttpClient.defaultConnections })
  const httpClient = Layer.succeed(HttpClient.HttpClient, UndiciHttpClient.make(sdkAgent))
  const runtime = ManagedRuntime.make(ConnectedVehicle.layer({
    transport: { roots: TransportConfig.rootsFromOrigin(sim.url) },
    oauth: { clientId: sim.clientId, clientSecret: Redacted.make(sim.clientSecret) },
    httpClient
  }))
  const run = Effect.runPromiseWith(await runtime.context())
  const client = createClient({ clientId: sim.clientId, clientSecret: sim.clientSecret, origin: sim.url, httpClient })
  const first = await run(Effect.flatMap(Effect.service(Connections), (s) => s.list({ pageSize: 1 })))
  const vehicleId = first.data[0]!.relationships.vehicle.data.id
  const userId = first.data[0]!.attributes.user.id
  const signals = await run(Effect.flatMap(Effect.service(Signals), (s) => s.list({ vehicleId, userId, pageSize: 1 })))
  const target = { vehicleId, userId, code: signals.data[0]!.attributes.code }
  await run(Session.login("user", { code: await consentCode(sim, userId), redirectUri }))
  await client.v3.connections.list({ pageSize: 1 })
  await client.legacy.login({ code: await consentCode(sim, userId), redirectUri })
  const legacyVehicle = (await run(Effect.flatMap(Effect.service(Vehicles), (s) => s.list({ limit: 1 })))).vehicles[0]!
  const bearer = async (key: string) =>
    `Bearer ${Redacted.value(Option.getOrThrow(await run(Effect.flatMap(Effect.service(TokenStore.TokenStore), (s) => s.get(key)))).accessToken)}`
  const odometer = { url: `${sim.url}/v2.0/vehicles/${legacyVehicle}/odometer`, headers: { authorization: await bearer("user"), "sc-unit-system": "metric", accept: "application/json" } }
  const signal = { url: `${sim.url}/v3/vehicles/${vehicleId}/signals/${target.code}`, headers: { authorization: await bearer("application"), "sc-user-id": userId, accept: "application/json" } }
  const raw = async ({ headers, url }: { readonly url: string; readonly headers: Record<string, string> }) => JSON.parse(await (await request(url, { headers, dispatcher: rawAgent })).body.text())
  const signalGet = Effect.flatMap(Effect.service(Signals), (s) => s.get(target))
  const odometerRead = Effect.flatMap(Effect.service(Vehicles), (s) => s.odometer(legacyVehicle))
  // name, call, whether it is measured (fetch is other work between the calls, as in `run.ts`)
  const variants: ReadonlyArray<readonly [string, () => Promise<unknown>, boolean]> = [
    ["raw undici, odometer", () => raw(odometer), true],
    ["raw undici, signals.get", () => raw(signal), true],
    ["SDK, odometer", () => run(odometerRead), true],
    ["SDK, signals.get", () => run(signalGet), true],
    ["Promise client, odometer", () => client.legacy.odometer(legacyVehicle), true],
    ["Promise client, signals.get", () => client.v3.signals.get(target), true],
    ["fetch, odometer", () => fetchJson(odometer.url, odometer.headers), false],
    ["fetch, signals.get", () => fetchJson(signal.url, signal.headers), false]
  ]
  const parts = ["pre", "wire", "body", "post", "total"] as const
  const times = new Map(variants.map(([name]) => [name, Object.fromEntries(parts.map((p) => [p, [] as Array<number>]))]))
  const order = variants.map((_, i) => i)
  const random = seeded(3)
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    shuffle(order, random)
    for (const i of order) {
      const [name, call, measured] = variants[i]!
      const start = performance.now()
      await call()
      const done = performance.now()
      if (round < WARMUP || !measured) continue
      const t = times.get(name)!
      t["pre"]!.push(marks.dispatch - start)
      t["wire"]!.push(marks.head - marks.dispatch)
      t["body"]!.push(marks.end - marks.head)
      t["post"]!.push(done - marks.end)
      t["total"]!.push(done - start)
    }
  }
  console.log(`${ROUNDS} interleaved rounds (after ${WARMUP}), medians in µs, simulator in its own process`)
  console.log(`${"variant".padEnd(30)}${parts.map((p) => p.padStart(9)).join("")}`)
  for (const [name, , measured] of variants) {
    if (!measured) continue
    const t = times.get(name)!
    console.log(`${name.padEnd(30)}${parts.map((p) => (median(t[p]!) * 1000).toFixed(1).padStart(9)).join("")}`)
  }
  await client.close()
  await runtime.dispose()
} finally {
  sim.child.kill()
}

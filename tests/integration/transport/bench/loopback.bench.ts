/**
 * Per-call latency of the transport over a real socket (simulator on
 * 127.0.0.1): raw `fetch`, a bare Effect `HttpClient` GET, and the transport's
 * `signals.get` on FetchHttpClient and on NodeHttpClient.layerUndici,
 * interleaved; prints medians and ratios to raw fetch.
 *
 *   pnpm --filter @connected-vehicle/integration-tests run bench
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Context, Effect, Layer, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { AuthorizationApi, VehicleApi } from "@connected-vehicle/schema/Api"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"

const WARMUP = Number(process.env["BENCH_WARMUP"] ?? 500)
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3000)
const ONLY = process.env["BENCH_ONLY"]

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

const program = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const vehicleId = sim.data.vehicleIds[0]!
  const userId = sim.data.connectionOf(vehicleId)!.userId
  const code = sim.data.vehicle(vehicleId)!.signalCodes[0]!
  const config = TransportConfig.layerOrigin(sim.url)
  const basic = Buffer.from(`${sim.clientId}:${Redacted.value(sim.clientSecret)}`).toString("base64")
  const token = yield* Effect.gen(function*() {
    const oauth = yield* Transport.publicClient(AuthorizationApi, "oauth")
    const r = yield* oauth.token({ headers: { authorization: `Basic ${basic}` }, payload: { grant_type: "client_credentials" } })
    return r.value.access_token
  }).pipe(Effect.provide(Transport.layer.pipe(Layer.provide([config, FetchHttpClient.layer]))))

  const sdkOn = (http: Layer.Layer<HttpClient.HttpClient>) =>
    Effect.gen(function*() {
      const context = yield* Layer.build(Layer.mergeAll(
        Transport.layer.pipe(Layer.provide([config, http])),
        Credentials.layerStatic(token),
        http
      ))
      const signals = yield* Transport.client(VehicleApi, "signals").pipe(Effect.provide(context))
      const client = Context.get(context, HttpClient.HttpClient)
      return {
        sdk: signals.get({ params: { vehicleId, signalCode: code }, headers: { "sc-user-id": userId } }),
        bare: client.execute(
          HttpClientRequest.get(url).pipe(
            HttpClientRequest.setHeaders({ authorization: `Bearer ${Redacted.value(token)}`, "sc-user-id": userId, accept: "application/json" })
          )
        ).pipe(Effect.flatMap((r) => r.json))
      }
    })
  const url = `${sim.url}/v3/vehicles/${vehicleId}/signals/${code}`
  const viaFetch = yield* sdkOn(FetchHttpClient.layer)
  const viaUndici = yield* sdkOn(NodeHttpClient.layerUndici)
  const headers = { authorization: `Bearer ${Redacted.value(token)}`, "sc-user-id": userId, accept: "application/json" }
  const raw = Effect.promise(async () => {
    const response = await fetch(url, { headers })
    if (response.status !== 200) throw new Error(`raw fetch: ${response.status} ${await response.text()}`)
    return response.json()
  })
  const all: Record<string, Effect.Effect<unknown, unknown>> = {
    "raw fetch": raw,
    "HttpClient (fetch)": viaFetch.bare,
    "HttpClient (undici)": viaUndici.bare,
    "Transport signals.get (fetch)": viaFetch.sdk,
    "Transport signals.get (undici)": viaUndici.sdk
  }
  const keys = Object.keys(all).filter((k) => ONLY === undefined || k === "raw fetch" || k.includes(ONLY))
  const times: Record<string, Array<number>> = Object.fromEntries(keys.map((k) => [k, []]))
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    for (let j = 0; j < keys.length; j++) {
      const key = keys[(i + j) % keys.length]!
      const start = performance.now()
      yield* all[key]!
      if (i >= WARMUP) times[key]!.push(performance.now() - start)
    }
  }
  const base = median(times["raw fetch"]!)
  console.log(`signals.get over loopback (${ROUNDS} interleaved rounds, medians):`)
  for (const key of keys) {
    const m = median(times[key]!)
    console.log(`  ${key.padEnd(34)} ${m.toFixed(3)} ms  ${(m / base).toFixed(3)}x raw fetch`)
  }
}).pipe(Effect.scoped, Effect.provide(Simulator.layer({ host: "127.0.0.1", port: 0 })))

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exitCode = 1
})

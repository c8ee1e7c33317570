/**
 * Benchmark of the legacy client against the simulator on 127.0.0.1: median
 * latency of an odometer read through the SDK (on `FetchHttpClient` and on
 * `NodeHttpClient.layerUndici`) vs the same request with raw `fetch`, same
 * simulator, same user token, interleaved, as ratios.
 *
 * Run: `pnpm --filter @connected-vehicle/legacy-v2 bench`.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Context, Effect, Layer, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as Vehicles from "../src/Vehicles.ts"

const WARMUP = 500
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 3000)
const redirectUri = "https://app.example/callback"

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

const sdkOn = (http: Layer.Layer<HttpClient.HttpClient>, userId: string, code: string) =>
  Layer.unwrap(Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const TransportLive = Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(sim.url), http]))
    const OAuthLive = OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret })
    const StoreLive = Layer.effect(
      TokenStore.TokenStore,
      Effect.tap(TokenStore.makeMemory, (store) =>
        Session.login(userId, { code, redirectUri }).pipe(Effect.provideService(TokenStore.TokenStore, store), Effect.orDie))
    ).pipe(Layer.provide([OAuthLive, TransportLive]))
    return Vehicles.layer().pipe(
      Layer.provideMerge(Session.layerUser(userId)),
      Layer.provide(Layer.mergeAll(StoreLive, OAuthLive, TransportLive))
    )
  }))

const consent = (userId: string) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const query = new URLSearchParams({ response_type: "code", client_id: sim.clientId, redirect_uri: redirectUri, login_hint: userId })
    const response = yield* HttpClient.execute(HttpClientRequest.get(`${sim.url}/oauth/authorize?${query}`)).pipe(
      Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }),
      Effect.provide(FetchHttpClient.layer),
      Effect.orDie
    )
    return new URL(response.headers["location"]!).searchParams.get("code")!
  })

const program = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const userId = sim.data.users[0]!.id
  const vehicleId = sim.data.vehiclesOf(userId)[0]!
  const sdkWith = (http: Layer.Layer<HttpClient.HttpClient>) =>
    Effect.gen(function*() {
      const context = yield* Layer.build(sdkOn(http, userId, yield* consent(userId)))
      const token = yield* Context.get(context, Credentials).token
      return { call: Context.get(context, Vehicles.Vehicles).odometer(vehicleId), token }
    })
  const viaFetch = yield* sdkWith(FetchHttpClient.layer)
  const viaUndici = yield* sdkWith(NodeHttpClient.layerUndici)
  const url = `${sim.url}/v2.0/vehicles/${vehicleId}/odometer`
  const headers = {
    authorization: `Bearer ${Redacted.value(viaFetch.token)}`,
    "sc-unit-system": "metric",
    accept: "application/json"
  }
  const raw = Effect.promise(async () => {
    const response = await fetch(url, { headers })
    if (response.status !== 200) throw new Error(`raw fetch: ${response.status}`)
    return { value: await response.json(), dataAge: response.headers.get("sc-data-age") }
  })
  const all: Record<string, Effect.Effect<unknown, unknown>> = {
    "raw fetch": raw,
    "SDK (FetchHttpClient)": viaFetch.call,
    "SDK (NodeHttpClient.layerUndici)": viaUndici.call
  }
  const keys = Object.keys(all)
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
  console.log(`legacy odometer read (${ROUNDS} interleaved rounds, medians):`)
  for (const key of keys) {
    const m = median(times[key]!)
    console.log(`  ${key.padEnd(34)} ${m.toFixed(3)} ms  ${(m / base).toFixed(3)}x raw fetch`)
  }
}).pipe(Effect.scoped, Effect.provide(Simulator.layer({ port: 0 })))

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exitCode = 1
})

/**
 * One variant of the SDK benchmark alone, for a CPU profile of the client:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof sdk/bench/profile.ts [signals|odometer|promise|raw|http|httpEffectOnly|stream] [calls]
 *
 * `http` is a bare `HttpClient` of `UndiciHttpClient.layer()` (with its span), `httpEffectOnly` raw undici inside `Effect.runPromise`.
 *
 * The simulator runs in its own process (its CPU is not in the profile).
 */
import { Effect, Layer, ManagedRuntime, Scope, Option, Redacted, Stream } from "effect"
import { request } from "undici"
import { HttpClient, HttpClientRequest } from "effect/http"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { Connections } from "@connected-vehicle/v3/Connections"
import { Signals } from "@connected-vehicle/v3/Signals"
import { createClient } from "@connected-vehicle/sdk/Client"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import { startSimulator } from "./simulator.ts"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"

const which = process.argv[2] ?? "signals"
const calls = Number(process.argv[3] ?? 4000)
const redirectUri = "https://app.example/callback"

const { child, url } = await startSimulator(1000)
try {
  const runtime = ManagedRuntime.make(ConnectedVehicle.layer({
    transport: { roots: TransportConfig.rootsFromOrigin(url) },
    oauth: { clientId: "demo-client-id", clientSecret: Redacted.make("demo-client-secret") }
  }))
  const context = await runtime.context()
  // the bare HttpClient of the default layer, for the "http" variant
  const httpContext = await Effect.runPromise(Effect.flatMap(Scope.make(), (scope) => Layer.buildWithScope(UndiciHttpClient.layer(), scope)))
  const run = Effect.runPromiseWith(context)
  const first = await run(Effect.flatMap(Effect.service(Connections), (s) => s.list({ pageSize: 1 })))
  const vehicleId = first.data[0]!.relationships.vehicle.data.id
  const userId = first.data[0]!.attributes.user.id
  const signals = await run(Effect.flatMap(Effect.service(Signals), (s) => s.list({ vehicleId, userId, pageSize: 1 })))
  const target = { vehicleId, userId, code: signals.data[0]!.attributes.code }
  const consent = async () => {
    const query = new URLSearchParams({ response_type: "code", client_id: "demo-client-id", redirect_uri: redirectUri, login_hint: userId })
    const response = await request(`${url}/oauth/authorize?${query}`)
    await response.body.dump()
    return new URL(String(response.headers["location"]), url).searchParams.get("code")!
  }
  await run(Session.login("user", { code: await consent(), redirectUri }))
  const legacyVehicle = (await run(Effect.flatMap(Effect.service(Vehicles), (s) => s.list({ limit: 1 })))).vehicles[0]!
  const token = await run(Effect.flatMap(Effect.service(TokenStore.TokenStore), (s) => s.get("application")))
  const bearer = `Bearer ${Redacted.value(Option.getOrThrow(token).accessToken)}`
  const client = createClient({ clientId: "demo-client-id", clientSecret: "demo-client-secret", origin: url })
  const signalGet = Effect.flatMap(Effect.service(Signals), (s) => s.get(target))
  const odometer = Effect.flatMap(Effect.service(Vehicles), (s) => s.odometer(legacyVehicle))
  const variants: Record<string, () => Promise<unknown>> = {
    signals: () => run(signalGet),
    odometer: () => run(odometer),
    promise: () => client.v3.signals.get(target),
    raw: async () => {
      const r = await request(`${url}/v3/vehicles/${target.vehicleId}/signals/${target.code}`, {
        headers: { authorization: bearer, "sc-user-id": target.userId, accept: "application/json" }
      })
      return JSON.parse(await r.body.text())
    },
    http: () => Effect.runPromiseWith(httpContext)(Effect.flatMap(Effect.service(HttpClient.HttpClient), (c) =>
      Effect.flatMap(c.execute(HttpClientRequest.get(`${url}/v3/vehicles/${target.vehicleId}/signals/${target.code}`, {
        headers: { authorization: bearer, "sc-user-id": target.userId, accept: "application/json" }
      })), (r) => r.json))),
    httpEffectOnly: () => run(Effect.promise(async () => {
      const r = await request(`${url}/v3/vehicles/${target.vehicleId}/signals/${target.code}`, {
        headers: { authorization: bearer, "sc-user-id": target.userId, accept: "application/json" }
      })
      return JSON.parse(await r.body.text())
    })),
    stream: () => run(Stream.runDrain((Effect.runSync(Effect.provideContext(Effect.service(Connections), context))).stream({ pageSize: 100 })))
  }
  const f = variants[which]!
  for (let i = 0; i < 200; i++) await f()
  const before = process.cpuUsage()
  const start = performance.now()
  for (let i = 0; i < calls; i++) await f()
  const used = process.cpuUsage(before)
  console.log(`${which}: ${calls} calls, ${((performance.now() - start) / calls * 1000).toFixed(0)} µs per call, CPU ${((used.user + used.system) / calls).toFixed(0)} µs per call`)
  await client.close()
  await runtime.dispose()
} finally {
  child.kill()
}

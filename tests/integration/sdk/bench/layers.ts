/**
 * Where the time of a call goes, layer by layer: `signals.get` of one
 * signal, the simulator in its own process, interleaved round-robin in this
 * one (2,000 rounds after 300 warm-up), medians and ratios to raw undici:
 *
 * - raw undici `request()` + `JSON.parse`;
 * - the same inside `Effect.runPromise` (the cost of entering a fiber);
 * - a bare `HttpClient` of `UndiciHttpClient.layer()` (`UndiciHttpClient` on Node,
 *   no span), prebuilt request, `response.json`;
 * - the reference: the same call through a pipeline of Effect's own HTTP
 *   modules on that client, as the Effect documentation composes one
 *   (`HttpClient.mapRequest` with the bearer token, `filterStatusOk`,
 *   `retryTransient`, `Effect.timeout` per request, `schemaBodyJson` of the
 *   contract's `SignalResponse`);
 * - the transport's typed client (`Transport.client(VehicleApi, "signals").get`)
 *   on that client with a static credential;
 * - the SDK's `Signals.get` on `ConnectedVehicle.layer` (token store, session);
 * - the Promise client's `signals.get` (`createClient`: the same layer, a
 *   Promise and the `DateTime` → `Date` conversion around it).
 *
 *   node sdk/bench/layers.ts   (from tests/integration)
 */
import { Duration, Effect, Layer, ManagedRuntime, Option, Redacted, Schedule, Scope } from "effect"
import { HttpClient, HttpClientRequest, HttpClientResponse } from "effect/http"
import { request } from "undici"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { VehicleApi } from "@connected-vehicle/schema/Api"
import { SignalResponse } from "@connected-vehicle/schema/Signal"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { Connections } from "@connected-vehicle/v3/Connections"
import { Signals } from "@connected-vehicle/v3/Signals"
import { createClient } from "@connected-vehicle/sdk/Client"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import { startSimulator } from "./simulator.ts"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"

const { child, url } = await startSimulator(200)
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
const build = <A>(layer: Layer.Layer<A>) => Effect.runPromise(Effect.flatMap(Scope.make(), (scope) => Layer.buildWithScope(layer, scope)))

try {
  const roots = TransportConfig.rootsFromOrigin(url)
  const runtime = ManagedRuntime.make(ConnectedVehicle.layer({
    transport: { roots },
    oauth: { clientId: "demo-client-id", clientSecret: Redacted.make("demo-client-secret") }
  }))
  const run = Effect.runPromiseWith(await runtime.context())
  const first = await run(Effect.flatMap(Effect.service(Connections), (s) => s.list({ pageSize: 1 })))
  const vehicleId = first.data[0]!.relationships.vehicle.data.id
  const userId = first.data[0]!.attributes.user.id
  const signals = await run(Effect.flatMap(Effect.service(Signals), (s) => s.list({ vehicleId, userId, pageSize: 1 })))
  const code = signals.data[0]!.attributes.code
  const stored = await run(Effect.flatMap(Effect.service(TokenStore.TokenStore), (s) => s.get("application")))
  const token = Option.getOrThrow(stored).accessToken
  const headers = { authorization: `Bearer ${Redacted.value(token)}`, "sc-user-id": userId, accept: "application/json" }
  const signalUrl = `${url}/v3/vehicles/${vehicleId}/signals/${code}`

  const http = Effect.runPromiseWith(await build(UndiciHttpClient.layer()))
  const transport = Effect.runPromiseWith(
    await build(
      Layer.mergeAll(Transport.layer, Credentials.layerStatic(token)).pipe(
        Layer.provide([TransportConfig.layer({ roots }), UndiciHttpClient.layer()])
      )
    )
  )
  const client = await transport(Transport.client(VehicleApi, "signals"))
  const promiseClient = createClient({ clientId: "demo-client-id", clientSecret: "demo-client-secret", origin: url })
  await promiseClient.v3.connections.list({ pageSize: 1 })
  const prebuilt = HttpClientRequest.get(signalUrl, { headers })
  const reference = (await http(Effect.service(HttpClient.HttpClient))).pipe(
    HttpClient.mapRequest(HttpClientRequest.bearerToken(token)),
    HttpClient.filterStatusOk,
    HttpClient.retryTransient({ schedule: Schedule.exponential(100), times: 3 }),
    HttpClient.transformResponse(Effect.timeout(Duration.seconds(30)))
  )
  const referenceCall = Effect.flatMap(
    reference.get(signalUrl, { headers: { "sc-user-id": userId, accept: "application/json" } }),
    HttpClientResponse.schemaBodyJson(SignalResponse)
  ).pipe(Effect.provideService(HttpClient.TracerDisabledWhen, () => true))
  const raw = async () => {
    const response = await request(signalUrl, { headers })
    return JSON.parse(await response.body.text())
  }
  const variants: Array<readonly [string, () => Promise<unknown>]> = [
    ["raw undici + JSON.parse", raw],
    ["raw in Effect.runPromise", () => Effect.runPromise(Effect.promise(raw))],
    ["HttpClient (UndiciHttpClient.layer())", () =>
      http(
        Effect.flatMap(Effect.flatMap(Effect.service(HttpClient.HttpClient), (c) => c.execute(prebuilt)), (r) => r.json).pipe(
          Effect.provideService(HttpClient.TracerDisabledWhen, () => true)
        )
      )],
    ["Effect's own modules (reference)", () => Effect.runPromise(referenceCall)],
    ["transport client.get", () => transport(client.get({ params: { vehicleId, signalCode: code }, headers: { "sc-user-id": userId } }))],
    ["SDK Signals.get", () => run(Effect.flatMap(Effect.service(Signals), (s) => s.get({ vehicleId, userId, code })))],
    ["Promise client signals.get", () => promiseClient.v3.signals.get({ vehicleId, userId, code })]
  ]
  const times = variants.map(() => [] as Array<number>)
  for (let i = 0; i < 2_300; i++) {
    for (let j = 0; j < variants.length; j++) {
      const k = (i + j) % variants.length
      const start = performance.now()
      await variants[k]![1]()
      if (i >= 300) times[k]!.push(performance.now() - start)
    }
  }
  const base = median(times[0]!)
  variants.forEach(([name], k) => {
    const m = median(times[k]!)
    console.log(`${name.padEnd(38)} ${(m * 1000).toFixed(0).padStart(5)} µs  ${(m / base).toFixed(3)}x`)
  })
  await promiseClient.close()
  await runtime.dispose()
} finally {
  child.kill()
}
process.exit()

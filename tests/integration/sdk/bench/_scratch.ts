import { Effect, Layer, Redacted, Scope } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { VehicleApi } from "@connected-vehicle/schema/Api"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"

const body = process.env.BODY!
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
const bytes = new TextEncoder().encode(body)
const dispatcher: any = {
  dispatch(_opts: any, h: any) {
    const controller = { abort() {}, pause() {}, resume() {}, aborted: false, paused: false }
    queueMicrotask(() => {
      h.onRequestStart?.(controller, {})
      h.onResponseStart?.(controller, 200, { "content-type": "application/json", "sc-request-id": "r1", "content-length": String(bytes.length) }, "OK")
      h.onResponseData?.(controller, bytes)
      h.onResponseEnd?.(controller, {})
    })
    return true
  }
}
const fake = UndiciHttpClient.make(dispatcher)
const build = <A>(layer: Layer.Layer<A>) => Effect.runPromise(Effect.flatMap(Scope.make(), (scope) => Layer.buildWithScope(layer, scope)))
const roots = TransportConfig.rootsFromOrigin("http://127.0.0.1:1")
const transport = Effect.runPromiseWith(await build(Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("tok"))).pipe(Layer.provide([TransportConfig.layer({ roots }), Layer.succeed(HttpClient.HttpClient, fake)]))))
const client = await transport(Transport.client(VehicleApi, "signals"))
const prebuilt = HttpClientRequest.get("http://127.0.0.1:1/v3/vehicles/v/signals/odometer-traveleddistance")
const bare = Effect.runPromise
const variants: Array<readonly [string, () => Promise<unknown>]> = [
  ["raw dispatch + parse", () => new Promise((resolve) => { const chunks: Array<Uint8Array> = []; dispatcher.dispatch({}, { onResponseData: (_: any, c: Uint8Array) => chunks.push(c), onResponseEnd: () => resolve(JSON.parse(Buffer.concat(chunks).toString())) }) })],
  ["runPromise(void)", () => bare(Effect.void)],
  ["bare fake + json", () => bare(Effect.flatMap(fake.execute(prebuilt), (r) => r.json).pipe(Effect.provideService(HttpClient.TracerDisabledWhen, () => true)))],
  ["transport client.get", () => transport(client.get({ params: { vehicleId: "v", signalCode: "odometer-traveleddistance" }, headers: { "sc-user-id": "u" } }))],
  ["no timeout", () => { (globalThis as any).X_NO_TIMEOUT = true; return transport(client.get({ params: { vehicleId: "v", signalCode: "odometer-traveleddistance" }, headers: { "sc-user-id": "u" } })).finally(() => { (globalThis as any).X_NO_TIMEOUT = false }) }],
  ["no decode", () => { (globalThis as any).X_NO_DECODE = true; return transport(client.get({ params: { vehicleId: "v", signalCode: "odometer-traveleddistance" }, headers: { "sc-user-id": "u" } })).finally(() => { (globalThis as any).X_NO_DECODE = false }) }],
  ["neither", () => { (globalThis as any).X_NO_DECODE = true; (globalThis as any).X_NO_TIMEOUT = true; return transport(client.get({ params: { vehicleId: "v", signalCode: "odometer-traveleddistance" }, headers: { "sc-user-id": "u" } })).finally(() => { (globalThis as any).X_NO_DECODE = false; (globalThis as any).X_NO_TIMEOUT = false }) }]
]
console.log(await variants[3]![1]().then((r: any) => JSON.stringify(r.value).slice(0, 80), (e) => String(e)))
const chosen = variants.filter(([n]) => !process.env.ONLY || n.includes(process.env.ONLY))
const results = new Map<string, Array<number>>()
for (let r = 0; r < 12; r++) {
  for (const [name, f] of chosen) {
    for (let i = 0; i < 500; i++) await f()
    const n = 4000
    const t = performance.now()
    for (let i = 0; i < n; i++) await f()
    if (r >= 2) results.set(name, [...(results.get(name) ?? []), ((performance.now() - t) * 1000) / n])
  }
}
for (const [name, xs] of results) console.log(name.padEnd(24), [...xs].sort((a, b) => a - b)[xs.length >> 1]!.toFixed(2), "µs median of", xs.length)

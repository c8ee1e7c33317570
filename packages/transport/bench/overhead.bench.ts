/**
 * CPU overhead of the transport pipeline alone: the same canned response from
 * an in-memory `HttpClient` (no socket, no server), read with a bare
 * `HttpClient` GET + JSON parse and with the transport's `signals.get`.
 * Prints medians (microseconds) and the difference.
 *
 *   pnpm --filter @connected-vehicle/transport exec node bench/overhead.bench.ts
 */
import { Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientRequest, HttpClientResponse } from "effect/http"
import { VehicleApi } from "@connected-vehicle/schema/Api"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 20000)
const body = JSON.stringify({
  data: {
    id: "charge-voltage", type: "signal",
    attributes: { code: "charge-voltage", name: "Charge voltage", group: "Charge", status: { value: "SUCCESS" }, body: { unit: "V", value: 230 } },
    meta: { retrievedAt: "2025-08-26T00:00:00.000Z", oemUpdatedAt: "2025-08-26T00:00:00.000Z", ingestedAt: "2025-08-26T00:00:00.000Z" },
    links: { self: "/v3/vehicles/v/signals/charge-voltage" }
  },
  included: { vehicle: { id: "v", type: "vehicle", attributes: { make: "A", model: "B", year: 2020, powertrainType: "BEV", mode: "live" }, links: { self: "/v3/vehicles/v" } } },
  links: { self: "/v3/vehicles/v/signals/charge-voltage" }
})
const canned = HttpClient.make((request) =>
  Effect.sync(() =>
    HttpClientResponse.fromWeb(request, new Response(body, { status: 200, headers: { "content-type": "application/json", "x-request-id": "r" } }))
  )
)
const http = Layer.succeed(HttpClient.HttpClient, canned)
const TransportLive = Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin("http://127.0.0.1:1"), http]))

const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[xs.length >> 1]!

const program = Effect.gen(function*() {
  const signals = yield* Transport.client(VehicleApi, "signals")
  const sdk = signals.get({ params: { vehicleId: "v", signalCode: "charge-voltage" }, headers: { "sc-user-id": "u" } })
  const bare = canned.execute(
    HttpClientRequest.get("http://127.0.0.1:1/v3/vehicles/v/signals/charge-voltage").pipe(
      HttpClientRequest.setHeaders({ authorization: "Bearer t", "sc-user-id": "u", accept: "application/json" })
    )
  ).pipe(
    Effect.flatMap((r) => r.json),
    // like the transport (`httpSpans: false`): no HttpClient span
    Effect.provideService(HttpClient.TracerDisabledWhen, () => true)
  )
  const check = yield* sdk
  if ((check.value as any).data.id !== "charge-voltage") throw new Error("bad decode")
  const only = process.env["BENCH_ONLY"]
  const all = { bare, sdk }
  const times: Record<string, Array<number>> = { bare: [], sdk: [] }
  for (let i = 0; i < ROUNDS; i++) {
    for (const key of ["bare", "sdk"] as const) {
      if (only !== undefined && key !== only) continue
      const start = performance.now()
      yield* all[key] as Effect.Effect<unknown, unknown>
      times[key]!.push(performance.now() - start)
    }
  }
  const us = (k: string) => times[k]!.length ? median(times[k]!) * 1000 : NaN
  console.log(`in-memory (${ROUNDS} rounds, medians): bare ${us("bare").toFixed(1)} µs, transport ${us("sdk").toFixed(1)} µs, overhead ${(us("sdk") - us("bare")).toFixed(1)} µs`)
}).pipe(Effect.provide([TransportLive, Credentials.layerStatic(Redacted.make("t"))]))

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exitCode = 1
})

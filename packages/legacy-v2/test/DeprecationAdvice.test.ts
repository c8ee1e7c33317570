/**
 * The deprecation warning's advice works where it says so (over a real
 * connection: a `node:http` server on 127.0.0.1 answers a v2.0 read with the
 * `Deprecation` header): `Vehicles.layer` is silenced by its option
 * `deprecationWarnings: "off"`, not by the environment variable (only the
 * layers that read the environment do), and the warning says so.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Logger, Redacted } from "effect"
import { createServer } from "node:http"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { Warned } from "../src/Deprecation.ts"
import * as Vehicles from "../src/Vehicles.ts"

let server: Server
let origin = ""
beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume()
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/json", deprecation: "@1796083200" })
      response.end(JSON.stringify({ vin: "1HGCM82633A004352" }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

/** The messages logged while reading a VIN through `Vehicles.layer(options)`, the environment holding `env`. */
const warningsOf = (options: Vehicles.Options | undefined, env: Record<string, string>) =>
  Effect.gen(function*() {
    const messages: Array<string> = []
    yield* Effect.flatMap(Effect.service(Vehicles.Vehicles), (vehicles) => vehicles.vin("veh_1")).pipe(
      Effect.provide(Vehicles.layer(options).pipe(Layer.provide([
        Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), UndiciHttpClient.layer()])),
        Credentials.layerStatic(Redacted.make("at-0123456789"))
      ]))),
      Effect.provideService(Warned, new Set<string>()),
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env)),
      Effect.provide(Logger.layer([Logger.make((entry) => messages.push(String(entry.message)))]))
    )
    return messages.filter((message) => message.includes("deprecated"))
  })

describe("the deprecation warning's advice", () => {
  it.live("names the option of Vehicles.layer and of ConnectedVehicle.layer, and the variable only for the layers that read it", () =>
    Effect.gen(function*() {
      const [warning] = yield* warningsOf(undefined, {})
      assert.isString(warning)
      assert.include(
        warning!,
        "To silence this warning, give the option deprecationWarnings: \"off\" to Vehicles.layer (legacy: { deprecationWarnings: \"off\" } to ConnectedVehicle.layer), or set CONNECTED_VEHICLE_DEPRECATION_WARNINGS=off for Vehicles.layerConfig, ConnectedVehicle.layerConfig or createClient (which read it)."
      )
      assert.notInclude(warning!, "Set CONNECTED_VEHICLE_DEPRECATION_WARNINGS=off to silence this warning")
    }))

  it.live("Vehicles.layer: the option silences it; the variable alone does not", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* warningsOf({ deprecationWarnings: "off" }, {}), [])
      assert.strictEqual((yield* warningsOf(undefined, { CONNECTED_VEHICLE_DEPRECATION_WARNINGS: "off" })).length, 1)
    }))
})

import { assert } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpClient } from "effect/http"
import * as Consent from "@connected-vehicle/auth/Consent"
import { NodeHttpClient } from "@effect/platform-node"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as SimulatorModule from "@connected-vehicle/simulator/Simulator"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"

/**
 * The simulator on 127.0.0.1, the transport over a real socket, the OAuth
 * client of the simulator and an in-memory token store.
 */
export const loopback = (options?: Omit<TransportConfig.Options, "roots">) => {
  const simulator = SimulatorModule.layer({ host: "127.0.0.1", port: 0 })
  const fromSimulator = <A, E, R>(f: (sim: Simulator["Service"]) => Layer.Layer<A, E, R>) =>
    Layer.unwrap(Effect.map(Effect.service(Simulator), f)).pipe(Layer.provide(simulator))
  const config = fromSimulator((sim) => TransportConfig.layerOrigin(sim.url, options))
  const oauth = fromSimulator((sim) => OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret }))
  return Layer.mergeAll(
    Transport.layer.pipe(Layer.provide([config, NodeHttpClient.layerUndici])),
    config,
    simulator,
    oauth,
    TokenStore.layerMemory,
    NodeHttpClient.layerUndici
  )
}

/** The user with the most connected vehicles, and one of them. */
export const userWithVehicle = Effect.map(Effect.service(Simulator), (sim) => {
  const [userId, vehicles] = sim.data.users
    .map((u) => [u.id, sim.data.vehiclesOf(u.id)] as const)
    .reduce((a, b) => (b[1].length > a[1].length ? b : a))
  return { userId, vehicleId: vehicles[0]! }
})

export const redirectUri = "https://app.example/callback"

/** Consent URL → the simulator's consent step (as `userId`) → the code from the redirect. */
export const authorize = (userId: string) =>
  Effect.gen(function*() {
    const url = yield* Consent.make({ redirectUri, permissions: ["read_odometer", "read_vin"], state: "st-1" })
    const response = yield* (yield* HttpClient.HttpClient).get(`${url}&login_hint=${encodeURIComponent(userId)}`)
    assert.strictEqual(response.status, 302)
    const location = new URL(response.headers["location"]!)
    assert.strictEqual(`${location.origin}${location.pathname}`, redirectUri)
    assert.strictEqual(location.searchParams.get("state"), "st-1")
    return location.searchParams.get("code")!
  })


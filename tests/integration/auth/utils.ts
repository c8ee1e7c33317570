import { assert } from "@effect/vitest"
import { createServer } from "node:http"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { HttpClient } from "effect/http"
import * as Consent from "@connected-vehicle/auth/Consent"
import { NodeHttpClient } from "@effect/platform-node"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as Loopback from "@connected-vehicle/testing/Loopback"
import * as SignIn from "@connected-vehicle/testing/SignIn"
import * as Transport from "@connected-vehicle/transport/Transport"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"

/**
 * The simulator on 127.0.0.1, the transport over a real socket, the OAuth
 * client of the simulator and an in-memory token store.
 */
export const loopback = (options?: Omit<TransportConfig.Options, "roots">) => {
  const base = Loopback.layer({ transport: options, httpClient: NodeHttpClient.layerUndici })
  const oauth = Layer.unwrap(
    Effect.map(Effect.service(Simulator), (sim) => OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret }))
  ).pipe(Layer.provide(base))
  return Layer.mergeAll(base, oauth, TokenStore.layerMemory)
}

/** The user with the most connected vehicles, and one of them. */
export const userWithVehicle = Effect.map(Effect.service(Simulator), (sim) => {
  const [userId, vehicles] = sim.data.users
    .map((u) => [u.id, sim.data.vehiclesOf(u.id)] as const)
    .reduce((a, b) => (b[1].length > a[1].length ? b : a))
  return { userId, vehicleId: vehicles[0]! }
})

export const redirectUri = SignIn.redirectUri

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


/** Points the transport's authorization root elsewhere for `effect` (its layers included). */
export const withAuthorizationRoot = (url: string) =>
  Effect.updateService(Transport.Transport, (transport) => ({
    ...transport,
    config: { ...transport.config, roots: { ...transport.config.roots, authorization: url } }
  }))

/**
 * A forwarding proxy on 127.0.0.1 in front of `target` whose refresh-token
 * responses lose their `refresh_token` (a server that does not rotate it).
 * Returns the proxy's origin; closed with the scope.
 */
export const refreshTokenDroppingProxy = (target: string) =>
  Effect.acquireRelease(
    Effect.callback<Server>((resume) => {
      const server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8")
          const headers: Record<string, string> = {}
          for (const name of ["authorization", "content-type", "user-agent", "accept"]) {
            const value = req.headers[name]
            if (typeof value === "string") headers[name] = value
          }
          fetch(`${target}${req.url}`, { method: req.method!, headers, ...(body === "" ? {} : { body }) }).then(
            async (upstream) => {
              let text = await upstream.text()
              if (upstream.ok && new URLSearchParams(body).get("grant_type") === "refresh_token") {
                const { refresh_token: _dropped, ...rest } = JSON.parse(text) as Record<string, unknown>
                text = JSON.stringify(rest)
              }
              res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" })
              res.end(text)
            },
            () => {
              res.writeHead(502)
              res.end()
            }
          )
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))

/** The failure of `self`, its reason when it is a `ConnectedVehicleError`. */
export const flipReason = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.map(Effect.flip(self), (e) => reasonOf(e))

/**
 * Polls `check` every 10 ms of real time (the test clock stands still
 * meanwhile) until it holds; fails after `within` of real time.
 */
export const eventually = <E, R>(check: Effect.Effect<boolean, E, R>, what: string, within = 5_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + within
    while (!(yield* check)) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`not within ${within} ms: ${what}`))
      yield* TestClock.withLive(Effect.sleep("10 millis"))
    }
  })

/** The outcome of `effect`, which must come within `within` of real time without the test clock moving. */
export const promptly = <A, E, R>(effect: Effect.Effect<A, E, R>, within = 2_000) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(effect)
    yield* eventually(Effect.sync(() => fiber.pollUnsafe() !== undefined), "an answer without waiting", within)
    return yield* Fiber.join(fiber)
  })

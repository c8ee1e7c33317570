/**
 * One process of a fleet: the SDK with the shared limits and the one token
 * (`SharedAccess.layerSdk`, on `REDIS_URL`), against the simulator at
 * `SIM_URL`. It prints `ready`, then for each `go` line on stdin reads every
 * target of `TARGETS` (JSON) `READS` times, all at once (limits: `VEHICLE_LIMIT` per second and
 * `MARGIN` per vehicle), and prints
 * `done <failures>`; it exits when stdin ends.
 */
import { createInterface } from "node:readline"
import { type Duration, Effect, Exit, ManagedRuntime, Redacted } from "effect"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { Signals } from "@connected-vehicle/v3/Signals"
import * as SharedAccess from "@connected-vehicle/fleet/SharedAccess"

const env = (name: string) => process.env[name] ?? ""
const targets: ReadonlyArray<{ vehicleId: string; userId: string }> = JSON.parse(env("TARGETS"))
const reads = Number(env("READS"))
const limit = { limit: Number(env("VEHICLE_LIMIT")), window: "1 second" } as const

const Sdk = SharedAccess.layerSdk((shared) =>
  ConnectedVehicle.layerWith(
    TransportConfig.layerOrigin(env("SIM_URL")),
    OAuthConfig.layer({ clientId: env("CLIENT_ID"), clientSecret: Redacted.make(env("CLIENT_SECRET")) }),
    shared
  ), { prefix: env("PREFIX"), perVehicle: limit, perApplication: false, margin: env("MARGIN") as Duration.Input })

const round = Effect.gen(function*() {
  const signals = yield* Signals
  const exits = yield* Effect.all(
    targets.flatMap((target) => Array.from({ length: reads }, () => Effect.exit(signals.list({ ...target, pageSize: 1 })))),
    { concurrency: "unbounded" }
  )
  const failures = exits.filter(Exit.isFailure)
  for (const failure of failures.slice(0, 3)) console.error(String(failure.cause))
  console.log(`done ${failures.length}`)
})

const runtime = ManagedRuntime.make(Sdk)
await runtime.runPromise(Effect.void) // connected to Redis
console.log("ready")
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === "go") await runtime.runPromise(round)
}
await runtime.dispose()

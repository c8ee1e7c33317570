/**
 * What the shared-limits and shared-token tests share: a simulator on
 * 127.0.0.1 (its limits switched on), and independent SDK instances, each
 * with its own Redis connection and its own HttpClient, on the project's
 * Redis (see `globalSetup.ts`), under a key prefix of the test's own.
 */
import { Context, Effect, Layer, Redacted } from "effect"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import type * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { Signals } from "@connected-vehicle/v3/Signals"
import * as SharedAccess from "@connected-vehicle/fleet/SharedAccess"
import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
import { inject } from "vitest"

let prefixes = 0

/** A Redis key prefix no other test uses. */
export const freshPrefix = (name: string) => `test:${name}:${process.pid}:${++prefixes}:`

export const redisUrl = () => Redacted.make(inject("redisUrl"))

/** A simulator on a free loopback port, stopped with the test's scope. */
export const simulator = (options?: Simulator.SimulatorOptions) =>
  Effect.map(Layer.build(Simulator.layer({ ...options, port: 0 })), (context) => Context.get(context, Simulator.Simulator))

/** One process's worth of SDK: its own Redis connection, limits, token store and HttpClient. */
export const instance = (
  sim: Simulator.Simulator["Service"],
  options: SharedAccess.Options,
  url = redisUrl(),
  transport?: Omit<TransportConfig.Options, "roots">,
  oauth?: Pick<OAuthConfig.Options, "expiryMargin" | "refreshAhead">
) =>
  Effect.gen(function*() {
    const redis = yield* Layer.build(SharedRedis.layer({ url }))
    const shared = yield* Effect.provideContext(SharedAccess.make(options), redis)
    return yield* Layer.build(ConnectedVehicle.layerWith(
      // the transport's one retry policy sends a 429 again after its retry-after (the limits only record the hold)
      TransportConfig.layerOrigin(sim.url, { rateLimit: { wait: true }, ...transport }),
      OAuthConfig.layer({ clientId: sim.clientId, clientSecret: sim.clientSecret, ...oauth }),
      shared
    ))
  })

/** Connected vehicles of the dataset, with their user: what a v3 read targets. */
export const targets = (sim: Simulator.Simulator["Service"], count: number) =>
  sim.data.vehicleIds.slice(0, count).map((vehicleId) => ({ vehicleId, userId: sim.data.connectionOf(vehicleId)!.userId }))

/** One v3 read of a vehicle (`GET /v3/vehicles/{id}/signals`). */
export const readSignals = (target: { readonly vehicleId: string; readonly userId: string }, options?: Transport.CallOptions) =>
  Effect.flatMap(Effect.service(Signals), (signals) => signals.list({ ...target, pageSize: 1 }, options))

import { Effect } from "effect"
import type { Layer } from "effect"
import type { HttpClient } from "effect/http"
import { NodeHttpClient } from "@effect/platform-node"
import { CompatibilityApi } from "@connected-vehicle/schema/Api"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as Loopback from "@connected-vehicle/testing/Loopback"
import * as RequestLog from "@connected-vehicle/testing/RequestLog"
import * as SignIn from "@connected-vehicle/testing/SignIn"
import * as Transport from "@connected-vehicle/transport/Transport"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"

/** The simulator on 127.0.0.1 (free port) and the transport over a real socket (undici by default). */
export const loopback = (
  options?: Omit<TransportConfig.Options, "roots">,
  httpClient: Layer.Layer<HttpClient.HttpClient> = NodeHttpClient.layerUndici
) => Loopback.layer({ transport: options, httpClient })

/** An application token from the simulator (client credentials), through the contract. */
export const appToken = SignIn.applicationToken

/** Log entries of the simulator whose path matches. */
export const logged = RequestLog.matching

/** The failure of `self`, its reason when it is a `ConnectedVehicleError`. */
export const flipReason = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.map(Effect.flip(self), (e) => reasonOf(e))

/** The compatibility listing's path, whose answers the simulator's faults replace in the loopback tests. */
export const COMPAT = "/v3/compatible-vehicles"

/** Short backoff for loopback tests. */
export const fast = { retry: { initialDelay: 5, maxDelay: 20 } }

/** Faults the simulator answers the next requests of `path` with. */
export const inject = (path: string, faults: Parameters<Simulator["Service"]["injectFaults"]>[0]["faults"], method?: string) =>
  Effect.flatMap(Effect.service(Simulator), (sim) => sim.injectFaults({ path, faults, ...(method ? { method } : {}) }))

/** One call of the compatibility listing. */
export const compat = Effect.flatMap(Transport.publicClient(CompatibilityApi, "compatibility"), (c) => c.list())


/**
 * The parts `Simulator`'s layers build a simulator from: the dataset, the
 * state, the delivery engine and the usage counters, and the service over
 * them.
 *
 * @internal
 */
import { Effect, Redacted } from "effect"
import type { Server } from "node:http"
import { makeDataset } from "../Data.ts"
import type { Dataset } from "../Data.ts"
import * as Delivery from "../Delivery.ts"
import type { Env } from "../Env.ts"
import type { Simulator } from "../Simulator.ts"
import type { SimulatorOptions } from "../SimulatorOptions.ts"
import { State } from "../State.ts"
import { checkedFaults } from "./faults.ts"
import * as Listen from "./listen.ts"
import { makeData } from "./simulatorData.ts"
import { makeUsage, setRateLimits } from "./usage.ts"

/** The seeded dataset of the options (seed 42, 50 vehicles, 20 users, 8 webhooks, 40 connections by default). */
export const datasetOf = (options: SimulatorOptions | undefined): Dataset =>
  makeDataset({
    seed: options?.seed ?? 42,
    vehicles: options?.vehicles ?? 50,
    users: options?.users ?? 20,
    webhooks: options?.webhooks ?? 8,
    connections: options?.connections ?? 40
  })

/**
 * The state of the options on the clock `now` (`accessSeconds`: the checked
 * `accessTokenLifetime`; a defect names a grant limit that is not valid).
 */
export const makeState = Effect.fnUntraced(function*(
  options: SimulatorOptions | undefined,
  accessSeconds: number | undefined,
  now: () => number
) {
  return new State({
    now,
    seed: options?.seed ?? 42,
    failureRate: options?.failureRate ?? 0,
    accessSeconds,
    codeLimit: options?.grantLimits?.codes,
    tokenLimit: options?.grantLimits?.tokens
  })
})

/**
 * The delivery engine and the usage counters of the options, in the current
 * scope; both go back to the seed with the state (`State.reset`).
 */
export const makeEngines = Effect.fnUntraced(function*(
  options: SimulatorOptions | undefined,
  data: Dataset,
  state: State,
  now: () => number
) {
  const deliveries = yield* Delivery.make({
    data,
    secret: options?.webhookSecret,
    enforcePermissions: options?.enforcePermissions ?? true,
    limits: {
      webhooks: options?.controlLimits?.webhooks,
      vehicleErrors: options?.controlLimits?.vehicleErrors
    }
  })
  state.onReset(deliveries.reset)
  const usage = yield* makeUsage(now, data, options?.rateLimit)
  state.onReset(() => usage.reset())
  return { deliveries, usage }
})

/** The simulator's service at `url` over its environment (`servers`: the sockets whose connections it counts). */
export const serviceOf = (env: Env["Service"]) => (url: string, servers: ReadonlyArray<Server> = []): Simulator["Service"] => {
  const { deliveries, state, usage } = env
  return {
    url,
    clientId: env.clientId,
    clientSecret: Redacted.make(env.clientSecret),
    requests: Effect.sync(() => state.requests()),
    resetLog: Effect.sync(() => state.resetLog()),
    reset: Effect.sync(() => state.reset()),
    injectFaults: (rule) => Effect.sync(() => state.inject({ ...rule, faults: checkedFaults(rule.faults) })),
    data: makeData(env.data, env.enforcePermissions),
    connections: Effect.promise(() => Promise.all(servers.map(Listen.openConnections)).then((counts) => counts.reduce((a, b) => a + b, 0))),
    webhookSecret: deliveries.secret,
    createWebhook: deliveries.createWebhook,
    updateWebhook: deliveries.updateWebhook,
    deleteWebhook: deliveries.deleteWebhook,
    subscribe: deliveries.subscribe,
    setSignal: deliveries.setSignal,
    injectVehicleError: deliveries.injectVehicleError,
    resolveVehicleError: deliveries.resolveVehicleError,
    deliveries: deliveries.deliveries,
    startBurst: deliveries.startBurst,
    burst: deliveries.burst,
    awaitBurst: deliveries.awaitBurst,
    cancelBurst: deliveries.cancelBurst,
    burstTruth: deliveries.burstTruth,
    usage: Effect.sync(() => usage.snapshot()),
    resetUsage: Effect.sync(() => usage.reset()),
    setRateLimits: (rateLimit) => setRateLimits(usage, rateLimit)
  }
}

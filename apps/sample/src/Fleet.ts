/**
 * The `fleet` command: `@connected-vehicle/fleet` embedded in this process
 * (memory stores, one runner) fed by a burst of the embedded simulator's
 * webhook deliveries. A `DurableReceiver` listens on 127.0.0.1 (a free
 * port), a webhook of the simulator points at it (the `VERIFY` handshake),
 * the simulator delivers N events for M vehicles (with duplicates, lost
 * acknowledgements and reordering), workers apply them to the vehicle
 * entities, and the summary says what was received, stored, applied,
 * dropped as duplicate and dead-lettered, with a few vehicles' latest
 * signals read from `FleetState`.
 *
 * The stores are chosen by the environment (`Ingestion.layerConfig`,
 * `FleetCluster.layerConfig`, `SharedAccess.layerSdk`): memory with nothing
 * set, Postgres with `DATABASE_URL`, the shared limits and token in Redis
 * with `REDIS_URL`.
 *
 * @since 0.1.0
 */
import {
  DeadLetters,
  DurableReceiver,
  FleetCluster,
  FleetConfig,
  FleetMetrics,
  FleetState,
  Ingestion,
  SharedAccess,
  VehicleEntity,
  Worker
} from "@connected-vehicle/fleet"
import type { FleetError } from "@connected-vehicle/fleet/FleetError"
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import type { GroundTruth } from "@connected-vehicle/simulator/Burst"
import type { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import type { Sharding } from "effect/cluster"
import { NodeHttpServer } from "@effect/platform-node"
import { Clock, type Context, DateTime, Effect, Layer, Metric, Option, type Redacted, Schedule, type Scope } from "effect"
import { createServer } from "node:http"
import * as Render from "./Render.ts"
import { SampleError } from "./SampleError.ts"
import { policies } from "./Target.ts"
import { heading, keyValues, render } from "./Table.ts"

/**
 * What the command is asked for: the burst (`events` distinct events for the
 * first `vehicles` connected vehicles, `rate` deliveries per second, `poison`
 * extra events the sample's handler refuses on purpose, to show dead
 * letters), and how many vehicles' signals the summary shows.
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/sample/Fleet"
 *
 * const options: Options = { events: 400, vehicles: 20, rate: 1000, poison: 1, show: 3, seed: undefined }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly events: number
  readonly vehicles: number
  readonly rate: number
  readonly poison: number
  readonly show: number
  readonly seed: number | undefined
}

/**
 * One signal of a vehicle as the fleet state holds it.
 *
 * @example
 * ```ts
 * import type { SignalRow } from "@connected-vehicle/sample/Fleet"
 *
 * const cell = (row: SignalRow) => `${row.code}=${row.value}`
 * ```
 * @since 0.1.0
 * @category models
 */
export interface SignalRow {
  readonly code: string
  readonly value: string
  readonly oemUpdatedAt: string
  readonly eventId: string
}

/**
 * What the command prints: where the events went (`stores`: `memory` or
 * `postgres`; `sharedAccess`: where the SDK's limits and token are, `memory`
 * or `redis`), the simulator's side of the burst, the fleet's counts
 * (`received`: verified deliveries offered to the queue, duplicates
 * included; `stored`: distinct events taken from the queue; `applied`:
 * events applied by the vehicle entities; `duplicatesDropped`: deliveries of
 * an event stored already; `retries`: failed handler runs retried), the dead
 * letters, whether the state table equals the burst's ground truth, and the
 * latest signals of a few vehicles.
 *
 * @example
 * ```ts
 * import type { Summary } from "@connected-vehicle/sample/Fleet"
 *
 * const exactlyOnce = (summary: Summary) => summary.applied + summary.deadLetters.length === summary.stored
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Summary {
  readonly stores: "memory" | "postgres"
  readonly sharedAccess: "memory" | "redis"
  readonly receiverUrl: string
  readonly seconds: number
  readonly burst: {
    readonly events: number
    readonly vehicles: number
    readonly poisonEvents: number
    readonly deliveries: number
    readonly attempts: number
    readonly duplicates: number
    readonly retries: number
    readonly lostAcks: number
    readonly delivered: number
  }
  readonly received: number
  readonly stored: number
  readonly applied: number
  readonly duplicatesDropped: number
  readonly retries: number
  /** The events' mean and largest lag (receipt to first take, `FleetMetrics.eventLag`), in milliseconds. */
  readonly lag: { readonly meanMs: number; readonly maxMs: number }
  readonly deadLetters: ReadonlyArray<{ readonly eventId: string; readonly attempts: number; readonly cause: string }>
  readonly matchesTruth: boolean
  readonly vehicles: ReadonlyArray<{ readonly vehicleId: string; readonly signals: ReadonlyArray<SignalRow> }>
}

/** The retries of the embedded run: short, so that a poison event is a dead letter within a second or two. */
const ingestionOptions = { maxAttempts: 3, retrySchedule: Schedule.spaced("100 millis") } as const

/** Deliveries of the simulator: 5 % duplicates, 2 % lost acknowledgements retried quickly, shuffled in blocks of 20. */
const burstShape = {
  duplicateRatio: 0.05,
  lostAckRatio: 0.02,
  reorderWindow: 20,
  retryDelays: ["100 millis", "300 millis", "1 second"]
} as const

const TRIGGER = "odometer-traveleddistance"

/** The fleet's counters as they are now (the command reports what changed while it ran). */
const counters = Effect.all({
  received: Effect.map(Metric.value(FleetMetrics.eventsOffered), (s) => s.count),
  applied: Effect.map(Metric.value(FleetMetrics.eventsApplied), (s) => s.count),
  retries: Effect.map(Metric.value(FleetMetrics.handlerRetries), (s) => s.count),
  deadLettered: Effect.map(Metric.value(FleetMetrics.deadLettered), (s) => s.count),
  lags: Effect.map(Metric.value(FleetMetrics.eventLag), (s) => s.count),
  lagSum: Effect.map(Metric.value(FleetMetrics.eventLag), (s) => s.sum)
})
type Counters = Effect.Success<typeof counters>

const countedSince = (start: Counters) =>
  Effect.map(counters, (now): Counters => ({
    received: now.received - start.received,
    applied: now.applied - start.applied,
    retries: now.retries - start.retries,
    deadLettered: now.deadLettered - start.deadLettered,
    lags: now.lags - start.lags,
    lagSum: now.lagSum - start.lagSum
  }))

type Fleet = Context.Context<Ingestion.Services | FleetCluster.Services>

/**
 * The SDK of the fleet (the vehicle entities' polls, `FLEET_POLL_SIGNALS`)
 * on the simulator, given the shared limits and the one token of
 * `SharedAccess`.
 */
const sdkOn = (simulator: Simulator["Service"]) => (shared: SharedAccess.SdkOptions) =>
  ConnectedVehicle.layerWith(
    Layer.succeed(
      TransportConfig.TransportConfig,
      TransportConfig.make({ ...policies, roots: TransportConfig.rootsFromOrigin(simulator.url) })
    ),
    OAuthConfig.layer({ clientId: simulator.clientId, clientSecret: simulator.clientSecret }),
    shared
  )

/**
 * The fleet. With neither `DATABASE_URL` nor `REDIS_URL`, embedded on
 * purpose: every store in memory, one runner. With either, the packages'
 * `layerConfig`s read the environment (`DATABASE_URL`, `REDIS_URL`,
 * `FLEET_*`), as a process of a deployment does.
 */
const fleetLayer = (simulator: Simulator["Service"], settings: FleetConfig.FleetConfig) =>
  Option.isNone(settings.databaseUrl) && Option.isNone(settings.redisUrl)
    ? Layer.merge(Ingestion.layerMemory(ingestionOptions), FleetCluster.layerMemory(settings)).pipe(
      Layer.provide(Layer.unwrap(Effect.map(SharedAccess.makeMemory(), sdkOn(simulator))))
    )
    : Layer.merge(Ingestion.layerConfig(ingestionOptions), FleetCluster.layerConfig()).pipe(
      Layer.provide(SharedAccess.layerSdk(sdkOn(simulator)))
    )

/** A `DurableReceiver` on 127.0.0.1 (a free port) for the scope; its URL. */
const listen = (secret: Redacted.Redacted<string>, fleet: Fleet): Effect.Effect<string, SampleError | FleetError, Scope.Scope> =>
  Effect.gen(function*() {
    const receiver = yield* Effect.provideContext(DurableReceiver.make({ secret }), fleet)
    const server = yield* NodeHttpServer.make(() => createServer(), { port: 0, host: "127.0.0.1", gracefulShutdownTimeout: 0 }).pipe(
      Effect.mapError((error) => new SampleError({ reason: `Cannot listen on 127.0.0.1: ${error.message}` }))
    )
    yield* server.serve(receiver.httpEffect)
    const port = server.address._tag === "UnixPathAddress" ? 0 : server.address.port
    return `http://127.0.0.1:${port}/webhooks`
  })

/** The simulator refused (a flag out of the burst's bounds is a 400: a usage error). */
const refused = (error: { readonly status: number; readonly message: string }) =>
  new SampleError({ reason: `The simulator refused the burst: ${error.message}`, usage: error.status === 400 })

/** A webhook of the simulator pointing at the receiver (`VERIFY`), then the burst; its ground truth. */
const deliver = (simulator: Simulator["Service"], options: Options, receiverUrl: string, poison: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const webhook = yield* simulator.createWebhook({ name: "Sample fleet", callbackUri: receiverUrl, triggers: [TRIGGER], data: [] }).pipe(
      Effect.mapError(refused)
    )
    if (webhook.verification !== "succeeded") {
      return yield* new SampleError({ reason: "The durable receiver did not pass the simulator's VERIFY handshake" })
    }
    yield* simulator.startBurst({
      ...burstShape,
      events: options.events,
      vehicles: options.vehicles,
      ratePerSecond: options.rate,
      webhookIds: [webhook.id],
      poisonEventIds: poison,
      ...(options.seed === undefined ? {} : { seed: options.seed })
    }).pipe(Effect.mapError(refused))
    return yield* Effect.mapError(simulator.burstTruth, refused)
  })

/** One line of progress: the simulator's deliveries, the events applied and dead-lettered. */
const progressLine = (simulator: Simulator["Service"], truth: GroundTruth, start: Counters) =>
  Effect.gen(function*() {
    const burst = yield* Effect.orDie(simulator.burst)
    const counted = yield* countedSince(start)
    const good = truth.events.length - truth.poisonEventIds.length
    return `fleet: deliveries ${burst.settled}/${burst.deliveries}  received ${counted.received}  applied ${counted.applied}/${good}  dead letters ${counted.deadLettered}/${truth.poisonEventIds.length}`
  })

/** Waits until the burst is over and every event is applied or a dead letter (at most `seconds`). */
const settle = (simulator: Simulator["Service"], truth: GroundTruth, start: Counters, seconds: number) =>
  Effect.gen(function*() {
    yield* Effect.mapError(simulator.awaitBurst, refused)
    const good = truth.events.length - truth.poisonEventIds.length
    yield* countedSince(start).pipe(
      Effect.repeat({
        until: (c) => c.applied >= good && c.deadLettered >= truth.poisonEventIds.length,
        schedule: Schedule.spaced("25 millis")
      })
    )
  }).pipe(
    Effect.timeoutOrElse({
      duration: `${seconds} seconds`,
      orElse: () => Effect.fail(new SampleError({ reason: `The fleet did not apply every event of the burst within ${seconds} s` }))
    })
  )

const valueOf = (body: unknown): string => Render.summary(body)

/** The latest signals of `vehicleId` in the fleet state. */
const signalsOf = (vehicleId: string, fleet: Fleet) =>
  Effect.map(Effect.provideContext(FleetState.latest(vehicleId), fleet), (states) =>
    states.map((state): SignalRow => ({
      code: state.code,
      value: valueOf(state.body),
      oemUpdatedAt: DateTime.formatIso(state.oemUpdatedAt),
      eventId: state.eventId
    })))

/** Whether the state holds, for each (vehicle, signal) of the burst, its newest value. */
const matches = (truth: GroundTruth, fleet: Fleet) =>
  Effect.gen(function*() {
    const vehicles = [...new Set(truth.latest.map((l) => l.vehicleId))]
    const held = new Map<string, string>()
    for (const vehicleId of vehicles) {
      for (const state of yield* Effect.provideContext(FleetState.latest(vehicleId), fleet)) {
        held.set(`${vehicleId} ${state.code}`, state.eventId)
      }
    }
    return truth.latest.every((l) => held.get(`${l.vehicleId} ${l.code}`) === l.eventId)
  })

/** The sample's handler: the vehicle entities, except the poison events, refused on purpose (they end as dead letters). */
const handlerOf = (poison: ReadonlyArray<string>, stored: Set<string>) =>
(event: DeliveredEvent, taken: { readonly id: string }): Effect.Effect<void, SampleError | VehicleEntity.SendError, Sharding.Sharding> =>
  Effect.suspend((): Effect.Effect<void, SampleError | VehicleEntity.SendError, Sharding.Sharding> => {
    stored.add(taken.id)
    return poison.includes(event.eventId)
      ? Effect.fail(new SampleError({ reason: `the sample refuses ${event.eventId} on purpose (a poison event)` }))
      : VehicleEntity.handler(event)
  })

/**
 * Runs a burst of the simulator through the embedded fleet and answers the
 * summary; `progress` gets a line of progress about every 250 ms, and the
 * last one. Fails when the fleet has not applied every event within
 * `timeout` seconds (default 60).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Simulator } from "@connected-vehicle/simulator/Simulator"
 * import * as Fleet from "@connected-vehicle/sample/Fleet"
 *
 * const program = Effect.flatMap(Effect.service(Simulator), (simulator) =>
 *   Fleet.run(simulator, { events: 200, vehicles: 10, rate: 1000, poison: 1, show: 2, seed: 1 }, (line) => Effect.log(line)))
 * ```
 * @since 0.1.0
 * @category commands
 */
export const run = (
  simulator: Simulator["Service"],
  options: Options,
  progress: (line: string) => Effect.Effect<void>,
  timeout = 60
): Effect.Effect<Summary, SampleError | FleetError> =>
  Effect.scoped(Effect.gen(function*() {
    const settings = yield* FleetConfig.read
    const stores = Option.isSome(settings.databaseUrl) ? "postgres" as const : "memory" as const
    const sharedAccess = Option.isSome(settings.redisUrl) ? "redis" as const : "memory" as const
    const fleet: Fleet = yield* Layer.build(fleetLayer(simulator, settings))
    const startedAt = yield* Clock.currentTimeMillis
    const start = yield* counters
    const poison = Array.from({ length: options.poison }, (_, i) => `evt_sample_poison_${i + 1}`)
    const stored = new Set<string>()
    yield* Effect.forkScoped(Effect.provideContext(Worker.run({ handler: handlerOf(poison, stored), concurrency: 8 }), fleet))
    const receiverUrl = yield* listen(simulator.webhookSecret, fleet)
    const truth = yield* deliver(simulator, options, receiverUrl, poison)
    const report = Effect.flatMap(progressLine(simulator, truth, start), progress)
    yield* Effect.raceFirst(settle(simulator, truth, start, timeout), Effect.forever(Effect.andThen(Effect.sleep("250 millis"), report)))
    yield* report
    const counted = yield* countedSince(start)
    const burst = yield* Effect.mapError(simulator.burst, refused)
    const letters = yield* Effect.provideContext(Effect.flatMap(DeadLetters.DeadLetters, (d) => d.list()), fleet)
    const shown = [...new Set(truth.latest.map((l) => l.vehicleId))].slice(0, options.show)
    return {
      stores,
      sharedAccess,
      receiverUrl,
      seconds: Math.round(((yield* Clock.currentTimeMillis) - startedAt) / 100) / 10,
      burst: {
        events: options.events,
        vehicles: options.vehicles,
        poisonEvents: burst.poisonEvents,
        deliveries: burst.deliveries,
        attempts: burst.attempts,
        duplicates: burst.duplicates,
        retries: burst.retries,
        lostAcks: burst.lostAcks,
        delivered: burst.delivered
      },
      received: counted.received,
      stored: stored.size,
      applied: counted.applied,
      duplicatesDropped: counted.received - stored.size,
      retries: counted.retries,
      lag: {
        meanMs: counted.lags === 0 ? 0 : Math.round(counted.lagSum / counted.lags),
        maxMs: Math.round((yield* Metric.value(FleetMetrics.eventLag)).max)
      },
      deadLetters: letters.map((l) => ({ eventId: l.eventId, attempts: l.attempts, cause: firstLine(l.cause) })),
      matchesTruth: yield* matches(truth, fleet),
      vehicles: yield* Effect.forEach(shown, (vehicleId) => Effect.map(signalsOf(vehicleId, fleet), (signals) => ({ vehicleId, signals })))
    }
  }))

const firstLine = (text: string): string => text.split("\n", 1)[0] ?? ""

/**
 * The summary as text: the counts, the dead letters, and the latest signals
 * of the vehicles shown.
 *
 * @example
 * ```ts
 * import * as Fleet from "@connected-vehicle/sample/Fleet"
 *
 * const show = (summary: Fleet.Summary) => console.log(Fleet.renderSummary(summary))
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const renderSummary = (summary: Summary): string =>
  [
    keyValues([
      ["Stores", summary.stores === "memory" ? "memory, one runner (embedded; DATABASE_URL selects Postgres)" : "Postgres (DATABASE_URL)"],
      ["Limits and token", summary.sharedAccess === "memory" ? "memory (REDIS_URL selects Redis)" : "Redis (REDIS_URL)"],
      ["Receiver", `${summary.receiverUrl} (DurableReceiver in this process)`],
      [
        "Burst",
        `${summary.burst.events} events + ${summary.burst.poisonEvents} poison for ${summary.burst.vehicles} vehicles: ` +
        `${summary.burst.attempts} attempts (${summary.burst.duplicates} duplicates, ${summary.burst.retries} retries, ` +
        `${summary.burst.lostAcks} lost acknowledgements)`
      ],
      ["Received", `${summary.received} deliveries verified and offered to the queue`],
      ["Stored", `${summary.stored} distinct events`],
      ["Duplicates dropped", summary.duplicatesDropped],
      ["Applied", `${summary.applied} events to the vehicle entities`],
      ["Handler retries", summary.retries],
      ["Lag", `${summary.lag.meanMs} ms mean, ${summary.lag.maxMs} ms max (receipt to first take)`],
      ["Dead letters", summary.deadLetters.length],
      ["State table", summary.matchesTruth ? "equals the burst's newest value per (vehicle, signal)" : "DIFFERS from the burst's ground truth"],
      ["Took", `${summary.seconds} s`]
    ]),
    ...(summary.deadLetters.length === 0 ? [] : [
      heading("Dead letters"),
      render(summary.deadLetters, [
        { header: "EVENT", cell: (l) => l.eventId },
        { header: "ATTEMPTS", cell: (l) => String(l.attempts) },
        { header: "CAUSE", cell: (l) => l.cause }
      ])
    ]),
    heading(`Latest signals of ${summary.vehicles.length} vehicles (FleetState.latest)`),
    render(summary.vehicles.flatMap((v) => v.signals.map((s) => ({ vehicleId: v.vehicleId, ...s }))), [
      { header: "VEHICLE", cell: (s) => s.vehicleId },
      { header: "SIGNAL", cell: (s) => s.code },
      { header: "VALUE", cell: (s) => s.value },
      { header: "OEM UPDATED AT", cell: (s) => s.oemUpdatedAt },
      { header: "EVENT", cell: (s) => s.eventId }
    ])
  ].join("\n")

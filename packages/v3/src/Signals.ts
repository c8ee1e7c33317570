/**
 * Signals of a vehicle (section 4.1): one page, every signal across pages, one
 * signal by code, and {@link partition} to sort a page by signal status.
 *
 * Signal endpoints need the `sc-user-id` header (the vehicle user the
 * application-level token acts for): it is the required `userId` argument.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Struct } from "effect"
import { ConnectionsQuery, VehicleApi } from "@connected-vehicle/schema/Api"
import type { SignalsGroup } from "@connected-vehicle/schema/Api"
import type { ResolutionType, Signal, SignalError, SignalsPage } from "@connected-vehicle/schema/Signal"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { ArgsOf } from "./internal/args.ts"
import type { ResourceOf } from "./internal/resource.ts"
import { resource } from "./internal/resource.ts"

/**
 * Identifies the vehicle and the user a signal request is made for. Both
 * are identifiers (`Identifier` of the schema: non-empty, no control
 * character, no `/`, not `.` or `..`); `userId`, sent in the `sc-user-id`
 * header, is also a `HeaderIdentifier` (printable ASCII, no `,`, not blank,
 * no leading or trailing space).
 *
 * @example
 * ```ts
 * import type { Target } from "@connected-vehicle/v3/Signals"
 *
 * const target: Target = { vehicleId: "veh_1", userId: "usr_1" }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Target {
  readonly vehicleId: string
  /** Sent as `sc-user-id`. */
  readonly userId: string
}

// The contract's paging query (`page`, `pageSize`: the same fields in every v3 list).
const SignalsQuery = ConnectionsQuery.mapFields(Struct.pick(["page", "pageSize"]))

/**
 * Arguments of {@link Signals} `list`, `pages` and `stream`: the target, and
 * the contract's paging, page (>= 1, default 1) and page size (1..100).
 *
 * @example
 * ```ts
 * import type { ListArgs } from "@connected-vehicle/v3/Signals"
 *
 * const secondPage: ListArgs = { vehicleId: "veh_1", userId: "usr_1", page: 2, pageSize: 50 }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface ListArgs extends Target, ArgsOf<typeof SignalsQuery.Type> {}

// The table of the service over the contract's signals group: the list's
// query and where each identifying argument goes, by endpoint.
const endpoints = {
  list: { query: SignalsQuery, route: { vehicleId: "params.vehicleId", userId: "headers.sc-user-id" } },
  get: { route: { vehicleId: "params.vehicleId", userId: "headers.sc-user-id", code: "params.signalCode" } }
} as const

/**
 * The signals service, derived from the contract's signals group: `list`
 * (one page, with `meta`, `links` and `included.vehicle`), `pages`, `stream`
 * (every signal of the vehicle) from its `list` endpoint, `get` (one signal by
 * code, with `included.vehicle`) from its `get` endpoint, and a method per
 * other endpoint of its table (`Signals.endpoints`).
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Signals } from "@connected-vehicle/v3/Signals"
 *
 * const program = Effect.gen(function*() {
 *   const signals = yield* Signals
 *   const voltage = yield* signals.get({ vehicleId: "veh_1", userId: "usr_1", code: "charge-voltage" })
 *   const all = yield* Stream.runCollect(signals.stream({ vehicleId: "veh_1", userId: "usr_1" }))
 *   return [voltage.data.attributes.body, all.length]
 * })
 * ```
 * @since 0.1.0
 * @category services
 */
export class Signals extends Context.Service<
  Signals,
  ResourceOf<Transport.GroupClient<typeof SignalsGroup, "signals">, typeof endpoints>
>()("@connected-vehicle/v3/Signals") {
  /**
   * The table the service is derived from: each endpoint of the contract's
   * signals group it calls, and where each argument goes in the request.
   *
   * @example
   * ```ts
   * import { Signals } from "@connected-vehicle/v3/Signals"
   *
   * const calls = Object.keys(Signals.endpoints) // the endpoints of the group the service calls
   * ```
   * @since 0.2.0
   * @category tables
   */
  static readonly endpoints = endpoints
}

// `ListArgs` and `Target` name what the table derives: a compile error here when they part
type Same<A, B> = [A] extends [B] ? [B] extends [A] ? true : false : false
void (true satisfies Same<ListArgs, NonNullable<Parameters<Signals["Service"]["list"]>[0]>>)
void (true satisfies Same<Target & { readonly code: string }, Parameters<Signals["Service"]["get"]>[0]>)

/**
 * Builds the service from the transport and the credential.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Signals, make } from "@connected-vehicle/v3/Signals"
 *
 * const SignalsLive = Layer.effect(Signals, make)
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Signals["Service"], never, Transport.Transport | Credentials> = Effect.map(
  Transport.client(VehicleApi, "signals"),
  (client) => Signals.of(resource(client, endpoints))
)

/**
 * The service on the transport and the credential.
 *
 * @example
 * ```ts
 * import * as Signals from "@connected-vehicle/v3/Signals"
 *
 * const SignalsLive = Signals.layer
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Signals, never, Transport.Transport | Credentials> = Layer.effect(Signals, make)

/**
 * A signal whose status is `ERROR`, with its error and recommended resolution.
 *
 * @example
 * ```ts
 * import type { FailedSignal } from "@connected-vehicle/v3/Signals"
 *
 * const mustReauthenticate = (failed: FailedSignal) => failed.resolution === "REAUTHENTICATE"
 * ```
 * @since 0.1.0
 * @category models
 */
export interface FailedSignal {
  readonly signal: Signal
  readonly error: SignalError | undefined
  /** `attributes.status.error.resolution.type`, e.g. `REAUTHENTICATE`. */
  readonly resolution: typeof ResolutionType.Type | undefined
}

/**
 * Signals sorted by `attributes.status.value`.
 *
 * @example
 * ```ts
 * import type { Partitioned } from "@connected-vehicle/v3/Signals"
 *
 * const summary = (p: Partitioned) => `${p.succeeded.length} ok, ${p.failed.length} failed`
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Partitioned {
  readonly succeeded: ReadonlyArray<Signal>
  readonly failed: ReadonlyArray<FailedSignal>
  readonly unavailable: ReadonlyArray<Signal>
  /** Signals with a status value this SDK does not know yet. */
  readonly unrecognized: ReadonlyArray<Signal>
}

/**
 * Splits a page (or any list of signals) into succeeded, failed (with the
 * per-signal error and its resolution) and unavailable signals.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Signals, partition } from "@connected-vehicle/v3/Signals"
 *
 * const reauthenticate = Effect.gen(function*() {
 *   const page = yield* (yield* Signals).list({ vehicleId: "veh_1", userId: "usr_1" })
 *   return partition(page).failed.some((f) => f.resolution === "REAUTHENTICATE")
 * })
 * ```
 * @since 0.1.0
 * @category utils
 */
export const partition = (signals: SignalsPage | ReadonlyArray<Signal>): Partitioned => {
  const succeeded: Array<Signal> = []
  const failed: Array<FailedSignal> = []
  const unavailable: Array<Signal> = []
  const unrecognized: Array<Signal> = []
  for (const signal of "data" in signals ? signals.data : signals) {
    const status = signal.attributes.status
    switch (status.value) {
      case "SUCCESS":
        succeeded.push(signal)
        break
      case "ERROR":
        failed.push({ signal, error: status.error, resolution: status.error?.resolution?.type })
        break
      case "UNAVAILABLE":
        unavailable.push(signal)
        break
      default:
        unrecognized.push(signal)
    }
  }
  return { succeeded, failed, unavailable, unrecognized }
}

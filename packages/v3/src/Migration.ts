/**
 * The v3 equivalent of each legacy v2.0 read (v2.0 is deprecated as of December
 * 1, 2026): the same **legacy shape** (`Odometer`, `Location`, `Vin`,
 * `EngineOil`, `TirePressure` of `@connected-vehicle/schema/Legacy`) built from
 * the v3 signal, so that a team swaps one call:
 *
 * | v2.0 read | v3 signal | conversion |
 * | --- | --- | --- |
 * | `/odometer` `{ distance }` | `odometer-traveleddistance` | the body's `unit` (`km` / `mi`); imperial → miles; 2 decimals |
 * | `/location` `{ latitude, longitude }` | `location-preciselocation` | as sent; extra fields (`heading`) dropped |
 * | `/vin` `{ vin }` | `vehicleidentification-vin` | `vin` (or `value`) |
 * | `/engine/oil` `{ lifeRemaining }` | `internalcombustionengine-oillife` | percent / 100, 3 decimals; a vehicle without one (BEV) reads 1, as in v2.0 |
 * | `/tires/pressure` `{ frontLeft, ... }` | `wheel-tirepressures` | positions by name (`rear*` = `back*`); kPa (metric) / psi (imperial); 1 decimal |
 * | `/service/history` | none | the simulator's v3 has no service-records signal: no equivalent |
 *
 * Precision: a migrated number is rounded as the legacy API rounds it (the
 * simulator's v2.0 handlers: distance to 2 decimals in km or miles, oil life
 * to 3 decimals of the fraction, tire pressures to 1 decimal in kPa or psi,
 * half away from zero as `Math.round(x * 10^n) / 10^n`), so a migrated read
 * equals the legacy read of the same datum exactly: `0.766`, not
 * `0.7659999999999999`; `16660.52` miles, not `16660.521305575436`.
 *
 * The legacy package has no battery read, so there is none here (`tractionbattery-stateofcharge`
 * / `tractionbattery-range` are plain `Signals.get` reads). {@link reads} names every read.
 *
 * Auth: v3 reads use the **application** token (client-credentials grant,
 * `Session.layerApplication`) and the vehicle's user id in `sc-user-id`, not
 * the user's v2.0 token. Pass `userId` (e.g. stored with the vehicle), or
 * leave it out and the user is looked up in the connections list
 * ({@link userIdOf}, one more request).
 *
 * Errors: a signal whose status is `ERROR` fails with a
 * `ConnectedVehicleError` whose reason is the one of its error `type`
 * (`Authentication`, `VehicleState`, ...: the reasons a legacy read fails
 * with); `UNAVAILABLE` is a `VehicleState` reason (code `SIGNAL_UNAVAILABLE`);
 * a body that does not convert to the legacy shape is an `InvalidResponse`.
 *
 * @since 0.2.0
 */
import type { DateTime } from "effect"
import { Effect, Option, Result, Schema } from "effect"
import type { Legacy } from "@connected-vehicle/schema"
import { LegacyEndpoints, LegacyReads, UnitSystem as UnitSystemSchema } from "@connected-vehicle/schema/Legacy"
import type { LegacyBody, LegacyPath, UnitSystem } from "@connected-vehicle/schema/Legacy"
import { InvalidArgument, validate } from "@connected-vehicle/schema/InvalidArgument"
import { ErrorEnvelope, statusOfType } from "@connected-vehicle/schema/ServiceError"
import { boundedMessage } from "@connected-vehicle/schema/Message"
import { fromEnvelope, VehicleState } from "@connected-vehicle/schema/ServiceReason"
import type { Signal } from "@connected-vehicle/schema/Signal"
import type * as Transport from "@connected-vehicle/transport/Transport"
import { ConnectedVehicleError, InvalidResponse } from "@connected-vehicle/transport/ConnectedVehicleError"
import { Connections } from "./Connections.ts"
import { identifier, readInput } from "./internal/args.ts"
import { converters } from "./internal/migrationConvert.ts"
import { Signals } from "./Signals.ts"

/**
 * The legacy paths that have a v3 equivalent (every read but `/service/history`).
 *
 * @example
 * ```ts
 * import type { MigratedPath } from "@connected-vehicle/v3/Migration"
 *
 * const paths: ReadonlyArray<MigratedPath> = ["/odometer", "/vin"]
 * ```
 * @since 0.2.0
 * @category models
 */
export type MigratedPath = Exclude<LegacyPath, "/service/history">

/**
 * The v3 signal code of each legacy read; `/service/history` has none.
 *
 * @example
 * ```ts
 * import { signalCodes } from "@connected-vehicle/v3/Migration"
 *
 * signalCodes["/odometer"] // "odometer-traveleddistance"
 * signalCodes["/service/history"] // undefined
 * ```
 * @since 0.2.0
 * @category constants
 */
export const signalCodes: { readonly [P in LegacyPath]: P extends MigratedPath ? string : undefined } = {
  "/odometer": "odometer-traveleddistance",
  "/location": "location-preciselocation",
  "/vin": "vehicleidentification-vin",
  "/engine/oil": "internalcombustionengine-oillife",
  "/tires/pressure": "wheel-tirepressures",
  "/service/history": undefined
}

/**
 * Which vehicle to read, and for which user (sent as `sc-user-id`). Without
 * `userId` the user is found in the connections list ({@link userIdOf}).
 *
 * @example
 * ```ts
 * import type { Target } from "@connected-vehicle/v3/Migration"
 *
 * const target: Target = { vehicleId: "veh_1", userId: "usr_1" }
 * ```
 * @since 0.2.0
 * @category models
 */
export interface Target {
  readonly vehicleId: string
  readonly userId?: string | undefined
}

/**
 * Options of a migrated read: the unit system of the legacy value (default
 * `metric`), and the transport's per-call overrides.
 *
 * @example
 * ```ts
 * import type { ReadOptions } from "@connected-vehicle/v3/Migration"
 *
 * const imperial: ReadOptions = { unitSystem: "imperial", timeout: "2 seconds" }
 * ```
 * @since 0.2.0
 * @category models
 */
export interface ReadOptions extends Transport.CallOptions {
  readonly unitSystem?: UnitSystem | undefined
}

/**
 * A migrated read: the legacy value with the same `dataAge` and `unitSystem`
 * fields as a legacy `Reading`, and the v3 `signal` it was built from
 * (`undefined` for the oil life of a vehicle without that signal).
 * `dataAge` is the signal's `meta.oemUpdatedAt` (when the vehicle reported:
 * what v2.0's `sc-data-age` says).
 *
 * @example
 * ```ts
 * import type { Odometer } from "@connected-vehicle/schema/Legacy"
 * import type { Reading } from "@connected-vehicle/v3/Migration"
 *
 * const km = (r: Reading<Odometer>) => r.unitSystem === "metric" ? r.value.distance : r.value.distance * 1.609344
 * ```
 * @since 0.2.0
 * @category models
 */
export interface Reading<A> {
  readonly value: A
  readonly dataAge: DateTime.Utc | undefined
  readonly unitSystem: UnitSystem
  readonly signal: Signal | undefined
}

/**
 * The vehicle has no connection (no user to read it for).
 *
 * @example
 * ```ts
 * import { NotConnected } from "@connected-vehicle/v3/Migration"
 *
 * new NotConnected({ vehicleId: "veh_1" }).message
 * ```
 * @since 0.2.0
 * @category errors
 */
export class NotConnected extends Schema.TaggedError<NotConnected>()("NotConnected", {
  vehicleId: Schema.String
}) {
  override get message() {
    return `Vehicle ${this.vehicleId} has no connection: no user to read it for`
  }
}

/**
 * The errors of a migrated read: those of a legacy read (the same classes),
 * and {@link NotConnected} when the user is looked up.
 *
 * @example
 * ```ts
 * import type { ReadError } from "@connected-vehicle/v3/Migration"
 *
 * const describe = (error: ReadError): string => error._tag
 * ```
 * @since 0.2.0
 * @category errors
 */
export type ReadError = InvalidArgument | ConnectedVehicleError | NotConnected

/**
 * The user id of a vehicle's connection (`GET /connections?filter[vehicleId]=`),
 * for `sc-user-id`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Migration } from "@connected-vehicle/v3"
 *
 * const userId = Migration.userIdOf("veh_1")
 * ```
 * @since 0.2.0
 * @category utils
 */
export const userIdOf = (
  vehicleId: string,
  options?: Transport.CallOptions
): Effect.Effect<string, InvalidArgument | ConnectedVehicleError | NotConnected, Connections> =>
  Effect.gen(function*() {
    const valid = yield* identifier("vehicleId", vehicleId)
    const connections = yield* Connections
    const page = yield* connections.list({ vehicleId: valid, pageSize: 1 }, options)
    const first = page.data[0]
    if (first === undefined) return yield* Effect.fail(new NotConnected({ vehicleId: valid }))
    return first.attributes.user.id
  })

const decodeEnvelope = Schema.decodeUnknownOption(ErrorEnvelope)

/** The error of a signal whose status is not SUCCESS. */
const statusError = (signal: Signal): ConnectedVehicleError => new ConnectedVehicleError({ reason: statusReason(signal) })

const statusReason = (signal: Signal): VehicleState | ReturnType<typeof fromEnvelope> | InvalidResponse => {
  const status = signal.attributes.status
  const url = signal.links.self
  if (status.value === "UNAVAILABLE") {
    const detail = `Signal ${signal.attributes.code} is unavailable for this vehicle now`
    return new VehicleState({
      message: boundedMessage(`409 SIGNAL_UNAVAILABLE: ${detail}`),
      status: 409,
      type: "VEHICLE_STATE",
      code: "SIGNAL_UNAVAILABLE",
      title: "Signal Unavailable",
      detail,
      errors: [],
      method: "GET",
      url
    })
  }
  const error = status.error
  if (status.value !== "ERROR" || error === undefined) {
    return new InvalidResponse({
      method: "GET",
      url,
      status: 200,
      description: `signal ${signal.attributes.code} has status ${status.value}${status.value === "ERROR" ? " without an error" : ""}`
    })
  }
  const httpStatus = (statusOfType as Readonly<Record<string, number>>)[error.type] ?? 500
  const envelope = decodeEnvelope({
    errors: [{
      status: String(httpStatus),
      type: error.type,
      code: error.code,
      title: error.title,
      detail: error.detail,
      ...(error.resolution === undefined ? {} : { resolution: error.resolution })
    }]
  })
  return Option.isSome(envelope)
    ? fromEnvelope(envelope.value, { status: httpStatus, method: "GET", url })
    : new InvalidResponse({ method: "GET", url, status: 200, description: "signal error is not an error item" })
}

/**
 * The v3 equivalent of legacy read `path`: the signal of {@link signalCodes},
 * converted to the legacy shape (validated with the legacy schema).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Migration } from "@connected-vehicle/v3"
 *
 * const program = Effect.gen(function*() {
 *   const reading = yield* Migration.read("/tires/pressure", { vehicleId: "veh_1", userId: "usr_1" }, { unitSystem: "imperial" })
 *   return reading.value.frontLeft
 * })
 * ```
 * @since 0.2.0
 * @category reads
 */
export const read = <P extends MigratedPath>(
  path: P,
  target: Target,
  options?: ReadOptions
): Effect.Effect<Reading<LegacyBody<P>>, ReadError, Signals | Connections> =>
  Effect.gen(function*() {
    const given = readInput(path, target, options)
    if (given instanceof InvalidArgument) return yield* Effect.fail(given)
    const unitSystem = yield* validate(UnitSystemSchema, given.unitSystem ?? "metric", { field: "unitSystem" })
    const vehicleId = yield* identifier("vehicleId", given.vehicleId)
    const userId = given.userId === undefined
      ? yield* userIdOf(vehicleId, given.options)
      : yield* identifier("userId", given.userId)
    const signals = yield* Signals
    const code = signalCodes[path] as string
    const response = yield* signals.get({ vehicleId, userId, code }, given.options).pipe(
      Effect.catchReason("ConnectedVehicleError", "NotFound", (_, error) =>
        // v2.0 answers `lifeRemaining: 1` for a vehicle without a combustion engine
        path === "/engine/oil"
          ? Effect.flatMap(signals.list({ vehicleId, userId, pageSize: 1 }, given.options), (page) =>
            page.included.vehicle.attributes.powertrainType === "BEV"
              ? Effect.succeed(undefined)
              : Effect.fail(error))
          : Effect.fail(error))
    )
    if (response === undefined) {
      return { value: { lifeRemaining: 1 } as LegacyBody<P>, dataAge: undefined, unitSystem, signal: undefined }
    }
    const signal = response.data
    if (signal.attributes.status.value !== "SUCCESS") return yield* Effect.fail(statusError(signal))
    const candidate = converters[path](signal.attributes.body, unitSystem)
    const schema = LegacyEndpoints[path].schema as unknown as Schema.Codec<LegacyBody<P>, unknown>
    const fail = (description: string) =>
      Effect.fail(new ConnectedVehicleError({ reason: new InvalidResponse({ method: "GET", url: signal.links.self, status: 200, description }) }))
    if (typeof candidate === "string") return yield* fail(candidate)
    const value = Schema.decodeUnknownResult(schema)(candidate)
    if (Result.isFailure(value)) return yield* fail(`${code} does not convert to the legacy ${path} shape: ${value.failure.message}`)
    return { value: value.success, dataAge: signal.meta.oemUpdatedAt, unitSystem, signal }
  })

type LegacyTable = typeof LegacyReads

/** The name in `LegacyReads` of each read whose path is a {@link MigratedPath}. */
type MigratedName = { readonly [K in keyof LegacyTable]: LegacyTable[K]["path"] extends MigratedPath ? K : never }[keyof LegacyTable]

/** The type of {@link reads}: a migrated read per {@link MigratedName}. */
type MigratedReads = {
  readonly [K in MigratedName]: (
    target: Target,
    options?: ReadOptions
  ) => Effect.Effect<Reading<LegacyBody<Extract<LegacyTable[K]["path"], MigratedPath>>>, ReadError, Signals | Connections>
}

/**
 * Every migrated read by the name of the legacy read it replaces (its name
 * in `LegacyReads` of `@connected-vehicle/schema/Legacy`), built from that
 * table: every legacy read with a v3 signal ({@link signalCodes}), in its
 * order. The Promise client (`@connected-vehicle/sdk`) derives
 * `client.v3.migration` from it.
 *
 * @example
 * ```ts
 * import { Migration } from "@connected-vehicle/v3"
 * const names = Object.keys(Migration.reads) // ["odometer", "location", "vin", "engineOil", "tirePressure"]
 * ```
 * @since 0.2.0
 * @category reads
 */
export const reads: MigratedReads = Object.fromEntries(
  Object.entries(LegacyReads).flatMap(([name, { path }]) =>
    signalCodes[path] === undefined ? [] : [[name, (target: Target, options?: ReadOptions) => read(path as MigratedPath, target, options)]]
  )
) as MigratedReads

/**
 * Replaces the legacy `vehicles.odometer(vehicleId, { unitSystem })`:
 * `odometer-traveleddistance` as `{ distance }` in km (metric) or miles
 * (imperial).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Migration } from "@connected-vehicle/v3"
 *
 * const miles = Effect.map(
 *   Migration.odometer({ vehicleId: "veh_1", userId: "usr_1" }, { unitSystem: "imperial" }),
 *   (r) => r.value.distance
 * )
 * ```
 * @since 0.2.0
 * @category reads
 */
export const odometer: (
  target: Target,
  options?: ReadOptions
) => Effect.Effect<Reading<Legacy.Odometer>, ReadError, Signals | Connections> = reads.odometer

/**
 * Replaces the legacy `vehicles.location(vehicleId)`: `location-preciselocation`
 * as `{ latitude, longitude }`.
 *
 * @example
 * ```ts
 * import { Migration } from "@connected-vehicle/v3"
 *
 * const where = Migration.location({ vehicleId: "veh_1" }) // the user is looked up
 * ```
 * @since 0.2.0
 * @category reads
 */
export const location: (
  target: Target,
  options?: ReadOptions
) => Effect.Effect<Reading<Legacy.Location>, ReadError, Signals | Connections> = reads.location

/**
 * Replaces the legacy `vehicles.vin(vehicleId)`: `vehicleidentification-vin` as `{ vin }`.
 *
 * @example
 * ```ts
 * import { Migration } from "@connected-vehicle/v3"
 *
 * const vin = Migration.vin({ vehicleId: "veh_1", userId: "usr_1" })
 * ```
 * @since 0.2.0
 * @category reads
 */
export const vin: (
  target: Target,
  options?: ReadOptions
) => Effect.Effect<Reading<Legacy.Vin>, ReadError, Signals | Connections> = reads.vin

/**
 * Replaces the legacy `vehicles.engineOil(vehicleId)`:
 * `internalcombustionengine-oillife` (percent) as `{ lifeRemaining }` (0..1);
 * a battery-electric vehicle (no such signal) reads 1, as in v2.0.
 *
 * @example
 * ```ts
 * import { Migration } from "@connected-vehicle/v3"
 *
 * const oil = Migration.engineOil({ vehicleId: "veh_1", userId: "usr_1" })
 * ```
 * @since 0.2.0
 * @category reads
 */
export const engineOil: (
  target: Target,
  options?: ReadOptions
) => Effect.Effect<Reading<Legacy.EngineOil>, ReadError, Signals | Connections> = reads.engineOil

/**
 * Replaces the legacy `vehicles.tirePressure(vehicleId, { unitSystem })`:
 * `wheel-tirepressures` as `{ frontLeft, frontRight, backLeft, backRight }` in
 * kPa (metric) or psi (imperial).
 *
 * @example
 * ```ts
 * import { Migration } from "@connected-vehicle/v3"
 *
 * const psi = Migration.tirePressure({ vehicleId: "veh_1", userId: "usr_1" }, { unitSystem: "imperial" })
 * ```
 * @since 0.2.0
 * @category reads
 */
export const tirePressure: (
  target: Target,
  options?: ReadOptions
) => Effect.Effect<Reading<Legacy.TirePressure>, ReadError, Signals | Connections> = reads.tirePressure

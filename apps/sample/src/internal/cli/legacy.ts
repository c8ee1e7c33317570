/** `legacy`: the deprecated v2.0 reads with the user's token. */
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import type { LegacyPath, UnitSystem } from "@connected-vehicle/schema/Legacy"
import type * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
import type * as Sdk from "../../Sdk.ts"
import { printable } from "../../Printable.ts"
import { keyValues } from "../../Table.ts"
import type { Lazy, Shared } from "./shared.ts"
import { optionals, output, vehicleArgument, withSdk } from "./shared.ts"

export const withUser = <A, E>(
  body: (flags: Shared, vehicles: Vehicles.Vehicles["Service"], M: Lazy) => Effect.Effect<A, E, Sdk.Services>,
  deprecated = true
) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      // the v2.0 reads and batch are deprecated as of 2026-12-01: said once per command, on stderr
      // (stdout holds the output); not for the vehicle list, which is not (spec section 9.3)
      if (deprecated) yield* Console.error(M.Migrate.notice())
      yield* M.Sdk.ensureUser
      return yield* body(flags, yield* M.Vehicles.Vehicles, M)
    })
  )

/** Unit labels of a reading's unit system (`sc-unit-system`). */
const unitsOf = {
  metric: { distance: "km", pressure: "kPa" },
  imperial: { distance: "miles", pressure: "psi" }
} as const


const legacyRead = <A>(
  name: string,
  description: string,
  read: (
    vehicles: Vehicles.Vehicles["Service"],
    id: string
  ) => Effect.Effect<{ readonly value: A; readonly unitSystem: UnitSystem }, Vehicles.ReadError>,
  human: (value: A, units: typeof unitsOf[UnitSystem], M: Lazy) => string
) =>
  Command.make(name, { vehicle: vehicleArgument }, (input) =>
    withUser((flags, vehicles, M) =>
      Effect.gen(function*() {
        const reading = yield* read(vehicles, input.vehicle)
        yield* output(flags.json, { vehicleId: input.vehicle, ...reading }, () => human(reading.value, unitsOf[reading.unitSystem], M))
      })
    )).pipe(Command.withDescription(description))

const legacyVehicles = Command.make("vehicles", {
  limit: Flag.Int("limit").pipe(Flag.withDescription("At most this many ids (1 to 50, default 10)"), Flag.optional),
  offset: Flag.Int("offset").pipe(Flag.withDescription("Start index"), Flag.optional)
}, (input) =>
  withUser((flags, vehicles) =>
    Effect.gen(function*() {
      const list = yield* vehicles.list(optionals(input))
      yield* output(flags.json, list, () =>
        `${list.vehicles.map(printable).join("\n")}\n\n${list.vehicles.length} of ${list.paging.count} vehicles (offset ${list.paging.offset})`)
    }), false)).pipe(Command.withDescription("Vehicle ids the user connected (legacy list, not deprecated)"))

const batchPaths: ReadonlyArray<LegacyPath> = ["/odometer", "/location", "/vin", "/engine/oil", "/tires/pressure"]

const legacyBatch = Command.make("batch", {
  vehicle: vehicleArgument,
  paths: Flag.Literals("path", ["/odometer", "/location", "/vin", "/engine/oil", "/tires/pressure", "/service/history"]).pipe(
    Flag.withDescription("A path to request (repeat the flag); default: odometer, location, VIN, oil, tires"),
    Flag.atLeast(0)
  )
}, (input) =>
  withUser((flags, vehicles, M) =>
    Effect.gen(function*() {
      const paths = input.paths.length === 0 ? batchPaths : input.paths
      const result = yield* vehicles.batch(input.vehicle, paths as readonly [LegacyPath, ...Array<LegacyPath>])
      const entries = M.Tour.batchEntries(result, paths)
      yield* output(flags.json, { vehicleId: input.vehicle, entries }, () => M.Tour.renderBatch(entries))
    })
  )).pipe(Command.withDescription("Several legacy reads in one request, each with its own status"))

export const legacy = Command.make("legacy").pipe(
  Command.withDescription(
    "DEPRECATED (v2.0 is deprecated as of 2026-12-01; see docs/migrating-to-v3.md and `migrate check`). Legacy v2.0 reads with the user's token (embedded simulator: consent flow run automatically; remote: run `login` first)"
  ),
  Command.withSubcommands([
    legacyVehicles,
    legacyRead("odometer", "Last known odometer (km, or miles for imperial)", (v, id) => v.odometer(id), (x, u) => `${x.distance} ${u.distance}`),
    legacyRead("location", "Last known location", (v, id) => v.location(id), (x) => `${x.latitude}, ${x.longitude}`),
    legacyRead("vin", "Vehicle identification number", (v, id) => v.vin(id), (x) => printable(x.vin)),
    legacyRead("oil", "Engine oil life remaining", (v, id) => v.engineOil(id), (x) => `${Math.round(x.lifeRemaining * 100)}% oil life remaining`),
    legacyRead("tires", "Tire pressure (kPa, or psi for imperial)", (v, id) => v.tirePressure(id), (x, u) =>
      keyValues([
        ["front left", `${x.frontLeft} ${u.pressure}`],
        ["front right", `${x.frontRight} ${u.pressure}`],
        ["back left", `${x.backLeft} ${u.pressure}`],
        ["back right", `${x.backRight} ${u.pressure}`]
      ])),
    legacyRead("service-history", "Service records (supported makes only)", (v, id) => v.serviceHistory(id), (records, _, M) =>
      records.length === 0 ? "No service records" : M.Tour.renderServiceHistory(records)),
    legacyBatch
  ])
)

/** `migrate check`: each legacy read next to its v3 equivalent. */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { withUser } from "./legacy.ts"
import { optionalValue, output, vehicleArgument } from "./shared.ts"

const migrateCheck = Command.make("check", {
  vehicle: vehicleArgument,
  unitSystem: Flag.Literals("unit-system", ["metric", "imperial"]).pipe(
    Flag.withDescription("Unit system of both reads: metric (km, kPa) or imperial (miles, psi)"),
    Flag.withDefault("metric" as const)
  ),
  user: Flag.String("user").pipe(
    Flag.withDescription("The vehicle's user id for sc-user-id (default: found in the connections list)"),
    Flag.optional
  )
}, (input) =>
  withUser((flags, vehicles, M) =>
    Effect.gen(function*() {
      const report = yield* M.Migrate.check(vehicles, input.vehicle, {
        unitSystem: input.unitSystem,
        userId: optionalValue(input.user)
      })
      yield* output(flags.json, report, () => M.Migrate.render(report))
    })
  )).pipe(
    Command.withDescription(
      "Each legacy v2.0 read of a vehicle next to its v3 equivalent (Migration of @connected-vehicle/v3), and whether they agree"
    ),
    Command.withExamples([{ command: "sample migrate check <vehicle> --unit-system imperial", description: "compare in miles and psi" }])
  )

export const migrate = Command.make("migrate").pipe(
  Command.withDescription("Moving from v2.0 (sunset 2026-12-01) to v3: see docs/migrating-to-v3.md"),
  Command.withSubcommands([migrateCheck])
)

/** `migrate check`: each legacy read next to its v3 equivalent. */
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as Report from "../../Report.ts"
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
      if (report.compared === 0) {
        yield* Console.error(
          `Nothing was compared: ${report.notCompared.length} reads could not be (${
            report.notCompared.map((n) => n.path).join(", ")
          }; the reasons are in the report)`
        )
        return yield* Effect.fail(new Report.Reported(1))
      }
    })
  )).pipe(
    Command.withDescription(
      "Each legacy v2.0 read of a vehicle next to its v3 equivalent (Migration of @connected-vehicle/v3), whether they agree, and why a read could not be compared; exit 1 when none could, 2 for an unknown vehicle"
    ),
    Command.withExamples([{ command: "sample migrate check <vehicle> --unit-system imperial", description: "compare in miles and psi" }])
  )

export const migrate = Command.make("migrate").pipe(
  Command.withDescription("Moving from v2.0 (deprecated as of 2026-12-01) to v3: see docs/migrating-to-v3.md"),
  Command.withSubcommands([migrateCheck])
)

/** `compat`: the public compatibility listing. */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { PowertrainTypeValues, RegionValues } from "@connected-vehicle/schema/Common"
import { optionals, output, withPublic } from "./shared.ts"

export const compat = Command.make("compat", {
  region: Flag.Literals("region", RegionValues).pipe(Flag.withDescription("US, CA or EUROPE"), Flag.optional),
  make: Flag.String("make").pipe(Flag.withDescription("Manufacturer (case-insensitive)"), Flag.optional),
  powertrainType: Flag.Literals("powertrain", [...PowertrainTypeValues, "EV"]).pipe(
    Flag.withDescription("ICE, BEV, PHEV or EV (BEV and PHEV)"),
    Flag.optional
  )
}, (input) =>
  withPublic((flags, M) =>
    Effect.gen(function*() {
      const listing = yield* (yield* M.Compatibility).list(optionals(input))
      yield* output(flags.json, listing, () =>
        [
          M.Render.compatibilityCounts(listing.data),
          "",
          M.Render.compatibilityEntries(listing.data),
          "",
          `${listing.data.length} entries`
        ].join("\n"))
    })
  )).pipe(
    Command.withDescription("The compatibility listing (no credential), filtered by region, make and powertrain"),
    Command.withExamples([{ command: "sample compat --region US --powertrain EV", description: "US electric vehicles" }])
  )

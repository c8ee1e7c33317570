/** `signals`: every signal of a vehicle, or one. */
import { Effect, Option, Stream } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { printable } from "../../Printable.ts"
import type { Lazy } from "./shared.ts"
import { output, withSdk } from "./shared.ts"

/**
 * Every signal of a vehicle, page after page (each page fetched once).
 */
const allSignals = (M: Lazy, vehicleId: string, userId: string) =>
  Effect.gen(function*() {
    const signals = yield* M.Signals
    const pages = yield* Stream.runCollect(signals.pages({ vehicleId, userId, pageSize: 100 }))
    const first = pages[0]!
    return { vehicle: first.included.vehicle, meta: first.meta, data: pages.flatMap((p) => p.data) }
  })

export const signals = Command.make("signals", {
  vehicle: Argument.String("vehicle").pipe(Argument.withDescription("Vehicle id")),
  user: Flag.String("user").pipe(Flag.withDescription("Id of the vehicle's user (sent as sc-user-id)")),
  code: Flag.String("code").pipe(Flag.withDescription("One signal code instead of every signal"), Flag.optional)
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      if (Option.isSome(input.code)) {
        const service = yield* M.Signals
        const one = yield* service.get({ vehicleId: input.vehicle, userId: input.user, code: input.code.value })
        return yield* output(flags.json, one, () => M.Render.signals([one.data]))
      }
      const all = yield* allSignals(M, input.vehicle, input.user)
      const v = all.vehicle.attributes
      yield* output(flags.json, all, () =>
        `Vehicle ${printable(`${all.vehicle.id}: ${v.make} ${v.model} ${v.year} (${v.powertrainType}, ${v.mode})`)}\n\n${
          M.Render.signals(all.data)
        }`)
    })
  )).pipe(
    Command.withDescription("Signals of a connected vehicle on behalf of its user, grouped; failed ones with their resolution"),
    Command.withExamples([{ command: "sample signals VEHICLE_ID --user USER_ID", description: "Every signal" }])
  )

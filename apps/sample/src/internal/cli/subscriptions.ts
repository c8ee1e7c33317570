/** `subscriptions`: the application's subscriptions. */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { mode, optionalValue, output, page, pageSize, withSdk } from "./shared.ts"

export const subscriptions = Command.make("subscriptions", {
  user: Flag.String("user").pipe(Flag.withDescription("Filter by user id"), Flag.optional),
  webhook: Flag.String("webhook").pipe(Flag.withDescription("Filter by webhook id"), Flag.optional),
  vehicle: Flag.String("vehicle").pipe(Flag.withDescription("Filter by vehicle id"), Flag.optional),
  mode,
  page,
  pageSize
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      const service = yield* M.Subscriptions
      const result = yield* service.list({
        userId: optionalValue(input.user),
        webhookId: optionalValue(input.webhook),
        vehicleId: optionalValue(input.vehicle),
        mode: optionalValue(input.mode),
        page: optionalValue(input.page),
        pageSize: optionalValue(input.pageSize)
      })
      yield* output(flags.json, result, () =>
        `${M.Render.subscriptions(result.data)}\n\npage ${result.meta.pageNumber} (${result.data.length} of ${result.meta.totalCount} subscriptions)`)
    })
  )).pipe(Command.withDescription("Subscriptions of the application"))

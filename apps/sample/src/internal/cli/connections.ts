/** `connections`: one page of the application's connections. */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { mode, optionalValue, output, page, pageSize, withSdk } from "./shared.ts"

export const connections = Command.make("connections", {
  user: Flag.String("user").pipe(Flag.withDescription("Filter by user id"), Flag.optional),
  vehicle: Flag.String("vehicle").pipe(Flag.withDescription("Filter by vehicle id"), Flag.optional),
  externalId: Flag.String("external-id").pipe(Flag.withDescription("Filter by the user's external id"), Flag.optional),
  mode,
  page,
  pageSize
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      const service = yield* M.Connections
      const result = yield* service.list({
        userId: optionalValue(input.user),
        vehicleId: optionalValue(input.vehicle),
        userExternalId: optionalValue(input.externalId),
        mode: optionalValue(input.mode),
        page: optionalValue(input.page),
        pageSize: optionalValue(input.pageSize)
      })
      yield* output(flags.json, result, () =>
        `${M.Render.connections(result.data)}\n\npage ${result.meta.pageNumber} (${result.data.length} of ${result.meta.totalCount} connections)`)
    })
  )).pipe(Command.withDescription("Connections of the application (application token)"))

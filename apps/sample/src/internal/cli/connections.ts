/** `connections`: one page of the application's connections. */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { pageCommand, userFilter, vehicleFilter } from "./shared.ts"

export const connections = pageCommand(
  "connections",
  {
    userId: userFilter,
    vehicleId: vehicleFilter,
    userExternalId: Flag.String("external-id").pipe(Flag.withDescription("Filter by the user's external id"), Flag.optional)
  },
  (M, args) => M.Connections.pipe(Effect.flatMap((service) => service.list(args))),
  (M, data) => M.Render.connections(data)
).pipe(Command.withDescription("Connections of the application (application token)"))

/** `subscriptions`: one page of the application's subscriptions. */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { pageCommand, userFilter, vehicleFilter } from "./shared.ts"

export const subscriptions = pageCommand(
  "subscriptions",
  {
    userId: userFilter,
    webhookId: Flag.String("webhook").pipe(Flag.withDescription("Filter by webhook id"), Flag.optional),
    vehicleId: vehicleFilter
  },
  (M, args) => M.Subscriptions.pipe(Effect.flatMap((service) => service.list(args))),
  (M, data) => M.Render.subscriptions(data)
).pipe(Command.withDescription("Subscriptions of the application"))

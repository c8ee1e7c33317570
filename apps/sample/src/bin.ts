#!/usr/bin/env node
/**
 * Entry point: `node src/bin.ts [command] [flags]` (Node 24 runs TypeScript
 * directly). Exit codes: 0 success, 1 a failure of the service or the
 * network (reported on stderr), 2 a bad argument (with the help of the command).
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Console, Effect } from "effect"
import { CliError, Command } from "effect/cli"
import { cli } from "./Cli.ts"
import * as Report from "./Report.ts"

const program = Command.run(cli, { version: "0.1.0" }).pipe(
  Effect.catchCause((cause) =>
    Effect.gen(function*() {
      const error = Cause.squash(cause)
      if (error instanceof Report.Reported) return yield* Effect.failCause(cause)
      if (CliError.isCliError(error)) {
        // help and the parse errors are already printed by Command.run
        const code = error._tag === "ShowHelp" && error.errors.length === 0 ? 0 : 2
        return yield* (code === 0 ? Effect.void : Effect.fail(new Report.Reported(code)))
      }
      if (Cause.hasInterruptsOnly(cause)) return yield* Effect.failCause(cause)
      yield* Console.error(Report.render(error))
      return yield* Effect.fail(new Report.Reported(1))
    })
  ),
  Effect.provide(NodeServices.layer)
)

NodeRuntime.runMain(program, { disableErrorReporting: true })

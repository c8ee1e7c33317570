/**
 * The program of `bin.ts`: runs the command line, and turns every failure
 * into its report and exit code. With `--json`, stdout only ever holds JSON:
 * a parse error prints `{"error":{"tag":"CliError",...}}` there too, and
 * every log line (`--log-level debug`) goes to stderr. `--version` is the
 * version of the sample's `package.json`.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Console, Context, Effect, Layer, Logger, Option } from "effect"
import { CliError, CliOutput, Command, TerminalCapabilities } from "effect/cli"
import type { HelpDoc } from "effect/cli"
import { createRequire } from "node:module"
import { cli } from "../Cli.ts"
import { printableJson } from "../Printable.ts"
import * as Report from "../Report.ts"
import { argsOf } from "./invocation.ts"

const args = argsOf(process.argv.slice(2))
const dashDash = args.indexOf("--")
const json = (dashDash === -1 ? args : args.slice(0, dashDash)).includes("--json")

const version = (createRequire(import.meta.url)("../../package.json") as { readonly version: string }).version

/** The help with ` (required)` after the description of each flag that must be given. */
const markRequired = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc => ({
  ...doc,
  flags: doc.flags.map((flag) =>
    flag.required
      ? { ...flag, description: Option.some(`${Option.getOrElse(flag.description, () => "")} (required)`.trimStart()) }
      : flag
  )
})

/**
 * Requested help (`--help`) on stdout; everything else on stderr, and as
 * JSON on stdout with `--json`: a group run without its subcommand prints
 * its help (the subcommands to choose from), a parse error (a bad flag or
 * argument) prints the error and one line pointing to `--help`.
 */
const presenter: CliOutput.Presenter = {
  present: (event) =>
    Effect.gen(function*() {
      const context = yield* Effect.context<never>()
      const formatter = Context.getOrUndefined(context, CliOutput.Formatter) ??
        CliOutput.defaultFormatter({ colors: Context.get(context, TerminalCapabilities.TerminalCapabilities).canColor })
      if (event._tag === "Version") return yield* CliOutput.defaultPresenter.present(event)
      if (event._tag === "Help" && event.reason === "Requested") {
        return yield* Console.log(formatter.formatHelpDoc(markRequired(event.helpDoc)))
      }
      const command = event.commandPath.join(" ")
      const errors = event._tag === "InvalidInvocation"
        ? event.errors
        : [new CliError.ValidationError({ message: `Missing subcommand: choose one of the SUBCOMMANDS of \`${command}\`` })]
      if (event._tag === "InvalidInvocation") {
        yield* Console.error(formatter.formatErrors(errors))
        yield* Console.error(`Run \`${command} --help\` for the flags and arguments of \`${command}\`.`)
      } else {
        yield* Console.error(formatter.formatHelpDoc(markRequired(event.helpDoc)))
        yield* Console.error(formatter.formatErrors(errors))
      }
      if (json) {
        const message = errors.map((e) => e.message).join("; ")
        const list = errors.map((e) => ({ tag: e._tag, message: e.message }))
        yield* Console.log(printableJson(JSON.stringify({ error: { tag: "CliError", command, message, errors: list } }, null, 2)))
      }
    })
}

const program = Command.runWith(cli, { version })(args).pipe(
  Effect.catchCause((cause) =>
    Effect.gen(function*() {
      const error = Cause.squash(cause)
      if (error instanceof Report.Reported) return yield* Effect.failCause(cause)
      // help requested with --help succeeds; a ShowHelp failure is a usage error
      // (a parse error, or a group without its subcommand), already presented
      if (CliError.isCliError(error)) return yield* Effect.fail(new Report.Reported(2))
      if (Cause.hasInterruptsOnly(cause)) return yield* Effect.failCause(cause)
      yield* Console.error(Report.render(error))
      if (json) yield* Console.log(printableJson(JSON.stringify({ error: Report.describe(error) }, null, 2)))
      return yield* Effect.fail(new Report.Reported(1))
    })
  ),
  Effect.provide(Layer.merge(NodeServices.layer, CliOutput.layerPresenter(presenter))),
  // logs are diagnostics: stdout holds only the command's output
  Effect.provideService(Logger.LogToStderr, true)
)

NodeRuntime.runMain(program, { disableErrorReporting: true })

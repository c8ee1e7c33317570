/**
 * What every command of the CLI shares: the shared flags and the root
 * command that holds them, the lazily loaded SDK, running a body with the
 * SDK's layers and reporting its failure, and the common flags.
 */
import { secretText } from "@connected-vehicle/schema/Redaction"
import { Console, Effect, Layer, Option, Redacted, Result, Schema } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"
import { ModeValues } from "@connected-vehicle/schema/Common"
import { rootIssue } from "@connected-vehicle/transport/TransportConfig"
import * as env from "../env.ts"
import type { SampleConfig } from "../../SampleConfig.ts"
import { readSecretFile } from "../secretInput.ts"
import { printableJson } from "../../Printable.ts"
import * as Report from "../../Report.ts"
import { SampleError } from "../../SampleError.ts"

/**
 * The SDK and everything the handlers need, loaded when a handler runs:
 * `--help` and parse errors never load it (nor the simulator, which the
 * embedded target loads itself on first use).
 */
export type Lazy = typeof import("../sdk.ts")
export const lazy: Effect.Effect<Lazy> = Effect.promise(() => import("../sdk.ts"))

// ---------------------------------------------------------------------------
// Shared flags
// ---------------------------------------------------------------------------

/**
 * A flag's value, else its fallback in the environment (`SampleConfig.config`,
 * read only when the flag is absent); a `ConfigError` is the flag's invalid value.
 */
const orEnvironment = <A>(option: string, fallback: (settings: SampleConfig) => Option.Option<A>) =>
  Flag.mapEffect((value: Option.Option<A>) =>
    Option.isSome(value) ? Effect.succeed(value) : env.config.pipe(
      Effect.map(fallback),
      Effect.mapError((error) => new CliError.InvalidValue({ option, value: "config", expected: error.message, kind: "flag" }))
    )
  )

/** The transport's rule for a root: http(s), no credentials, no query or fragment. */
const checkedTarget = (value: string): Effect.Effect<string, CliError.CliError> => {
  const issue = rootIssue(value)
  return issue === undefined ? Effect.succeed(value) : Effect.fail(
    new CliError.InvalidValue({
      option: "target",
      value,
      expected: `--target must be an http:// or https:// URL without credentials, query or fragment, e.g. http://127.0.0.1:8080 (${issue})`,
      kind: "flag"
    })
  )
}

export const shared = {
  json: Flag.Boolean("json").pipe(
    Flag.withDescription("Print machine-readable JSON on stdout instead of tables"),
    Flag.withDefault(false)
  ),
  target: Flag.String("target").pipe(
    Flag.withDescription(
      "Origin (http or https URL) of another simulator or deployment serving every root (env CONNECTED_VEHICLE_ORIGIN); default: the embedded simulator"
    ),
    Flag.optional,
    orEnvironment("target", (settings) => settings.origin),
    Flag.mapEffect((value) => Option.isSome(value) ? Effect.asSome(checkedTarget(value.value)) : Effect.succeedNone)
  ),
  clientId: Flag.String("client-id").pipe(
    Flag.withDescription("Application client id for a remote target (env CONNECTED_VEHICLE_CLIENT_ID)"),
    Flag.optional,
    orEnvironment("client-id", (settings) => settings.clientId)
  ),
  clientSecretFile: Flag.String("client-secret-file").pipe(
    Flag.withDescription(
      "File holding the application client secret for a remote target (or env CONNECTED_VEHICLE_CLIENT_SECRET); there is no --client-secret flag: a secret on the command line shows in ps and the shell history"
    ),
    Flag.optional
  ),
  tokenFile: Flag.String("token-file").pipe(
    Flag.withDescription(
      "Where `login` stores the user's tokens, keyed by target and client id (env CONNECTED_VEHICLE_TOKEN_FILE; default for a remote target ~/.config/connected-vehicle/sample-tokens.json, for the embedded simulator memory)"
    ),
    Flag.optional
  )
}

export const root = Command.make("sample").pipe(Command.withSharedFlags(shared))

export type Shared = Command.Command.Config.Infer<typeof shared>

/**
 * Runs a command body with the SDK layers of the shared flags; a failure is
 * printed (JSON on stdout too with `--json`) and ends the process non-zero.
 */
export const withSdk = <A, E, R>(body: (flags: Shared, M: Lazy) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(root, (flags) => Effect.flatMap(lazy, (M) => runWith(M, flags, (flags) => body(flags, M))))

const CLIENT_SECRET_VARIABLE = "CONNECTED_VEHICLE_CLIENT_SECRET"

/**
 * The client secret: `--client-secret-file` (a regular file, at most 64 KiB),
 * else `CONNECTED_VEHICLE_CLIENT_SECRET`, either read as the webhook secret
 * and the SDK's are (`secretText` of `@connected-vehicle/schema/Redaction`: without the white
 * space around it; not UTF-8 text or holding a control character: a usage
 * error naming the file or the variable, never the secret). An empty file is a
 * usage error; an empty variable is unset.
 */
const clientSecretOf = (flags: Shared) =>
  Effect.gen(function*() {
    const file = Option.getOrUndefined(flags.clientSecretFile)
    const text = file === undefined
      ? Option.map((yield* env.config).clientSecret, Redacted.value)
      : Option.some(yield* readSecretFile(file, "the client secret file"))
    if (Option.isNone(text)) return Option.none<Redacted.Redacted<string>>()
    const checked = secretText(text.value)
    if (Result.isFailure(checked)) {
      // a file's text was checked as it was read: only the variable's can be refused here
      const source = file === undefined ? CLIENT_SECRET_VARIABLE : `The client secret file ${file}`
      return yield* new SampleError({ reason: `${source} ${checked.failure}`, usage: true })
    }
    if (checked.success !== "") return Option.some(Redacted.make(checked.success))
    if (file === undefined) return Option.none<Redacted.Redacted<string>>()
    return yield* new SampleError({ reason: `The client secret file ${file} is empty`, usage: true })
  })

const sdkLayer = (M: Lazy, flags: Shared) =>
  Layer.unwrap(Effect.map(clientSecretOf(flags), (clientSecret) => M.Sdk.layer({ ...flags, clientSecret })))

export const report = (json: boolean) => (error: unknown) =>
  Effect.gen(function*() {
    // already reported by the command itself
    if (error instanceof Report.Reported) return yield* Effect.fail(error)
    yield* Console.error(Report.render(error))
    if (json) yield* Console.log(printableJson(JSON.stringify({ error: Report.describe(error) }, null, 2)))
    return yield* Effect.fail(new Report.Reported(Report.exitCodeOf(error)))
  })

/** Like {@link withSdk} for commands that need no credential (the public compatibility listing). */
export const withPublic = <A, E, R>(body: (flags: Shared, M: Lazy) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(root, (flags) =>
    Effect.flatMap(lazy, (M) =>
      body(flags, M).pipe(
        Effect.provide(M.Target.layerPublic({ ...flags, clientSecret: Option.none() })),
        Effect.catch(report(flags.json))
      )))

export const runWith = <A, E, R>(M: Lazy, flags: Shared, body: (flags: Shared) => Effect.Effect<A, E, R>) =>
  body(flags).pipe(
    Effect.provide(sdkLayer(M, flags)),
    Effect.catch(report(flags.json))
  )

/**
 * Prints `value` as JSON with `--json` (the characters a terminal acts on
 * escaped: the same JSON value), else the human rendering.
 */
export const output = (json: boolean, value: unknown, human: () => string) =>
  Console.log(json ? printableJson(JSON.stringify(value, null, 2)) : human())

export const optionalValue = <A>(option: Option.Option<A>) => Option.getOrUndefined(option)

/** The values of optional flags, each `undefined` when not given: the optional arguments of an SDK call. */
export const optionals = <R extends Record<string, Option.Option<unknown>>>(
  options: R
): { readonly [K in keyof R]: R[K] extends Option.Option<infer A> ? A | undefined : never } =>
  Object.fromEntries(Object.entries(options).map(([key, value]) => [key, Option.getOrUndefined(value)])) as never

/** The value of an optional flag: `undefined` when not given. */
type FlagValue<F> = F extends Flag.Flag<Option.Option<infer A>> ? A | undefined : never

/** One page of a v3 list, as `list` of a v3 service answers it. */
interface ListPage<A> {
  readonly data: ReadonlyArray<A>
  readonly meta: { readonly pageNumber: number; readonly totalCount: number }
}

/**
 * A command that prints one page of a v3 list (application token): its
 * filters (optional flags named as the list's arguments), `--mode`,
 * `--page` and `--page-size`; the table, then `page N (n of TOTAL NAME)`.
 */
export const pageCommand = <const Filters extends Record<string, Flag.Flag<Option.Option<unknown>>>, A, E, R>(
  name: string,
  filters: Filters,
  list: (
    M: Lazy,
    args: { readonly [K in keyof (Filters & typeof paging)]: FlagValue<(Filters & typeof paging)[K]> }
  ) => Effect.Effect<ListPage<A>, E, R>,
  table: (M: Lazy, data: ReadonlyArray<A>) => string
) =>
  Command.make(name, { ...filters, ...paging }, (input) =>
    withSdk((flags, M) =>
      Effect.gen(function*() {
        const result = yield* list(M, optionals(input as Record<string, Option.Option<unknown>>) as never)
        yield* output(flags.json, result, () =>
          `${table(M, result.data)}\n\npage ${result.meta.pageNumber} (${result.data.length} of ${result.meta.totalCount} ${name})`)
      })
    ))

export const page = Flag.Int("page").pipe(Flag.withDescription("Page number (>= 1)"), Flag.optional)
export const pageSize = Flag.Int("page-size").pipe(Flag.withDescription("Page size (1 to 100)"), Flag.optional)
export const mode = Flag.Literals("mode", ModeValues).pipe(Flag.withDescription("live or simulated"), Flag.optional)

/** The flags of one page of a list of connections or subscriptions. */
const paging = { mode, page, pageSize }

/** `--user`: filter a list by user id. */
export const userFilter = Flag.String("user").pipe(Flag.withDescription("Filter by user id"), Flag.optional)

/** `--vehicle`: filter a list by vehicle id. */
export const vehicleFilter = Flag.String("vehicle").pipe(Flag.withDescription("Filter by vehicle id"), Flag.optional)

/** A TCP port flag: 0 (any free port) to 65535, else a usage error (exit 2). */
export const portFlag = (description: string, fallback: number) =>
  Flag.Int("port").pipe(
    Flag.withDescription(description),
    Flag.withDefault(fallback),
    Flag.withSchema(Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 65535 })))
  )

export const vehicleArgument = Argument.String("vehicle").pipe(Argument.withDescription("Vehicle id"))

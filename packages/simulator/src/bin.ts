#!/usr/bin/env node
/**
 * `connected-vehicle-simulator` (the package's bin; `pnpm simulator` in its
 * repository): runs the simulator until stopped.
 *
 * Prints `listening on http://HOST:PORT`, then the client id and secret it
 * accepts (a secret from `--client-secret-file`: only where it came from),
 * and a line of the environment variables the SDK reads
 * (`export CONNECTED_VEHICLE_ORIGIN=... CONNECTED_VEHICLE_CLIENT_ID=...
 * CONNECTED_VEHICLE_CLIENT_SECRET=...`). See the README for every flag.
 * Exit codes: 0 when stopped (SIGINT, SIGTERM), 1 when
 * it cannot start (one `error: ...` line on stderr: an address it cannot
 * listen on or resolve, a secret file it cannot read or that is not a
 * regular file, an empty or too long secret), 2 for a usage error
 * (an unknown flag or a value that does not parse, `--v2-sunset 2027-02-30`
 * included: a day that does not exist: one `error:` line and one naming
 * `--help`, the help itself not printed; one `error:` line for a value it cannot use: an
 * empty credential or host, `--client-secret` with `--client-secret-file`, a client id or redirect URI holding a control
 * character, a redirect URI the SDK refuses (`redirectUriIssue`: relative,
 * with white space or a fragment) or an http(s) one with user information, a port flag
 * of the other mode). A flag's value is printed with the characters a
 * terminal acts on escaped (`\u001b`).
 *
 * @since 0.1.0
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Console, Context, Duration, Effect, Exit, Layer, Option, Record, Redacted, Result, Runtime, Schema } from "effect"
import { CliError, CliOutput, Command, Flag } from "effect/cli"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { resolve as resolvePath } from "node:path"
import { DEFAULT_WEBHOOK_SECRET } from "./Delivery.ts"
import { listenFailure, shellWord, shown, sunsetDate, usageIssue } from "./internal/cliInput.ts"
import { SECRET_LIMIT, secretIssue } from "./internal/deliveryPolicy.ts"
import { COUNT_MAX, PORT_MAX } from "./internal/options.ts"
import * as SecretFile from "./SecretFile.ts"
import * as SimulatorConfig from "./SimulatorConfig.ts"
import {
  DEFAULT_CLIENT_ID,
  DEFAULT_CLIENT_SECRET,
  DEFAULT_HEADERS_TIMEOUT,
  DEFAULT_REDIRECT_URIS,
  DEFAULT_REQUEST_TIMEOUT,
  layer,
  layerRoots,
  Simulator,
  SimulatorRoots
} from "./Simulator.ts"

/** A failure already reported on stderr: the process exits with its code, nothing more is printed. */
class Reported {
  readonly _tag = "Reported"
  readonly [Runtime.errorExitCode]: number
  constructor(exitCode: number) {
    this[Runtime.errorExitCode] = exitCode
  }
}

/** One `error: ...` line on stderr, then the exit code (1: cannot start, 2: usage). */
const report = (line: string, exitCode = 1) => Effect.andThen(Console.error(`error: ${line}`), Effect.fail(new Reported(exitCode)))

/**
 * `--help` and `--version` on stdout; a flag the command does not know or a
 * value that does not parse (`--seed 1.5`, `--failure-rate NaN`): on stderr,
 * one `error:` line each (shown escaped), then one line naming `--help`
 * rather than the whole help.
 */
const presenter: CliOutput.Presenter = {
  present: (event) =>
    event._tag === "InvalidInvocation"
      ? Effect.gen(function*() {
        // a message of several lines (an unknown flag's "Did you mean this?") keeps its lines, each escaped
        for (const error of event.errors) {
          const [first, ...rest] = error.message.split("\n").filter((line) => line.trim() !== "")
          yield* Console.error([`error: ${shown(first ?? "")}`, ...rest.map((line) => shown(line))].join("\n"))
        }
        yield* Console.error(`Run \`${event.commandPath.join(" ")} --help\` for the flags.`)
      })
      : CliOutput.defaultPresenter.present(event)
}

/**
 * One `export` line of the variables `pnpm sample` reads (the origin, or the
 * roots with `--split-ports`, and the client credential), so that the
 * sample reaches this simulator without copying anything by hand.
 */
const sampleEnvironment = (
  sim: Simulator["Service"],
  roots: SimulatorRoots["Service"] | undefined,
  clientSecretFile: string | undefined
): string => {
  const where: ReadonlyArray<readonly [string, string]> = roots === undefined
    ? [["CONNECTED_VEHICLE_ORIGIN", sim.url]]
    : [
      ["CONNECTED_VEHICLE_BASE_URL", `${roots.vehicle}/v3`],
      ["CONNECTED_VEHICLE_MANAGEMENT_URL", `${roots.management}/v3`],
      ["CONNECTED_VEHICLE_COMPAT_URL", `${roots.compatibility}/v3`],
      ["CONNECTED_VEHICLE_AUTH_URL", roots.authorization],
      ["CONNECTED_VEHICLE_LEGACY_URL", roots.legacy]
    ]
  const variables = [
    ...where,
    ["CONNECTED_VEHICLE_CLIENT_ID", sim.clientId],
  ]
  const line = (secret: string) =>
    `export ${[...variables.map(([name, value]) => `${name}=${shellWord(value)}`), `CONNECTED_VEHICLE_CLIENT_SECRET=${secret}`].join(" ")}`
  if (clientSecretFile === undefined) return line(shellWord(Redacted.value(sim.clientSecret)))
  // a secret from a file is never printed: the line reads the file instead, trimmed by `sed` (ASCII
  // white space around it and blank lines dropped), when that gives the secret the simulator took
  // (a byte-order mark or other white space around it, which the simulator trims, a shell keeps)
  const path = resolvePath(clientSecretFile)
  return shellReads(path) === Redacted.value(sim.clientSecret)
    ? line(`"$(LC_ALL=C sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' -- ${shellWord(path)})"`)
    : `export ${variables.map(([name, value]) => `${name}=${shellWord(value)}`).join(" ")}\n` +
      `# CONNECTED_VEHICLE_CLIENT_SECRET: set it to the secret of ${shown(path)} yourself (a byte-order mark or white space around it that a shell would keep)`
}

/** What the `sed` of {@link sampleEnvironment} reads of the file at `path` (undefined: unreadable). */
const shellReads = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8").split("\n").map((l) => l.replace(/^[ \t\v\f\r]+|[ \t\v\f\r]+$/g, "")).filter((l) => l !== "").join("\n")
  } catch {
    return undefined
  }
}

/**
 * The webhook secret: the file's content, else the environment's
 * `CONNECTED_VEHICLE_WEBHOOK_SECRET` (`SimulatorConfig.config`, the bin's one
 * variable), either read by `SecretFile.secretText` (trimmed; not UTF-8 text
 * or holding a control character: refused), else none (the default). A file
 * that cannot be read, is not a regular file or is larger than a secret can
 * be (`SECRET_FILE_BYTES`: it is not read further), and a secret that is
 * refused, empty or too long, is one `error:` line naming where it came from
 * (never the secret).
 */
const readWebhookSecret = (secretFile: Option.Option<string>) =>
  Effect.gen(function*() {
    const text = Option.isSome(secretFile)
      ? Option.some(yield* fromFile(WEBHOOK, secretFile.value))
      : Option.map((yield* SimulatorConfig.config).webhookSecret, Redacted.value)
    if (Option.isNone(text)) return Option.none<Redacted.Redacted<string>>()
    const source = Option.isSome(secretFile) ? `${WEBHOOK.flag} ${shown(secretFile.value)}` : "CONNECTED_VEHICLE_WEBHOOK_SECRET"
    const secret = SecretFile.secretText(text.value)
    if (Result.isFailure(secret)) return yield* report(`the webhook secret of ${source} ${secret.failure}`)
    const issue = secretIssue(secret.success)
    if (issue !== undefined) return yield* report(`the webhook secret of ${source} ${issue}`)
    return Option.some(Redacted.make(secret.success))
  })

/**
 * The most bytes read of `--webhook-secret-file`: a secret of
 * `SECRET_LIMIT` characters (UTF-16 code units: at most 3 bytes each in
 * UTF-8) and 1,024 bytes of whitespace around it (trimmed). A larger file is
 * refused without reading the rest.
 */
const SECRET_FILE_BYTES = SECRET_LIMIT * 3 + 1_024

/** A flag naming a secret file: what its secret is, the most bytes read, and what a larger file is. */
interface SecretFileFlag {
  readonly flag: string
  readonly what: string
  readonly maxBytes: number
  readonly tooLarge: string
}

const WEBHOOK: SecretFileFlag = {
  flag: "--webhook-secret-file",
  what: "webhook secret",
  maxBytes: SECRET_FILE_BYTES,
  tooLarge: `is at most ${SECRET_LIMIT} characters`
}

/** `--client-secret-file`: at most `SecretFile.DEFAULT_MAX_BYTES` (64 KiB) read, as the sample reads its own. */
const CLIENT: SecretFileFlag = {
  flag: "--client-secret-file",
  what: "client secret",
  maxBytes: SecretFile.DEFAULT_MAX_BYTES,
  tooLarge: "is too long"
}

/** The `error:` line of a secret file refused (never its content). */
const secretFileIssue = (spec: SecretFileFlag, path: string, reason: SecretFile.Reason): string => {
  const flag = `${spec.flag} ${shown(path)}`
  switch (reason._tag) {
    case "NotARegularFile":
      return `cannot read ${flag}: ${reason.message}`
    case "TooLarge":
      return `the ${spec.what} of ${flag} ${spec.tooLarge}: the file is over ${reason.maxBytes} bytes`
    case "Unreadable":
      return `cannot read ${flag}: ${reason.detail ?? reason.code}`
  }
}

/** The text of a secret file (not trimmed), or its `error:` line (exit 1). */
const fromFile = (spec: SecretFileFlag, path: string) =>
  SecretFile.read(path, { maxBytes: spec.maxBytes }).pipe(
    Effect.catchTag("SecretFileError", (error) => report(secretFileIssue(spec, path, error.reason)))
  )

/**
 * The client secret: `--client-secret-file`'s content read by
 * `SecretFile.secretText` (trimmed; not UTF-8 text or holding a control
 * character: refused; empty: refused), else `--client-secret`, else
 * `DEFAULT_CLIENT_SECRET`. A file's secret is never printed (`file` says
 * where it came from).
 */
const readClientSecret = (given: Option.Option<string>, secretFile: Option.Option<string>) =>
  Effect.gen(function*() {
    if (Option.isNone(secretFile)) return { secret: Option.getOrElse(given, () => DEFAULT_CLIENT_SECRET), file: undefined }
    const source = `${CLIENT.flag} ${shown(secretFile.value)}`
    const checked = SecretFile.secretText(yield* fromFile(CLIENT, secretFile.value))
    if (Result.isFailure(checked)) return yield* report(`the client secret of ${source} ${checked.failure}`)
    if (checked.success === "") return yield* report(`the client secret of ${source} must not be empty`)
    return { secret: checked.success, file: secretFile.value }
  })

/**
 * What the simulator prints once it listens (see the README); a flag's value
 * (the client secret, a path) with a character a terminal acts on is shown
 * escaped (`\u001b`), in the `export` line as a `printf` word that sets it.
 */
const announce = (
  sim: Simulator["Service"],
  roots: SimulatorRoots["Service"] | undefined,
  printed: {
    readonly redirectUris: ReadonlyArray<string>
    readonly webhookSecret: string
    /** The `--client-secret-file` the secret came from (then never printed). */
    readonly clientSecretFile: string | undefined
  }
) =>
  Effect.gen(function*() {
    yield* Console.log(`listening on ${shown(sim.url)}`)
    if (roots !== undefined) {
      yield* Console.log(`base_url: ${roots.vehicle}/v3`)
      yield* Console.log(`management_url: ${roots.management}/v3`)
      yield* Console.log(`compat_url: ${roots.compatibility}/v3`)
      yield* Console.log(`auth_url: ${roots.authorization}`)
      yield* Console.log(`legacy_url: ${roots.legacy}`)
    }
    yield* Console.log(`client id: ${shown(sim.clientId)}`)
    yield* Console.log(
      `client secret: ${
        printed.clientSecretFile === undefined
          ? shown(Redacted.value(sim.clientSecret))
          : `from --client-secret-file ${shown(printed.clientSecretFile)}`
      }`
    )
    yield* Console.log(
      "the SDK's environment (paste into a shell for an application's `layerConfig`; in the SDK's repository, for `pnpm sample connections`):"
    )
    yield* Console.log(sampleEnvironment(sim, roots, printed.clientSecretFile))
    yield* Console.log(`redirect URIs: ${shown(printed.redirectUris.join(" "))}`)
    yield* Console.log(`docs: ${shown(sim.url)}/docs (OpenAPI: ${shown(sim.url)}/openapi.json)`)
    yield* Console.log(
      `webhook secret: ${printed.webhookSecret} (control routes: POST /_simulator/webhooks, GET /_simulator/deliveries)`
    )
  })

const within = (minimum: number, maximum: number) =>
  Flag.withSchema(Schema.Number.check(Schema.isBetween({ minimum, maximum })))

/** A port flag; absent is `None`, so that one given where it is not used is a usage error. */
const port = (name: string, description: string) =>
  Flag.Int(name).pipe(Flag.withDescription(description), within(0, PORT_MAX), Flag.optional)

const count = (name: string, description: string, fallback: number) =>
  Flag.Int(name).pipe(Flag.withDescription(description), Flag.withDefault(fallback), within(0, COUNT_MAX))

const simulator = Command.make(
  "connected-vehicle-simulator",
  {
    port: port("port", "Port of the single origin (0 = any free port; default 4010)"),
    host: Flag.String("host").pipe(Flag.withDescription("Address to listen on"), Flag.withDefault("127.0.0.1")),
    seed: Flag.Int("seed").pipe(Flag.withDescription("Seed of the dataset"), Flag.withDefault(42)),
    vehicles: count("vehicles", "Number of vehicles", 50),
    users: count("users", "Number of users", 20),
    webhooks: count("webhooks", "Number of webhooks", 8),
    connections: count("connections", "Number of connections (one per vehicle)", 40),
    clientId: Flag.String("client-id").pipe(Flag.withDescription("Client id accepted"), Flag.withDefault(DEFAULT_CLIENT_ID)),
    clientSecret: Flag.String("client-secret").pipe(
      Flag.withDescription(
        `Client secret accepted (default ${DEFAULT_CLIENT_SECRET}); printed, and shown in ps and the shell history: for a real secret use --client-secret-file`
      ),
      Flag.optional
    ),
    clientSecretFile: Flag.String("client-secret-file").pipe(
      Flag.withDescription(
        "File holding the client secret accepted (a regular file, at most 64 KiB; trimmed, no control character); never printed. Not with --client-secret"
      ),
      Flag.optional
    ),
    redirectUris: Flag.String("redirect-uri").pipe(
      Flag.withDescription(
        "A redirect URI registered for the client (repeatable; replaces the default loopback http://127.0.0.1:*, http://localhost:*, http://[::1]:* and https://app.example). http(s)://host[:port|:*] allows any path; an app's URI (myapp://callback) is matched exactly"
      ),
      Flag.atLeast(0)
    ),
    failureRate: Flag.Finite("failure-rate").pipe(
      Flag.withDescription("Share of requests answered with an injected 500 (0..1)"),
      Flag.withDefault(0),
      within(0, 1)
    ),
    latency: Flag.Int("latency").pipe(
      Flag.withDescription("Milliseconds added to every request"),
      Flag.withDefault(0),
      within(0, 600_000)
    ),
    v2Sunset: Flag.String("v2-sunset").pipe(
      Flag.withDescription(
        "A removal date of the deprecated v2.0 endpoints (ISO 8601, e.g. 2027-06-01; a day that exists, not before the deprecation date 2026-12-01, before 10000-01-01): their responses carry a Sunset header with it (the spec gives none: default none)"
      ),
      Flag.mapTryCatch(sunsetDate, (error) => (error as Error).message),
      Flag.optional
    ),
    retireV2: Flag.Boolean("retire-v2").pipe(
      Flag.withDescription("Rehearse the removal of v2.0: answer every deprecated /v2.0 request 410 Gone (the vehicle list keeps answering)"),
      Flag.withDefault(false)
    ),
    retireV2AfterSunset: Flag.Boolean("retire-v2-after-sunset").pipe(
      Flag.withDescription("Answer the deprecated /v2.0 requests 410 Gone once the clock reaches --v2-sunset (which it needs)"),
      Flag.withDefault(false)
    ),
    ignorePermissions: Flag.Boolean("ignore-permissions").pipe(
      Flag.withDescription("Let every connection read every signal (the connections' permissions are not enforced)"),
      Flag.withDefault(false)
    ),
    webhookSecretFile: Flag.String("webhook-secret-file").pipe(
      Flag.withDescription(
        `File holding the webhook secret that signs deliveries (else env CONNECTED_VEHICLE_WEBHOOK_SECRET, else ${DEFAULT_WEBHOOK_SECRET}); never printed`
      ),
      Flag.optional
    ),
    headersTimeout: Flag.Int("headers-timeout").pipe(
      Flag.withDescription(
        `Milliseconds a request's head may take from its first byte, else 408 (default ${
          Duration.toMillis(DEFAULT_HEADERS_TIMEOUT)
        }, at most --request-timeout; 0 = only --request-timeout)`
      ),
      within(0, 3_600_000),
      Flag.optional
    ),
    requestTimeout: Flag.Int("request-timeout").pipe(
      Flag.withDescription("Milliseconds a whole request (head and body) may take from its first byte, else 408 (0 = no limit)"),
      Flag.withDefault(Duration.toMillis(DEFAULT_REQUEST_TIMEOUT)),
      within(0, 3_600_000)
    ),
    splitPorts: Flag.Boolean("split-ports").pipe(
      Flag.withDescription("Serve each root (vehicle, management, compatibility, authorization, legacy) on its own port"),
      Flag.withDefault(false)
    ),
    vehiclePort: port("vehicle-port", "With --split-ports: port of {base_url} (default 0: any free port)"),
    managementPort: port("management-port", "With --split-ports: port of {management_url} (default 0: any free port)"),
    compatPort: port("compat-port", "With --split-ports: port of {compat_url} (default 0: any free port)"),
    authPort: port("auth-port", "With --split-ports: port of {auth_url} (default 0: any free port)"),
    legacyPort: port("legacy-port", "With --split-ports: port of {legacy_url} (default 0: any free port)")
  },
  Effect.fnUntraced(function*(flags) {
    const ports = {
      vehicle: flags.vehiclePort,
      management: flags.managementPort,
      compatibility: flags.compatPort,
      authorization: flags.authPort,
      legacy: flags.legacyPort
    }
    const issue = usageIssue({
      ...flags,
      rootPorts: {
        "vehicle-port": ports.vehicle,
        "management-port": ports.management,
        "compat-port": ports.compatibility,
        "auth-port": ports.authorization,
        "legacy-port": ports.legacy
      }
    })
    if (issue !== undefined) return yield* report(issue, 2)
    const webhookSecret = yield* readWebhookSecret(flags.webhookSecretFile)
    const clientSecret = yield* readClientSecret(flags.clientSecret, flags.clientSecretFile)
    const origin = Option.getOrElse(flags.port, () => 4010)
    const options = {
      ...(Option.isSome(webhookSecret) ? { webhookSecret: webhookSecret.value } : {}),
      seed: flags.seed,
      vehicles: flags.vehicles,
      users: flags.users,
      webhooks: flags.webhooks,
      connections: flags.connections,
      clientId: flags.clientId,
      clientSecret: clientSecret.secret,
      ...(flags.redirectUris.length > 0 ? { redirectUris: flags.redirectUris } : {}),
      failureRate: flags.failureRate,
      latency: flags.latency,
      ...(Option.isSome(flags.v2Sunset) ? { legacySunset: flags.v2Sunset.value } : {}),
      retireLegacy: flags.retireV2 ? true : flags.retireV2AfterSunset ? "afterSunset" as const : false,
      enforcePermissions: !flags.ignorePermissions,
      ...(Option.isSome(flags.headersTimeout) ? { headersTimeout: flags.headersTimeout.value } : {}),
      requestTimeout: flags.requestTimeout,
      host: flags.host
    }
    const context = yield* Layer.build(
      flags.splitPorts
        ? layerRoots({
          ...options,
          ports: Record.map(ports, Option.getOrElse(() => 0))
        })
        : Layer.merge(layer({ ...options, port: origin }), Layer.succeed(SimulatorRoots)(undefined as never))
    ).pipe(
      // The layers die when a server cannot listen (a `ServeError` whose cause is Node's system error).
      Effect.catchDefect((defect) => {
        const failure = listenFailure(defect, flags.host, flags.splitPorts ? Option.getOrElse(ports.vehicle, () => 0) : origin)
        return failure === undefined ? Effect.die(defect) : report(failure)
      })
    )
    const sim = Context.get(context, Simulator)
    yield* announce(sim, flags.splitPorts ? Context.get(context, SimulatorRoots) : undefined, {
      redirectUris: flags.redirectUris.length > 0 ? flags.redirectUris : DEFAULT_REDIRECT_URIS,
      clientSecretFile: clientSecret.file,
      webhookSecret: Option.isSome(flags.webhookSecretFile)
        ? "from --webhook-secret-file"
        : Option.isSome(webhookSecret)
        ? "from CONNECTED_VEHICLE_WEBHOOK_SECRET"
        : `${DEFAULT_WEBHOOK_SECRET} (default)`
    })
    return yield* Effect.never
  }, Effect.scoped)
).pipe(Command.withDescription(
  "Connected-vehicle service simulator (`npx connected-vehicle-simulator` where the package is installed; `pnpm simulator -- FLAGS` in the SDK's repository)"
))

/** The simulator serves until it is interrupted (SIGINT, SIGTERM): that is a normal stop, exit 0. */
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)

// `pnpm simulator -- --port 0` passes the `--` through: drop it.
if (process.argv[2] === "--") process.argv.splice(2, 1)

simulator.pipe(
  Command.run({ version: (createRequire(import.meta.url)("../package.json") as { readonly version: string }).version }),
  Effect.catchCause((cause) => {
    if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
    const error = Cause.squash(cause)
    if (error instanceof Reported) return Effect.fail(error)
    // A usage error: the error and the line naming --help are already on stderr (`presenter`).
    if (CliError.isCliError(error)) return Effect.fail(new Reported(2))
    return report(error instanceof Error && error.message !== "" ? error.message : String(error))
  }),
  Effect.provide(Layer.merge(NodeServices.layer, CliOutput.layerPresenter(presenter))),
  (program) => NodeRuntime.runMain(program, { disableErrorReporting: true, teardown })
)

/** `webhooks` and `webhooks listen`. */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { optionals, output, page, pageSize, portFlag, report, root, withSdk } from "./shared.ts"

/**
 * An empty or blank `--host` is a wrong flag value (the simulator CLI's
 * message): Node would listen on every interface, and the printed URL would
 * have no host.
 */
const hostFlag = Flag.String("host").pipe(
  Flag.withDescription("Address to listen on"),
  Flag.withDefault("127.0.0.1"),
  Flag.mapTryCatch(
    (host) => {
      if (host.trim() === "") throw new Error("blank")
      return host
    },
    () => "--host must not be empty (an address to listen on, such as 127.0.0.1, ::1 or 0.0.0.0)"
  )
)

/** `webhooks listen` (the receiver is loaded only when the command runs). */
const webhooksListen = Command.make("listen", {
  port: portFlag("Port to listen on, 0 to 65535 (0: any free port, printed on stderr)", 4020),
  host: hostFlag,
  secretFiles: Flag.String("secret-file").pipe(
    Flag.withDescription(
      "File holding the webhook secret (the application's management token; or env CONNECTED_VEHICLE_WEBHOOK_SECRET); repeat it while the secret is rotated, the current one first: a delivery signed with any of them is accepted. There is no --secret flag: a secret on the command line shows in ps and the shell history"
    ),
    Flag.atLeast(0)
  )
}, (input) =>
  Effect.flatMap(root, (flags) =>
    Effect.promise(() => import("../../Listen.ts")).pipe(
      Effect.flatMap((Listen) =>
        Effect.flatMap(Listen.secretsOf(input.secretFiles), (secret) =>
          Listen.run({ port: input.port, host: input.host, secret, json: flags.json }))
      ),
      Effect.catch(report(flags.json))
    ))).pipe(
    Command.withDescription(
      "Receive webhook deliveries: verify each signature, answer VERIFY, print each event as a table row (--json: one JSON line per event) until Ctrl-C"
    ),
    Command.withExamples([{
      command: "CONNECTED_VEHICLE_WEBHOOK_SECRET=... sample webhooks listen --port 4020 --json",
      description: "One JSON line per verified event"
    }])
  )

export const webhooks = Command.make("webhooks", {
  name: Flag.String("name").pipe(Flag.withDescription("Name contains (case-insensitive)"), Flag.optional),
  callbackUri: Flag.String("callback-uri").pipe(Flag.withDescription("Callback URI contains"), Flag.optional),
  isEnabled: Flag.Boolean("enabled").pipe(Flag.withDescription("Only enabled (--enabled) or disabled (--no-enabled)"), Flag.optional),
  autoSubscribe: Flag.Boolean("auto-subscribe").pipe(Flag.withDescription("Filter by auto-subscribe"), Flag.optional),
  page,
  pageSize
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      const result = yield* (yield* M.Webhooks).list(optionals(input))
      yield* output(flags.json, result, () =>
        `${M.Render.webhooks(result.data)}\n\n${result.data.length} of ${result.meta.totalCount} webhooks`)
    })
  )).pipe(
    Command.withDescription("Webhooks of the application; `webhooks listen` receives their deliveries"),
    Command.withSubcommands([webhooksListen])
  )

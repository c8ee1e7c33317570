/**
 * The command tree of the sample (`effect/cli`): the guided tour when no
 * command is given, one command per service area, `login`, `export` and `fleet` (each in
 * `internal/cli/`).
 * Every command takes the shared flags `--json`, `--target`, `--client-id`,
 * `--client-secret-file` and `--token-file`, before or after its name.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Command } from "effect/cli"
import { compat } from "./internal/cli/compat.ts"
import { connections } from "./internal/cli/connections.ts"
import { exportCommand } from "./internal/cli/export.ts"
import { fleet } from "./internal/cli/fleet.ts"
import { legacy } from "./internal/cli/legacy.ts"
import { login } from "./internal/cli/login.ts"
import { migrate } from "./internal/cli/migrate.ts"
import { lazy, root, runWith } from "./internal/cli/shared.ts"
import { signals } from "./internal/cli/signals.ts"
import { subscriptions } from "./internal/cli/subscriptions.ts"
import { webhooks } from "./internal/cli/webhooks.ts"

/**
 * The CLI: `sample` alone runs the guided tour on the embedded simulator.
 *
 * @example
 * ```ts
 * import { Command } from "effect/cli"
 * import { cli } from "@connected-vehicle/sample/Cli"
 *
 * const run = Command.runWith(cli, { version: "0.1.0" })
 * ```
 * @since 0.1.0
 * @category commands
 */
export const cli = root.pipe(
  Command.withHandler((flags) => Effect.flatMap(lazy, (M) => runWith(M, flags, () => M.Tour.run(flags.json)))),
  Command.withDescription(
    "Connected-vehicle SDK sample. Without a command: a guided tour of the whole service on the embedded simulator."
  ),
  Command.withSubcommands([compat, connections, signals, webhooks, subscriptions, legacy, migrate, login, exportCommand, fleet]),
  Command.withExamples([
    { command: "sample", description: "The guided tour on the embedded simulator" },
    { command: "sample connections --json", description: "Connections as JSON" },
    {
      command: "sample --target https://api.example.com --client-id ID --client-secret-file ./secret webhooks",
      description: "Talk to another server"
    }
  ])
)

/**
 * Every environment variable the sample reads itself, in one `Config` value
 * (`SampleConfig.config`): its own settings and the fallbacks of the CLI's
 * flags (the CLI reads them from it, `internal/cli/shared.ts`). The
 * sample's and the SDK's names are below `Config.nested("CONNECTED_VEHICLE")`;
 * the user's and the package manager's (`XDG_CONFIG_HOME`, `INIT_CWD`, ...)
 * are not prefixed. The SDK's other variables (roots, policies) are read by
 * `TransportConfig.config`.
 */
import { Config, Option } from "effect"
import type { SampleConfig } from "../SampleConfig.ts"

const prefix = "CONNECTED_VEHICLE"

/** `pnpm start` in `apps/sample`, and the root's `pnpm sample`. */
const startScripts = new Set(["@connected-vehicle/sample start", "connected-vehicle sample"])

const optional = (name: string) => Config.map(Config.option(Config.String(name)), Option.filter((value) => value !== ""))

/** The per-root variables' names below the prefix (`Target.perRootVariables`). */
export const perRootNames = ["BASE_URL", "MANAGEMENT_URL", "COMPAT_URL", "AUTH_URL", "LEGACY_URL"] as const

/** `SampleConfig.config`. */
export const config: Config.Config<SampleConfig> = Config.all({
  own: Config.all({
    tokenFile: optional("TOKEN_FILE"),
    webhookSecret: Config.option(Config.Redacted("WEBHOOK_SECRET")),
    // the fallbacks of `--target`, `--client-id` and `--client-secret-file`
    origin: Config.option(Config.String("ORIGIN")),
    clientId: Config.option(Config.String("CLIENT_ID")),
    clientSecret: Config.option(Config.Redacted("CLIENT_SECRET")),
    // whether any of the per-root variables is set (a deployment with separate roots)
    separateRoots: Config.map(
      Config.all(perRootNames.map((name) => Config.option(Config.String(name)))),
      (values) => values.some(Option.isSome)
    )
  }).pipe(Config.nested(prefix)),
  configHome: optional("XDG_CONFIG_HOME"),
  userDirectory: Config.all([optional("INIT_CWD"), optional("npm_package_name"), optional("npm_lifecycle_event")]).pipe(
    Config.map(([initCwd, packageName, script]) =>
      // `INIT_CWD` alone is not enough: a process started by another script (a test run) inherits it
      Option.filter(initCwd, () => startScripts.has(`${Option.getOrElse(packageName, () => "")} ${Option.getOrElse(script, () => "")}`))
    )
  )
}).pipe(Config.map(({ own, ...rest }): SampleConfig => ({ ...own, ...rest })))

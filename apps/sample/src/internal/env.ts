/**
 * Every environment variable the sample reads itself, in one place: its own
 * settings (`SampleConfig.config`) and the fallbacks of the CLI's flags. The
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

/** `SampleConfig.config`. */
export const config: Config.Config<SampleConfig> = Config.all({
  own: Config.all({
    tokenFile: optional("TOKEN_FILE"),
    webhookSecret: Config.option(Config.Redacted("WEBHOOK_SECRET"))
  }).pipe(Config.nested(prefix)),
  configHome: optional("XDG_CONFIG_HOME"),
  userDirectory: Config.all([optional("INIT_CWD"), optional("npm_package_name"), optional("npm_lifecycle_event")]).pipe(
    Config.map(([initCwd, packageName, script]) =>
      // `INIT_CWD` alone is not enough: a process started by another script (a test run) inherits it
      Option.filter(initCwd, () => startScripts.has(`${Option.getOrElse(packageName, () => "")} ${Option.getOrElse(script, () => "")}`))
    )
  )
}).pipe(Config.map(({ own, ...rest }): SampleConfig => ({ ...own, ...rest })))

/** The fallback of `--target`: `CONNECTED_VEHICLE_ORIGIN`. */
export const origin: Config.Config<string> = Config.nested(Config.String("ORIGIN"), prefix)

/** The fallback of `--client-id`: `CONNECTED_VEHICLE_CLIENT_ID`. */
export const clientId: Config.Config<string> = Config.nested(Config.String("CLIENT_ID"), prefix)

/** The fallback of `--client-secret-file`: `CONNECTED_VEHICLE_CLIENT_SECRET`. */
export const clientSecret = Config.nested(Config.option(Config.Redacted("CLIENT_SECRET")), prefix)

/** The per-root variables' names below the prefix (`Target.perRootVariables`). */
export const perRootNames = ["BASE_URL", "MANAGEMENT_URL", "COMPAT_URL", "AUTH_URL", "LEGACY_URL"] as const

/** Whether any of the per-root variables is set (a deployment with separate roots). */
export const anyPerRootVariable: Config.Config<boolean> = Config.all(perRootNames.map((name) => Config.option(Config.String(name)))).pipe(
  Config.map((values) => values.some(Option.isSome)),
  Config.nested(prefix)
)

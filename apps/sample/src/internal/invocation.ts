/**
 * How the CLI was invoked, before the program is loaded:
 *
 * - `pnpm sample -- --help` passes a literal `--` first: one leading `--` is
 *   dropped (it ends no option: nothing precedes it);
 * - `pnpm sample` runs the root `sample` script (in the repository root) or
 *   `pnpm start` this package's `start` script (in `apps/sample`), and sets
 *   `INIT_CWD` to the directory the user ran pnpm in:
 *   the CLI works there instead, so that relative paths (`--out`,
 *   `--client-secret-file`, `--token-file`) mean what the user typed.
 */

/** The arguments without one leading `--`. */
export const argsOf = (argv: ReadonlyArray<string>): ReadonlyArray<string> => argv[0] === "--" ? argv.slice(1) : argv

/**
 * The directory the user ran the command in when the package manager started
 * this package's `start` script somewhere else; undefined otherwise (the
 * process already runs where the user is). `INIT_CWD` alone is not enough: a
 * process started by another script (a test run) inherits it.
 */
export const userDirectoryOf = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const initCwd = env["INIT_CWD"]
  const script = `${env["npm_package_name"]} ${env["npm_lifecycle_event"]}`
  return (script === "@connected-vehicle/sample start" || script === "connected-vehicle sample") &&
      initCwd !== undefined && initCwd !== ""
    ? initCwd
    : undefined
}

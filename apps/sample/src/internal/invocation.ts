/**
 * How the CLI was invoked, before the program is loaded:
 *
 * - `pnpm sample -- --help` passes a literal `--` first: one leading `--` is
 *   dropped (it ends no option: nothing precedes it);
 * - `pnpm sample` runs the root `sample` script (in the repository root) or
 *   `pnpm start` this package's `start` script (in `apps/sample`), and sets
 *   `INIT_CWD` to the directory the user ran pnpm in:
 *   the CLI works there instead, so that relative paths (`--out`,
 *   `--client-secret-file`, `--token-file`) mean what the user typed
 *   (`SampleConfig`'s `userDirectory`, read by `bin.ts`).
 */

/** The arguments without one leading `--`. */
export const argsOf = (argv: ReadonlyArray<string>): ReadonlyArray<string> => argv[0] === "--" ? argv.slice(1) : argv

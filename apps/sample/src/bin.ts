#!/usr/bin/env node
/**
 * Entry point: `node src/bin.ts [command] [flags]` (Node 24 runs TypeScript
 * directly; the shebang finds the `node` of the PATH, which `pnpm exec` puts
 * first: the repo's Node 24). Exit codes: 0 success, 1 a failure of the
 * service or the network (reported on stderr), 2 a bad argument (with the
 * help of the command).
 *
 * Started by `pnpm sample` (this package's `start` script, run in
 * `apps/sample`), the process moves to the directory the user ran pnpm in
 * (`SampleConfig`'s `userDirectory`), so that relative paths are the user's; a leading `--`
 * (`pnpm sample -- --help`) is dropped by `internal/main.ts`.
 *
 * The node compile cache is enabled before the program is loaded: the
 * TypeScript stripped of its types and the compiled code of the ~550 modules
 * are reused by the next run, which roughly halves the start-up time
 * (`NODE_DISABLE_COMPILE_CACHE=1` turns it off).
 *
 * @since 0.1.0
 */
import * as Module from "node:module"

Module.enableCompileCache?.()
const { Effect, Option } = await import("effect")
const { config } = await import("./SampleConfig.ts")
const userDirectory = Effect.runSync(
  config.pipe(Effect.map((settings) => settings.userDirectory), Effect.orElseSucceed(Option.none))
)
if (Option.isSome(userDirectory)) {
  try {
    process.chdir(userDirectory.value)
  } catch {
    // the directory is gone: paths stay relative to the package folder
  }
}
await import("./internal/main.ts")

#!/usr/bin/env node
/**
 * Entry point: `node src/bin.ts [command] [flags]` (Node 24 runs TypeScript
 * directly). Exit codes: 0 success, 1 a failure of the service or the
 * network (reported on stderr), 2 a bad argument (with the help of the command).
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
await import("./internal/main.ts")

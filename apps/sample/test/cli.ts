/**
 * The e2e harness: runs the CLI as a child process (`node src/bin.ts`, with
 * the Node that runs vitest, i.e. the repo's Node 24; or `pnpm ...` with
 * `via: "pnpm"`) and collects its exit code and output. The child sees no
 * CONNECTED_VEHICLE_* variable of the parent, none of the package manager's
 * lifecycle variables (`INIT_CWD`, `npm_*`: a test that wants them sets
 * them) and a private config directory.
 *
 * At most `slots` children run at once (the cores plus one): the tests run
 * concurrently, and on a small or busy machine more processes would only
 * share the same cores and memory. Nothing here measures time; a child is
 * awaited until it exits (the test timeouts are the only limits).
 */
import { Effect, ManagedRuntime, Redacted } from "effect"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as SimulatorModule from "@connected-vehicle/simulator/Simulator"
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { availableParallelism, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export const appDir = join(dirname(fileURLToPath(import.meta.url)), "..")
export const repoDir = join(appDir, "..", "..")
export const binPath = join(appDir, "src", "bin.ts")

export const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), `sample-${prefix}-`))

const configHome = tempDir("config")

const live = new Set<ChildProcess>()

/**
 * Kills the children still running (a test that timed out leaves its children
 * behind): call it before stopping the simulators, so that no child goes on
 * to a port that another process may have taken meanwhile.
 */
export const killAll = (): void => {
  for (const child of live) child.kill("SIGKILL")
}

const slots = availableParallelism() + 1
let running = 0
const waiting: Array<() => void> = []
const acquire = (): Promise<void> =>
  running < slots ? (running++, Promise.resolve()) : new Promise((resolve) => waiting.push(resolve))
const release = () => {
  const next = waiting.shift()
  if (next === undefined) running--
  else next()
}

export interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

interface Options {
  readonly env?: Readonly<Record<string, string>> | undefined
  /** The child's working directory (default: `apps/sample`). */
  readonly cwd?: string | undefined
  /** `node src/bin.ts ARGS` (default), or `pnpm ARGS` from the repo (the args then name the command). */
  readonly via?: "node" | "pnpm" | undefined
}

/**
 * The pnpm of this run (`npm_execpath` when vitest was started by pnpm),
 * else the pinned one through npx.
 */
const pnpm = (): { readonly command: string; readonly args: ReadonlyArray<string> } => {
  const execPath = process.env["npm_execpath"]
  return execPath !== undefined && process.env["npm_config_user_agent"]?.startsWith("pnpm/") === true &&
      /pnpm(\.c?js)?$/.test(execPath)
    ? execPath.endsWith("js") ? { command: process.execPath, args: [execPath] } : { command: execPath, args: [] }
    : { command: "npx", args: ["-y", "pnpm@12.21.0"] }
}

/** A running child: its output so far, a wait for a line of stderr, and its end. */
export interface Started {
  readonly child: ChildProcess
  /** Resolves with the first match of `pattern` in stderr (rejects if the child exits first). */
  readonly stderrMatch: (pattern: RegExp) => Promise<RegExpMatchArray>
  readonly done: Promise<Run>
}

const spawnCli = (args: ReadonlyArray<string>, options?: Options): Started => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith("CONNECTED_VEHICLE_") || key === "INIT_CWD") continue
    if (/^(npm|pnpm)_/i.test(key) && key !== "npm_execpath" && key !== "npm_config_user_agent") continue
    env[key] = value
  }
  const via = options?.via === "pnpm" ? pnpm() : { command: process.execPath, args: [binPath] }
  // pnpm must never install anything on its own before running a script
  if (options?.via === "pnpm") env["pnpm_config_verify_deps_before_run"] = "false"
  const child = spawn(via.command, [...via.args, ...args], {
    cwd: options?.cwd ?? (options?.via === "pnpm" ? repoDir : appDir),
    env: { ...env, XDG_CONFIG_HOME: configHome, NO_COLOR: "1", ...options?.env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  live.add(child)
  let stdout = ""
  let stderr = ""
  const listeners = new Set<() => void>()
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
    for (const listener of listeners) listener()
  })
  const done = new Promise<Run>((resolve, reject) => {
    child.once("error", reject)
    child.once("close", (code) => {
      live.delete(child)
      resolve({ code, stdout, stderr })
    })
  })
  const stderrMatch = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = stderr.match(pattern)
        if (match === null) return false
        listeners.delete(check)
        resolve(match)
        return true
      }
      if (check()) return
      listeners.add(check)
      void done.then((run) => {
        if (!check()) reject(new Error(`exited ${run.code} before ${pattern} on stderr:\n${run.stderr}`))
      })
    })
  return { child, stderrMatch, done }
}

/** Starts the CLI once a slot is free (see `run` to wait for its end). */
export const start = async (args: ReadonlyArray<string>, options?: Options): Promise<Started> => {
  await acquire()
  const started = spawnCli(args, options)
  started.done.then(release, release)
  return started
}

export const run = async (args: ReadonlyArray<string>, options?: Options): Promise<Run> =>
  (await start(args, options)).done

/** Parses stdout as JSON (fails with the output when it is not). */
export const parseJson = <A = any>(result: Run): A => {
  try {
    return JSON.parse(result.stdout) as A
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\n--- stderr ---\n${result.stderr}`)
  }
}

/** Runs with `--json` and parses stdout as JSON. */
export const runJson = async <A = any>(
  args: ReadonlyArray<string>,
  options?: Options
): Promise<{ readonly run: Run; readonly json: A }> => {
  const result = await run([...args, "--json"], options)
  return { run: result, json: parseJson<A>(result) }
}

/** The secret in a file of its own (`--client-secret-file`): never on the command line. */
export const secretFile = (secret: string, dir = tempDir("secret")): string => {
  const file = join(dir, "client-secret")
  writeFileSync(file, secret + "\n", { mode: 0o600 })
  return file
}

/** Bearer-token shapes of the simulator (`at_`, `rt_`, `app_` + 32 base64url characters). */
export const tokenShape = /\b(?:at|rt|app)_[A-Za-z0-9_-]{20,}/

/**
 * The simulators of a test file, each on 127.0.0.1 with a free port: `start`
 * one (its runtime too, for control calls), `stopAll` in `afterAll` (the
 * children still running are killed first, see {@link killAll}).
 */
export const simulators = () => {
  const runtimes: Array<ManagedRuntime.ManagedRuntime<Simulator, never>> = []
  return {
    start: async (options: SimulatorModule.SimulatorOptions = {}) => {
      const runtime = ManagedRuntime.make(SimulatorModule.layer({ port: 0, ...options }))
      runtimes.push(runtime)
      return { runtime, sim: await runtime.runPromise(Effect.service(Simulator)) }
    },
    stopAll: async () => {
      killAll()
      await Promise.all(runtimes.map((runtime) => runtime.dispose()))
    }
  }
}

/** The flags of a remote target: the simulator's URL and client id, its secret in a file of its own. */
export const targetOf = (s: Simulator["Service"]): ReadonlyArray<string> => [
  "--target",
  s.url,
  "--client-id",
  s.clientId,
  "--client-secret-file",
  secretFile(Redacted.value(s.clientSecret))
]

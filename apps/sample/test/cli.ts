/**
 * The e2e harness: runs the CLI as a child process (`node src/bin.ts`, with
 * the Node that runs vitest, i.e. the repo's Node 24) and collects its exit
 * code and output. The child sees no CONNECTED_VEHICLE_* variable of the
 * parent and a private config directory.
 */
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export const appDir = join(dirname(fileURLToPath(import.meta.url)), "..")

export const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), `sample-${prefix}-`))

const configHome = tempDir("config")

export interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export const run = (
  args: ReadonlyArray<string>,
  options?: { readonly env?: Readonly<Record<string, string>> | undefined }
): Promise<Run> =>
  new Promise((resolve, reject) => {
    const env: Record<string, string> = {}
    for (const [key, value] of Object.entries(process.env)) {
      if (value !== undefined && !key.startsWith("CONNECTED_VEHICLE_")) env[key] = value
    }
    const child = spawn(process.execPath, ["src/bin.ts", ...args], {
      cwd: appDir,
      env: { ...env, XDG_CONFIG_HOME: configHome, NO_COLOR: "1", ...options?.env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.once("error", reject)
    child.once("close", (code) => resolve({ code, stdout, stderr }))
  })

/** Runs and parses stdout as JSON (fails with the output when it is not). */
export const runJson = async <A = any>(
  args: ReadonlyArray<string>,
  options?: { readonly env?: Readonly<Record<string, string>> | undefined }
): Promise<{ readonly run: Run; readonly json: A }> => {
  const result = await run([...args, "--json"], options)
  try {
    return { run: result, json: JSON.parse(result.stdout) as A }
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\n--- stderr ---\n${result.stderr}`)
  }
}

/** Bearer-token shapes of the simulator (`at_`, `rt_`, `app_` + 32 base64url characters). */
export const tokenShape = /\b(?:at|rt|app)_[A-Za-z0-9_-]{20,}/

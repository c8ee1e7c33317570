/**
 * Child processes of a test (`test/processes/*.ts`): started in the test's
 * scope and killed with SIGKILL when it closes (a failure, a timeout), and
 * when the test process itself exits. A child's stdin is a pipe from the
 * test process: an entry calling {@link exitWithParent} ends when it closes,
 * so even a test process killed outright leaves none behind.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { Effect } from "effect"

const alive = new Set<ChildProcess>()
process.once("exit", () => {
  for (const child of alive) child.kill("SIGKILL")
})

/** A started child: its output lines so far, and the latest line matching a pattern. */
export interface Child {
  readonly name: string
  readonly process: ChildProcess
  /** How many lines matched `counted` so far. */
  readonly counted: () => number
  /** The last line matching `pattern` so far (its match), if any. */
  readonly last: (pattern: RegExp) => RegExpExecArray | undefined
  /** Waits for a line matching `pattern`; fails when the child exits first or after `timeoutMs`. */
  readonly waitFor: (pattern: RegExp, timeoutMs?: number) => Effect.Effect<RegExpExecArray>
  readonly kill: () => void
}

/**
 * Starts `processes/<entry>.ts` with `env` added to the test's environment.
 * Lines of its output not matching `quiet` are echoed, prefixed by `name`;
 * those matching `counted` are counted.
 */
export const start = (
  name: string,
  entry: string,
  env: Record<string, string>,
  options?: { readonly quiet?: RegExp | undefined; readonly counted?: RegExp | undefined }
) =>
  Effect.acquireRelease(
    Effect.sync((): Child => {
      const child = spawn(process.execPath, [join(import.meta.dirname, "processes", `${entry}.ts`)], {
        env: { ...process.env, ...env },
        stdio: ["pipe", "pipe", "pipe"]
      })
      alive.add(child)
      child.once("exit", () => alive.delete(child))
      const lines: Array<string> = []
      const waiters = new Set<() => void>()
      let buffered = ""
      let counted = 0
      child.stdout!.on("data", (chunk: Buffer) => {
        const parts = (buffered + chunk.toString()).split("\n")
        buffered = parts.pop()!
        for (const line of parts) {
          if (options?.quiet === undefined || !options.quiet.test(line)) process.stdout.write(`${name}: ${line}\n`)
          if (options?.counted?.test(line)) counted++
          lines.push(line)
          if (lines.length > 2_000) lines.splice(0, 1_000)
        }
        for (const wake of waiters) wake()
      })
      child.stderr!.on("data", (chunk: Buffer) => process.stderr.write(`${name}: ${chunk}`))
      const last = (pattern: RegExp) => {
        for (let i = lines.length - 1; i >= 0; i--) {
          const match = pattern.exec(lines[i]!)
          if (match) return match
        }
        return undefined
      }
      const waitFor = (pattern: RegExp, timeoutMs = 30_000) =>
        Effect.callback<RegExpExecArray>((resume) => {
          const check = () => {
            const match = last(pattern)
            if (match) done(Effect.succeed(match))
            else if (child.exitCode !== null || child.signalCode !== null) {
              done(Effect.die(new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}`)))
            }
          }
          const timer = setTimeout(() => done(Effect.die(new Error(`${name}: no ${pattern} within ${timeoutMs} ms`))), timeoutMs)
          const cleanup = () => {
            clearTimeout(timer)
            waiters.delete(check)
            child.off("exit", check)
          }
          const done = (result: Effect.Effect<RegExpExecArray>) => {
            cleanup()
            resume(result)
          }
          waiters.add(check)
          child.on("exit", check)
          check()
          return Effect.sync(cleanup)
        })
      return { name, process: child, counted: () => counted, last, waitFor, kill: () => child.kill("SIGKILL") }
    }),
    (child) => Effect.sync(() => child.kill())
  )

/** In a child: exits when the test process that started it is gone (its stdin pipe closed). */
export const exitWithParent = () => {
  process.stdin.on("end", () => process.exit(1))
  process.stdin.on("close", () => process.exit(1))
  process.stdin.resume()
}

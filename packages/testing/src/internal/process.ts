/**
 * Running the programs of a local server: finding them, running a command to
 * completion, a free port on 127.0.0.1, waiting for a port to answer.
 *
 * @internal
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { createConnection, createServer } from "node:net"
import { Effect } from "effect"
import { LocalServerError } from "../LocalServerError.ts"

type Server = LocalServerError["server"]

/** @internal */
export interface Output {
  readonly stdout: string
  readonly stderr: string
}

/** Runs a program to completion; a non-zero exit (or a timeout) fails with `reason`. @internal */
export const run = (
  server: Server,
  reason: LocalServerError["reason"],
  command: string,
  args: ReadonlyArray<string>,
  options?: { readonly timeoutMs?: number; readonly env?: NodeJS.ProcessEnv }
): Effect.Effect<Output, LocalServerError> =>
  Effect.callback<Output, LocalServerError>((resume) => {
    const child = execFile(
      command,
      args,
      { timeout: options?.timeoutMs ?? 60_000, env: options?.env ?? process.env, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resume(
          error === null
            ? Effect.succeed({ stdout, stderr })
            : Effect.fail(
              new LocalServerError({
                server,
                reason,
                detail: `${[command, ...args].join(" ")}: ${error.message}\n${stderr}`.trim()
              })
            )
        )
      }
    )
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** The first of `candidates` that exists, or `BinaryMissing` naming the Debian package. @internal */
export const findBinary = (
  server: Server,
  candidates: ReadonlyArray<string>,
  install: string
): Effect.Effect<string, LocalServerError> => {
  const found = candidates.find((path) => existsSync(path))
  return found === undefined
    ? Effect.fail(
      new LocalServerError({
        server,
        reason: "BinaryMissing",
        detail: `none of ${candidates.join(", ")} exists; install it with \`${install}\``
      })
    )
    : Effect.succeed(found)
}

/** Directories `/usr/lib/postgresql/<major>/bin`, newest major first. @internal */
export const postgresBinDirectories = (): ReadonlyArray<string> => {
  const root = "/usr/lib/postgresql"
  if (!existsSync(root)) return []
  return readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a))
    .map((major) => `${root}/${major}/bin`)
}

/** A port on 127.0.0.1 that was free a moment ago. @internal */
export const freePort: Effect.Effect<number> = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

const connects = (port: number): Effect.Effect<boolean> =>
  Effect.callback<boolean>((resume) => {
    const socket = createConnection({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

/** Waits until something accepts connections on `port`, or the child exits, or `timeoutMs` passes. @internal */
export const waitForPort = (
  server: Server,
  port: number,
  options: { readonly timeoutMs: number; readonly child?: ChildProcess; readonly log: () => string }
): Effect.Effect<void, LocalServerError> =>
  Effect.gen(function*() {
    const deadline = Date.now() + options.timeoutMs
    while (true) {
      if (yield* connects(port)) return
      const exited = options.child !== undefined && options.child.exitCode !== null
      if (exited || Date.now() > deadline) {
        return yield* new LocalServerError({
          server,
          reason: "StartFailed",
          detail: `${exited ? "it exited" : `nothing answered on 127.0.0.1:${port} within ${options.timeoutMs} ms`}\n${options.log()}`
        })
      }
      yield* Effect.sleep(50)
    }
  })

/** Starts a long-running program whose output is kept (for an error message). @internal */
export const spawnLogged = (command: string, args: ReadonlyArray<string>) => {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] })
  let log = ""
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString("utf8")).slice(-8000)
  }
  child.stdout.on("data", keep)
  child.stderr.on("data", keep)
  child.on("error", (error) => keep(Buffer.from(String(error))))
  return { child, log: () => log }
}

/** Stops a child: SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. @internal */
export const stopChild = (child: ChildProcess, graceMs: number): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    child.once("exit", () => {
      clearTimeout(timer)
      resume(Effect.void)
    })
    child.kill("SIGTERM")
  })

/**
 * Runs `cleanup` (synchronous) once when this process ends: on `exit`, and
 * on SIGINT or SIGTERM, after which the signal does what it would have done
 * without this handler (re-raised, so the process ends by it, unless another
 * listener of the signal decides otherwise). Answers the function that
 * removes the handlers. @internal
 */
export const onProcessEnd = (cleanup: () => void): () => void => {
  let done = false
  const once = () => {
    if (done) return
    done = true
    cleanup()
  }
  const signals = ["SIGINT", "SIGTERM"] as const
  const onSignal = (signal: NodeJS.Signals) => {
    once()
    remove()
    // alone, our listener had replaced the default action (ending the process): re-raise the signal for it
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
  }
  const remove = () => {
    process.off("exit", once)
    for (const signal of signals) process.off(signal, onSignal)
  }
  process.once("exit", once)
  for (const signal of signals) process.on(signal, onSignal)
  return remove
}

/**
 * The simulator CLI in its own process, for the benches of this package: its
 * address and demo client read from its output.
 */
import type { ChildProcess } from "node:child_process"
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** Where a simulator listens and its demo client: what a client needs of it. */
export interface SimAddress {
  readonly url: string
  readonly clientId: string
  readonly clientSecret: string
}

export interface Sim extends SimAddress {
  readonly child: ChildProcess
}

const manifest = fileURLToPath(import.meta.resolve("@connected-vehicle/simulator/package.json"))
/** The simulator's bin, as its package.json names it (a program, not a module the package exports). */
export const simulatorBin = join(dirname(manifest), JSON.parse(readFileSync(manifest, "utf8")).bin["connected-vehicle-simulator"])

/**
 * Starts the simulator CLI in its own process and reads its address and client from its output. */
export const startSimulator = (connections: number): Promise<Sim> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      simulatorBin,
      "--port",
      "0",
      "--vehicles",
      String(connections),
      "--connections",
      String(connections),
      "--users",
      String(Math.max(20, Math.round(connections / 20)))
    ], { stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    const timer = setTimeout(() => {
      child.kill()
      reject(new Error(`the simulator (${connections} connections) did not start in 120 s:\n${out}`))
    }, 120_000)
    child.on("exit", (code) => reject(new Error(`the simulator exited (${code}):\n${out}`)))
    child.stdout!.setEncoding("utf8")
    child.stdout!.on("data", (chunk: string) => {
      out += chunk
      const url = /listening on (\S+)/.exec(out)?.[1]
      const clientId = /client id: (\S+)/.exec(out)?.[1]
      const clientSecret = /client secret: (\S+)/.exec(out)?.[1]
      if (url !== undefined && clientId !== undefined && clientSecret !== undefined) {
        clearTimeout(timer)
        child.stdout!.removeAllListeners("data")
        child.stdout!.resume()
        resolve({ url, clientId, clientSecret, child })
      }
    })
  })


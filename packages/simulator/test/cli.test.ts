import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { layerRoots, Simulator, SimulatorRoots } from "../src/Simulator.ts"

const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))

describe("pnpm simulator (src/bin.ts)", () => {
  it.live("prints one listening line and the client credential, serves, stops on SIGTERM", () =>
    Effect.promise(() =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, [bin, "--", "--port", "0", "--seed", "3", "--client-id", "cli-id", "--client-secret", "cli-secret"], {
          stdio: ["ignore", "pipe", "pipe"]
        })
        let out = ""
        const timer = setTimeout(() => {
          child.kill("SIGKILL")
          reject(new Error(`no listening line: ${out}`))
        }, 20_000)
        child.stdout.on("data", async (chunk: Buffer) => {
          out += chunk.toString()
          if (!out.includes("docs:")) return
          clearTimeout(timer)
          try {
            const lines = out.trim().split("\n")
            assert.strictEqual(lines.filter((l) => l.startsWith("listening on ")).length, 1)
            const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)![1]!
            assert.include(out, "client id: cli-id")
            assert.include(out, "client secret: cli-secret")
            const token = await fetch(`${url}/oauth/token`, {
              method: "POST",
              headers: { authorization: "Basic " + Buffer.from("cli-id:cli-secret").toString("base64"), "content-type": "application/x-www-form-urlencoded" },
              body: "grant_type=client_credentials"
            })
            assert.strictEqual(token.status, 200)
            child.kill("SIGTERM")
            child.on("exit", () => resolve())
          } catch (error) {
            child.kill("SIGKILL")
            reject(error)
          }
        })
      })
    ), 30_000)
})

describe("one port per root", () => {
  it.live("each root answers its own paths and 404 for the others; state is shared", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(layerRoots())
      const roots = Context.get(context, SimulatorRoots)
      const sim = Context.get(context, Simulator)
      assert.strictEqual(sim.url, roots.vehicle)
      assert.strictEqual(new Set(Object.values(roots)).size, 5)
      const basic = "Basic " + Buffer.from("demo-client-id:demo-client-secret").toString("base64")
      const token = yield* Effect.promise(() =>
        fetch(`${roots.authorization}/oauth/token`, {
          method: "POST",
          headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=client_credentials"
        }).then((r) => r.json() as Promise<{ access_token: string }>)
      )
      const status = (url: string) =>
        Effect.promise(() => fetch(url, { headers: { authorization: `Bearer ${token.access_token}` } }).then((r) => r.status))
      assert.strictEqual(yield* status(`${roots.management}/v3/webhooks`), 200)
      assert.strictEqual(yield* status(`${roots.vehicle}/v3/connections`), 200)
      assert.strictEqual(yield* status(`${roots.compatibility}/v3/compatible-vehicles`), 200)
      assert.strictEqual(yield* status(`${roots.vehicle}/v3/webhooks`), 404)
      assert.strictEqual(yield* status(`${roots.legacy}/v3/connections`), 404)
      assert.strictEqual(yield* status(`${roots.compatibility}/openapi.json`), 200)
      assert.strictEqual((yield* sim.requests).length, 7)
    }).pipe(Effect.scoped))
})

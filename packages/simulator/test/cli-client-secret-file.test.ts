/**
 * `--client-secret-file` of the simulator's CLI, run as a child process: the
 * client secret read from a file (`SecretFile.read`, `SecretFile.secretText`:
 * trimmed, no control character), never printed; with `--client-secret` a
 * usage error.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync, spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bin, run } from "./helpers.ts"


/** The CLI started: what it printed up to its `docs:` line; stopped (SIGTERM) when the scope closes. */
const started = (args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ readonly child: ChildProcess; readonly out: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] })
        let out = ""
        let err = ""
        const timer = setTimeout(() => {
          child.kill("SIGKILL")
          reject(new Error(`not started: ${out} ${err}`))
        }, 20_000)
        child.stderr.on("data", (chunk: Buffer) => err += chunk.toString())
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString()
          if (!/^docs: .*$/m.test(out)) return
          clearTimeout(timer)
          resolve({ child, out })
        })
        child.on("close", (code) => reject(new Error(`exited ${code}: ${out} ${err}`)))
      })
    ),
    ({ child }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve()
          child.on("exit", () => resolve())
          child.kill("SIGTERM")
        })
      )
  )

const withDirectory = <A, E, R>(f: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "sim-client-secret-"))),
    f,
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

const tokenStatus = (url: string, id: string, secret: string) =>
  Effect.promise(() =>
    fetch(`${url}/oauth/token`, {
      method: "POST",
      headers: {
        authorization: "Basic " + Buffer.from(`${id}:${secret}`).toString("base64"),
        "content-type": "application/x-www-form-urlencoded"
      },
      body: "grant_type=client_credentials"
    }).then((response) => response.status)
  )

describe("simulator CLI --client-secret-file", () => {
  it.live("takes the file's secret trimmed, never prints it, and its export line reads the file", () =>
    withDirectory((dir) =>
      Effect.gen(function*() {
        const file = join(dir, "client secret")
        writeFileSync(file, "\n  file-secret-7Hq \r\n\n")
        const { out } = yield* started(["--port", "0", "--client-id", "cli-id", "--client-secret-file", file])
        assert.notInclude(out, "file-secret-7Hq")
        assert.include(out, `client secret: from --client-secret-file ${file}\n`)
        const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)![1]!
        assert.strictEqual(yield* tokenStatus(url, "cli-id", "file-secret-7Hq"), 200)
        assert.strictEqual(yield* tokenStatus(url, "cli-id", "  file-secret-7Hq\n"), 401)
        assert.strictEqual(yield* tokenStatus(url, "cli-id", "demo-client-secret"), 401)
        const line = /^export .*$/m.exec(out)![0]
        assert.include(line, `-- '${file}')"`)
        // the line, pasted into a shell, sets the secret the simulator took: the file's content trimmed
        const value = execFileSync("sh", ["-c", `${line}; printf %s "$CONNECTED_VEHICLE_CLIENT_SECRET"`]).toString()
        assert.strictEqual(value, "file-secret-7Hq")
      }).pipe(Effect.scoped)))

  it.live("a file a shell would read otherwise (a byte-order mark, a no-break space): the line leaves the secret out and says so", () =>
    withDirectory((dir) =>
      Effect.gen(function*() {
        for (const [name, content] of [["bom", "\ufeffsek-7Hq\r\n"], ["nbsp", "sek-7Hq\u00a0\n"]] as const) {
          const file = join(dir, name)
          writeFileSync(file, content)
          const { out } = yield* started(["--port", "0", "--client-id", "cli-id", "--client-secret-file", file])
          const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)![1]!
          assert.strictEqual(yield* tokenStatus(url, "cli-id", "sek-7Hq"), 200)
          const line = /^export .*$/m.exec(out)![0]
          assert.notInclude(line, "CONNECTED_VEHICLE_CLIENT_SECRET", name)
          assert.include(out, `# CONNECTED_VEHICLE_CLIENT_SECRET: set it to the secret of ${file} yourself`)
          assert.notInclude(out, "sek-7Hq")
        }
      }).pipe(Effect.scoped)))

  it.live("with --client-secret: a usage error (exit 2), the secret not printed", () =>
    Effect.gen(function*() {
      const result = yield* run(["--port", "0", "--client-secret", "flag-secret-3Zk", "--client-secret-file", "/nonexistent/secret"])
      assert.strictEqual(result.code, 2, result.stderr)
      assert.strictEqual(
        result.stderr,
        "error: --client-secret and --client-secret-file both give the client secret: give one (--client-secret-file keeps it out of ps and the shell history)\n"
      )
      assert.notInclude(result.stdout + result.stderr, "flag-secret-3Zk")
    }))

  it.live("a file it cannot use: one error line naming the file, never its content, exit 1", () =>
    withDirectory((dir) =>
      Effect.gen(function*() {
        const missing = yield* run(["--port", "0", "--client-secret-file", join(dir, "missing")])
        assert.strictEqual(missing.code, 1)
        assert.strictEqual(missing.stderr, `error: cannot read --client-secret-file ${join(dir, "missing")}: ENOENT\n`)
        const empty = join(dir, "empty")
        writeFileSync(empty, " \n\t\n")
        const blank = yield* run(["--port", "0", "--client-secret-file", empty])
        assert.strictEqual(blank.code, 1)
        assert.strictEqual(blank.stderr, `error: the client secret of --client-secret-file ${empty} must not be empty\n`)
        const controlled = join(dir, "controlled")
        writeFileSync(controlled, "sec\u001bret-9Xy\n")
        const escape = yield* run(["--port", "0", "--client-secret-file", controlled])
        assert.strictEqual(escape.code, 1)
        assert.strictEqual(escape.stderr, `error: cannot read --client-secret-file ${controlled}: holds a control character\n`)
        assert.notInclude(escape.stdout + escape.stderr, "ret-9Xy")
        const large = join(dir, "large")
        writeFileSync(large, "k".repeat(64 * 1024 + 1))
        const tooLarge = yield* run(["--port", "0", "--client-secret-file", large])
        assert.strictEqual(tooLarge.code, 1)
        assert.strictEqual(tooLarge.stderr, `error: the client secret of --client-secret-file ${large} is too long: the file is over 65536 bytes\n`)
      })))
})

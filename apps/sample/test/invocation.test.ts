/**
 * End-to-end: how the CLI is started. Through pnpm (`pnpm sample -- ...`,
 * the quiet `pnpm --silent exec apps/sample/src/bin.ts ...` the README
 * documents), from another directory (relative paths are the user's), with
 * debug logs on and `--json` (stdout stays JSON), and interrupted with Ctrl-C
 * on a terminal during an export (the progress line is ended).
 */
import { assert, describe, it } from "@effect/vitest"
import { Redacted } from "effect"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import type * as SimulatorModule from "@connected-vehicle/simulator/Simulator"
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { appDir, binPath, parseJson, repoDir, run, secretFile, simulators, tempDir } from "./cli.ts"

const LONG = 180_000

const { start, stopAll } = simulators()
const simulator = async (options: SimulatorModule.SimulatorOptions = {}) => (await start(options)).sim
const cleanups: Array<() => void> = []
afterAll(async () => {
  for (const cleanup of cleanups) cleanup()
  await stopAll()
})

let sim: Simulator["Service"]
beforeAll(async () => {
  sim = await simulator({ connections: 120 })
})

/** The target flags, the secret file given as `secretArg` (a path relative to the child's directory, or absolute). */
const targetFlags = (secretArg: string) => ["--target", sim.url, "--client-id", sim.clientId, "--client-secret-file", secretArg]
const secret = () => Redacted.value(sim.clientSecret)

/** The documented quiet form: `pnpm --silent exec apps/sample/src/bin.ts ARGS` from the repo root. */
const quiet = (args: ReadonlyArray<string>) => run(["--silent", "exec", "apps/sample/src/bin.ts", ...args], { via: "pnpm" })

describe.concurrent("through pnpm", () => {
  it("`pnpm sample -- --help` and `pnpm sample -- connections` (a literal `--` first)", { timeout: LONG }, async () => {
    const [help, connections] = await Promise.all([
      run(["--silent", "sample", "--", "--help"], { via: "pnpm" }),
      run(["--silent", "sample", "--", "connections", "--page-size", "2", "--json", ...targetFlags(secretFile(secret()))], {
        via: "pnpm"
      })
    ])
    assert.strictEqual(help.code, 0, help.stderr)
    assert.include(help.stdout, "USAGE")
    assert.notInclude(help.stdout + help.stderr, "Unexpected positional argument")
    assert.strictEqual(connections.code, 0, connections.stderr)
    assert.strictEqual(parseJson(connections).data.length, 2)
  })

  it("the quiet form keeps the exit codes (0, 1 typed error, 2 usage) and adds nothing to the output", {
    timeout: LONG
  }, async () => {
    const [success, typed, usage] = await Promise.all([
      quiet(["compat", "--region", "US", "--json", "--target", sim.url]),
      quiet(["connections", "--json", ...targetFlags(secretFile("not-the-secret"))]),
      quiet(["connections", "--page-size", "abc"])
    ])
    assert.strictEqual(success.code, 0, success.stderr)
    assert.isAbove(parseJson(success).data.length, 0)
    assert.strictEqual(typed.code, 1)
    assert.strictEqual(parseJson(typed).error.tag, "Credentials")
    assert.strictEqual(usage.code, 2)
    assert.include(usage.stderr, "Invalid value for flag --page-size")
    for (const r of [success, typed, usage]) {
      assert.notMatch(r.stderr, /ELIFECYCLE|ERR_PNPM|pnpm recursive/)
    }
  })

  it("`pnpm sample` and `pnpm exec connected-vehicle-sample` keep the exit codes (0, 1, 2)", { timeout: LONG }, async () => {
    const [usage, typed, bin] = await Promise.all([
      run(["--silent", "sample", "connections", "--page-size", "abc"], { via: "pnpm" }),
      run(["--silent", "sample", "connections", "--json", ...targetFlags(secretFile("not-the-secret"))], { via: "pnpm" }),
      run(["--silent", "exec", "connected-vehicle-sample", "compat", "--region", "US", "--json", "--target", sim.url], {
        via: "pnpm"
      })
    ])
    assert.strictEqual(usage.code, 2, usage.stderr)
    assert.include(usage.stderr, "Invalid value for flag --page-size")
    assert.strictEqual(typed.code, 1, typed.stderr)
    assert.strictEqual(parseJson(typed).error.tag, "Credentials")
    assert.strictEqual(bin.code, 0, bin.stderr)
    assert.isAbove(parseJson(bin).data.length, 0)
  })

  it("`pnpm sample` resolves relative paths against the directory pnpm was run in", { timeout: LONG }, async () => {
    // pnpm runs the sample's script in apps/sample; the user is at the repo
    // root. A scratch folder under the root's node_modules (ignored by git).
    const name = `.sample-e2e-${process.pid}-${Date.now().toString(36)}`
    const dir = join(repoDir, "node_modules", name)
    mkdirSync(dir)
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    secretFile(secret(), dir)
    const relative = `node_modules/${name}`
    const result = await run([
      "--silent",
      "sample",
      "--",
      "export",
      "connections",
      "--out",
      `${relative}/conn.csv`,
      ...targetFlags(`${relative}/client-secret`)
    ], { via: "pnpm" })
    assert.strictEqual(result.code, 0, result.stderr)
    assert.deepStrictEqual(readdirSync(dir).sort(), ["client-secret", "conn.csv"])
    assert.strictEqual(readFileSync(join(dir, "conn.csv"), "utf8").trimEnd().split("\n").length, 121)
    assert.isFalse(existsSync(join(appDir, relative)))
  })
})

describe.concurrent("relative paths", () => {
  it("run from another directory: --out and --client-secret-file relative to it", { timeout: LONG }, async () => {
    const dir = tempDir("cwd")
    secretFile(secret(), dir)
    const result = await run(["export", "connections", "--out", "conn.ndjson", "--json", ...targetFlags("./client-secret")], {
      cwd: dir
    })
    assert.strictEqual(result.code, 0, result.stderr)
    assert.deepStrictEqual(parseJson(result), { file: "conn.ndjson", format: "ndjson", records: 120 })
    assert.deepStrictEqual(readdirSync(dir).sort(), ["client-secret", "conn.ndjson"])
  })

  it("started as the sample's `start` script: INIT_CWD is the user's directory; otherwise INIT_CWD is ignored", {
    timeout: LONG
  }, async () => {
    const [user, other] = [tempDir("init-cwd"), tempDir("inherited")]
    secretFile(secret(), user)
    secretFile(secret(), other)
    const args = ["export", "connections", "--out", "conn.csv", ...targetFlags("./client-secret")]
    const [asScript, inherited] = await Promise.all([
      // what pnpm does for `pnpm sample`: cwd apps/sample, INIT_CWD the user's directory
      run(args, { env: { INIT_CWD: user, npm_package_name: "@connected-vehicle/sample", npm_lifecycle_event: "start" } }),
      // a process started by some other script inherits INIT_CWD: the working directory wins
      run(args, { cwd: other, env: { INIT_CWD: user, npm_package_name: "connected-vehicle", npm_lifecycle_event: "test" } })
    ])
    assert.strictEqual(asScript.code, 0, asScript.stderr)
    assert.strictEqual(inherited.code, 0, inherited.stderr)
    assert.deepStrictEqual(readdirSync(user).sort(), ["client-secret", "conn.csv"])
    assert.deepStrictEqual(readdirSync(other).sort(), ["client-secret", "conn.csv"])
    assert.isFalse(existsSync(join(appDir, "conn.csv")))
  })
})

describe.concurrent("--json with debug logs", () => {
  it("stdout is one JSON document; the log lines are on stderr (success and failure)", { timeout: LONG }, async () => {
    const [success, failure] = await Promise.all([
      run(["connections", "--page-size", "3", "--log-level", "debug", "--json", ...targetFlags(secretFile(secret()))]),
      run(["connections", "--log-level", "debug", "--json", ...targetFlags(secretFile("not-the-secret"))])
    ])
    assert.strictEqual(success.code, 0, success.stderr)
    assert.strictEqual(parseJson(success).data.length, 3)
    assert.match(success.stderr, /DEBUG/)
    assert.strictEqual(failure.code, 1)
    assert.strictEqual(parseJson(failure).error.tag, "Credentials")
    assert.notInclude(success.stdout + failure.stdout, "DEBUG")
  })
})

describe.concurrent("Ctrl-C during an export", () => {
  it("on a terminal the progress line is ended, and no file is left", { timeout: LONG }, async () => {
    // a slow simulator: the export is still running when Ctrl-C comes
    const slow = await simulator({ connections: 2_000, latency: 100 })
    const dir = tempDir("interrupt")
    const out = join(dir, "conn.ndjson")
    const args = [
      binPath,
      "export",
      "connections",
      "--out",
      out,
      "--page-size",
      "1",
      "--target",
      slow.url,
      "--client-id",
      slow.clientId,
      "--client-secret-file",
      secretFile(Redacted.value(slow.clientSecret))
    ]
    const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`
    // `script` gives the CLI a pseudo-terminal; ^C written to it is a real Ctrl-C (SIGINT from the terminal)
    const child = spawn("script", ["-qfec", [process.execPath, ...args].map(quote).join(" "), "/dev/null"], {
      cwd: appDir,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let output = ""
    let sent = false
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject)
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk
        if (!sent && /items \d+\/2000/.test(output)) {
          sent = true
          child.stdin.write("\x03")
        }
      })
      child.once("close", resolve)
    })
    assert.isTrue(sent, output)
    assert.strictEqual(code, 130, output)
    const last = output.lastIndexOf("items/s")
    assert.isAbove(last, -1, output)
    // after the last progress text: the echoed ^C, then the line break the CLI wrote
    assert.match(output.slice(last + "items/s".length), /^(\^C)?\r?\n/, JSON.stringify(output.slice(-200)))
    assert.deepStrictEqual(readdirSync(dir), [])
  })
})

/**
 * The defects of a new user's first hour (issue 22, items 11 to 18), each
 * reproduced: a separately started simulator reached through the line of
 * environment variables it prints, what `login` says while it waits, the
 * cause of a transport failure, `migrate check` when nothing can be
 * compared, out-of-range ports, a missing export directory, a bad flag's
 * output, required flags in the help, `--version`, the tour's first line and
 * the progress line without a terminal.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { DatabaseUnavailable, FleetError } from "@connected-vehicle/fleet/FleetError"
import type * as SimulatorModule from "@connected-vehicle/simulator/Simulator"
import * as Migrate from "@connected-vehicle/sample/Migrate"
import * as Progress from "@connected-vehicle/sample/Progress"
import * as Report from "@connected-vehicle/sample/Report"
import * as Tour from "@connected-vehicle/sample/Tour"
import { execFileSync, spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll } from "vitest"
import { appDir, repoDir, run, runJson, secretFile, simulators, targetOf, tempDir } from "./cli.ts"

const LONG = 180_000

const { start: startSimulator, stopAll } = simulators()
const simulator = async (options: SimulatorModule.SimulatorOptions = {}) => (await startSimulator(options)).sim
afterAll(stopAll)

/**
 * `pnpm simulator` in a process of its own (`node packages/simulator/src/bin.ts`):
 * its stdout up to the docs line, then `stop` ends it.
 */
const separateSimulator = () =>
  new Promise<{ readonly stdout: string; readonly stop: () => Promise<number | null> }>((resolve, reject) => {
    const bin = join(repoDir, "packages", "simulator", "src", "bin.ts")
    const child = spawn(process.execPath, [bin, "--port", "0", "--client-secret", "a secret of $HOME's"], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let stdout = ""
    const exited = new Promise<number | null>((done) => child.once("exit", done))
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      if (stdout.includes("docs:")) resolve({ stdout, stop: () => (child.kill("SIGTERM"), exited) })
    })
    void exited.then((code) => reject(new Error(`the simulator exited ${code}: ${stdout}`)))
  })

const names = ["CONNECTED_VEHICLE_ORIGIN", "CONNECTED_VEHICLE_CLIENT_ID", "CONNECTED_VEHICLE_CLIENT_SECRET"] as const

/** The variables an `export ...` line sets, read by a real POSIX shell (the line is pasted as is). */
const exported = (line: string): Record<string, string> => {
  const values = execFileSync("sh", ["-c", `${line}\nprintf '%s\\0' ${names.map((n) => `"$${n}"`).join(" ")}`], {
    encoding: "utf8",
    env: { PATH: process.env["PATH"] ?? "" }
  }).split("\0")
  return Object.fromEntries(names.map((name, i) => [name, values[i]!]))
}

describe.concurrent("11: a separately started simulator, through the line it prints", () => {
  it("the `export` line gives `--target URL connections` its client credential", { timeout: LONG }, async () => {
    const sim = await separateSimulator()
    try {
      const url = /^listening on (\S+)$/m.exec(sim.stdout)![1]!
      const line = sim.stdout.split("\n").find((l) => l.startsWith("export "))
      assert.isDefined(line, sim.stdout)
      assert.deepStrictEqual([...line!.matchAll(/ (\w+)=/g)].map((m) => m[1]), [...names])
      const env = exported(line!)
      assert.strictEqual(env["CONNECTED_VEHICLE_ORIGIN"], url)
      assert.strictEqual(env["CONNECTED_VEHICLE_CLIENT_SECRET"], "a secret of $HOME's")
      const [withTarget, withoutTarget] = await Promise.all([
        runJson(["--target", url, "connections", "--page-size", "2"], { env }),
        runJson(["connections", "--page-size", "2"], { env })
      ])
      assert.strictEqual(withTarget.run.code, 0, withTarget.run.stderr)
      assert.strictEqual(withTarget.json.data.length, 2)
      assert.strictEqual(withoutTarget.run.code, 0, withoutTarget.run.stderr)
      assert.include(withoutTarget.json.data[0].links.self, url)
    } finally {
      assert.strictEqual(await sim.stop(), 0)
    }
  })

  it("without a credential, the usage error points to that line", async () => {
    const result = await run(["connections", "--target", "http://127.0.0.1:1"])
    assert.strictEqual(result.code, 2)
    assert.include(result.stderr, "pnpm simulator")
  })
})

describe.concurrent("12: login without --follow says what to do, at once", () => {
  it("the consent URL, the redirect URI it listens on, and how long it waits (--timeout)", { timeout: LONG }, async () => {
    const sim = await simulator()
    const tokenFile = join(tempDir("login-wait"), "tokens.json")
    const result = await run(["login", "--timeout", "1", "--token-file", tokenFile, ...targetOf(sim)])
    assert.strictEqual(result.code, 1)
    const consentUrl = /https?:\/\/\S+\/oauth\/authorize\?\S+/.exec(result.stderr)![0]
    const redirectUri = new URL(consentUrl).searchParams.get("redirect_uri")!
    const waiting = result.stderr.slice(result.stderr.indexOf(consentUrl) + consentUrl.length, result.stderr.indexOf("Error:"))
    assert.include(waiting, `redirected to ${redirectUri}`)
    assert.include(waiting, "up to 1 s")
    assert.include(waiting, "--timeout")
  })
})

describe.concurrent("13: the cause of a transport failure", () => {
  it("a server that is down: the one-line reason names `connect ECONNREFUSED`", async () => {
    const args = ["--target", "http://127.0.0.1:1", "--client-id", "x", "--client-secret-file", secretFile("y")]
    const [credentials, publicRead, json] = await Promise.all([
      run(["connections", ...args]),
      run(["compat", "--target", "http://127.0.0.1:1"]),
      runJson(["webhooks", ...args])
    ])
    assert.strictEqual(credentials.code, 1)
    assert.match(credentials.stderr, /^ {2}description: .*connect ECONNREFUSED 127\.0\.0\.1:1$/m)
    assert.strictEqual(publicRead.code, 1)
    assert.include(publicRead.stderr, "connect ECONNREFUSED 127.0.0.1:1")
    assert.include(json.json.error.description, "connect ECONNREFUSED 127.0.0.1:1")
  })

  it("the report walks the cause chain: the innermost message, once", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:4999"), { code: "ECONNREFUSED" })
    const wrapped = { _tag: "CredentialsError", reason: "TransportFailure: failed", cause: new Error("fetch failed", { cause: refused }) }
    assert.strictEqual(Report.causeOf(wrapped), "connect ECONNREFUSED 127.0.0.1:4999")
    assert.deepStrictEqual(Report.describe(wrapped), {
      tag: "CredentialsError",
      reason: "TransportFailure: failed",
      cause: "connect ECONNREFUSED 127.0.0.1:4999"
    })
    assert.include(Report.render(wrapped), "cause:  connect ECONNREFUSED 127.0.0.1:4999")
    // an AggregateError (both addresses of localhost refused) and a cycle
    const both = new AggregateError([new Error("connect ECONNREFUSED ::1:4999"), refused], "")
    assert.strictEqual(Report.causeOf({ cause: both }), "connect ECONNREFUSED ::1:4999; connect ECONNREFUSED 127.0.0.1:4999")
    const cyclic: { cause?: unknown; message: string } = { message: "outer" }
    cyclic.cause = { message: "inner", cause: cyclic }
    assert.strictEqual(Report.causeOf(cyclic), "inner")
    // a cause already said by a field is not repeated
    assert.notProperty(Report.describe({ _tag: "X", reason: "failed: connect ECONNREFUSED 127.0.0.1:4999", cause: refused }), "cause")
    // a FleetError: its reason's tag, whether it is retryable, the innermost cause
    const database = new FleetError({ reason: new DatabaseUnavailable({ description: "cannot connect to Postgres", cause: refused }) })
    assert.deepStrictEqual(Report.describe(database), {
      tag: "FleetError",
      description: "cannot connect to Postgres",
      reason: "DatabaseUnavailable",
      retryable: "yes",
      cause: "connect ECONNREFUSED 127.0.0.1:4999"
    })
  })
})

describe.concurrent("16: migrate check says what it could not compare", () => {
  it("a vehicle of another user: every read not compared, with its reason; exit 1", { timeout: LONG }, async () => {
    // the demo user's vehicles are all compared; take a connection of another user
    const [mine, connections] = await Promise.all([runJson(["legacy", "vehicles"]), runJson(["connections", "--page-size", "100"])])
    assert.strictEqual(mine.run.code, 0, mine.run.stderr)
    const other = (connections.json.data as ReadonlyArray<any>)
      .map((c) => c.relationships.vehicle.data.id as string)
      .find((id) => !(mine.json.vehicles as ReadonlyArray<string>).includes(id))!
    const [table, { json, run: withJson }] = await Promise.all([
      run(["migrate", "check", other]),
      runJson(["migrate", "check", other])
    ])
    assert.strictEqual(table.code, 1, table.stderr)
    assert.include(table.stdout, "0 of 0 compared reads agree")
    assert.match(table.stdout, /Not compared \(6\):\n {2}\/odometer: (the v2\.0 read failed|both reads failed) \(PermissionDenied: 403/)
    assert.include(table.stdout, "`sample legacy vehicles` lists theirs")
    assert.include(table.stderr, "Nothing was compared")
    assert.notInclude(table.stderr, "Error: Reported")
    assert.strictEqual(withJson.code, 1)
    assert.strictEqual(json.compared, 0)
    assert.deepStrictEqual(json.notCompared.map((n: any) => n.path), json.checks.map((c: any) => c.path))
    assert.lengthOf(json.checks, 6)
  })

  it("an unknown vehicle id is a usage error (exit 2) naming it", { timeout: LONG }, async () => {
    const [unknown, malformed] = await Promise.all([
      runJson(["migrate", "check", "00000000-0000-4000-8000-000000000000"]),
      run(["migrate", "check", "nope"])
    ])
    assert.strictEqual(unknown.run.code, 2, unknown.run.stderr)
    assert.strictEqual(unknown.json.error.tag, "SampleError")
    assert.include(unknown.json.error.reason, "Unknown vehicle 00000000-0000-4000-8000-000000000000")
    assert.strictEqual(malformed.code, 2, malformed.stderr)
    assert.include(malformed.stderr, "Unknown vehicle nope")
  })

  it("the deprecation notice: deprecated as of 2026-12-01, no removal date; a sunset only when a header names one, told by the time given", () => {
    assert.strictEqual(
      Migrate.notice(),
      "Deprecated: the v2.0 API is deprecated as of 2026-12-01 (spec section 9; no removal date is announced; the vehicle list is not deprecated). Move to v3: docs/migrating-to-v3.md; compare with `sample migrate check <vehicle>`."
    )
    assert.notInclude(Migrate.notice(), "sunset")
    for (const now of [Date.UTC(2026, 10, 27, 12), Date.UTC(2027, 5, 1)]) {
      assert.strictEqual(Migrate.deprecationPhrase("2026-12-01", null, now), "is deprecated as of 2026-12-01; no removal date is announced")
    }
    assert.strictEqual(Migrate.deprecationPhrase("2026-12-01", "2027-06-01", Date.UTC(2027, 4, 31)), "is deprecated as of 2026-12-01 and sunsets on 2027-06-01")
    assert.strictEqual(Migrate.deprecationPhrase("2026-12-01", "2027-06-01", Date.UTC(2027, 5, 1)), "is deprecated as of 2026-12-01 and was sunset on 2027-06-01")
    assert.strictEqual(Migrate.deprecationPhrase(null, null, 0), "is deprecated; no removal date is announced")
    const header = "2027-06-01T00:00:00.000Z"
    assert.strictEqual(Migrate.sunsetPhrase(header, Date.UTC(2027, 4, 31, 23, 59, 59, 999)), `sunsets on ${header}`)
    assert.strictEqual(Migrate.sunsetPhrase(header, Date.UTC(2027, 5, 1)), `was sunset on ${header}`)
  })

  it("whyNotCompared names the side that failed", () => {
    const failed = { ok: false, error: { tag: "NotFoundError", message: "404" } } as const
    const value = { ok: true, value: { distance: 1 } } as const
    assert.strictEqual(Migrate.whyNotCompared({ path: "/odometer", signal: "s", legacy: value, v3: value, agree: true }), undefined)
    assert.strictEqual(
      Migrate.whyNotCompared({ path: "/odometer", signal: "s", legacy: value, v3: failed, agree: null }),
      "the v3 read failed (NotFoundError: 404)"
    )
    assert.strictEqual(
      Migrate.whyNotCompared({ path: "/odometer", signal: "s", legacy: failed, v3: failed, agree: null }),
      "both reads failed (v2.0: NotFoundError: 404; v3: NotFoundError: 404)"
    )
  })
})

describe.concurrent("18: smaller defects", () => {
  it("an out-of-range port is a usage error (exit 2), not a RangeError", async () => {
    const [listen, login] = await Promise.all([
      run(["webhooks", "listen", "--port", "99999"], { env: { CONNECTED_VEHICLE_WEBHOOK_SECRET: "s" } }),
      run(["login", "--port", "-1"])
    ])
    for (const result of [listen, login]) {
      assert.strictEqual(result.code, 2, result.stderr)
      assert.include(result.stderr, "--port")
      assert.notInclude(result.stderr, "RangeError")
    }
  })

  it("an export into a missing directory names the directory (exit 2), no temporary file name", { timeout: LONG }, async () => {
    const sim = await simulator()
    const dir = join(tempDir("missing"), "no", "such")
    const result = await run(["export", "connections", "--out", join(dir, "conn.csv"), ...targetOf(sim)])
    assert.strictEqual(result.code, 2, result.stderr)
    assert.include(result.stderr, `the directory ${dir} does not exist`)
    assert.notInclude(result.stderr, ".tmp")
    assert.notInclude(result.stderr, "PlatformError")
  })

  it("a bad flag prints the error and one hint line, not the help", async () => {
    const result = await run(["connections", "--bogus"])
    assert.strictEqual(result.code, 2)
    assert.notInclude(result.stderr, "USAGE")
    const lines = result.stderr.trim().split("\n").filter((l) => l.trim() !== "")
    assert.deepStrictEqual(lines, [
      "ERROR",
      lines[1]!,
      "Run `sample connections --help` for the flags and arguments of `sample connections`."
    ])
    assert.include(lines[1], "--bogus")
  })

  it("required flags are marked required in the help; optional ones are not", async () => {
    const [signals, exportHelp] = await Promise.all([run(["signals", "--help"]), run(["export", "connections", "--help"])])
    assert.match(signals.stdout, /--user string\s+.*\(required\)$/m)
    assert.notMatch(signals.stdout, /--code string\s+.*\(required\)$/m)
    assert.match(exportHelp.stdout, /--out string\s+.*\(required\)$/m)
    assert.notMatch(exportHelp.stdout, /--format .*\(required\)$/m)
  })

  it("--version is the version of the sample's package.json", async () => {
    const { version } = JSON.parse(readFileSync(join(appDir, "package.json"), "utf8")) as { version: string }
    const result = await run(["--version"])
    assert.strictEqual(result.code, 0)
    assert.strictEqual(result.stdout.trim(), `sample v${version}`)
  })

  it("the tour's first line reads well for the embedded simulator and for a URL", () => {
    assert.strictEqual(
      Tour.header({ label: "embedded simulator at http://127.0.0.1:1", embedded: true }),
      "Connected-vehicle SDK sample: talking to the embedded simulator at http://127.0.0.1:1"
    )
    assert.strictEqual(
      Tour.header({ label: "http://127.0.0.1:4010", embedded: false }),
      "Connected-vehicle SDK sample: talking to http://127.0.0.1:4010"
    )
  })

  it.effect("without a terminal, a one-page export prints its progress line once", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      const progress = yield* Progress.start("connections", { isTTY: false, write: (text) => void written.push(text) })
      yield* progress.page(40, 40)
      yield* progress.done
      yield* progress.close
      assert.strictEqual(written.length, 1, JSON.stringify(written))
      assert.match(written[0]!, /^connections \[#+\] pages 1 {2}items 40\/40 {2}\d+ items\/s\n$/)
    }))

  it("the export through a pipe: one progress line for one page", { timeout: LONG }, async () => {
    const sim = await simulator({ connections: 30 })
    const dir = tempDir("pipe")
    const result = await run(["export", "connections", "--out", join(dir, "c.ndjson"), ...targetOf(sim)])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(result.stderr.split("\n").filter((l) => l.includes("items/s")).length, 1, result.stderr)
    assert.deepStrictEqual(readdirSync(dir), ["c.ndjson"])
  })
})

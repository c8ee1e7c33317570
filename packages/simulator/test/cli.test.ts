import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { layerRoots, Simulator, SimulatorRoots } from "../src/Simulator.ts"
import { bin, defaultAppToken, run } from "./helpers.ts"
import { openRaw } from "./raw.ts"

/** A port taken on 127.0.0.1 for the duration of `f`. */
const withTakenPort = <A>(f: (port: number) => Effect.Effect<A>) =>
  Effect.acquireUseRelease(
    Effect.promise(() =>
      new Promise<ReturnType<typeof createServer>>((resolve) => {
        const server = createServer()
        server.listen(0, "127.0.0.1", () => resolve(server))
      })
    ),
    (server) => f((server.address() as AddressInfo).port),
    (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  )

describe("pnpm simulator (src/bin.ts)", () => {
  it.live("prints one listening line, the client credential and the sample's environment line; serves; SIGTERM exits 0", () =>
    Effect.promise(() =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, [bin, "--", "--port", "0", "--seed", "3", "--client-id", "cli-id", "--client-secret", "cli-secret"], {
          stdio: ["ignore", "pipe", "pipe"]
        })
        let out = ""
        // once: a later chunk must not check (and send SIGTERM) again, or a
        // second SIGTERM can land after the runtime removed its handlers
        let checked = false
        const timer = setTimeout(() => {
          child.kill("SIGKILL")
          reject(new Error(`no listening line: ${out}`))
        }, 20_000)
        child.stdout.on("data", async (chunk: Buffer) => {
          out += chunk.toString()
          if (checked || !out.includes("docs:")) return
          checked = true
          clearTimeout(timer)
          try {
            const lines = out.trim().split("\n")
            assert.strictEqual(lines.filter((l) => l.startsWith("listening on ")).length, 1)
            const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)![1]!
            assert.include(out, "client id: cli-id")
            assert.include(out, "client secret: cli-secret")
            assert.include(out, `\nexport CONNECTED_VEHICLE_ORIGIN=${url} CONNECTED_VEHICLE_CLIENT_ID=cli-id CONNECTED_VEHICLE_CLIENT_SECRET=cli-secret\n`)
            const token = await fetch(`${url}/oauth/token`, {
              method: "POST",
              headers: { authorization: "Basic " + Buffer.from("cli-id:cli-secret").toString("base64"), "content-type": "application/x-www-form-urlencoded" },
              body: "grant_type=client_credentials"
            })
            assert.strictEqual(token.status, 200)
            child.on("exit", (code) => code === 0 ? resolve() : reject(new Error(`SIGTERM: exit code ${code}`)))
            child.kill("SIGTERM")
          } catch (error) {
            child.kill("SIGKILL")
            reject(error)
          }
        })
      })
    ), 30_000)
})

/** Starts the CLI, waits for its docs line (it is serving), sends `signal`: the exit code and stdout. */
const stopWith = (args: ReadonlyArray<string>, signal: NodeJS.Signals) =>
  Effect.promise(() =>
    new Promise<{ readonly code: number | null; readonly stdout: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] })
      let stdout = ""
      const timer = setTimeout(() => {
        child.kill("SIGKILL")
        reject(new Error(`not serving: ${stdout}`))
      }, 30_000)
      let sent = false
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString()
        // one signal: a second one can land after the runtime removed its handlers
        if (!sent && stdout.includes("docs:")) {
          sent = true
          child.kill(signal)
        }
      })
      child.on("exit", (code) => {
        clearTimeout(timer)
        resolve({ code, stdout })
      })
    })
  )

describe("pnpm simulator: stopping and the sample's environment", () => {
  it.live("SIGINT (Ctrl-C) exits 0, as SIGTERM does", () =>
    Effect.gen(function*() {
      const result = yield* stopWith(["--port", "0"], "SIGINT")
      assert.strictEqual(result.code, 0, result.stdout)
    }), 40_000)

  it.live("--split-ports: the environment line names each root; a secret with shell characters is quoted", () =>
    Effect.gen(function*() {
      const result = yield* stopWith(["--split-ports", "--client-secret", "it's $HOME"], "SIGTERM")
      assert.strictEqual(result.code, 0, result.stdout)
      const line = result.stdout.split("\n").find((l) => l.startsWith("export "))!
      const url = (name: string) => new RegExp(`^${name}: (\\S+)$`, "m").exec(result.stdout)![1]!
      assert.strictEqual(
        line,
        `export CONNECTED_VEHICLE_BASE_URL=${url("base_url")} CONNECTED_VEHICLE_MANAGEMENT_URL=${url("management_url")} ` +
          `CONNECTED_VEHICLE_COMPAT_URL=${url("compat_url")} CONNECTED_VEHICLE_AUTH_URL=${url("auth_url")} ` +
          `CONNECTED_VEHICLE_LEGACY_URL=${url("legacy_url")} CONNECTED_VEHICLE_CLIENT_ID=demo-client-id ` +
          `CONNECTED_VEHICLE_CLIENT_SECRET='it'\\''s $HOME'`
      )
    }), 40_000)
})

describe("pnpm simulator: errors are one line on stderr", () => {
  it.live("an address it cannot listen on: `error: cannot listen on HOST:PORT: CODE`, exit 1, no stack", () =>
    withTakenPort((port) =>
      Effect.gen(function*() {
        const result = yield* run(["--port", String(port)])
        assert.strictEqual(result.code, 1, result.stderr)
        assert.strictEqual(result.stderr, `error: cannot listen on 127.0.0.1:${port}: EADDRINUSE\n`)
        assert.strictEqual(result.stdout, "")
      })
    ), 40_000)

  it.live("a webhook secret file it cannot read: `error: cannot read --webhook-secret-file PATH: ENOENT`, exit 1", () =>
    Effect.gen(function*() {
      const result = yield* run(["--port", "0", "--webhook-secret-file", "/nonexistent/secret"])
      assert.strictEqual(result.code, 1, result.stderr)
      assert.strictEqual(result.stderr, "error: cannot read --webhook-secret-file /nonexistent/secret: ENOENT\n")
      assert.strictEqual(result.stdout, "")
    }), 40_000)

  it.live("an empty, too long or binary webhook secret file is one `error:` line, exit 1 (the secret is never printed)", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "simulator-secret-"))
      const empty = join(dir, "empty")
      const long = join(dir, "long")
      const binary = join(dir, "binary")
      writeFileSync(empty, " \n")
      writeFileSync(long, "k".repeat(1025))
      writeFileSync(binary, Uint8Array.of(0x6b, 0xff, 0xfe, 0x00, 0x6b))
      try {
        const fromFile = yield* run(["--port", "0", "--webhook-secret-file", empty])
        assert.strictEqual(fromFile.code, 1, fromFile.stderr)
        assert.strictEqual(fromFile.stderr, `error: the webhook secret of --webhook-secret-file ${empty} must not be empty\n`)
        assert.strictEqual(fromFile.stdout, "")
        const tooLong = yield* run(["--port", "0", "--webhook-secret-file", long])
        assert.strictEqual(tooLong.code, 1, tooLong.stderr)
        assert.strictEqual(tooLong.stderr, `error: the webhook secret of --webhook-secret-file ${long} is at most 1024 characters, got 1025\n`)
        // bytes that are not UTF-8 text: said so, not an errno code
        const notText = yield* run(["--port", "0", "--webhook-secret-file", binary])
        assert.strictEqual(notText.code, 1, notText.stderr)
        assert.strictEqual(notText.stderr, `error: cannot read --webhook-secret-file ${binary}: not UTF-8 text\n`)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }), 60_000)

  it.live("a webhook secret file that is not a regular file, or larger than a secret can be, is refused unread: one `error:` line, exit 1", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "simulator-secret-"))
      const fifo = join(dir, "fifo")
      const huge = join(dir, "huge")
      const spaced = join(dir, "spaced")
      execFileSync("mkfifo", [fifo])
      writeFileSync(huge, "")
      truncateSync(huge, 64 * 1024 * 1024)
      // the largest a secret can be (1,024 characters of 3 bytes), with whitespace around it: accepted
      writeFileSync(spaced, `${" ".repeat(500)}${"\u20ac".repeat(1_024)}\n${"\n".repeat(500)}`)
      try {
        // without the bound, a pipe is waited on (and /dev/zero read) without end: killed after 15 s
        const pipe = yield* run(["--port", "0", "--webhook-secret-file", fifo], 15_000)
        assert.strictEqual(pipe.code, 1, pipe.stderr)
        assert.strictEqual(pipe.stderr, `error: cannot read --webhook-secret-file ${fifo}: not a regular file (a named pipe)\n`)
        assert.strictEqual(pipe.stdout, "")
        const large = yield* run(["--port", "0", "--webhook-secret-file", huge], 15_000)
        assert.strictEqual(large.code, 1, large.stderr)
        assert.strictEqual(
          large.stderr,
          `error: the webhook secret of --webhook-secret-file ${huge} is at most 1024 characters: the file is over 4096 bytes\n`
        )
        const zero = yield* run(["--port", "0", "--webhook-secret-file", "/dev/zero"], 15_000)
        assert.strictEqual(zero.code, 1, zero.stderr)
        assert.strictEqual(zero.stderr, "error: cannot read --webhook-secret-file /dev/zero: not a regular file (a character device)\n")
        const largest = yield* stopWith(["--port", "0", "--webhook-secret-file", spaced], "SIGTERM")
        assert.strictEqual(largest.code, 0, largest.stdout)
        assert.include(largest.stdout, "webhook secret: from --webhook-secret-file")
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }), 120_000)

  it.live("a host that is no address: `error: cannot listen on HOST:PORT: CODE`, exit 1", () =>
    Effect.gen(function*() {
      for (const [host, shown] of [["999.1.1.1", "999.1.1.1"], ["::zz", "[::zz]"]] as const) {
        const result = yield* run(["--port", "0", "--host", host])
        assert.strictEqual(result.code, 1, result.stderr)
        assert.match(result.stderr, new RegExp(`^error: cannot listen on ${shown.replace(/[.[\]]/g, "\\$&")}:0: E[A-Z_]+\n$`))
        assert.strictEqual(result.stdout, "")
      }
    }), 60_000)

  it.live("a value it cannot use is a usage error: one `error:` line, exit 2, nothing served", () =>
    Effect.gen(function*() {
      const uncontrolled =
        "must not hold a control character (C0, C1, DEL), a bidirectional formatting character or a line separator"
      const redirect = (uri: string, why: string) => `error: --redirect-uri ${JSON.stringify(uri)} can match no redirect_uri: ${why}`
      const relative = "Expected an absolute URL (RFC 6749 section 3.1.2: with a scheme, as in https://app.example/callback)"
      const table: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["--client-secret", ""], "error: --client-secret must not be empty"],
        [["--client-id", ""], "error: --client-id must not be empty"],
        [["--host", ""], "error: --host must not be empty (an address to listen on, such as 127.0.0.1, ::1 or 0.0.0.0)"],
        [
          ["--host", "::1%nope"],
          "error: --host ::1%nope has an IPv6 zone id (%nope), which a URL cannot carry " +
          "(Node's URL and fetch refuse http://[fe80::1%25eth0]/, so no client could use the simulator's URL): give the address without it, or ::"
        ],
        [["--redirect-uri", "../callback"], redirect("../callback", relative)],
        [["--redirect-uri", "https://app.example/cb", "--redirect-uri", ""], redirect("", "Expected an absolute URL (a non-empty string)")],
        [
          ["--redirect-uri", "http://user@127.0.0.1:*"],
          redirect("http://user@127.0.0.1:*", "Expected an absolute URL without user information (user:password@ before the host would be sent along)")
        ],
        [
          ["--redirect-uri", "https://app.example/cb#top"],
          redirect("https://app.example/cb#top", "Expected an absolute URL without a fragment (RFC 6749 section 3.1.2)")
        ],
        // control characters in what is printed and sent: refused, and shown escaped in the error
        [["--client-id", "id\u001b[31m"], `error: --client-id "id\\u001b[31m" ${uncontrolled}`],
        [["--redirect-uri", "https://app.example/\u001b]0;x\u0007"], `error: --redirect-uri "https://app.example/\\u001b]0;x\\u0007" ${uncontrolled}`],
        [["--redirect-uri", "https://app.example/cb\u202e"], `error: --redirect-uri "https://app.example/cb\\u202e" ${uncontrolled}`],
        [["--redirect-uri", "https://app.example/\u009b2J"], `error: --redirect-uri "https://app.example/\\u009b2J" ${uncontrolled}`],
        [["--vehicle-port", "5"], "error: --vehicle-port needs --split-ports (without it one origin listens on --port)"],
        [
          ["--split-ports", "--port", "5"],
          "error: --port is the single origin's: with --split-ports the roots listen on --vehicle-port, --management-port, --compat-port, --auth-port and --legacy-port"
        ]
      ]
      // three at a time (each a process of its own); without the check the simulator serves: killed after 15 s
      const results = yield* Effect.forEach(
        table,
        ([args]) => run(args[0] === "--split-ports" ? args : ["--port", "0", ...args], 15_000),
        { concurrency: 3 }
      )
      results.forEach((result, i) => {
        const [args, line] = table[i]!
        assert.strictEqual(result.code, 2, `${args.join(" ")}: ${result.stderr}`)
        assert.strictEqual(result.stderr, `${line}\n`)
        assert.strictEqual(result.stdout, "")
      })
      const accepted = yield* stopWith(
        ["--split-ports", "--vehicle-port", "0", "--redirect-uri", "http://[::1]:*/cb", "--redirect-uri", "https://partner.example", "--redirect-uri", "myapp://callback"],
        "SIGTERM"
      )
      assert.strictEqual(accepted.code, 0, accepted.stdout)
      assert.include(accepted.stdout, "\nredirect URIs: http://[::1]:*/cb https://partner.example myapp://callback\n")
    }), 240_000)

  it.live("a usage error exits 2: an unknown flag, a bad value, a headers timeout over the request timeout, --retire-v2-after-sunset without --v2-sunset, a --v2-sunset before the deprecation date", () =>
    Effect.gen(function*() {
      const unknown = yield* run(["--bogus"])
      assert.strictEqual(unknown.code, 2)
      assert.include(unknown.stderr, "--bogus")
      const bad = yield* run(["--port", "abc"])
      assert.strictEqual(bad.code, 2)
      assert.include(bad.stderr, "--port")
      const timeouts = yield* run(["--port", "0", "--headers-timeout", "5000", "--request-timeout", "100"])
      assert.strictEqual(timeouts.code, 2)
      assert.strictEqual(timeouts.stderr, "error: --headers-timeout (5000 ms) must not exceed --request-timeout (100 ms)\n")
      assert.notInclude(unknown.stderr + bad.stderr, "    at ")
      const retire = yield* run(["--port", "0", "--retire-v2-after-sunset"])
      assert.strictEqual(retire.code, 2)
      assert.strictEqual(retire.stderr, "error: --retire-v2-after-sunset needs --v2-sunset, the removal date (the spec gives none)\n")
      const date = yield* run(["--port", "0", "--v2-sunset", "someday"])
      assert.strictEqual(date.code, 2)
      assert.include(date.stderr, "--v2-sunset")
      // a day that does not exist is no date (not 2 March): without the check the simulator serves, killed after 15 s
      for (const day of ["2027-02-30", "2027-04-31", "2027-06-01T24:00:00Z"]) {
        const noDay = yield* run(["--port", "0", "--v2-sunset", day], 15_000)
        assert.strictEqual(noDay.code, 2, `${day}: ${noDay.stderr}`)
        assert.include(noDay.stderr, `Invalid value for flag --v2-sunset: "${day}". Expected: an ISO 8601 date that exists`)
        assert.notInclude(noDay.stdout, "listening on")
      }
      // a removal before the deprecation date (RFC 9745: Sunset is not before Deprecation)
      const early = yield* run(["--port", "0", "--v2-sunset", "2026-06-01"], 15_000)
      assert.strictEqual(early.code, 2, early.stderr)
      assert.include(early.stderr, `Invalid value for flag --v2-sunset: "2026-06-01". Expected: a removal date not earlier than the v2.0 deprecation date, 2026-12-01`)
      assert.include(early.stderr, "got 2026-06-01T00:00:00.000Z")
      assert.notInclude(early.stdout, "listening on")
      // one in year 10000 (UTC) has no IMF-fixdate: the in-process option's rule
      const late = yield* run(["--port", "0", "--v2-sunset", "9999-12-31T23:00:00-05:00"], 15_000)
      assert.strictEqual(late.code, 2, late.stderr)
      assert.include(late.stderr, "Expected: a removal date before 10000-01-01")
      assert.notInclude(late.stdout, "listening on")
    }), 180_000)

  it.live("--v2-sunset: the deprecated /v2.0 answers carry Sunset with that date; the vehicle list none; without it no Sunset", () =>
    Effect.gen(function*() {
      /** The deprecation headers of a read's and of the list's 401 (no token) on a CLI started with `args`. */
      const headersOf = (args: ReadonlyArray<string>) =>
        Effect.promise(() =>
          new Promise<{ readonly read: Headers; readonly list: Headers }>((resolve, reject) => {
            const child = spawn(process.execPath, [bin, "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] })
            let stdout = ""
            const timer = setTimeout(() => {
              child.kill("SIGKILL")
              reject(new Error(`not serving: ${stdout}`))
            }, 30_000)
            let asked = false
            child.stdout.on("data", (chunk: Buffer) => {
              stdout += chunk.toString()
              if (asked || !stdout.includes("docs:")) return
              asked = true
              const url = /listening on (\S+)/.exec(stdout)![1]!
              Promise.all([fetch(`${url}/v2.0/vehicles/00000000-0000-0000-0000-000000000000/odometer`), fetch(`${url}/v2.0/vehicles`)])
                .then(([read, list]) => {
                  child.kill("SIGTERM")
                  clearTimeout(timer)
                  resolve({ read: read.headers, list: list.headers })
                }, reject)
            })
          })
        )
      const configured = yield* headersOf(["--v2-sunset", "2027-06-01"])
      assert.strictEqual(configured.read.get("deprecation"), "@1796083200")
      assert.strictEqual(configured.read.get("sunset"), "Tue, 01 Jun 2027 00:00:00 GMT")
      assert.isNull(configured.list.get("deprecation"))
      assert.isNull(configured.list.get("sunset"))
      const plain = yield* headersOf([])
      assert.strictEqual(plain.read.get("deprecation"), "@1796083200")
      assert.isNull(plain.read.get("sunset"))
    }), 60_000)

  it.live("--headers-timeout: a head that never ends gets 408 with the envelope", () =>
    Effect.promise(() =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, [bin, "--port", "0", "--headers-timeout", "300", "--request-timeout", "600"], {
          stdio: ["ignore", "pipe", "pipe"]
        })
        let out = ""
        const timer = setTimeout(() => {
          child.kill("SIGKILL")
          reject(new Error(`no listening line: ${out}`))
        }, 30_000)
        child.stdout.on("data", async (chunk: Buffer) => {
          const before = out
          out += chunk.toString()
          const url = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)?.[1]
          if (url === undefined || /^listening on /m.test(before)) return
          clearTimeout(timer)
          try {
            const connection = await openRaw(url)
            connection.send("GET /v3/connections HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            const response = await connection.next(20_000)
            assert.strictEqual(response.status, 408, response.body)
            const body = JSON.parse(response.body)
            assert.strictEqual(body.errors[0].code, "REQUEST_TIMEOUT")
            assert.strictEqual(body.errors[0].meta.debug.requestId, response.headers["x-request-id"])
            await connection.closed
            child.on("exit", () => resolve())
            child.kill("SIGTERM")
          } catch (error) {
            child.kill("SIGKILL")
            reject(error)
          }
        })
      })
    ), 40_000)
})

describe("pnpm simulator: flag values are printed escaped", () => {
  it.live("a client secret and a webhook secret file's path with escape sequences: shown escaped; the export line sets the secret exactly", () =>
    Effect.gen(function*() {
      const secret = "s\u001b[31m%\\'x\u202e\u009b2J\ny"
      const served = yield* stopWith(["--port", "0", "--client-secret", secret], "SIGTERM")
      assert.strictEqual(served.code, 0, served.stdout)
      assert.notMatch(served.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/)
      assert.include(served.stdout, "\nclient secret: s\\u001b[31m%\\'x\\u202e\\u009b2J\\ny\n")
      const line = served.stdout.split("\n").find((l) => l.startsWith("export "))!
      const value = execFileSync("sh", ["-c", `${line}\nprintf '%s' "$CONNECTED_VEHICLE_CLIENT_SECRET"`], {
        encoding: "utf8",
        env: { PATH: process.env["PATH"] ?? "" }
      })
      assert.strictEqual(value, secret)
      const path = "/nonexistent/\u001b]0;owned\u0007"
      const missing = yield* run(["--port", "0", "--webhook-secret-file", path])
      assert.strictEqual(missing.code, 1, missing.stderr)
      assert.strictEqual(missing.stderr, "error: cannot read --webhook-secret-file /nonexistent/\\u001b]0;owned\\u0007: ENOENT\n")
    }), 60_000)
})

describe("one port per root", () => {
  it.live("each root answers its own paths and 404 for the others; state is shared", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(layerRoots())
      const roots = Context.get(context, SimulatorRoots)
      const sim = Context.get(context, Simulator)
      assert.strictEqual(sim.url, roots.vehicle)
      assert.strictEqual(new Set(Object.values(roots)).size, 5)
      const token = yield* defaultAppToken(`${roots.authorization}/oauth/token`)
      const status = (url: string) =>
        Effect.promise(() => fetch(url, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status))
      assert.strictEqual(yield* status(`${roots.management}/v3/webhooks`), 200)
      assert.strictEqual(yield* status(`${roots.vehicle}/v3/connections`), 200)
      assert.strictEqual(yield* status(`${roots.compatibility}/v3/compatible-vehicles`), 200)
      assert.strictEqual(yield* status(`${roots.vehicle}/v3/webhooks`), 404)
      assert.strictEqual(yield* status(`${roots.legacy}/v3/connections`), 404)
      assert.strictEqual(yield* status(`${roots.compatibility}/openapi.json`), 200)
      assert.strictEqual((yield* sim.requests).length, 7)
    }).pipe(Effect.scoped))
})

describe("the bin names itself as installed: connected-vehicle-simulator", () => {
  it.live("--version and --help name the installed command, and mention the repository's `pnpm simulator`", () =>
    Effect.gen(function*() {
      const version = yield* run(["--version"])
      assert.strictEqual(version.code, 0, version.stderr)
      assert.strictEqual(version.stdout.trim(), `connected-vehicle-simulator v${(yield* Effect.promise(() => import("../package.json", { with: { type: "json" } }))).default.version}`)
      const help = yield* run(["--help"])
      assert.strictEqual(help.code, 0, help.stderr)
      assert.match(help.stdout, /USAGE\n\s+connected-vehicle-simulator \[flags\]/)
      assert.include(help.stdout, "npx connected-vehicle-simulator")
      assert.include(help.stdout, "pnpm simulator")
    }), 40_000)
})

/**
 * End-to-end: the CLI runs as a child process against one simulator started
 * here on 127.0.0.1 with 10,000 connections (`--target`): the commands, bad
 * arguments and the export. The tests with a simulator of their own are in
 * `e2e-isolated.test.ts`.
 *
 * Every test is independent, so they all run concurrently; the harness runs
 * at most a few children at a time. No assertion depends on timing. Long tests
 * have explicit timeouts, generous because on a loaded machine a child waits
 * for a free slot.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { allPermissions } from "@connected-vehicle/simulator/Data"
import type { Simulator } from "@connected-vehicle/simulator/Simulator"
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { parseJson, run, runJson, simulators, start, targetOf, tempDir, tokenShape } from "./cli.ts"

const LONG = 180_000

const { start: simulator, stopAll } = simulators()
afterAll(stopAll)

// One simulator with 10,000 connections for the commands and the export.
let sim: Simulator["Service"]
let target: ReadonlyArray<string>
beforeAll(async () => {
  sim = (await simulator({ connections: 10_000, webhooks: 12 })).sim
  target = targetOf(sim)
})

describe.concurrent("commands with --json against --target", () => {
  it("compat with filters", async () => {
    const { json, run: result } = await runJson(["compat", "--region", "US", "--powertrain", "EV", ...target])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.isAbove(json.data.length, 0)
    assert.isTrue(json.data.every((e: any) => e.attributes.region === "US" && e.attributes.powertrainType !== "ICE"))
    assert.strictEqual(json.meta.totalCount, json.data.length)
  })

  it("the environment instead of flags: CONNECTED_VEHICLE_ORIGIN and the client credential", async () => {
    const own = (await simulator({ seed: 11 })).sim
    const { json, run: result } = await runJson(["connections", "--page-size", "3"], {
      env: {
        CONNECTED_VEHICLE_ORIGIN: own.url,
        CONNECTED_VEHICLE_CLIENT_ID: own.clientId,
        CONNECTED_VEHICLE_CLIENT_SECRET: Redacted.value(own.clientSecret)
      }
    })
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(json.data.length, 3)
    assert.strictEqual(json.meta.totalCount, own.data.connectionCount)
    const log = await Effect.runPromise(own.requests)
    assert.isTrue(log.some((e) => e.method === "POST" && e.path === "/oauth/token"))
    assert.isTrue(log.some((e) => e.path === "/v3/connections" && e.query.includes("pageSize=3") && e.status === 200))
    assert.notInclude(result.stdout + result.stderr, Redacted.value(own.clientSecret))
  })

  it("connections: a page, and a filter by vehicle", async () => {
    const vehicle = sim.data.vehicleIds[5]!
    const owner = sim.data.connectionOf(vehicle)
    const [{ json, run: result }, byVehicle] = await Promise.all([
      runJson(["connections", "--page-size", "7", "--page", "3", ...target]),
      runJson(["connections", "--vehicle", vehicle, ...target])
    ])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(json.data.length, 7)
    assert.strictEqual(json.meta.pageNumber, 3)
    assert.strictEqual(json.meta.totalCount, sim.data.connectionCount)
    for (const connection of json.data) {
      const of = sim.data.connectionOf(connection.relationships.vehicle.data.id)
      assert.strictEqual(connection.id, of?.connectionId)
      assert.strictEqual(connection.attributes.user.id, of?.userId)
    }
    assert.strictEqual(byVehicle.run.code, 0, byVehicle.run.stderr)
    assert.deepStrictEqual(byVehicle.json.data.map((c: any) => c.id), [owner?.connectionId])
  })

  it("signals: every signal of a vehicle, and one by --code", async () => {
    const vehicleId = sim.data.vehicleIds[3]!
    const userId = sim.data.connectionOf(vehicleId)!.userId
    const expected = [...sim.data.vehicle(vehicleId)!.signalCodes].sort()
    const [{ json, run: result }, one] = await Promise.all([
      runJson(["signals", vehicleId, "--user", userId, ...target]),
      runJson(["signals", vehicleId, "--user", userId, "--code", expected[0]!, ...target])
    ])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(json.vehicle.id, vehicleId)
    assert.deepStrictEqual(json.data.map((s: any) => s.attributes.code).sort(), expected)
    for (const s of json.data) assert.strictEqual(s.attributes.status.value, sim.data.signalStatus(vehicleId, s.attributes.code))
    assert.strictEqual(one.run.code, 0, one.run.stderr)
    assert.strictEqual(one.json.data.attributes.code, expected[0])
  })

  it("webhooks and subscriptions", async () => {
    const [webhooks, subscriptions] = await Promise.all([
      runJson(["webhooks", "--enabled", "--page-size", "100", ...target]),
      runJson(["subscriptions", "--page-size", "4", ...target])
    ])
    assert.strictEqual(webhooks.run.code, 0, webhooks.run.stderr)
    assert.deepStrictEqual(
      webhooks.json.data.map((w: any) => w.id).sort(),
      sim.data.webhooks.filter((w) => w.isEnabled).map((w) => w.id).sort()
    )
    assert.isTrue(webhooks.json.data.every((w: any) => w.attributes.isEnabled === true))
    assert.strictEqual(subscriptions.run.code, 0, subscriptions.run.stderr)
    assert.strictEqual(subscriptions.json.data.length, 4)
    assert.strictEqual(subscriptions.json.meta.totalCount, sim.data.subscriptionCount)
  })

  it("login stores the user's tokens (0600, atomically, keeping the other entries); every legacy command uses them", {
    timeout: LONG
  }, async () => {
    const dir = tempDir("login")
    const tokenFile = join(dir, "tokens.json")
    // a token of another target already in the file: login must keep it
    const other = { accessToken: "x".repeat(12), expiresAt: 4_102_444_800_000 }
    writeFileSync(tokenFile, JSON.stringify({ version: 1, tokens: { "user@elsewhere": other } }), { mode: 0o600 })
    const login = await runJson(["login", "--follow", "--token-file", tokenFile, ...target])
    assert.strictEqual(login.run.code, 0, login.run.stderr)
    assert.match(login.json.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    assert.match(login.json.accessToken, /^<redacted>/)
    assert.notMatch(login.run.stdout + login.run.stderr, tokenShape)
    assert.strictEqual(statSync(tokenFile).mode & 0o777, 0o600)
    assert.deepStrictEqual(readdirSync(dir), ["tokens.json"])
    const stored = JSON.parse(readFileSync(tokenFile, "utf8"))
    assert.deepStrictEqual(stored.tokens["user@elsewhere"], other)
    assert.match(stored.tokens[login.json.key].accessToken, tokenShape)

    const legacy = (...args: Array<string>) => runJson(["legacy", ...args, "--token-file", tokenFile, ...target])
    const userId = sim.data.users[0]!.id
    const owned = sim.data.vehiclesOf(userId)
    // a vehicle whose make supports service history (the others answer it with a typed error)
    // and whose connection holds every permission (the others answer a read it lacks with a 403)
    const vehicleId = owned.find((id) =>
      sim.data.vehicle(id)!.supportsServiceHistory && sim.data.connectionOf(id)!.permissions.length === allPermissions.length
    )!
    assert.isDefined(vehicleId)
    const [vehicles, odometer, location, vin, oil, tires, history, batch] = await Promise.all([
      legacy("vehicles", "--limit", "50"),
      legacy("odometer", vehicleId),
      legacy("location", vehicleId),
      legacy("vin", vehicleId),
      legacy("oil", vehicleId),
      legacy("tires", vehicleId),
      legacy("service-history", vehicleId),
      legacy("batch", vehicleId, "--path", "/odometer", "--path", "/vin")
    ])
    for (const r of [vehicles, odometer, location, vin, oil, tires, history, batch]) {
      assert.strictEqual(r!.run.code, 0, r!.run.stderr)
    }
    assert.strictEqual(vehicles!.json.paging.count, owned.length)
    assert.strictEqual(vehicles!.json.vehicles.length, Math.min(50, owned.length))
    assert.isTrue(vehicles!.json.vehicles.every((id: string) => owned.includes(id)))
    assert.isAbove(odometer!.json.value.distance, 0)
    assert.isNumber(location!.json.value.latitude)
    assert.strictEqual(vin!.json.value.vin, sim.data.vehicle(vehicleId)!.vin)
    assert.isTrue(oil!.json.value.lifeRemaining >= 0 && oil!.json.value.lifeRemaining <= 1)
    assert.isNumber(tires!.json.value.frontLeft)
    assert.isArray(history!.json.value)
    assert.deepStrictEqual(batch!.json.entries.map((e: any) => [e.path, e.status, e.ok]), [
      ["/odometer", 200, true],
      ["/vin", 200, true]
    ])
    assert.strictEqual(batch!.json.entries[1].value.vin, vin!.json.value.vin)
  })

  it("login ignores a redirect with another state (400) and completes with the right one", { timeout: LONG }, async () => {
    const dir = tempDir("stray")
    const tokenFile = join(dir, "tokens.json")
    const login = await start(["login", "--json", "--token-file", tokenFile, ...target])
    const [consentUrl] = await login.stderrMatch(/https?:\/\/\S+\/oauth\/authorize\?\S+/)
    const redirectUri = new URL(consentUrl).searchParams.get("redirect_uri")!
    assert.match(redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    // a stray hit and a forged redirect: answered 400, the flow goes on
    const stray = await fetch(redirectUri)
    assert.strictEqual(stray.status, 400)
    const forged = await fetch(`${redirectUri}?code=code_forged&state=not-the-state`)
    assert.strictEqual(forged.status, 400)
    assert.include(await forged.text(), "ignored")
    // the user's browser: the consent URL, its 302, the listener
    const consent = await fetch(consentUrl, { redirect: "manual" })
    assert.strictEqual(consent.status, 302)
    const delivered = await fetch(consent.headers.get("location")!)
    assert.strictEqual(delivered.status, 200)
    const result = await login.done
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(parseJson(result).redirectUri, redirectUri)
    assert.match(readFileSync(tokenFile, "utf8"), tokenShape)
  })

  it("login without a redirect ends with a LoginTimeout after --timeout", { timeout: LONG }, async () => {
    const tokenFile = join(tempDir("timeout"), "tokens.json")
    const { json, run: result } = await runJson(["login", "--timeout", "1", "--token-file", tokenFile, ...target])
    assert.strictEqual(result.code, 1)
    assert.strictEqual(json.error.tag, "LoginTimeout")
    assert.strictEqual(json.error.timeout, "1s")
    assert.match(result.stderr, /^Error: LoginTimeout$/m)
    assert.isFalse(existsSync(tokenFile))
  })

  it("a corrupt or unreadable token file is a typed TokenStoreError; the file is never overwritten", {
    timeout: LONG
  }, async () => {
    const dir = tempDir("corrupt")
    const corrupt = join(dir, "tokens.json")
    writeFileSync(corrupt, "{ not json", { mode: 0o600 })
    const unreadable = join(dir, "a-directory")
    mkdirSync(unreadable)
    const [login, read, directory] = await Promise.all([
      runJson(["login", "--follow", "--token-file", corrupt, ...target]),
      run(["legacy", "vehicles", "--token-file", corrupt, ...target]),
      run(["legacy", "vehicles", "--token-file", unreadable, ...target])
    ])
    assert.strictEqual(login.run.code, 1)
    assert.strictEqual(login.json.error.tag, "TokenStoreError")
    assert.include(login.json.error.reason, "is not a token file")
    assert.strictEqual(readFileSync(corrupt, "utf8"), "{ not json")
    assert.deepStrictEqual(readdirSync(dir).sort(), ["a-directory", "tokens.json"])
    assert.strictEqual(read.code, 1)
    assert.match(read.stderr, /^Error: TokenStoreError$/m)
    assert.strictEqual(directory.code, 1)
    assert.match(directory.stderr, /^Error: TokenStoreError$/m)
    assert.include(directory.stderr, "EISDIR")
    assert.notInclude(login.run.stderr + read.stderr + directory.stderr, "Defect")
  })

  it("a legacy command without a stored token explains what to do", async () => {
    const tokenFile = join(tempDir("none"), "tokens.json")
    const result = await run(["legacy", "odometer", "v-1", "--token-file", tokenFile, ...target])
    assert.strictEqual(result.code, 1)
    assert.include(result.stderr, "SampleError")
    assert.include(result.stderr, "run `login")
  })

  it("--help on the root, on groups and on leaf commands (stdout, exit 0)", async () => {
    const commands = [[], ["signals"], ["legacy"], ["legacy", "batch"], ["login"], ["export", "connections"]]
    const results = await Promise.all(commands.map((c) => run([...c, "--help"])))
    results.forEach((result, i) => {
      assert.strictEqual(result.code, 0, `${commands[i]!.join(" ")}: ${result.stderr}`)
      assert.include(result.stdout, "USAGE")
      assert.include(result.stdout, `sample ${commands[i]!.join(" ")}`.trim())
    })
    assert.include(results[4]!.stdout, "--timeout")
  })
})

describe.concurrent("bad arguments: a clear message and exit code 2 (with --json: a CliError on stdout)", () => {
  it("a flag value of the wrong type", async () => {
    const [result, { json, run: withJson }] = await Promise.all([
      run(["connections", "--page-size", "abc"]),
      runJson(["connections", "--page-size", "abc"])
    ])
    assert.strictEqual(result.code, 2)
    assert.include(result.stderr, "Invalid value for flag --page-size")
    assert.strictEqual(result.stdout, "")
    assert.strictEqual(withJson.code, 2)
    assert.strictEqual(json.error.tag, "CliError")
    assert.strictEqual(json.error.command, "sample connections")
    assert.strictEqual(json.error.errors[0].tag, "InvalidValue")
    assert.include(json.error.message, "Invalid value for flag --page-size")
  })

  it("a missing argument, an unknown command", async () => {
    const [missing, unknown] = await Promise.all([
      runJson(["signals", "--user", "u"]),
      runJson(["no-such-command"])
    ])
    assert.strictEqual(missing.run.code, 2)
    assert.include(missing.run.stderr, "Missing required argument: vehicle")
    assert.strictEqual(missing.json.error.tag, "CliError")
    assert.strictEqual(missing.json.error.errors[0].tag, "MissingArgument")
    assert.strictEqual(unknown.run.code, 2)
    assert.strictEqual(unknown.json.error.tag, "CliError")
    assert.strictEqual(unknown.json.error.errors[0].tag, "UnknownSubcommand")
    assert.include(unknown.run.stderr, "no-such-command")
  })

  it("a group without its subcommand prints its help on stderr", async () => {
    const [legacy, exported] = await Promise.all([run(["legacy"]), runJson(["export"])])
    assert.strictEqual(legacy.code, 2)
    assert.strictEqual(legacy.stdout, "")
    assert.include(legacy.stderr, "USAGE")
    assert.include(legacy.stderr, "odometer")
    assert.include(legacy.stderr, "Missing subcommand")
    assert.strictEqual(exported.run.code, 2)
    assert.strictEqual(exported.json.error.tag, "CliError")
    assert.strictEqual(exported.json.error.command, "sample export")
    assert.include(exported.run.stderr, "connections")
  })

  it("--target must be an http(s) URL; compat needs no client credential", async () => {
    const [bad, fragment, compat] = await Promise.all([
      run(["webhooks", "--target", "notaurl"]),
      run(["compat", "--make", "kia", "--target", `${sim.url}/#x`]),
      runJson(["compat", "--region", "US", "--target", sim.url])
    ])
    assert.strictEqual(bad.code, 2)
    assert.include(bad.stderr, "--target must be an http:// or https:// URL")
    // every path would go elsewhere (after the "#", nothing of it is sent)
    assert.strictEqual(fragment.code, 2)
    assert.include(fragment.stderr, "(Expected a URL without a query or fragment)")
    assert.strictEqual(compat.run.code, 0)
    assert.isTrue(compat.json.data.length > 0)
  })

  it("a failing export leaves an existing --out file untouched (no temporary file left)", async () => {
    const dir = tempDir("keep")
    const out = join(dir, "connections.csv")
    writeFileSync(out, "precious\n")
    const result = await run(["export", "connections", "--out", out, "--page-size", "500", ...target])
    assert.strictEqual(result.code, 2)
    assert.strictEqual(readFileSync(out, "utf8"), "precious\n")
    assert.deepStrictEqual(readdirSync(dir), ["connections.csv"])
  })

  it("a value the SDK rejects before any request", async () => {
    const result = await run(["connections", "--page-size", "500", ...target])
    assert.strictEqual(result.code, 2)
    assert.include(result.stderr, "Error: InvalidArgument")
    assert.include(result.stderr, "pageSize: Expected a value between 1 and 100, got 500")
  })
})

describe.concurrent("export", () => {
  it("10,000 connections to NDJSON, page by page with a progress bar; the file has exactly 10,000 records", {
    timeout: LONG
  }, async () => {
    const file = join(tempDir("export"), "connections.ndjson")
    const { json, run: result } = await runJson(["export", "connections", "--out", file, ...target])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.deepStrictEqual(json, { file, format: "ndjson", records: 10_000 })
    const lines = readFileSync(file, "utf8").split("\n")
    assert.strictEqual(lines.pop(), "")
    assert.strictEqual(lines.length, 10_000)
    const ids = new Set(lines.map((line) => JSON.parse(line).id as string))
    assert.strictEqual(ids.size, 10_000)
    assert.match(result.stderr, /connections \[#{24}\] pages 100 {2}items 10000\/10000 {2}\d+ items\/s/)
  })

  it("CSV by extension: a header and one row per connection; signals by --format", { timeout: LONG }, async () => {
    const dir = tempDir("csv")
    const file = join(dir, "connections.csv")
    const vehicleId = sim.data.vehicleIds[0]!
    const signalsFile = join(dir, "signals.out")
    const [result, signals] = await Promise.all([
      run(["export", "connections", "--out", file, "--mode", "simulated", ...target]),
      run([
        "export",
        "signals",
        vehicleId,
        "--user",
        sim.data.connectionOf(vehicleId)!.userId,
        "--out",
        signalsFile,
        "--format",
        "csv",
        ...target
      ])
    ])
    assert.strictEqual(result.code, 0, result.stderr)
    const rows = readFileSync(file, "utf8").trimEnd().split("\n")
    assert.strictEqual(rows[0], "id,userId,userExternalId,vehicleId,make,model,year,powertrainType,mode,permissions,createdAt,updatedAt")
    assert.isAbove(rows.length, 1)
    assert.isTrue(rows.slice(1).every((row) => row.split(",")[8] === "simulated"))
    assert.include(result.stdout, `Wrote ${rows.length - 1} connections`)
    assert.strictEqual(signals.code, 0, signals.stderr)
    const signalRows = readFileSync(signalsFile, "utf8").trimEnd().split("\n")
    assert.strictEqual(signalRows.length - 1, sim.data.vehicle(vehicleId)!.signalCodes.length)
  })
})

/**
 * End-to-end: the CLI runs as a child process against the embedded simulator
 * (no arguments) or against a simulator started here on 127.0.0.1 (`--target`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, ManagedRuntime, Redacted, Scope } from "effect"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as SimulatorModule from "@connected-vehicle/simulator/Simulator"
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { run, runJson, tempDir, tokenShape } from "./cli.ts"

// One simulator with 10,000 connections for the commands and the export, one
// for the failures (its faults must not reach the other tests).
const main = ManagedRuntime.make(SimulatorModule.layer({ port: 0, connections: 10_000, webhooks: 12 }))
const faulty = ManagedRuntime.make(SimulatorModule.layer({ port: 0 }))
let sim: Simulator["Service"]
let failing: Simulator["Service"]
const targetOf = (s: Simulator["Service"]) => [
  "--target",
  s.url,
  "--client-id",
  s.clientId,
  "--client-secret-file",
  secretFile(Redacted.value(s.clientSecret))
]
let target: ReadonlyArray<string>
/** The secret in a file of its own (`--client-secret-file`): never on the command line. */
const secretFile = (secret: string): string => {
  const file = join(tempDir("secret"), "client-secret")
  writeFileSync(file, secret + "\n", { mode: 0o600 })
  return file
}

beforeAll(async () => {
  sim = await main.runPromise(Effect.service(Simulator))
  failing = await faulty.runPromise(Effect.service(Simulator))
  target = targetOf(sim)
})
afterAll(async () => {
  await main.dispose()
  await faulty.dispose()
})

describe.concurrent("main job (no arguments, embedded simulator)", () => {
  it("walks through the five steps, prints aligned tables and a summary, exits 0", async () => {
    const result = await run([])
    assert.strictEqual(result.code, 0, result.stderr)
    for (
      const title of [
        "1. Compatibility listing",
        "2. Legacy OAuth",
        "3. Legacy reads",
        "4. v3: application token, connections, signals",
        "5. Webhooks and subscriptions"
      ]
    ) assert.include(result.stdout, title)
    assert.match(result.stdout, /talking to the embedded simulator at http:\/\/127\.0\.0\.1:\d+/)
    assert.match(result.stdout, /REGION\s+BEV\s+ICE\s+PHEV\s+TOTAL/)
    assert.match(result.stdout, /Redirected to: http:\/\/127\.0\.0\.1:\d+\/callback\?code=code_/)
    assert.match(result.stdout, /Access token:\s+<redacted>/)
    assert.match(result.stdout, /\/odometer\s+200\s+ok\s+distance=/)
    assert.include(result.stdout, "FAILED SIGNALS")
    assert.match(result.stdout, /REAUTHENTICATE/)
    const lines = result.stdout.trimEnd().split("\n")
    assert.match(lines[lines.length - 1]!, /^OK: \d+ compatibility entries, 5\/5 legacy reads, 40 connections, \d+ signals/)
    assert.notMatch(result.stdout + result.stderr, tokenShape)
    // every table is aligned: the rule under a header has the header's column starts
    const header = lines.findIndex((l) => l.startsWith("CONNECTION  "))
    const starts = (l: string) => [...l.matchAll(/(?:^|  )(\S)/g)].map((m) => m.index! + (m[0].length - 1))
    assert.deepStrictEqual(starts(lines[header + 1]!), starts(lines[header]!))
  })

  it("--json gives one document with every step", async () => {
    const { json, run: result } = await runJson([])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.isAbove(json.summary.compatibilityEntries, 0)
    assert.strictEqual(json.summary.legacyReadsOk, 5)
    assert.strictEqual(json.summary.connections, 40)
    assert.strictEqual(json.legacy.batch.entries.length, 5)
    assert.isTrue(json.legacy.batch.entries.every((e: any) => e.ok && e.status === 200))
    assert.strictEqual(json.v3.connections.data.length, 10)
    assert.isAbove(json.v3.signals.data.length, 0)
    assert.strictEqual(json.v3.webhooks.meta.totalCount, json.v3.webhooks.data.length)
    assert.notMatch(result.stdout, tokenShape)
  })
})

describe.concurrent("commands with --json against --target", () => {
  it("compat with filters", async () => {
    const { json, run: result } = await runJson(["compat", "--region", "US", "--powertrain", "EV", ...target])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.isAbove(json.data.length, 0)
    assert.isTrue(json.data.every((e: any) => e.attributes.region === "US" && e.attributes.powertrainType !== "ICE"))
    assert.strictEqual(json.meta.totalCount, json.data.length)
  })

  it("connections: a page with filters", async () => {
    const { json, run: result } = await runJson(["connections", "--page-size", "7", "--page", "3", ...target])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(json.data.length, 7)
    assert.strictEqual(json.meta.pageNumber, 3)
    assert.strictEqual(json.meta.totalCount, sim.data.connectionCount)
    const vehicle = json.data[0].relationships.vehicle.data.id
    const owner = sim.data.connectionOf(vehicle)
    assert.strictEqual(json.data[0].id, owner?.connectionId)
    assert.strictEqual(json.data[0].attributes.user.id, owner?.userId)
    const byVehicle = await runJson(["connections", "--vehicle", vehicle, ...target])
    assert.deepStrictEqual(byVehicle.json.data.map((c: any) => c.id), [owner?.connectionId])
  })

  it("signals: every signal of a vehicle, and one by --code", async () => {
    const vehicleId = sim.data.vehicleIds[3]!
    const userId = sim.data.connectionOf(vehicleId)!.userId
    const { json, run: result } = await runJson(["signals", vehicleId, "--user", userId, ...target])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(json.vehicle.id, vehicleId)
    const codes = json.data.map((s: any) => s.attributes.code).sort()
    assert.deepStrictEqual(codes, [...sim.data.vehicle(vehicleId)!.signalCodes].sort())
    for (const s of json.data) assert.strictEqual(s.attributes.status.value, sim.data.signalStatus(vehicleId, s.attributes.code))
    const code = codes[0]
    const one = await runJson(["signals", vehicleId, "--user", userId, "--code", code, ...target])
    assert.strictEqual(one.run.code, 0, one.run.stderr)
    assert.strictEqual(one.json.data.attributes.code, code)
  })

  it("webhooks and subscriptions", async () => {
    const webhooks = await runJson(["webhooks", "--enabled", "--page-size", "100", ...target])
    assert.strictEqual(webhooks.run.code, 0, webhooks.run.stderr)
    assert.deepStrictEqual(
      webhooks.json.data.map((w: any) => w.id).sort(),
      sim.data.webhooks.filter((w) => w.isEnabled).map((w) => w.id).sort()
    )
    assert.isTrue(webhooks.json.data.every((w: any) => w.attributes.isEnabled === true))
    const subscriptions = await runJson(["subscriptions", "--page-size", "4", ...target])
    assert.strictEqual(subscriptions.run.code, 0, subscriptions.run.stderr)
    assert.strictEqual(subscriptions.json.data.length, 4)
    assert.strictEqual(subscriptions.json.meta.totalCount, sim.data.subscriptionCount)
  })

  it("login stores the user's tokens (0600, never printed); every legacy command uses them", async () => {
    const tokenFile = join(tempDir("login"), "tokens.json")
    const login = await runJson(["login", "--follow", "--token-file", tokenFile, ...target])
    assert.strictEqual(login.run.code, 0, login.run.stderr)
    assert.match(login.json.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    assert.match(login.json.accessToken, /^<redacted>/)
    assert.notMatch(login.run.stdout + login.run.stderr, tokenShape)
    assert.isTrue(existsSync(tokenFile))
    assert.strictEqual(statSync(tokenFile).mode & 0o777, 0o600)
    assert.match(readFileSync(tokenFile, "utf8"), tokenShape)
    const legacy = (...args: Array<string>) => runJson(["legacy", ...args, "--token-file", tokenFile, ...target])

    const vehicles = await legacy("vehicles", "--limit", "50")
    assert.strictEqual(vehicles.run.code, 0, vehicles.run.stderr)
    const userId = sim.data.users[0]!.id
    const owned = sim.data.vehiclesOf(userId)
    assert.strictEqual(vehicles.json.paging.count, owned.length)
    assert.strictEqual(vehicles.json.vehicles.length, Math.min(50, owned.length))
    assert.isTrue(vehicles.json.vehicles.every((id: string) => owned.includes(id)))
    // a vehicle whose make supports service history (the others answer it with a typed error)
    const vehicleId = owned.find((id) => sim.data.vehicle(id)!.supportsServiceHistory)!
    assert.isDefined(vehicleId)
    const [odometer, location, vin, oil, tires, history, batch] = await Promise.all([
      legacy("odometer", vehicleId),
      legacy("location", vehicleId),
      legacy("vin", vehicleId),
      legacy("oil", vehicleId),
      legacy("tires", vehicleId),
      legacy("service-history", vehicleId),
      legacy("batch", vehicleId, "--path", "/odometer", "--path", "/vin")
    ])
    for (const r of [odometer, location, vin, oil, tires, history, batch]) assert.strictEqual(r!.run.code, 0, r!.run.stderr)
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

  it("a legacy command without a stored token explains what to do", async () => {
    const tokenFile = join(tempDir("none"), "tokens.json")
    const result = await run(["legacy", "odometer", "v-1", "--token-file", tokenFile, ...target])
    assert.strictEqual(result.code, 1)
    assert.include(result.stderr, "SampleError")
    assert.include(result.stderr, "run `login")
  })

  it("--help on the root, on groups and on leaf commands", async () => {
    const commands = [[], ["signals"], ["legacy"], ["legacy", "batch"], ["login"], ["export", "connections"]]
    const results = await Promise.all(commands.map((c) => run([...c, "--help"])))
    results.forEach((result, i) => {
      assert.strictEqual(result.code, 0, `${commands[i]!.join(" ")}: ${result.stderr}`)
      assert.include(result.stdout, "USAGE")
      assert.include(result.stdout, `sample ${commands[i]!.join(" ")}`.trim())
    })
  })
})

describe.concurrent("bad arguments: a clear message and exit code 2", () => {
  it("a flag value of the wrong type", async () => {
    const result = await run(["connections", "--page-size", "abc"])
    assert.strictEqual(result.code, 2)
    assert.include(result.stderr, "Invalid value for flag --page-size")
  })

  it("a missing argument", async () => {
    const missing = await run(["signals", "--user", "u"])
    assert.strictEqual(missing.code, 2)
    assert.include(missing.stderr, "Missing required argument: vehicle")
  })

  it("--target must be an http(s) URL; compat needs no client credential", async () => {
    const bad = await run(["webhooks", "--target", "notaurl"])
    assert.strictEqual(bad.code, 2)
    assert.include(bad.stderr, "--target must be an http:// or https:// URL")
    const compat = await runJson(["compat", "--region", "US", "--target", sim.url])
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

describe("the simulator made to fail", () => {
  it("a 403 is a typed AuthenticationError with status, code and detail, no token", async () => {
    await faulty.runPromise(failing.injectFaults({ path: "/v3/webhooks", faults: [{ _tag: "Status", status: 403 }] }))
    const result = await run(["webhooks", ...targetOf(failing)])
    assert.strictEqual(result.code, 1)
    assert.match(result.stderr, /^Error: AuthenticationError$/m)
    assert.match(result.stderr, /status:\s+403/)
    assert.match(result.stderr, /type:\s+AUTHENTICATION/)
    assert.match(result.stderr, /code:\s+FORBIDDEN/)
    assert.match(result.stderr, /detail:\s+Injected failure with status 403/)
    assert.notMatch(result.stdout + result.stderr, tokenShape)
    assert.notInclude(result.stderr, Redacted.value(failing.clientSecret))
  })

  it("persistent 500s end, after the retries, in a ServerError; --json prints it on stdout too", async () => {
    await faulty.runPromise(failing.injectFaults({
      path: "/v3/connections",
      faults: Array.from({ length: 3 }, () => ({ _tag: "Status", status: 500 }) as const)
    }))
    const { json, run: result } = await runJson(["connections", ...targetOf(failing)])
    assert.strictEqual(result.code, 1)
    assert.strictEqual(json.error.tag, "ServerError")
    assert.strictEqual(json.error.status, 500)
    assert.strictEqual(json.error.type, "SERVER")
    assert.match(result.stderr, /^Error: ServerError$/m)
    const attempts = (await faulty.runPromise(failing.requests)).filter((r) => r.path === "/v3/connections")
    assert.strictEqual(attempts.filter((r) => r.status === 500).length, 3)
  })

  it("a wrong client secret is an OAuthError of the token endpoint", async () => {
    const result = await run([
      "connections",
      "--target",
      failing.url,
      "--client-id",
      failing.clientId,
      "--client-secret-file",
      secretFile("not-the-secret")
    ])
    assert.strictEqual(result.code, 1)
    assert.include(result.stderr, "Error: CredentialsError")
    assert.include(result.stderr, "401")
    assert.notInclude(result.stderr, "not-the-secret")
  })

  it("an unreachable target is a TransportFailure", async () => {
    const closed = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const scope = yield* Scope.make()
      const s = yield* Effect.service(Simulator).pipe(
        Effect.provide(SimulatorModule.layer({ port: 0 })),
        Scope.provide(scope)
      )
      yield* Scope.close(scope, Exit.void)
      return s.url
    })))
    const result = await run(["webhooks", "--target", closed, "--client-id", "x", "--client-secret-file", secretFile("y")])
    assert.strictEqual(result.code, 1)
    assert.include(result.stderr, "TransportFailure")
  })
})

describe("export", () => {
  it("10,000 connections to NDJSON, page by page with a progress bar; the file has exactly 10,000 records", async () => {
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

  it("CSV by extension: a header and one row per connection; signals by --format", async () => {
    const dir = tempDir("csv")
    const file = join(dir, "connections.csv")
    const result = await run(["export", "connections", "--out", file, "--mode", "simulated", ...target])
    assert.strictEqual(result.code, 0, result.stderr)
    const rows = readFileSync(file, "utf8").trimEnd().split("\n")
    assert.strictEqual(rows[0], "id,userId,userExternalId,vehicleId,make,model,year,powertrainType,mode,permissions,createdAt,updatedAt")
    assert.isAbove(rows.length, 1)
    assert.isTrue(rows.slice(1).every((row) => row.split(",")[8] === "simulated"))
    assert.include(result.stdout, `Wrote ${rows.length - 1} connections`)

    const vehicleId = sim.data.vehicleIds[0]!
    const signalsFile = join(dir, "signals.out")
    const signals = await run([
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
    assert.strictEqual(signals.code, 0, signals.stderr)
    const signalRows = readFileSync(signalsFile, "utf8").trimEnd().split("\n")
    assert.strictEqual(signalRows.length - 1, sim.data.vehicle(vehicleId)!.signalCodes.length)
  })
})

/**
 * End-to-end with a simulator of their own: the CLI with no arguments (its
 * embedded simulator) and against a simulator made to fail, one per test (its
 * faults must not reach other tests). See `e2e.test.ts` for the commands
 * against a shared simulator.
 *
 * Every test is independent, so they all run concurrently; the harness runs
 * at most a few children at a time. No assertion depends on timing. Long tests
 * have explicit timeouts, generous because on a loaded machine a child waits
 * for a free slot.
 */
import { assert, describe, it } from "@effect/vitest"
import { Redacted } from "effect"
import * as Migrate from "@connected-vehicle/sample/Migrate"
import { afterAll } from "vitest"
import { run, runJson, secretFile, simulators, targetOf, tokenShape } from "./cli.ts"

const LONG = 180_000

const { start: simulator, stopAll } = simulators()
afterAll(stopAll)

describe.concurrent("main job (no arguments, embedded simulator)", () => {
  it("walks through the five steps, prints aligned tables and a summary, exits 0", { timeout: LONG }, async () => {
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
    // the embedded simulator announces no removal date (the spec gives none): no sunset named
    assert.include(result.stdout, "Deprecated: v2.0 is deprecated as of 2026-12-01; no removal date is announced (the response's deprecation headers).")
    assert.match(result.stdout, /\(the response's deprecation headers\)\. Move to v3: http:\/\/127\.0\.0\.1:\d+\/docs\/migrating-to-v3/)
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

  it("--json gives one document with every step", { timeout: LONG }, async () => {
    const { json, run: result } = await runJson([])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.isAbove(json.summary.compatibilityEntries, 0)
    assert.strictEqual(json.summary.legacyReadsOk, 5)
    assert.strictEqual(json.summary.connections, 40)
    assert.strictEqual(json.legacy.batch.entries.length, 5)
    assert.isTrue(json.legacy.batch.entries.every((e: any) => e.ok && e.status === 200))
    assert.strictEqual(json.legacy.deprecation.deprecatedAt, "2026-12-01T00:00:00.000Z")
    assert.isNull(json.legacy.deprecation.sunsetAt)
    assert.match(json.legacy.deprecation.link, /\/docs\/migrating-to-v3$/)
    assert.strictEqual(json.v3.connections.data.length, 10)
    assert.isAbove(json.v3.signals.data.length, 0)
    assert.strictEqual(json.v3.webhooks.meta.totalCount, json.v3.webhooks.data.length)
    assert.notMatch(result.stdout, tokenShape)
  })
})

describe.concurrent("migrate check (embedded simulator)", () => {
  it("each legacy read next to its v3 equivalent, agreeing in imperial; the deprecation notice on stderr", { timeout: LONG }, async () => {
    const vehicles = await runJson(["legacy", "vehicles"])
    assert.strictEqual(vehicles.run.code, 0, vehicles.run.stderr)
    // the vehicle list is not deprecated (spec section 9.3): no notice for it
    assert.notInclude(vehicles.run.stderr, Migrate.notice())
    const vehicleId = vehicles.json.vehicles[0] as string
    const odometer = await runJson(["legacy", "odometer", vehicleId])
    assert.strictEqual(odometer.run.code, 0, odometer.run.stderr)
    assert.include(odometer.run.stderr, Migrate.notice())
    const check = await runJson(["migrate", "check", vehicleId, "--unit-system", "imperial"])
    assert.strictEqual(check.run.code, 0, check.run.stderr)
    assert.include(check.run.stderr, "docs/migrating-to-v3.md")
    assert.notMatch(check.run.stdout + check.run.stderr, tokenShape)
    const report = check.json
    assert.strictEqual(report.vehicleId, vehicleId)
    assert.strictEqual(report.unitSystem, "imperial")
    assert.isString(report.userId)
    assert.deepStrictEqual(report.checks.map((c: any) => [c.path, c.signal]), [
      ["/odometer", "odometer-traveleddistance"],
      ["/location", "location-preciselocation"],
      ["/vin", "vehicleidentification-vin"],
      ["/engine/oil", "internalcombustionengine-oillife"],
      ["/tires/pressure", "wheel-tirepressures"],
      ["/service/history", null]
    ])
    const history = report.checks[5]
    assert.isNull(history.v3)
    assert.isNull(history.agree)
    // where both sides answered they agree (a v3 signal may report ERROR: then agree is null)
    const compared = report.checks.filter((c: any) => c.legacy.ok && c.v3?.ok)
    assert.isAtLeast(compared.length, 3)
    for (const c of compared) assert.isTrue(c.agree, JSON.stringify(c))
    const vin = report.checks[2]
    if (vin.v3.ok) assert.strictEqual(vin.v3.value.vin, vin.legacy.value.vin)
    const table = await run(["migrate", "check", vehicleId])
    assert.strictEqual(table.code, 0, table.stderr)
    assert.match(table.stdout, /V2\.0 READ\s+V3 SIGNAL\s+LEGACY VALUE\s+V3 VALUE\s+AGREE/)
    assert.match(table.stdout, /\d of \d compared reads agree/)
  })
})

describe.concurrent("the simulator made to fail (one simulator per test)", () => {
  it("a 403 is a typed AuthenticationError with status, code and detail, no token", async () => {
    const { runtime, sim: failing } = await simulator()
    await runtime.runPromise(failing.injectFaults({ path: "/v3/webhooks", faults: [{ _tag: "Status", status: 403 }] }))
    const result = await run(["webhooks", ...targetOf(failing)])
    assert.strictEqual(result.code, 1)
    assert.match(result.stderr, /^Error: PermissionDenied$/m)
    assert.match(result.stderr, /status:\s+403/)
    assert.match(result.stderr, /type:\s+AUTHENTICATION/)
    assert.match(result.stderr, /code:\s+FORBIDDEN/)
    assert.match(result.stderr, /detail:\s+Injected failure with status 403/)
    assert.notMatch(result.stdout + result.stderr, tokenShape)
    assert.notInclude(result.stderr, Redacted.value(failing.clientSecret))
  })

  it("persistent 500s end, after the retries, in a ServerError; --json prints it on stdout too", async () => {
    const { runtime, sim: failing } = await simulator()
    // more faults than the CLI makes attempts: whatever the retry budget allows, every attempt fails
    await runtime.runPromise(failing.injectFaults({
      path: "/v3/connections",
      faults: Array.from({ length: 10 }, () => ({ _tag: "Status", status: 500 }) as const)
    }))
    const { json, run: result } = await runJson(["connections", ...targetOf(failing)])
    assert.strictEqual(result.code, 1)
    assert.strictEqual(json.error.tag, "Server")
    assert.strictEqual(json.error.status, 500)
    assert.strictEqual(json.error.type, "SERVER")
    assert.match(result.stderr, /^Error: Server$/m)
    const attempts = (await runtime.runPromise(failing.requests)).filter((r) => r.path === "/v3/connections")
    // retried (3 attempts at most: the CLI's policy), every one a 500
    assert.isTrue(attempts.length >= 2 && attempts.length <= 3, `${attempts.length} attempts`)
    assert.isTrue(attempts.every((r) => r.status === 500))
  })

  it("a wrong client secret is a Credentials failure of the token endpoint", async () => {
    const { sim: failing } = await simulator()
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
    assert.include(result.stderr, "Error: Credentials")
    assert.include(result.stderr, "401")
    assert.notInclude(result.stderr, "not-the-secret")
  })

  it("an unreachable target is a Connection failure (of the token request)", async () => {
    // port 1 of 127.0.0.1: nothing listens there. (A simulator stopped just
    // before would free an ephemeral port that another process may take.)
    const result = await run(["webhooks", "--target", "http://127.0.0.1:1", "--client-id", "x", "--client-secret-file", secretFile("y")])
    assert.strictEqual(result.code, 1)
    assert.match(result.stderr, /^Error: Credentials$/m)
    assert.match(result.stderr, /Connection: POST http:\/\/127\.0\.0\.1:1\/oauth\/token failed/)
  })
})

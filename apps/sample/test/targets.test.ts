/**
 * End-to-end: two simulators used one after the other with one token file.
 * Every cached token is keyed by target and client id, so no token issued by
 * one simulator is ever sent to the other, and a wrong client id or secret is
 * never hidden by a cached token. Checked in both simulators' request logs,
 * read over HTTP from their control route `GET /_simulator/requests`.
 *
 * The logs show the `authorization` header as `<redacted>`; a bearer token the
 * simulator did not issue is answered 401. So "no foreign token reached B"
 * reads in B's log as: no bearer request answered 401, and none before B
 * issued a token. The first test also checks that the probe is sharp: A's
 * token sent to B by hand is a 401 there.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as SimulatorModule from "@connected-vehicle/simulator/Simulator"
import * as Target from "@connected-vehicle/sample/Target"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll } from "vitest"
import { run, runJson, secretFile, tempDir, tokenShape, simulators } from "./cli.ts"

const LONG = 180_000

const { start, stopAll } = simulators()
const simulator = async (options: SimulatorModule.SimulatorOptions = {}) => (await start(options)).sim
afterAll(stopAll)

const targetOf = (s: Simulator["Service"], overrides: { clientId?: string; secret?: string } = {}) => [
  "--target",
  s.url,
  "--client-id",
  overrides.clientId ?? s.clientId,
  "--client-secret-file",
  secretFile(overrides.secret ?? Redacted.value(s.clientSecret))
]

interface Logged {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

/** The request log through the control route (what a separate `pnpm simulator` offers too). */
const requestLog = async (s: Simulator["Service"]): Promise<ReadonlyArray<Logged>> => {
  const response = await fetch(`${s.url}/_simulator/requests`)
  assert.strictEqual(response.status, 200)
  return ((await response.json()) as { requests: ReadonlyArray<Logged> }).requests
}

const isTokenRequest = (r: Logged) => r.method === "POST" && r.path === "/oauth/token"
/** Requests carrying a bearer token: every authorized request outside `/oauth` (the token endpoint takes Basic). */
const bearerRequests = (log: ReadonlyArray<Logged>) =>
  log.filter((r) => r.headers["authorization"] !== undefined && !r.path.startsWith("/oauth"))

/** No bearer request answered 401, and none before the simulator issued a token. */
const assertOnlyOwnTokens = (log: ReadonlyArray<Logged>, name: string) => {
  const bearer = bearerRequests(log)
  assert.isAbove(bearer.length, 0, `${name}: no bearer request at all`)
  assert.deepStrictEqual(bearer.filter((r) => r.status === 401).map((r) => `${r.method} ${r.path}`), [], `${name}: 401s`)
  const firstIssued = log.findIndex((r) => isTokenRequest(r) && r.status === 200)
  const firstBearer = log.findIndex((r) => bearer.includes(r))
  assert.isTrue(firstIssued !== -1 && firstIssued < firstBearer, `${name}: a bearer token before any was issued`)
}

describe.concurrent("two simulators, one token file", () => {
  it("A then B then A: no token issued by A is sent to B (nor B's to A); each keeps its own entry", {
    timeout: LONG
  }, async () => {
    const [a, b] = await Promise.all([simulator({ seed: 21 }), simulator({ seed: 21 })])
    // same dataset and same client id and secret: only the origin tells them apart
    assert.strictEqual(a.clientId, b.clientId)
    const tokenFile = join(tempDir("two"), "tokens.json")
    const on = (s: Simulator["Service"], ...args: Array<string>) =>
      runJson([...args, "--token-file", tokenFile, ...targetOf(s)])
    const ok = (result: { run: { code: number | null; stderr: string } }, what: string) =>
      assert.strictEqual(result.run.code, 0, `${what}: ${result.run.stderr}`)

    ok(await on(a, "connections", "--page-size", "2"), "connections on A")
    ok(await on(a, "login", "--follow"), "login on A")
    ok(await on(a, "legacy", "vehicles"), "legacy on A")

    // B: the application token of A is not used; the user must log in on B
    ok(await on(b, "connections", "--page-size", "2"), "connections on B")
    const noUser = await on(b, "legacy", "vehicles")
    assert.strictEqual(noUser.run.code, 1)
    assert.strictEqual(noUser.json.error.tag, "SampleError")
    assert.include(noUser.json.error.reason, `No user token for ${b.url}`)
    ok(await on(b, "login", "--follow"), "login on B")
    ok(await on(b, "webhooks"), "webhooks on B")
    ok(await on(b, "legacy", "vehicles"), "legacy on B")

    // back to A: its user token is still there and still used
    const before = (await requestLog(a)).filter(isTokenRequest).length
    ok(await on(a, "legacy", "vehicles"), "legacy on A again")
    assert.strictEqual((await requestLog(a)).filter(isTokenRequest).length, before, "A's stored user token reused")

    const [logA, logB] = await Promise.all([requestLog(a), requestLog(b)])
    assertOnlyOwnTokens(logA, "A")
    assertOnlyOwnTokens(logB, "B")

    // the file: one user entry per target, keyed by origin and client id; no application token on disk
    const stored = JSON.parse(readFileSync(tokenFile, "utf8")).tokens as Record<string, { accessToken: string }>
    const keyA = Target.keysOf(a.url, a.clientId)
    const keyB = Target.keysOf(b.url, b.clientId)
    assert.deepStrictEqual(Object.keys(stored).sort(), [keyA.userKey, keyB.userKey].sort())
    assert.match(stored[keyA.userKey]!.accessToken, tokenShape)
    assert.notStrictEqual(stored[keyA.userKey]!.accessToken, stored[keyB.userKey]!.accessToken)

    // the probe is sharp: A's token sent to B by hand is refused there
    const probe = await fetch(`${b.url}/v2.0/vehicles`, {
      headers: { authorization: `Bearer ${stored[keyA.userKey]!.accessToken}` }
    })
    await probe.text()
    assert.strictEqual(probe.status, 401)
  })

  it("a wrong client secret or client id is refused even while a token of the right one is cached", {
    timeout: LONG
  }, async () => {
    const a = await simulator({ seed: 22 })
    const tokenFile = join(tempDir("wrong"), "tokens.json")
    const good = await runJson(["connections", "--token-file", tokenFile, ...targetOf(a)])
    assert.strictEqual(good.run.code, 0, good.run.stderr)
    const login = await runJson(["login", "--follow", "--token-file", tokenFile, ...targetOf(a)])
    assert.strictEqual(login.run.code, 0, login.run.stderr)
    const [wrongSecret, wrongId, otherIdLegacy] = await Promise.all([
      runJson(["connections", "--token-file", tokenFile, ...targetOf(a, { secret: "not-the-secret" })]),
      runJson(["connections", "--token-file", tokenFile, ...targetOf(a, { clientId: "someone-else" })]),
      runJson(["legacy", "vehicles", "--token-file", tokenFile, ...targetOf(a, { clientId: "someone-else" })])
    ])
    assert.strictEqual(wrongSecret.run.code, 1)
    assert.strictEqual(wrongSecret.json.error.tag, "Credentials")
    assert.strictEqual(wrongId.run.code, 1)
    assert.strictEqual(wrongId.json.error.tag, "Credentials")
    // the user token belongs to the other client id: not used for this one
    assert.strictEqual(otherIdLegacy.run.code, 1)
    assert.strictEqual(otherIdLegacy.json.error.tag, "SampleError")
    assert.include(otherIdLegacy.json.error.reason, "run `login")
    assert.notInclude(wrongSecret.run.stdout + wrongSecret.run.stderr, "not-the-secret")
    const bearer = bearerRequests(await requestLog(a))
    assert.deepStrictEqual(bearer.filter((r) => r.status === 401).map((r) => r.path), [])
  })
})

describe.concurrent("the embedded simulator", () => {
  it("login keeps the user's tokens in --token-file, keyed by the simulator's origin and client id", {
    timeout: LONG
  }, async () => {
    const tokenFile = join(tempDir("embedded-login"), "tokens.json")
    const { json, run: result } = await runJson(["login", "--token-file", tokenFile])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(json.tokenFile, tokenFile)
    assert.match(json.key, /^user@http:\/\/127\.0\.0\.1:\d+\?client_id=/)
    const stored = JSON.parse(readFileSync(tokenFile, "utf8"))
    assert.deepStrictEqual(Object.keys(stored.tokens), [json.key])
    assert.match(stored.tokens[json.key].accessToken, tokenShape)
    assert.notMatch(result.stdout + result.stderr, tokenShape)
    // without --token-file nothing is written (the simulator stops with the command)
    const memory = await runJson(["login"])
    assert.strictEqual(memory.run.code, 0, memory.run.stderr)
    assert.include(memory.json.tokenFile, "memory")
  })

  it("the demo user has a vehicle whose service history is shown", { timeout: LONG }, async () => {
    // the embedded simulator's dataset (default seed), read in process
    const data = await Effect.runPromise(
      Effect.map(Effect.service(Simulator), (s) => s.data).pipe(Effect.provide(SimulatorModule.layerTest()))
    )
    const user = Target.demoUser(data)!
    const vehicleId = data.vehiclesOf(user).find((id) => data.vehicle(id)!.supportsServiceHistory)
    assert.isDefined(vehicleId)
    const [vehicles, history] = await Promise.all([
      runJson(["legacy", "vehicles"]),
      runJson(["legacy", "service-history", vehicleId!])
    ])
    assert.strictEqual(vehicles.run.code, 0, vehicles.run.stderr)
    assert.include(vehicles.json.vehicles, vehicleId)
    assert.strictEqual(history.run.code, 0, history.run.stderr)
    assert.isAbove(history.json.value.length, 0)
    const table = await run(["legacy", "service-history", vehicleId!])
    assert.strictEqual(table.code, 0, table.stderr)
    assert.match(table.stdout, /SERVICE\s+DATE\s+KM\s+TASKS\s+COST/)
  })
})

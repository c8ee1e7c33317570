/**
 * `fleet` as a child process on the embedded simulator: a burst delivered
 * over loopback to the `DurableReceiver` in the CLI's process, stored,
 * applied by the vehicle entities; the summary's counts agree with the
 * simulator's side of the burst, the poison event is a dead letter, and the
 * state equals the burst's ground truth. Bad flags and `--target` are usage
 * errors; `DATABASE_URL` is read (a database that cannot be reached is a
 * failure naming it).
 */
import { assert, describe, it } from "@effect/vitest"
import { parseJson, run, runJson } from "./cli.ts"

const LONG = 180_000

describe.concurrent("fleet", () => {
  it("a burst through the embedded fleet: received, stored once, applied, the poison event dead-lettered (--json)", async () => {
    const { json, run: result } = await runJson(["fleet", "--events", "300", "--vehicles", "12", "--seed", "3", "--show", "2"])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(json.stores, "memory")
    assert.match(json.receiverUrl, /^http:\/\/127\.0\.0\.1:\d+\/webhooks$/)
    assert.strictEqual(json.burst.events, 300)
    assert.strictEqual(json.burst.poisonEvents, 1)
    assert.isAbove(json.burst.duplicates, 0)
    // every attempt of the simulator reached the receiver and was offered: the queue stored each event once
    assert.strictEqual(json.received, json.burst.attempts)
    assert.strictEqual(json.stored, 301)
    assert.strictEqual(json.duplicatesDropped, json.received - 301)
    assert.isAbove(json.duplicatesDropped, 0)
    assert.strictEqual(json.applied, 300)
    assert.strictEqual(json.retries, 2)
    assert.isAtLeast(json.lag.maxMs, json.lag.meanMs)
    assert.deepStrictEqual(json.deadLetters.map((l: any) => [l.eventId, l.attempts]), [["evt_sample_poison_1", 3]])
    assert.match(json.deadLetters[0].cause, /refuses evt_sample_poison_1 on purpose/)
    assert.isTrue(json.matchesTruth)
    assert.strictEqual(json.vehicles.length, 2)
    for (const vehicle of json.vehicles) {
      assert.isAbove(vehicle.signals.length, 0)
      for (const signal of vehicle.signals) assert.match(signal.eventId, /^evt_burst1_3_\d+$/)
    }
    assert.match(result.stderr, /fleet: deliveries \d+\/\d+ {2}received \d+ {2}applied 300\/300 {2}dead letters 1\/1/)
  }, LONG)

  it("the summary as tables, progress on stderr", async () => {
    const result = await run(["fleet", "--events", "100", "--vehicles", "5", "--poison", "0"])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.match(result.stdout, /^Stores: +memory, one runner/m)
    assert.match(result.stdout, /^Stored: +100 distinct events$/m)
    assert.match(result.stdout, /^Applied: +100 events to the vehicle entities$/m)
    assert.match(result.stdout, /^Dead letters: +0$/m)
    assert.match(result.stdout, /^Lag: +\d+ ms mean, \d+ ms max \(receipt to first take\)$/m)
    assert.match(result.stdout, /^State table: +equals the burst's newest value/m)
    assert.notInclude(result.stdout, "Dead letters\n====")
    assert.match(result.stdout, /Latest signals of 3 vehicles \(FleetState\.latest\)\n=+\nVEHICLE +SIGNAL +VALUE +OEM UPDATED AT +EVENT/)
    assert.match(result.stderr, /^fleet: deliveries \d+\/\d+ .*applied 100\/100/m)
    assert.notInclude(result.stdout, "fleet: deliveries")
  }, LONG)

  it("bad flags and --target are usage errors (exit 2)", async () => {
    const tooMany = await runJson(["fleet", "--vehicles", "41"])
    assert.strictEqual(tooMany.run.code, 2)
    assert.strictEqual(tooMany.json.error.tag, "CliError")
    const remote = await runJson(["fleet", "--target", "http://127.0.0.1:9", "--client-id", "app"], {
      env: { CONNECTED_VEHICLE_CLIENT_SECRET: "secret" }
    })
    assert.strictEqual(remote.run.code, 2, remote.run.stderr)
    assert.match(remote.json.error.reason, /embedded simulator only/)
  }, LONG)

  it("DATABASE_URL selects Postgres: one that cannot be reached is a failure naming the database (exit 1)", async () => {
    const result = await run(["fleet", "--json"], { env: { DATABASE_URL: "postgres://fleet@127.0.0.1:9/fleet" } })
    assert.strictEqual(result.code, 1, result.stderr)
    const json = parseJson(result)
    assert.strictEqual(json.error.tag, "FleetError")
    assert.strictEqual(json.error.reason, "DatabaseUnavailable")
    assert.notInclude(result.stdout + result.stderr, "postgres://fleet@")
  }, LONG)
})

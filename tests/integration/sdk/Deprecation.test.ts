/**
 * The Promise client's view of the v2.0 deprecation, over loopback: the
 * warning (to the `logger` option) says "deprecated as of" the `Deprecation`
 * date and names a sunset only when the response carried a `Sunset` header;
 * the vehicle list is not deprecated (no warning, no `deprecation`); a
 * batch's deprecation (`BatchDeprecation`) is the response's, not an entry.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, ManagedRuntime, Redacted } from "effect"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Client from "@connected-vehicle/sdk/Client"
import { busiestUser } from "@connected-vehicle/testing/Simulated"
import { consentCode, makeClient, redirectUri, sim, useLoopback } from "./loopback.ts"

useLoopback()

/** The deprecation warnings among the client's log lines. */
const warningsOf = (entries: ReadonlyArray<Client.LogEntry>) => entries.filter((e) => e.message.includes("v2.0 endpoint"))

describe("v2.0 deprecation in the Promise client", () => {
  it("no Sunset header: 'deprecated as of 2026-12-01', no sunset named; nothing for the vehicle list; the batch's deprecation", async () => {
    const entries: Array<Client.LogEntry> = []
    await using client = makeClient({ logger: (entry) => entries.push(entry) })
    const userId = busiestUser(sim.data)
    await client.legacy.login({ code: await consentCode(userId) })
    const page = await client.legacy.list({ limit: 2 })
    assert.isUndefined(page.deprecation)
    assert.deepStrictEqual(warningsOf(entries), [], "the vehicle list is not deprecated")
    const vehicleId = page.vehicles[0]!

    const vin = await client.legacy.vin(vehicleId)
    assert.instanceOf(vin.deprecation?.deprecatedAt, Date)
    assert.strictEqual(vin.deprecation!.deprecatedAt!.toISOString(), "2026-12-01T00:00:00.000Z")
    assert.isUndefined(vin.deprecation!.sunsetAt)
    const batch = await client.legacy.batch(vehicleId, ["/vin", "/location"])
    assert.deepStrictEqual(Object.keys(batch).sort(), ["/location", "/vin"])
    assert.isTrue(batch["/vin"].ok && batch["/location"].ok)
    assert.strictEqual(batch[Client.BatchDeprecation]?.deprecatedAt?.toISOString(), "2026-12-01T00:00:00.000Z")
    assert.isUndefined(batch[Client.BatchDeprecation]?.sunsetAt)
    assert.strictEqual(batch[Client.BatchDeprecation]?.link, `${sim.url}/docs/migrating-to-v3`)

    const warnings = warningsOf(entries)
    assert.deepStrictEqual(warnings.map((w) => w.annotations["endpoint"]).sort(), [
      "GET /v2.0/vehicles/{id}/vin",
      "POST /v2.0/vehicles/{id}/batch"
    ])
    for (const w of warnings) {
      assert.strictEqual(w.level, "warn")
      assert.include(w.message, "is deprecated as of 2026-12-01; v3 replacement")
      assert.notInclude(w.message, "sunset")
      assert.notProperty(w.annotations, "sunsetAt")
    }
  }, 60_000)

  it("a simulator with a removal date (Sunset header): the warning and the reading name it", async () => {
    const runtime = ManagedRuntime.make(Simulator.layer({ port: 0, legacySunset: "2099-06-01" }))
    try {
      const other = await runtime.runPromise(Effect.service(Simulator.Simulator))
      const userId = busiestUser(other.data)
      const query = new URLSearchParams({ response_type: "code", client_id: other.clientId, redirect_uri: redirectUri, login_hint: userId })
      const consent = await fetch(`${other.url}/oauth/authorize?${query}`, { redirect: "manual" })
      const code = new URL(consent.headers.get("location")!).searchParams.get("code")!
      const entries: Array<Client.LogEntry> = []
      await using client = makeClient({
        origin: other.url,
        clientId: other.clientId,
        clientSecret: Redacted.value(other.clientSecret),
        logger: (entry) => entries.push(entry)
      })
      await client.legacy.login({ code })
      const page = await client.legacy.list()
      assert.isUndefined(page.deprecation)
      // an endpoint the first test did not warn about (the warning is once per endpoint per process)
      const odometer = await client.legacy.odometer(page.vehicles[0]!)
      assert.strictEqual(odometer.deprecation?.sunsetAt?.toISOString(), "2099-06-01T00:00:00.000Z")
      const warnings = warningsOf(entries)
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0]!.message, "GET /v2.0/vehicles/{id}/odometer is deprecated as of 2026-12-01 and sunsets on 2099-06-01; v3 replacement")
      assert.strictEqual(warnings[0]!.annotations["sunsetAt"], "2099-06-01T00:00:00.000Z")
    } finally {
      await runtime.dispose()
    }
  }, 60_000)
})

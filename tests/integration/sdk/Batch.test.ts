/**
 * The Promise client's batch over loopback (see `loopback.ts`): one entry per
 * requested path, and the batch response's deprecation headers under
 * `BatchDeprecation` (`Date`s), a key that walking the entries does not find.
 */
import { assert, describe, it } from "@effect/vitest"
import { BatchDeprecation } from "@connected-vehicle/sdk/Client"
import { InvalidArgumentError } from "@connected-vehicle/sdk/ClientError"
import type { LegacyPath } from "@connected-vehicle/schema/Legacy"
import { consentCode, makeClient, sim, useLoopback } from "./loopback.ts"
import { busiestUser } from "@connected-vehicle/testing/Simulated"

useLoopback()

describe("Client legacy.batch", () => {
  it("has an entry per requested path only, and the batch's deprecation as Dates", async () => {
    await using client = makeClient({ logLevel: "off" })
    const userId = busiestUser(sim.data)
    const vehicleId = sim.data.vehiclesOf(userId)[0]!
    await client.legacy.login({ code: await consentCode(userId) })

    const batch = await client.legacy.batch(vehicleId, ["/vin", "/odometer"])
    // walking the entries finds the requested paths, each an entry
    assert.deepStrictEqual(Object.keys(batch).sort(), ["/odometer", "/vin"])
    for (const entry of Object.values(batch)) assert.isTrue(entry.ok, JSON.stringify(entry))
    assert.deepStrictEqual(Object.keys(JSON.parse(JSON.stringify(batch))).sort(), ["/odometer", "/vin"])

    // the v2.0 deprecation headers the simulator sends, as a single read gives them
    const deprecation = batch[BatchDeprecation]
    assert.isDefined(deprecation)
    assert.instanceOf(deprecation!.deprecatedAt, Date)
    // a sunset date is not always announced: a Date when it is
    if (deprecation!.sunsetAt !== undefined) assert.instanceOf(deprecation!.sunsetAt, Date)
    assert.isString(deprecation!.link)
    assert.deepStrictEqual(deprecation, (await client.legacy.vin(vehicleId)).deprecation)
  }, 60_000)

  it("names an unknown path by its place in the list (paths[0]), nothing sent", async () => {
    await using client = makeClient({ logLevel: "off" })
    const vehicleId = sim.data.vehiclesOf(busiestUser(sim.data))[0]!
    const error = await client.legacy.batch(vehicleId, ["/nope" as LegacyPath]).then(
      () => assert.fail("expected an InvalidArgumentError"),
      (error: unknown) => error
    )
    assert.instanceOf(error, InvalidArgumentError)
    assert.strictEqual((error as InvalidArgumentError).field, "paths[0]")
    assert.match((error as InvalidArgumentError).message, /^paths\[0\]: Expected /)
  })
})

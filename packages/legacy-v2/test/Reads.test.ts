/**
 * The reads of `Vehicles` are the entries of `LegacyReads`, the table the
 * contract's read endpoints are built from: a read's method name, the path it
 * reports and the type of its value are the contract's, by construction.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Effect } from "effect"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import type { LegacyGroup } from "@connected-vehicle/schema/Api"
import { LegacyReads } from "@connected-vehicle/schema/Legacy"
import type { Vin } from "@connected-vehicle/schema/Legacy"
import type { Reading } from "../src/Reading.ts"
import { Vehicles } from "../src/Vehicles.ts"

type Name = keyof typeof LegacyReads
type Same<A, B> = [A] extends [B] ? [B] extends [A] ? true : false : false

/** The value of a read of the service. */
type ValueOf<K extends Name> = Vehicles["Service"][K] extends (...args: any) => Effect.Effect<Reading<infer A>, any> ? A : never

/** The body the transport decodes for the contract's endpoint of that name. */
type ContractBody<K extends Name> = HttpApiEndpoint.Success<
  HttpApiEndpoint.WithIdentifier<HttpApiGroup.Endpoints<typeof LegacyGroup>, K>
>["Type"]

// every read: the type of its value is what the contract decodes
const typedByTheContract: { readonly [K in Name]: Same<ValueOf<K>, ContractBody<K>> }[Name] = true

describe("Vehicles.reads", () => {
  it("has one read per entry of LegacyReads, by name, with its path", () => {
    assert.isTrue(typedByTheContract)
    assert.deepStrictEqual(
      Vehicles.reads,
      Object.fromEntries(Object.entries(LegacyReads).map(([name, read]) => [name, read.path]))
    )
    // @ts-expect-error the odometer read's value is the contract's Odometer, not a Vin
    const wrong: ValueOf<"odometer"> = { vin: "1FT" } satisfies Vin
    assert.isDefined(wrong)
  })
})

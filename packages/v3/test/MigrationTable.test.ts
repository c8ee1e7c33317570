/**
 * `Migration` is derived from the legacy reads' table (`LegacyReads` of
 * `@connected-vehicle/schema/Legacy`): `reads` has one entry per legacy read
 * with a v3 signal, and the conversions are a table over `MigratedPath`, so
 * a legacy read added to `LegacyReads` is a type error in `Migration` until
 * it has a signal code and a conversion (or is excluded from `MigratedPath`).
 * The type-level checks below fail to compile when that stops being so.
 */
import { assert, describe, it } from "@effect/vitest"
import { LegacyReads } from "@connected-vehicle/schema/Legacy"
import * as Migration from "../src/Migration.ts"
import { converters } from "../src/internal/migrationConvert.ts"
import type { Convert, Converters } from "../src/internal/migrationConvert.ts"

type Same<A, B> = [A] extends [B] ? [B] extends [A] ? true : false : false

type Reads = typeof Migration.reads

// the names of `reads` are the table's, but the read without a v3 equivalent
const names: Same<keyof Reads, Exclude<keyof typeof LegacyReads, "serviceHistory">> = true
// each derived read has the type of its named export (the legacy shape of its body)
const typed: Same<
  [Reads["odometer"], Reads["location"], Reads["vin"], Reads["engineOil"], Reads["tirePressure"]],
  [typeof Migration.odometer, typeof Migration.location, typeof Migration.vin, typeof Migration.engineOil, typeof Migration.tirePressure]
> = true

const convert: Convert = () => "no conversion"
// @ts-expect-error a conversion table without one migrated read ("/tires/pressure") is refused
const missing: Converters = { "/odometer": convert, "/location": convert, "/vin": convert, "/engine/oil": convert }
// @ts-expect-error a conversion of a read with no v3 equivalent is refused too
const extra: Converters = { ...converters, "/service/history": convert }
// @ts-expect-error and `reads` has no entry for it
const noServiceHistory = Migration.reads.serviceHistory

describe("Migration: reads and conversions from the legacy reads' table", () => {
  it("types reads from the table, and refuses a conversion table missing a read", () => {
    assert.isTrue(names && typed)
    assert.isDefined(missing && extra)
    assert.isUndefined(noServiceHistory)
  })

  it("reads has every legacy read with a signal code, by its name, in the table's order; the named reads are its entries", () => {
    const migrated = Object.entries(LegacyReads).filter(([, read]) => Migration.signalCodes[read.path] !== undefined)
    assert.deepStrictEqual(Object.keys(Migration.reads), migrated.map(([name]) => name))
    assert.deepStrictEqual(Object.keys(Migration.reads), ["odometer", "location", "vin", "engineOil", "tirePressure"])
    assert.deepStrictEqual(Object.keys(converters), migrated.map(([, read]) => read.path))
    const named = [Migration.odometer, Migration.location, Migration.vin, Migration.engineOil, Migration.tirePressure]
    assert.deepStrictEqual(Object.values(Migration.reads), named)
  })
})
